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

use crate::model::{EntryRef, Index};
use normalize::{is_folded, normalize};

/// A cell normalised; borrowed from the index text when only ASCII case
/// differs (the automaton matches ASCII case-insensitively).
fn fold<'a>(cell: &Cow<'a, str>) -> Cow<'a, str> {
    match cell {
        Cow::Borrowed(s) if is_folded(s) => Cow::Borrowed(s),
        other => Cow::Owned(normalize(other)),
    }
}

/// Splits a title written as "file title / section title" (see `src/extract.jq`).
fn split_title<'a>(title: &Cow<'a, str>) -> (Cow<'a, str>, Cow<'a, str>) {
    fn split(s: &str) -> Option<(&str, &str)> {
        let bytes = s.as_bytes();
        let mut from = 0;
        while let Some(i) = s[from..].find('/') {
            let at = from + i;
            if at > 0 && bytes[at - 1] == b' ' && bytes.get(at + 1) == Some(&b' ') {
                return Some((&s[..at - 1], &s[at + 2..]));
            }
            from = at + 1;
        }
        None
    }
    match title {
        Cow::Borrowed(s) => match split(s) {
            Some((file, section)) => (Cow::Borrowed(file), Cow::Borrowed(section)),
            None => (Cow::Borrowed(""), Cow::Borrowed(s)),
        },
        Cow::Owned(s) => match split(s) {
            Some((file, section)) => (Cow::Owned(file.to_owned()), Cow::Owned(section.to_owned())),
            None => (Cow::Borrowed(""), Cow::Owned(s.clone())),
        },
    }
}

/// An index prepared for searching: each row's fields, normalised.
#[derive(Debug)]
pub struct Matcher<'a> {
    entries: Vec<EntryRef<'a>>,
    rows: Vec<[Cow<'a, str>; score::FIELDS]>,
}

impl<'a> Matcher<'a> {
    /// Prepares `index`: normalises title, hints and reference of every row
    /// (a title `A / B` is split into the file title `A` and the section title `B`).
    pub fn new(index: &'a Index) -> Self {
        Self::from_rows(index.entries.iter().map(EntryRef::from).collect())
    }

    /// Prepares rows decoded without copying (`toon::decode_rows`).
    pub fn from_rows(entries: Vec<EntryRef<'a>>) -> Self {
        let rows = entries
            .iter()
            .map(|e| {
                let (file_title, title) = split_title(&e.title);
                [
                    fold(&title),
                    fold(&e.hints),
                    fold(&e.reference),
                    fold(&file_title),
                    fold(&e.terms),
                ]
            })
            .collect();
        Self { entries, rows }
    }

    /// The rows being searched, in index order (what [`Hit::row`] points into).
    pub fn entries(&self) -> &[EntryRef<'a>] {
        &self.entries
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
            Scoring::Seed => score::seed_scoring(&self.entries, query, top, min_score),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Entry;

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
        let outcome = Matcher::new(index).search(&query, scoring, 10, None);
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
        let outcome = Matcher::new(&idx).search(&query, D, 10, None);
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
