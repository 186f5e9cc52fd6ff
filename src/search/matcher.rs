//! Scoring index rows against a query in one pass.
//!
//! A [`Query`] is a list of levelled keywords (L1 domain, L2 component, L3
//! function), given by the caller or extracted from a plain question.
//! [`Matcher::from_text`] checks every row of the index text once and folds the
//! few cells that need it (see `haystack`); [`Matcher::search`] builds one
//! Aho-Corasick automaton over all the query's keywords (and their compound
//! parts), scans the text once, and ranks rows with the chosen [`Scoring`].
//! Ties break on index order (file path, then section order in the file).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

use super::fields::RowMasks;
use super::haystack::{self, Chunk};
use super::hierarchy;
use super::hierarchy::Files;
use super::score::{self, Patterns};
use super::words::{self, WordIndex};
use super::{Hierarchy, Outcome, Query, Scoring};
use crate::error::Result;
use crate::index::model::{EntryRef, Index};
use crate::index::toon::{self, Table};
use crate::parallel::in_parallel;

/// Indexes with fewer rows than this are searched on one thread.
const PARALLEL_MIN_ROWS: usize = 4096;
/// At most this many threads search one index.
const MAX_THREADS: usize = 4;

/// An index prepared for searching: its text (borrowed, typically mapped from
/// the file), where each row is, and either the folded copies of the cells
/// that need folding, in chunks of rows scanned in parallel, or a word index
/// (see `words`; built, or loaded from the search cache), or both.
#[derive(Debug)]
pub struct Matcher<'a> {
    path: PathBuf,
    text: Cow<'a, str>,
    table: Table,
    /// For the scan; made on first use when the matcher came from a word index.
    chunks: OnceLock<Vec<Chunk>>,
    words: Option<WordIndex>,
    /// The file of each row (for the two-pass search; only when it is on).
    files: Option<Files>,
    /// Two-pass file → section search, when on.
    hierarchy: Option<Hierarchy>,
}

/// Checks every row of `text` and folds the cells that need it, in contiguous
/// chunks of rows, in parallel for large indexes.
fn fold_all(path: &Path, text: &str, table: &Table) -> Result<Vec<Chunk>> {
    let rows = table.len();
    let threads = if rows < PARALLEL_MIN_ROWS {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, MAX_THREADS)
    };
    let size = rows.div_ceil(threads).max(1);
    let ranges: Vec<std::ops::Range<usize>> = (0..rows)
        .step_by(size)
        .map(|start| start..(start + size).min(rows))
        .collect();
    let chunks = in_parallel(&ranges, |r| haystack::fold(path, text, table, r.clone()));
    // The first error in row order, as a sequential check would report it.
    chunks.into_iter().collect()
}

impl Matcher<'static> {
    /// Prepares an index held in memory (encoded to TOON first, as it would be on disk).
    pub fn new(index: &Index) -> Result<Self> {
        Matcher::from_text(Path::new("<index>"), Cow::Owned(toon::encode(index)))
    }
}

impl<'a> Matcher<'a> {
    /// Prepares `text`, the contents of the index file `path`: locates its rows,
    /// checks every row (the errors name `path`, line and column) and folds the
    /// cells that cannot be matched in place. Large indexes are split into
    /// contiguous chunks handled in parallel.
    pub fn from_text(path: &Path, text: Cow<'a, str>) -> Result<Self> {
        let table = toon::locate(path, &text)?;
        let chunks = fold_all(path, &text, &table)?;
        Ok(Self {
            path: path.to_path_buf(),
            text,
            table,
            chunks: OnceLock::from(chunks),
            words: None,
            files: None,
            hierarchy: None,
        })
    }

    /// Prepares `text` with its word index (validated against `text` by
    /// [`WordIndex::from_file`]): nothing is scanned or checked now.
    pub fn from_words(path: &Path, text: Cow<'a, str>, words: WordIndex) -> Self {
        Self {
            path: path.to_path_buf(),
            table: words.table().clone(),
            text,
            chunks: OnceLock::new(),
            words: Some(words),
            files: None,
            hierarchy: None,
        }
    }

