//! Finding and reading knowledge files: the one place that opens them.
//!
//! [`discover`] walks the knowledge directory (following symbolic links that
//! stay inside it, never around a loop), keeps the files matching the include
//! globs and not the exclude globs, and returns them sorted by their
//! `/`-separated path relative to that directory.
//!
//! [`read`] is the single reader every stage uses (build, content, the body
//! stage, BM25): one policy, strict. A leading UTF-8 byte order mark is
//! skipped; invalid UTF-8 or JSON is an error naming `path:line:column`. A
//! stage that can go on without a file (a search attaching content) decides
//! what to do with the error; nobody re-parses or defaults silently.
//!
//! [`Root::resolve`] confines paths named by references to the knowledge
//! directory: `..`, absolute paths and symbolic links whose target lies
//! outside it are refused, so an agent tool built on kbidx cannot be used to
//! read arbitrary files.

pub(crate) mod content;

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use jaq_json::Val;
use serde::Deserialize as _;

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

/// [`discover`], refusing a knowledge directory where it finds no file (a
/// wrong path or include globs): nothing is built, linted or set up from it.
pub(crate) fn discover_some(
    root: &Path,
    include: &[String],
    exclude: &[String],
) -> Result<Discovery> {
    let found = discover(root, include, exclude)?;
    if found.files.is_empty() {
        return Err(Error::data(
            root,
            format!("no knowledge files found (include: {})", include.join(", ")),
        ));
    }
    Ok(found)
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
    // Links are followed while they stay inside the directory: one whose
    // target lies outside is skipped with a warning (with its subtree).
    let canonical_root = std::fs::canonicalize(root)
        .map_err(|e| Error::io(root, "cannot open knowledge directory", e))?;
    let mut outside = Vec::new();
    let walk = walkdir::WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        .filter_entry(|entry| {
            if !entry.path_is_symlink() {
                return true;
            }
            // A dangling link stays in: reading it fails and names it.
            let inside = std::fs::canonicalize(entry.path())
                .map_or(true, |target| target.starts_with(&canonical_root));
            if !inside {
                outside.push(entry.path().to_path_buf());
            }
            inside
        });
    for entry in walk {
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
    outside.sort();
    for path in outside {
        found.warnings.push(format!(
            "{}: symbolic link to outside the knowledge directory skipped",
            crate::error::display(&path)
        ));
    }
    found.files.sort();
    Ok(found)
}

/// A knowledge directory, for turning the file part of a reference into a
/// path on disk without ever leaving the directory.
#[derive(Debug)]
pub struct Root {
    dir: PathBuf,
    /// The directory with every link resolved, once it is needed.
    canonical: std::cell::OnceCell<Option<PathBuf>>,
}

impl Root {
    /// The knowledge directory `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            canonical: std::cell::OnceCell::new(),
        }
    }

    /// The path of `file` (a reference's file part, `/`-separated and
    /// relative to the directory), refused when it leaves the directory:
    /// an absolute path, a `..` (or `.`, or a drive prefix) component, or a
    /// symbolic link on the way whose target lies outside. Links that stay
    /// inside are followed. `reference` is what the message names.
    pub fn resolve(&self, reference: &str, file: &str) -> Result<PathBuf> {
        use std::path::Component;
        let refuse = |rule| {
            Err(Error::OutsideKnowledge {
                reference: reference.to_owned(),
                rule,
            })
        };
        let relative = Path::new(file);
        if relative.is_absolute() || file.starts_with('/') || file.starts_with('\\') {
            return refuse("absolute paths are not allowed");
        }
        if file.is_empty()
            || !relative
                .components()
                .all(|c| matches!(c, Component::Normal(_)))
        {
            return refuse(
                "only plain relative paths are allowed (no `..` or `.`); a link's target is read by its path from the knowledge directory",
            );
        }
        let path = self.dir.join(relative);
        // Only a path that exists can lead elsewhere through a link; a
        // missing file is reported as such by whoever opens it.
        if let Ok(real) = std::fs::canonicalize(&path) {
            let inside = self
                .canonical
                .get_or_init(|| std::fs::canonicalize(&self.dir).ok())
                .as_ref()
                .is_some_and(|root| real.starts_with(root));
            if !inside {
                return refuse("a symbolic link points outside the knowledge directory");
            }
        }
        Ok(path)
    }
}

/// A knowledge file, parsed once.
#[derive(Debug)]
pub struct Document {
    value: serde_json::Value,
}

impl Document {
    /// The document as JSON.
    pub fn value(&self) -> &serde_json::Value {
        &self.value
    }

    /// The document as a jq value, for the extraction program.
    pub fn to_jaq(&self) -> Val {
        // Every JSON value has a jq value: this conversion cannot fail.
        Val::deserialize(&self.value).unwrap_or(Val::Null)
    }
}

/// Reads `path` as one knowledge file (see the module comment for the policy).
pub fn read(path: &Path) -> Result<Document> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, "cannot read", e))?;
    parse(path, &bytes)
}

/// Parses `bytes`, the contents of `path`, as one knowledge file.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Document> {
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
    let value =
        serde_json::from_str(text).map_err(|e| Error::json(path, text, "invalid JSON", &e))?;
    Ok(Document { value })
}

pub(crate) fn glob_set(patterns: &[String]) -> Result<GlobSet> {
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
        parse(Path::new("k/a.json"), bytes)
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
        assert!(parse(Path::new("a.json"), b"\xEF\xBB\xBF{}").is_ok());
    }
}
