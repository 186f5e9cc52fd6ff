//! The document `kbidx build --format json` prints: what was built and what
//! happened to the index file, for CI and agents that rebuild before searching.

use serde::Serialize;

/// `kbidx build` (or `build --check`) as JSON.
#[derive(Debug, Serialize)]
pub(crate) struct BuildReport {
    /// The index file.
    pub index: String,
    /// The knowledge directory.
    pub knowledge: String,
    /// Knowledge files read.
    pub files: usize,
    /// Index rows (sections).
    pub rows: usize,
    /// Warnings, each naming its file first.
    pub warnings: Vec<String>,
    /// `written` (the file was replaced), `unchanged` (it already held these
    /// bytes), and with `--check`: `up to date` or `stale`.
    pub status: &'static str,
    /// Whether the index file differs from the build: `written` and `stale`.
    pub changed: bool,
    /// With `--check` on a stale index: the unified diff, old → new.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Wall-clock seconds the command took (3 decimals).
    pub seconds: f64,
}