    /// Prepares `text` (the index file `path`, whose [`text_hash`] is `hash`)
    /// with a new word index: every row is checked as by [`Matcher::from_text`]
    /// (same errors), but cells are only folded for the word index; the
    /// scan's chunks are made on first use.
    pub fn from_text_with_words(path: &Path, text: Cow<'a, str>, hash: u128) -> Result<Self> {
        let table = toon::locate(path, &text)?;
        let words = WordIndex::build(path, &text, &table, hash)?;
        Ok(Self::from_words(path, text, words))
    }

    /// The index file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The [`text_hash`] of the index text (stored in the word index, when there is one).
    pub(crate) fn text_hash(&self) -> u128 {
        self.words
            .as_ref()
            .map_or_else(|| super::text_hash(&self.text), WordIndex::text_hash)
    }

    /// Builds the word index (`hash`: the text's [`text_hash`]), so that
    /// searches look words up instead of scanning every row.
    pub fn build_words(&mut self, hash: u128) -> Result<()> {
        self.words = Some(WordIndex::build(&self.path, &self.text, &self.table, hash)?);
        Ok(())
    }

    /// The word index, when there is one.
    pub fn words(&self) -> Option<&WordIndex> {
        self.words.as_ref()
    }

    /// Readies the index for many searches (`kbidx mcp`): folds the rows a
    /// scan reads, once, where a single search would fold every row on its
    /// first scan.
    pub fn prepare_for_many(&self) {
        let _ = self.chunks();
    }

    fn chunks(&self) -> &[Chunk] {
        self.chunks.get_or_init(|| {
            // The text was checked when its word index was built (same hash).
            fold_all(&self.path, &self.text, &self.table).unwrap_or_default()
        })
    }

    /// For every row with a match, the fields each pattern matched in: from
    /// the word index when it can answer for every pattern, else by a scan.
    fn masks(&self, patterns: &Patterns) -> Option<RowMasks> {
        let Some(words) = &self.words else {
            return self.scan_all(patterns);
        };
        let list = &patterns.list;
        let found = crate::timings::time("word lookup", || words.masks(patterns))?;
        if list.iter().all(|p| words::usable(p)) {
            return Some(found);
        }
        // A pattern with a space or `#` spans words: it is looked for in the
        // rows that hold every word part of it somewhere, by a scan of those
        // rows for such patterns only; the word index's masks, exact for the
        // other patterns in every row, take in what it finds.
        let Some(rows) = self.rows_to_scan(words, list) else {
            return self.scan_all(patterns);
        };
        let spanning: Vec<usize> = (0..list.len())
            .filter(|&p| !words::usable(&list[p]))
            .collect();
        let texts: Vec<&str> = spanning.iter().map(|&p| list[p].as_str()).collect();
        let automaton = crate::timings::time("automaton", || {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .ascii_case_insensitive(true)
                .kind(Some(score::automaton_kind(&texts)))
                .build(&texts)
                .ok()
        })?;
        let scanned = crate::timings::time("row scan", || {
            haystack::scan_rows(
                &self.text,
                &self.table,
                self.chunks(),
                &automaton,
                spanning.len(),
                &rows,
            )
        });
        Some(haystack::merge_into(
            found,
            scanned.renumber(&spanning),
            list.len(),
        ))
    }

    fn scan_all(&self, patterns: &Patterns) -> Option<RowMasks> {
        let automaton = patterns.automaton()?;
        Some(crate::timings::time("row scan", || {
            haystack::scan_all(
                &self.text,
                &self.table,
                self.chunks(),
                automaton,
                patterns.list.len(),
            )
        }))
    }

