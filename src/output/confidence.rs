//! How likely a search's top results answer it: `confidence` in the result
//! document, which tells an agent whether to search a second time.
//!
//! The level counts three signals, each scale-free (a ratio of scores, a
//! rank, a count), so that a change of scoring only needs the thresholds
//! re-fitted (`kbidx eval` prints the calibration and, in `--format json`,
//! each query's evidence):
//!
//! - separation: the 10th result scores at most [`Thresholds::tail_ratio`]
//!   of the first (the top stands out from the rest);
//! - agreement: the first result is within the first
//!   [`Thresholds::stage_rank`] of every stage that ranked anything (the
//!   index pass, the body stage);
//! - concepts: the first result matches, in its own fields, at least
//!   [`Thresholds::concepts`] of the query's concepts, or all of them when
//!   the query has fewer. A concept is a keyword, or the synonyms an agent
//!   grouped with `|`: adding a synonym to a group never lowers the count.
//!
//! `high`: all three; `low`: at most one (or no results); else `medium`.
//! The thresholds were chosen on the dev questions (docs/accuracy.md,
//! *Suggestions and confidence*).

use serde::Serialize;

use super::ResultRow;
use crate::search::{Level, Query, Ranking};

/// The thresholds of the three signals (see module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Thresholds {
    /// Separation holds when the 10th result's score over the first's is at most this.
    pub(crate) tail_ratio: f64,
    /// Agreement holds when the first result ranks at most this in every stage.
    pub(crate) stage_rank: usize,
    /// Concepts hold when the first result matches this many concepts (or all).
    pub(crate) concepts: usize,
}

/// The shipped thresholds, fitted on dev (docs/accuracy.md, *Suggestions and confidence*).
pub(crate) const THRESHOLDS: Thresholds = Thresholds {
    tail_ratio: 0.8,
    stage_rank: 2,
    concepts: 8,
};

/// The result whose score [`Confidence::tail_ratio`] compares with the first's.
const TAIL: usize = 10;

/// See module docs.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Confidence {
    /// `high`, `medium` or `low`.
    pub level: &'static str,
    /// The 10th result's score over the first's (0–1; the last result's
    /// when `--top` shows fewer than 10; absent when fewer than 10 rows
    /// scored, which counts as separated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail_ratio: Option<f64>,
    /// The first result's worst rank among the stages that ranked anything
    /// (absent when none did: PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage_rank: Option<usize>,
    /// The query's concepts (L2, L3 and question keywords; grouped synonyms count once).
    pub concepts: usize,
    /// Of those, how many the first result matches in its own fields
    /// (title, hints, terms, path or text; not `file`).
    pub matched_concepts: usize,
}

impl Confidence {
    /// The confidence of `results` (the report of `ranking`) for `query`.
    pub(crate) fn of(query: &Query, report: &super::Report, ranking: &Ranking) -> Self {
        let shown = report.results.len();
        let cut = report.total > shown && shown < TAIL;
        Self::with(query, &report.results, stage_rank(ranking), cut, THRESHOLDS)
    }

