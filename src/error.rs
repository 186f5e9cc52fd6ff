//! The library's one error type and its exit codes.
//!
//! Every failure kbidx reports is an [`Error`]: it names the file it is about
//! first (with `line:column` where the input has lines), is lowercase and has
//! no trailing period. [`Error::exit_code`] maps it to the process exit code
//! (always 2: usage, I/O or data error; "no results" is not an error).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Result alias used throughout the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in kbidx.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done, e.g. "cannot read".
        action: &'static str,
        /// The underlying error.
        source: io::Error,
    },
    /// A file's contents are malformed (invalid JSON, invalid UTF-8, a broken
    /// index row, a jq syntax error …) at a known position.
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A file is well-formed but its data is wrong (jq runtime error, wrong
    /// types, duplicate references, bad keywords JSON …).
    Data {
        /// The file the problem is about.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The command line or configuration asks for something impossible.
    Usage(String),
    /// A `[[weight]]` entry of kbidx.toml is invalid (a bad glob, a factor
    /// that is not a finite number above 0).
    Weight {
        /// The configuration file.
        path: PathBuf,
        /// 1-based line and column (in characters) of the entry.
        line: usize,
        /// See `line`.
        column: usize,
        /// 1-based position of the entry among the `[[weight]]` entries.
        entry: usize,
        /// The entry's glob as written.
        glob: String,
        /// What is wrong.
        message: String,
    },
    /// A reference or path names a file outside the knowledge directory.
    OutsideKnowledge {
        /// The reference or path as given.
        reference: String,
        /// Which rule refused it.
        rule: &'static str,
    },
    /// A reference names a knowledge file that exists but no section of it
    /// (by id, heading text or heading slug).
    NoSection {
        /// The reference as given, relative to the knowledge directory.
        reference: String,
        /// Why nothing matched, and what the file has.
        detail: String,
    },
    /// The extraction program ran longer than the configured limit.
    Timeout {
        /// The extraction program.
        program: PathBuf,
        /// The limit, in seconds.
        seconds: u64,
    },
    /// The Japanese tokenizer (lindera with the embedded IPADIC) failed.
    Tokenizer(String),
    /// PostgreSQL refused or failed (`kbidx pg push`, `search --pg`): a
    /// bad URL, no server, wrong password, missing permissions, a schema
    /// from a newer kbidx.
    Database(String),
}

impl Error {
    /// The process exit code for this error: always 2.
    pub fn exit_code(&self) -> u8 {
        2
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, action: &'static str, source: io::Error) -> Self {
        Self::Io {
            path: path.into(),
            action,
            source,
        }
    }

    /// A data error on `path`.
    pub fn data(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::Data {
            path: path.into(),
            message: message.into(),
        }
    }

    /// A syntax error at byte `offset` of `text`, the contents of `path`.
    pub fn syntax_at(
        path: impl Into<PathBuf>,
        text: &str,
        offset: usize,
        message: impl Into<String>,
    ) -> Self {
        let (line, column) = line_column(text, offset);
        Self::Syntax {
            path: path.into(),
            line,
            column,
            message: message.into(),
        }
    }

    /// A serde_json error in `text`, the contents of `path`, as `path:line:column: {what}: …`
    /// (column in characters; serde_json's own " at line L column C" suffix removed).
    pub fn json(path: impl Into<PathBuf>, text: &str, what: &str, err: &serde_json::Error) -> Self {
        let message = err.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_owned(),
            None => message,
        };
        let line = err.line().max(1);
        let column = text
            .split('\n')
            .nth(line - 1)
            .map_or(err.column().max(1), |line_text| {
                let mut end = err.column().min(line_text.len());
                while !line_text.is_char_boundary(end) {
                    end -= 1;
                }
                line_text[..end].chars().count().max(1)
            });
        Self::Syntax {
            path: path.into(),
            line,
            column,
            message: format!("{what}: {message}"),
        }
    }

    /// Whether this error is a broken pipe on output (treated as success).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Self::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io {
                path,
                action,
                source,
            } => {
                write!(f, "{}: {action}: {}", display(path), io_message(source))
            }
            Self::Syntax {
                path,
                line,
                column,
                message,
            } => {
                write!(f, "{}:{line}:{column}: {message}", display(path))
            }
            Self::Data { path, message } => write!(f, "{}: {message}", display(path)),
            Self::Usage(message) => f.write_str(message),
            Self::Weight {
                path,
                line,
                column,
                entry,
                glob,
                message,
            } => write!(
                f,
                "{}:{line}:{column}: [[weight]] entry {entry} (glob = {glob:?}): {message}",
                display(path)
            ),
            Self::OutsideKnowledge { reference, rule } => write!(
                f,
                "{reference}: refused: {rule} (kbidx reads only files inside the knowledge directory)"
            ),
            Self::NoSection { reference, detail } => write!(f, "{reference}: {detail}"),
            Self::Timeout { program, seconds } => write!(
                f,
                "{}: the extraction program ran for more than {seconds} s and was stopped \
                 (nothing was written; raise `build_timeout` in kbidx.toml or \
                 --timeout if the knowledge base really needs longer)",
                display(program)
            ),
            Self::Tokenizer(message) => write!(f, "tokenizer: {message}"),
            Self::Database(message) => write!(f, "postgresql: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// A path as shown in messages: `/`-separated on every platform.
pub fn display(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// The io::Error text without Rust's " (os error N)" suffix, lowercased first letter.
fn io_message(err: &io::Error) -> String {
    let text = err.to_string();
    let text = match text.find(" (os error") {
        Some(i) => text[..i].to_owned(),
        None => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_characters() {
        let text = "ab\nあいう\nx";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 6), (2, 2));
        assert_eq!(line_column(text, 100), (3, 2));
    }

    #[test]
    fn messages_put_the_path_first() {
        let err = Error::syntax_at("k/a.json", "{\n  x", 4, "expected `:`");
        assert_eq!(err.to_string(), "k/a.json:2:3: expected `:`");
        let err = Error::io(
            "out/index.toon",
            "cannot write",
            io::Error::from(io::ErrorKind::PermissionDenied),
        );
        assert_eq!(
            err.to_string(),
            "out/index.toon: cannot write: permission denied"
        );
        assert_eq!(err.exit_code(), 2);
    }
}