    /// The rows where a pattern of `patterns` that the word index cannot
    /// answer may match, in order: those with a word containing each of its
    /// parts between spaces and `#` (a match holds each part inside one of
    /// the row's words), and the rows after each that repeat its file path
    /// (the scan lends them its path matches). `None`: scan every row (a
    /// pattern of separators only, or with a line break).
    fn rows_to_scan(&self, words: &WordIndex, patterns: &[String]) -> Option<Vec<usize>> {
        let mut tokens: Vec<String> = Vec::new();
        let mut needs: Vec<Vec<usize>> = Vec::new();
        for pattern in patterns.iter().filter(|p| !words::usable(p)) {
            if pattern.contains('\n') {
                return None;
            }
            let parts: Vec<usize> = pattern
                .split([' ', '#'])
                .filter(|t| !t.is_empty())
                .map(|t| {
                    tokens.iter().position(|k| k == t).unwrap_or_else(|| {
                        tokens.push(t.to_owned());
                        tokens.len() - 1
                    })
                })
                .collect();
            if parts.is_empty() {
                return None;
            }
            needs.push(parts);
        }
        let holds = words.rows_containing(&tokens)?;
        let bytes = self.text.as_bytes();
        let path = |row: usize| {
            let (rs, re) = (
                self.table.rows[row].0 as usize,
                self.table.rows[row].1 as usize,
            );
            &bytes[rs..rs + haystack::path_len(&bytes[rs..re], &self.table)]
        };
        let mut rows = Vec::new();
        let mut row = 0;
        while row < self.len() {
            if !needs
                .iter()
                .any(|parts| parts.iter().all(|&t| holds[t][row]))
            {
                row += 1;
                continue;
            }
            rows.push(row);
            let shared = path(row);
            row += 1;
            while !shared.is_empty() && row < self.len() && path(row) == shared {
                rows.push(row);
                row += 1;
            }
        }
        Some(rows)
    }

    /// Turns the two-pass file → section search on (`Some`) or off for default scoring.
    #[must_use]
    pub fn with_hierarchy(mut self, hierarchy: Option<Hierarchy>) -> Self {
        if hierarchy.is_some() && self.files.is_none() {
            let files = Files::new((0..self.len()).map(|row| self.entry(row).file().to_owned()));
            self.files = Some(files);
        }
        self.hierarchy = hierarchy;
        self
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether the index has no rows.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Row `row`, decoded (cells borrow from the index text unless they had escapes).
    pub fn entry(&self, row: usize) -> EntryRef<'_> {
        let mut cells = Vec::with_capacity(self.table.columns);
        // Every row was checked in `from_text`.
        match self.table.cells(Path::new(""), &self.text, row, &mut cells) {
            Ok(()) => self.table.entry(&mut cells),
            Err(_) => EntryRef::default(),
        }
    }