    /// [`Confidence::of`], with the first result's stage rank given, under
    /// `thresholds`; `cut`: `--top` cut the results before the 10th (which
    /// then counts as the last shown).
    pub(crate) fn with(
        query: &Query,
        results: &[ResultRow],
        stage_rank: Option<usize>,
        cut: bool,
        thresholds: Thresholds,
    ) -> Self {
        let results: Vec<&ResultRow> = results
            .iter()
            .filter(|r| r.stage != super::Stage::Linked)
            .collect();
        let keywords: Vec<(&str, &[usize])> = query
            .keywords
            .iter()
            .map(|k| {
                // An L1 keyword's own concept is context; the concepts it
                // names when given again at L2 or L3 are not.
                let from = usize::from(k.level == Level::L1);
                (k.norm.as_str(), k.concepts.get(from..).unwrap_or_default())
            })
            .collect();
        let mut concepts: Vec<usize> = keywords.iter().flat_map(|k| k.1).copied().collect();
        concepts.sort_unstable();
        concepts.dedup();
        let Some(first) = results.first() else {
            return Self {
                level: "low",
                concepts: concepts.len(),
                ..Self::default()
            };
        };
        let matched: Vec<(String, Option<String>)> = first
            .matched
            .iter()
            .filter(|m| m.field != "file" && m.field != "weight")
            .map(|m| {
                let from = m
                    .bridge
                    .as_ref()
                    .map(|b| crate::text::normalize::normalize(&b.from));
                (crate::text::normalize::normalize(&m.keyword), from)
            })
            .collect();
        // A keyword of several words counts when any of its words matched
        // (the body stage matches a keyword's words one by one), and an
        // English word when it matched through its katakana (`retry→リトライ`).
        let hit = |word: &str| {
            matched.iter().any(|(m, from)| {
                m == word || word.contains(m.as_str()) || from.as_deref() == Some(word)
            })
        };
        let mut matched_concepts: Vec<usize> = keywords
            .iter()
            .filter(|(word, _)| hit(word))
            .flat_map(|k| k.1)
            .copied()
            .collect();
        matched_concepts.sort_unstable();
        matched_concepts.dedup();
        let tail = if cut {
            results.last()
        } else {
            results.get(TAIL - 1)
        };
        let tail_ratio = tail.map(|tail| match first.score > 0.0 {
            true => (tail.score / first.score).clamp(0.0, 1.0),
            false => 1.0,
        });
        let signals = [
            tail_ratio.is_none_or(|r| r <= thresholds.tail_ratio),
            stage_rank.is_none_or(|r| r <= thresholds.stage_rank),
            !concepts.is_empty()
                && matched_concepts.len() >= thresholds.concepts.min(concepts.len()),
        ];
        let level = match signals.iter().filter(|&&s| s).count() {
            3 => "high",
            2 => "medium",
            _ => "low",
        };
        Self {
            level,
            tail_ratio: tail_ratio.map(super::round),
            stage_rank,
            concepts: concepts.len(),
            matched_concepts: matched_concepts.len(),
        }
    }

    /// One line for text output.
    pub(crate) fn describe(&self) -> String {
        let tail = match self.tail_ratio {
            Some(r) => format!("10th result at {:.0}% of the first's score", r * 100.0),
            None => "fewer than 10 results".to_owned(),
        };
        // Whether the index pass and the text agree, in words an agent can act on.
        let stages = match self.stage_rank {
            Some(r) if r <= THRESHOLDS.stage_rank => {
                "; the index and the text agree on the first".to_owned()
            }
            Some(r) => format!("; the index and the text disagree: the first is #{r} in one"),
            None => String::new(),
        };
        format!(
            "confidence: {} ({tail}{stages}; it matches {} of {} concepts)\n",
            self.level, self.matched_concepts, self.concepts
        )
    }
}

