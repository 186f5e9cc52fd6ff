//! The one search path that `kbidx search` and `kbidx eval` share.
//!
//! [`Searcher::search`] runs the index pass (`matcher`, with the two-pass
//! file → section blend when configured), then the full-text fallback when
//! the index pass is unsure (`fallback`), and returns the merged order as a
//! [`Ranking`]. `output` renders a ranking, `eval` scores it: both see the
//! same rows in the same order, so eval measures the ranking search ships.

use std::cell::OnceCell;
use std::path::PathBuf;

use super::fallback::{self, Corpus, Pass, Source, Status};
use super::{Hierarchy, Matcher, Outcome, Query, Scoring};

/// Search settings beyond the query and the scoring method, as flags and
/// `kbidx.toml` give them.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Two-pass file → section search, when on.
    pub hierarchy: Option<Hierarchy>,
    /// The full-text fallback.
    pub fallback: fallback::Settings,
}

/// An index prepared for searching, with the knowledge directory the
/// fallback reads (its section text is loaded once, on first need).
#[derive(Debug)]
pub struct Searcher<'a> {
    matcher: Matcher<'a>,
    fallback: fallback::Settings,
    knowledge: Option<PathBuf>,
    corpus: OnceCell<Corpus>,
}

/// One search's result: the index pass, what the fallback did, and the
/// final order of rows.
#[derive(Debug)]
pub struct Ranking {
    /// The index pass.
    pub outcome: Outcome,
    /// The fallback stage.
    pub pass: Pass,
    /// The final order: index hits, then the fallback's new hits (at most `top`).
    pub order: Vec<Source>,
}

impl Ranking {
    /// The index rows, in final order.
    pub fn rows(&self) -> Vec<usize> {
        self.order
            .iter()
            .map(|source| match *source {
                Source::Index(i) => self.outcome.hits[i].row,
                Source::Fulltext(i) => self.pass.hits[i].row,
            })
            .collect()
    }
}

impl<'a> Searcher<'a> {
    /// A searcher over `matcher` with `settings`; `knowledge` is the
    /// directory the fallback reads (`None`: the fallback never runs).
    pub fn new(matcher: Matcher<'a>, settings: Settings, knowledge: Option<PathBuf>) -> Self {
        Self {
            matcher: matcher.with_hierarchy(settings.hierarchy),
            fallback: settings.fallback,
            knowledge,
            corpus: OnceCell::new(),
        }
    }

    /// The prepared index.
    pub fn matcher(&self) -> &Matcher<'a> {
        &self.matcher
    }

    /// Whether the fallback can run at all for `scoring` (on, and a knowledge directory exists).
    pub fn fallback_possible(&self, scoring: Scoring) -> bool {
        scoring == Scoring::Default
            && self.fallback.enabled
            && self.knowledge.as_ref().is_some_and(|k| k.is_dir())
    }

    /// Ranks the index for `query`: at most `top` rows, index hits scoring
    /// below `min_score` dropped.
    pub fn search(
        &self,
        query: &Query,
        scoring: Scoring,
        top: usize,
        min_score: Option<f64>,
    ) -> Ranking {
        let outcome = self.matcher.search(query, scoring, top, min_score);
        let pass = self.fallback(scoring, &outcome, query, top);
        let index_rows: Vec<usize> = outcome.hits.iter().map(|h| h.row).collect();
        let fulltext_rows: Vec<usize> = pass.hits.iter().map(|h| h.row).collect();
        let order = fallback::merge(&index_rows, &fulltext_rows, top);
        Ranking {
            outcome,
            pass,
            order,
        }
    }

    /// Runs the fallback if the settings and the index pass's `outcome` call
    /// for it and the knowledge directory exists (else it is skipped, and the
    /// [`Status`] says why).
    fn fallback(&self, scoring: Scoring, outcome: &Outcome, query: &Query, top: usize) -> Pass {
        let mut pass = Pass {
            status: Status::Off,
            confident: fallback::confident(outcome),
            min: self.fallback.min,
            hits: Vec::new(),
            unreadable: 0,
        };
        if scoring != Scoring::Default || !self.fallback.enabled {
            return pass;
        }
        if !self.fallback.needed(outcome, top) {
            pass.status = Status::NotNeeded;
            return pass;
        }
        let Some(knowledge) = self.knowledge.as_ref().filter(|k| k.is_dir()) else {
            pass.status = Status::NoKnowledge;
            return pass;
        };
        let corpus = self
            .corpus
            .get_or_init(|| Corpus::load(&self.matcher.entries(), knowledge));
        pass.status = Status::Ran;
        pass.hits = corpus.search(query, top);
        pass.unreadable = corpus.unreadable;
        pass
    }
}
