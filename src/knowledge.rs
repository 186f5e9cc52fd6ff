//! Finding and reading knowledge files.
//!
//! [`discover`] walks the knowledge directory (following symbolic links, but
//! never around a loop), keeps the files matching the include globs and not
//! the exclude globs, and returns them sorted by their `/`-separated path
//! relative to that directory. [`read_json`] reads one file into a jq value,
//! reporting invalid UTF-8 and invalid JSON with `path:line:column`.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use jaq_json::Val;

use crate::error::{Error, Result};

/// A knowledge file found under the knowledge directory.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct KnowledgeFile {
    /// Path relative to the knowledge directory, `/`-separated.
    pub relative: String,
    /// Path on disk (knowledge directory joined with `relative`).
    pub path: PathBuf,
}

/// What [`discover`] found, plus what it skipped and why.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Matching files, sorted by `relative`.
    pub files: Vec<KnowledgeFile>,
    /// Non-fatal problems (e.g. a symbolic link loop that was skipped).
    pub warnings: Vec<String>,
}

/// Lists the knowledge files under `root` matching `include` and not `exclude`.
pub fn discover(root: &Path, include: &[String], exclude: &[String]) -> Result<Discovery> {
    let meta = std::fs::metadata(root)
        .map_err(|e| Error::io(root, "cannot open knowledge directory", e))?;
    if !meta.is_dir() {
        return Err(Error::data(root, "knowledge path is not a directory"));
    }
    let include = glob_set(include)?;
    let exclude = glob_set(exclude)?;
    let mut found = Discovery::default();
    for entry in walkdir::WalkDir::new(root).follow_links(true) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) if e.loop_ancestor().is_some() => {
                let path = e
                    .path()
                    .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
                found.warnings.push(format!(
                    "{}: symbolic link loop skipped",
                    crate::error::display(&path)
                ));
                continue;
            }
            Err(e) => {
                let path = e
                    .path()
                    .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
                let source = e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("walk failed"));
                return Err(Error::io(path, "cannot read", source));
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let relative = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if include.is_match(&relative) && !exclude.is_match(&relative) {
            found.files.push(KnowledgeFile {
                relative,
                path: entry.path().to_path_buf(),
            });
        }
    }
    found.files.sort();
    Ok(found)
}

/// Reads `path` as one JSON document (a leading UTF-8 byte order mark is allowed).
pub fn read_json(path: &Path) -> Result<Val> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, "cannot read", e))?;
    parse_json(path, &bytes)
}

/// Parses `bytes`, the contents of `path`, as one JSON document.
pub fn parse_json(path: &Path, bytes: &[u8]) -> Result<Val> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // simdutf8 checks the whole file several times faster than `std` for
    // non-ASCII text; `std` then finds where the first invalid byte is.
    let text = match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => {
            let valid = std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
            let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
            return Err(Error::syntax_at(path, text, text.len(), "invalid UTF-8"));
        }
    };
    serde_json::from_str::<Val>(text).map_err(|e| Error::json(path, text, "invalid JSON", &e))
}

fn glob_set(patterns: &[String]) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern)
            .map_err(|e| Error::Usage(format!("invalid glob {pattern:?}: {e}")))?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| Error::Usage(format!("invalid globs: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(bytes: &[u8]) -> String {
        parse_json(Path::new("k/a.json"), bytes)
            .map(|_| ())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn json_errors_carry_line_and_column() {
        assert_eq!(
            err(b"{\n  \"a\": [1,\n}"),
            "k/a.json:3:1: invalid JSON: expected value"
        );
        assert_eq!(
            err("{\"あ\": x}".as_bytes()),
            "k/a.json:1:7: invalid JSON: expected value"
        );
        assert_eq!(err(b"{\"a\": \"\xff\"}"), "k/a.json:1:8: invalid UTF-8");
        assert_eq!(
            err(b""),
            "k/a.json:1:1: invalid JSON: EOF while parsing a value"
        );
    }

    #[test]
    fn bom_is_accepted() {
        assert!(parse_json(Path::new("a.json"), b"\xEF\xBB\xBF{}").is_ok());
    }
}
