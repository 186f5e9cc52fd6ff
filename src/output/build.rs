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
    /// The links file written (checked) with the index.
    pub links_file: String,
    /// Its rows: resolved links between sections.
    pub links: usize,
    /// Characters of the knowledge's string content that no row holds, by
    /// where they sit (`page`: top-level text, `sections`, `index`: index
    /// entries' titles and hints), with their total.
    pub left_out: LeftOutReport,
    /// Warnings, each naming its file first.
    pub warnings: Vec<String>,
    /// Notes on how searches will run: the knowledge is over `body_limit`,
    /// so no body index was built (absent when there is none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What happened to the index file.
    pub status: Status,
    /// Whether the index file differs from the build: `written` and `stale`.
    pub changed: bool,
    /// With `--check` on a stale index: the unified diff, old → new.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Wall-clock seconds the command took (3 decimals).
    pub seconds: f64,
}

/// What `build` did with the index file, or what `build --check` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum Status {
    /// The file was created or replaced.
    #[serde(rename = "written")]
    Written,
    /// The file already held exactly these bytes and was left untouched.
    #[serde(rename = "unchanged")]
    Unchanged,
    /// `--check`: the file equals the build.
    #[serde(rename = "up to date")]
    UpToDate,
    /// `--check`: the file differs from the build (or is missing).
    #[serde(rename = "stale")]
    Stale,
}

impl Status {
    /// Whether the index file differs (differed) from the build.
    pub(crate) fn changed(self) -> bool {
        matches!(self, Self::Written | Self::Stale)
    }
}

/// [`BuildReport::left_out`].
#[derive(Debug, Serialize)]
pub(crate) struct LeftOutReport {
    /// All characters left out.
    pub chars: usize,
    /// By where they sit.
    pub by_reason: crate::knowledge::content::LeftOut,
    /// The files with content left out (at most 20, in file order).
    pub files: Vec<String>,
    /// The top-level fields that are not indexed (neither page text nor
    /// structure or metadata), by name: in how many files, the characters of
    /// their strings and how many of those no row holds.
    pub fields: Vec<crate::knowledge::content::FieldLeftOut>,
}
