//! What a ranking backend that keeps its own sections returns (PostgreSQL:
//! `crate::pg`): ranked sections with what each matched, plus how many were
//! ranked. The search stage (`crate::search::Searcher`) holds such a backend
//! behind [`Backend`] next to its own index-file backend, and shapes,
//! reports and evaluates either ranking the same way. The contract lives
//! here, below both, so that neither `search` nor a backend imports the other.

use std::collections::HashMap;

use crate::error::Result;
use crate::query::{Level, Query};

/// A backend that ranks sections it holds itself and returns them by
/// reference (the index file's backend ranks rows of the loaded index and
/// is the search stage's own).
pub(crate) trait Backend: std::fmt::Debug {
    /// Sections it holds.
    fn len(&self) -> usize;

    /// The top `top` sections for `query` (those scoring below `min_score`
    /// dropped), best first.
    fn rank(&mut self, query: &Query, top: usize, min_score: Option<f64>) -> Result<Ranked>;

    /// The stored text of each of `references` (`None`: the section has no
    /// text, it could not be read when it was stored).
    fn contents(&mut self, references: &[&str]) -> Result<HashMap<String, Option<String>>>;
}

/// A backend's ranking: sections, best first, and the diagnostics that go
/// with them.
#[derive(Debug, Default)]
pub(crate) struct Ranked {
    pub(crate) sections: Vec<Section>,
    /// How many sections scored (before the cut to `top`).
    pub(crate) total: usize,
}

/// One ranked section.
#[derive(Debug)]
pub(crate) struct Section {
    pub(crate) reference: String,
    pub(crate) title: String,
    pub(crate) score: f64,
    /// The query units it matched: keyword, level and weight.
    pub(crate) matched: Vec<(String, Level, f64)>,
}
