//! The search stage: a query against a prepared index, ranked.
//!
//! [`Searcher`] is the one path `kbidx search` and `kbidx eval` share.
//! `query` turns keywords or a question into a [`Query`]; `matcher` prepares
//! the index (row positions, folded cells or the cached word index) and scores
//! rows with `score` (and `hierarchy`, the two-pass file → section blend);
//! `fallback` scores section text when the index pass is unsure; `cache`
//! keeps word indexes between processes; `suggest` proposes words for a
//! second search; `weight` applies the maintainers' path weights; `bm25` is the reference method that
//! `kbidx eval --scoring bm25` compares against.

pub(crate) mod bm25;
pub(crate) mod body;
pub(crate) mod cache;
mod diversity;
pub(crate) mod fallback;
mod fields;
pub(crate) mod haystack;
mod hierarchy;
mod matcher;
pub(crate) mod query;
mod score;
mod searcher;
pub(crate) mod suggest;
pub(crate) mod weight;
mod words;

pub use diversity::Diversity;
pub use fields::Field;
pub use hierarchy::{DEFAULT_ALPHA, DEFAULT_FILES, Hierarchy};
pub use matcher::Matcher;
pub use query::{Keyword, Level, Query};
pub use score::{Hit, Match, Outcome, Scoring, SearchMode};
pub(crate) use searcher::Texts;
pub use searcher::{Body, Ranking, Searcher, Settings};
pub use weight::{Weight, Weights};
pub use words::{WordIndex, text_hash};
