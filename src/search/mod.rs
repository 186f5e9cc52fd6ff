//! The search stage: a query against a prepared index, ranked.
//!
//! [`Searcher`] is the one path `kbidx search` and `kbidx eval` share.
//! It takes a [`Query`] (`crate::query`); `matcher` prepares
//! the index (row positions, folded cells or the cached word index) and scores
//! rows with `score` (and `hierarchy`, the two-pass file → section blend);
//! `fallback` scores section text when the index pass is unsure; `cache`
//! keeps word indexes between processes; `limit` caps the knowledge size for
//! which the body index is built and the fallback runs; `suggest` proposes words for a
//! second search; `weight` applies the maintainers' path weights; `bm25` is the reference method that
//! `kbidx eval --scoring bm25` compares against.

pub(crate) mod bm25;
pub(crate) mod body;
pub(crate) mod body_match;
pub(crate) mod cache;
mod diversity;
pub(crate) mod fallback;
mod fields;
pub(crate) mod haystack;
mod hierarchy;
pub(crate) mod limit;
mod matcher;
mod score;
mod searcher;
pub(crate) mod suggest;
pub(crate) mod weight;
mod words;

pub use crate::query::{Keyword, Level, Query};
pub use diversity::{DEFAULT_COLLAPSE, Diversity};
pub use fields::Field;
pub use hierarchy::{DEFAULT_ALPHA, DEFAULT_FILES, Hierarchy};
pub use limit::DEFAULT_BODY_LIMIT;
pub use matcher::Matcher;
pub use score::{Hit, Match, Outcome, Scoring, SearchMode};
pub use searcher::{
    Body, DEFAULT_KEYWORD_COVERAGE, DEFAULT_L3_COVERAGE, Ranking, Searcher, Settings,
};
pub(crate) use searcher::{Placed, Source, Stages, Texts};
pub use weight::{Weight, Weights};
pub use words::{WordIndex, text_hash};