/// The worst rank the first result of `ranking` has among the stages that
/// ranked anything (index pass, body stage); `None` when none did.
fn stage_rank(ranking: &Ranking) -> Option<usize> {
    let &first = ranking.rows().first()?;
    let index: Vec<usize> = ranking.index_hits().iter().map(|h| h.row).collect();
    let body: Vec<usize> = ranking.body_hits().iter().map(|h| h.row).collect();
    [index, body]
        .iter()
        .filter(|rows| !rows.is_empty())
        .map(|rows| {
            // Not ranked by a stage: below everything it ranked.
            rows.iter()
                .position(|&r| r == first)
                .map_or(rows.len() + 1, |p| p + 1)
        })
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::MatchedRow;
    use crate::query::LevelledKeywords;
    use crate::search::body_match::Bridge;
    use proptest::prelude::*;

    /// A result scoring `score`, matching `words` in its title (`a→b`: the
    /// body stage's bridge from `a` to `b`).
    fn row(score: f64, words: &[&str]) -> ResultRow {
        let matched = words
            .iter()
            .map(|w| MatchedRow {
                keyword: (*w).to_owned(),
                level: "l3",
                field: "title",
                points: 1.0,
                partial: None,
                stage: None,
                counted: true,
                why: None,
                factor: None,
                bridge: w.split_once('→').map(|(from, to)| Bridge {
                    from: from.into(),
                    to: to.into(),
                }),
            })
            .collect();
        ResultRow::of(
            "a.json#s1",
            "",
            (score, 1.0),
            crate::output::Stage::Index,
            matched,
        )
    }

    fn query(l2: &[&str], l3: &[&str]) -> Query {
        Query::from_levels(&LevelledKeywords {
            l1: vec!["context".into()],
            l2: l2.iter().map(|s| (*s).to_owned()).collect(),
            l3: l3.iter().map(|s| (*s).to_owned()).collect(),
        })
    }

    fn rank(level: &str) -> u8 {
        match level {
            "high" => 2,
            "medium" => 1,
            _ => 0,
        }
    }

    /// (first result's words, 10th result's score, stage rank) → level:
    /// each signal on its own and together.
    #[test]
    fn level_counts_the_signals() {
        let q = query(&["dao"], &["paging", "limit"]);
        let cases: [(&[&str], f64, Option<usize>, &str); 6] = [
            (&["dao", "paging", "limit"], 0.5, Some(1), "high"),
            (&["dao", "paging", "limit"], 0.9, Some(1), "medium"),
            (&["dao", "paging", "limit"], 0.5, Some(3), "medium"),
            (&["dao", "paging"], 0.5, Some(1), "medium"),
            (&["dao", "paging"], 0.9, Some(5), "low"),
            (&["dao", "paging", "limit"], 0.9, None, "medium"),
        ];
        for (words, tail, stage, want) in cases {
            let mut results = vec![row(10.0, words)];
            results.extend((1..10).map(|_| row(10.0 * tail, &[])));
            let c = Confidence::with(&q, &results, stage, false, THRESHOLDS);
            assert_eq!(c.level, want, "{words:?} {tail} {stage:?}: {c:?}");
        }
        // No results: low.
        let c = Confidence::with(&q, &[], None, false, THRESHOLDS);
        assert_eq!((c.level, c.concepts), ("low", 3));
        // Fewer than 10 results (nothing cut): the top stands out.
        let one = [row(1.0, &["dao", "paging", "limit"])];
        let c = Confidence::with(&q, &one, Some(1), false, THRESHOLDS);
        assert_eq!((c.tail_ratio, c.level), (None, "high"));
        // `--top` cut the list: the last shown result counts.
        let cut = [row(1.0, &["dao"]), row(0.9, &[])];
        let c = Confidence::with(&q, &cut, Some(1), true, THRESHOLDS);
        assert_eq!(c.tail_ratio, Some(0.9));
    }

    /// Grouped synonyms are one concept; a bridged English word counts as itself.
    #[test]
    fn synonyms_of_a_group_count_once() {
        let q = query(&["dao"], &["ページング|paging|改ページ", "retry"]);
        let c = Confidence::with(
            &q,
            &[row(
                1.0,
                &["paging", "改ページ", "retry→リトライ", "context"],
            )],
            Some(1),
            false,
            THRESHOLDS,
        );
        assert_eq!((c.concepts, c.matched_concepts), (3, 2));
        // An L1 keyword given again at L3 is a concept there.
        let q = query(&[], &["context", "paging"]);
        let c = Confidence::with(&q, &[row(1.0, &["context"])], Some(1), false, THRESHOLDS);
        assert_eq!((c.concepts, c.matched_concepts), (2, 1));
    }

    proptest! {
        /// Adding a synonym to a keyword group never lowers the level on its
        /// own (the same results), whether the first result matches it or not.
        #[test]
        fn a_synonym_never_lowers_the_level(
            groups in prop::collection::vec(prop::collection::vec("[a-e]{1,2}", 1..4), 1..10),
            matched in prop::collection::vec("[a-e]{1,2}", 0..12),
            synonym in "[a-f]{1,3}",
            into in 0usize..10,
            tail in 0.0f64..1.0,
            stage in prop::option::of(1usize..5),
        ) {
            let l3: Vec<String> = groups.iter().map(|g| g.join("|")).collect();
            let mut more = l3.clone();
            let at = into % more.len();
            more[at] = format!("{}|{synonym}", more[at]);
            let words: Vec<&str> = matched.iter().map(String::as_str).collect();
            let mut results = vec![row(10.0, &words)];
            results.extend((1..10).map(|_| row(10.0 * tail, &[])));
            for &synonym_matches in &[false, true] {
                let mut results = results.clone();
                if synonym_matches {
                    results[0] = row(10.0, &[words.as_slice(), &[synonym.as_str()]].concat());
                }
                let before = Confidence::with(
                    &Query::from_levels(&LevelledKeywords { l3: l3.clone(), ..Default::default() }),
                    &results, stage, false, THRESHOLDS,
                );
                let after = Confidence::with(
                    &Query::from_levels(&LevelledKeywords { l3: more.clone(), ..Default::default() }),
                    &results, stage, false, THRESHOLDS,
                );
                prop_assert!(
                    rank(after.level) >= rank(before.level),
                    "{l3:?} → {more:?}: {before:?} → {after:?}"
                );
            }
        }
    }
}
