//! Scoring index rows against a query in one pass.
//!
//! A [`Query`] is a list of levelled keywords (L1 domain, L2 component, L3
//! function), given by the caller or extracted from a plain question.
//! [`Matcher::new`] normalises every row once; [`Matcher::search`] builds one
//! Aho-Corasick automaton over all the query's keywords (and their compound
//! parts), scans each row once, and ranks rows with the chosen [`Scoring`].
//! Ties break on index order (file path, then section order in the file).

pub mod normalize;
pub mod query;
mod score;
pub mod tokenize;

pub use query::{Keyword, Level, Query};
pub use score::{Field, Hit, Match, Outcome, Scoring};

use std::borrow::Cow;

use crate::model::Index;
use normalize::{is_folded, normalize};

/// `text` normalised, borrowed when only ASCII case differs (matched case-insensitively).
fn fold(text: &str) -> Cow<'_, str> {
    if is_folded(text) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(normalize(text))
    }
}

/// An index prepared for searching: each row's fields, normalised.
#[derive(Debug)]
pub struct Matcher<'a> {
    index: &'a Index,
    rows: Vec<[Cow<'a, str>; score::FIELDS]>,
}

impl<'a> Matcher<'a> {
    /// Prepares `index`: normalises title, hints and reference of every row
    /// (a title `A / B` is split into the file title `A` and the section title `B`).
    pub fn new(index: &'a Index) -> Self {
        let rows = index
            .entries
            .iter()
            .map(|e| {
                // Titles written by the default program read "file title / section title".
                let (file_title, title) = e.title.split_once(" / ").unwrap_or(("", &e.title));
                [
                    fold(title),
                    fold(&e.hints),
                    fold(&e.reference),
                    fold(file_title),
                ]
            })
            .collect();
        Self { index, rows }
    }

    /// The index being searched.
    pub fn index(&self) -> &'a Index {
        self.index
    }

    /// Scores every row against `query`; returns the best `top` hits scoring at least `min_score`.
    pub fn search(
        &self,
        query: &Query,
        scoring: Scoring,
        top: usize,
        min_score: Option<f64>,
    ) -> Outcome {
        match scoring {
            Scoring::Default => score::default_scoring(&self.rows, query, top, min_score),
            Scoring::Seed => score::seed_scoring(self.index, query, top, min_score),
        }
    }
}