    /// Row `row`'s reference, only that cell decoded (see [`Table::reference`]).
    pub(crate) fn reference(&self, row: usize) -> Cow<'_, str> {
        self.table.reference(&self.text, row).unwrap_or_default()
    }

    /// Every row, decoded (for the seed rule and the full-text fallback).
    pub fn entries(&self) -> Vec<EntryRef<'_>> {
        (0..self.len()).map(|row| self.entry(row)).collect()
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
            Scoring::Default => {
                // The two-pass blend, when configured: `hierarchy` re-scores
                // what `score` found; `score` itself knows nothing of it.
                let blend = match (&self.hierarchy, &self.files) {
                    (Some(h), Some(files)) => Some(
                        move |plans: &[score::Plan<'_>],
                              n_pat: usize,
                              masks: &RowMasks,
                              scored: &[(usize, f64)],
                              ideal: f64| {
                            hierarchy::blend(h, files, plans, n_pat, masks, scored, ideal)
                        },
                    ),
                    _ => None,
                };
                score::default_scoring(
                    |patterns| self.masks(patterns),
                    self.len(),
                    query,
                    (top, min_score),
                    blend.as_ref().map(|b| b as &score::Blend<'_>),
                )
            }
            Scoring::Seed => score::seed_scoring(&self.entries(), query, top, min_score),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::model::Entry;
    use crate::search::Level;

    fn index(rows: &[(&str, &str, &str)]) -> Index {
        Index {
            entries: rows
                .iter()
                .map(|(r, t, h)| Entry {
                    reference: (*r).into(),
                    title: (*t).into(),
                    hints: (*h).into(),
                    terms: String::new(),
                })
                .collect(),
        }
    }

    /// Ranked references for levelled keywords `(level, keyword)`.
    fn rank(index: &Index, scoring: Scoring, keywords: &[(Level, &str)]) -> Vec<String> {
        let mut query = Query::default();
        for (level, k) in keywords {
            query.push(k, *level, 1.0);
        }
        let matcher = Matcher::new(index).expect("an encoded index decodes");
        let outcome = matcher.search(&query, scoring, 10, None);
        outcome
            .hits
            .iter()
            .map(|h| index.entries[h.row].reference.clone())
            .collect()
    }

    macro_rules! t {
        ($($name:ident: $rows:expr, $scoring:expr, $kw:expr => $want:expr;)*) => {$(
            #[test]
            fn $name() {
                assert_eq!(rank(&index(&$rows), $scoring, &$kw), $want as Vec<&str>);
            }
        )*};
    }

    use Level::{L1, L2, L3};
    use Scoring::{Default as D, Seed as S};

    t! {
        latin_keywords_need_word_boundaries:
            [("a.json#x", "", "property accessor"), ("b.json#y", "", "per page")], D, [(L3, "per")]
            => vec!["b.json#y"];
        seed_rule_matches_substrings:
            [("a.json#x", "", "property accessor"), ("b.json#y", "", "per page")], S, [(L3, "per")]
            => vec!["a.json#x", "b.json#y"];
        seed_rule_gives_l1_nothing:
            [("a.json#x", "", "データベース"), ("b.json#y", "", "データベース ページング")], S,
            [(L1, "データベース"), (L3, "ページング")]
            => vec!["b.json#y"];
        nfkc_and_case_fold_both_sides:
            [("a.json#x", "", "ＵｎｉｖｅｒｓａｌＤａｏ"), ("b.json#y", "", "ﾍﾟｰｼﾞﾝｸﾞ")], D,
            [(L2, "universaldao"), (L3, "ページング")]
            => vec!["a.json#x", "b.json#y"];
        japanese_compound_gets_partial_credit:
            [("a.json#x", "", "楽観的ロック @Version"), ("b.json#y", "", "悲観的ロック"), ("c.json#z", "", "排他制御")], D,
            [(L3, "楽観ロック")]
            => vec!["a.json#x", "b.json#y"];
        rare_keywords_outweigh_common_ones:
            [("a.json#1", "", "dao common"), ("a.json#2", "", "dao common"), ("a.json#3", "", "dao common"),
             ("b.json#1", "", "paging")], D,
            [(L3, "dao"), (L3, "paging")]
            => vec!["b.json#1", "a.json#1", "a.json#2", "a.json#3"];
        hints_outweigh_paths:
            [("paging.json#a", "", "other"), ("b.json#b", "", "paging")], D, [(L3, "paging")]
            => vec!["b.json#b", "paging.json#a"];
        rows_of_one_file_share_its_path_matches:
            [("a/paging.json#1", "", "x"), ("a/paging.json#2", "", "y"), ("b.json#3", "", "paging"),
             ("a/paging.json#4", "", "z")], D, [(L3, "paging")]
            => vec!["b.json#3", "a/paging.json#1", "a/paging.json#2", "a/paging.json#4"];
        ties_break_on_index_order:
            [("b.json#1", "", "x"), ("a.json#1", "", "x")], D, [(L3, "x")]
            => vec!["b.json#1", "a.json#1"];
    }

    #[test]
    fn explain_reports_level_field_and_parts() {
        let idx = index(&[("a.json#x", "Locks / 楽観的ロック", "version")]);
        let mut query = Query::default();
        query.push("楽観ロック", L3, 1.0);
        query.push("Version", L2, 1.0);
        let matcher = Matcher::new(&idx).expect("an encoded index decodes");
        let outcome = matcher.search(&query, D, 10, None);
        let matched: Vec<(String, &str, &str, Option<Vec<String>>)> = outcome.hits[0]
            .matched
            .iter()
            .map(|m| {
                (
                    m.keyword.clone(),
                    m.level.as_str(),
                    m.field.as_str(),
                    m.partial.clone(),
                )
            })
            .collect();
        assert_eq!(
            matched,
            vec![
                (
                    "楽観ロック".into(),
                    "l3",
                    "title",
                    Some(vec!["楽観".into(), "ロック".into()])
                ),
                ("Version".into(), "l2", "hints", None),
            ]
        );
    }
}
