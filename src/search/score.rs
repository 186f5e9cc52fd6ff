//! The two scoring methods: the design's seed rule and kbidx's default.
//!
//! Seed: a keyword scores when it occurs, lowercased, in `reference + hints`;
//! L1 0 points, each distinct L2/L3 keyword 2 points; rows below 2 dropped.
//! Default: NFKC + case folding on both sides, word boundaries for Latin
//! keywords, IDF weighting, field weights and partial credit for Japanese
//! compounds (see [`default_scoring`]). Both rank by score, then index order.

use std::cell::OnceCell;
use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::fields::{FIELDS, Field, RowMasks};
use crate::index::model::EntryRef;
use crate::query::{Keyword, Level, Query};
use crate::text::tokenize;

/// Which scoring method to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scoring {
    /// kbidx's scoring (see module docs).
    #[default]
    Default,
    /// The design's seed rule, reproduced exactly.
    Seed,
}

impl Scoring {
    /// `default` or `seed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Seed => "seed",
        }
    }
}

/// The mode a default-scoring search ran in.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchMode {
    /// `true` when pass 2 re-ranked the sections of the best files.
    pub hierarchical: bool,
    /// Why, in a few words with the numbers that decided it.
    pub reason: String,
}

impl SearchMode {
    /// Whether scores are blended (0–1) rather than raw section scores.
    pub fn is_hierarchical(&self) -> bool {
        self.hierarchical
    }

    /// `hierarchical` or `flat`.
    pub fn as_str(&self) -> &'static str {
        if self.hierarchical {
            "hierarchical"
        } else {
            "flat"
        }
    }
}

/// One keyword's contribution to a hit.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// The keyword as given.
    pub keyword: String,
    /// Its level.
    pub level: Level,
    /// The best field it matched in.
    pub field: Field,
    /// Points it added.
    pub points: f64,
    /// `Some(parts)` when only compound parts matched (partial credit).
    pub partial: Option<Vec<String>>,
}

/// A scored row.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Position of the row in the index.
    pub row: usize,
    /// Score (higher is better).
    pub score: f64,
    /// Score divided by the query's ideal score, in 0–1.
    pub normalized: f64,
    /// What matched, in query keyword order.
    pub matched: Vec<Match>,
}

/// The ranked result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The best hits, best first.
    pub hits: Vec<Hit>,
    /// How many rows passed the minimum score before the top-N cut.
    pub total: usize,
    /// Default scoring with the two-pass search on: which mode ran and why.
    pub mode: Option<SearchMode>,
    /// The score `normalized` divides by: a row matching every keyword in
    /// its hints (0 when no keyword can score).
    pub ideal: f64,
}

/// The seed rule: see module docs.
pub(super) fn seed_scoring(
    entries: &[EntryRef<'_>],
    query: &Query,
    top: usize,
    min_score: Option<f64>,
) -> Outcome {
    let keywords: Vec<(String, &super::Keyword)> = query
        .keywords
        .iter()
        .map(|k| (k.text.to_lowercase(), k))
        .collect();
    let min = min_score.unwrap_or(2.0);
    let mut hits = Vec::new();
    for (row, entry) in entries.iter().enumerate() {
        let text = format!("{} {}", entry.reference, entry.hints).to_lowercase();
        let mut score = 0.0;
        let mut matched = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for (lower, k) in &keywords {
            if lower.is_empty() || seen.contains(&lower.as_str()) || !text.contains(lower.as_str())
            {
                continue;
            }
            seen.push(lower);
            let points = if k.level == Level::L1 { 0.0 } else { 2.0 };
            score += points;
            let field = if entry.hints.to_lowercase().contains(lower.as_str()) {
                Field::Hints
            } else {
                Field::Path
            };
            matched.push(Match {
                keyword: k.text.clone(),
                level: k.level,
                field,
                points,
                partial: None,
            });
        }
        if score >= min && score > 0.0 {
            hits.push(Hit {
                row,
                score,
                normalized: 0.0,
                matched,
            });
        }
    }
    let ideal = 2.0
        * keywords
            .iter()
            .filter(|(_, k)| k.level != Level::L1)
            .count() as f64;
    finish(hits, top, ideal)
}

/// kbidx's default scoring.
///
/// For each keyword `k` with level weight `L` (L1 0.3, L2/L3/question 1.0,
/// times 0.5 for a compound part from a question) and
/// `idf(k) = ln(1 + (N − df + 0.5) / (df + 0.5))` over the N rows, a row gains
/// `L · idf(k) · F`, where `F` is the best matching field's weight (hints 1.0,
/// title 0.9, path 0.7) plus 0.2 for each further field it matched in. Latin
/// keywords match only at word boundaries (`per` does not hit `property`); one
/// of 4+ letters that only starts a word (`rest` in `restful`) earns half
/// credit. Contributions under 0.01 points are dropped.
/// A Japanese keyword that does not occur as a whole earns partial credit
/// from its lindera parts: `L · 0.6 · (m/n) · mean idf(matched parts) · F`
/// for m of n parts (楽観ロック vs 楽観的ロック).
pub(super) fn default_scoring(
    scan: impl FnOnce(&Patterns) -> Option<RowMasks>,
    n_rows: usize,
    query: &Query,
    limits: (usize, Option<f64>),
    blend: Option<&Blend<'_>>,
) -> Outcome {
    let (top, min_score) = limits;
    // Patterns: every keyword, then the parts of Japanese keywords.
    let mut patterns: Vec<String> = Vec::new();
    let mut pattern_id: HashMap<String, usize> = HashMap::new();
    let mut intern = |s: &str, patterns: &mut Vec<String>| -> usize {
        *pattern_id.entry(s.to_owned()).or_insert_with(|| {
            patterns.push(s.to_owned());
            patterns.len() - 1
        })
    };
    let mut plans = Vec::with_capacity(query.keywords.len());
    for k in query.keywords.iter().filter(|k| !k.norm.is_empty()) {
        let whole = intern(&k.norm, &mut patterns);
        let mut parts = Vec::new();
        if !k.norm.is_ascii() {
            let split = tokenize::parts(&k.norm).unwrap_or_default();
            if split.len() >= 2 {
                for p in split
                    .iter()
                    .filter(|p| p.chars().count() >= 2 && **p != k.norm)
                {
                    parts.push((p.clone(), intern(p, &mut patterns)));
                }
            }
        }
        plans.push(Plan {
            keyword: k,
            whole,
            parts,
        });
    }
    let empty = || Outcome {
        hits: Vec::new(),
        total: 0,
        mode: None,
        ideal: 0.0,
    };
    if patterns.is_empty() {
        return empty();
    }
    let n_pat = patterns.len();
    let patterns = Patterns {
        list: patterns,
        automaton: OnceCell::new(),
    };
    // For every row, the fields each pattern matched in.
    let Some(masks) = scan(&patterns) else {
        return empty();
    };
    let mut df = vec![0usize; n_pat];
    for &(p, _) in &masks.items {
        df[p as usize] += 1;
    }
    let scorer = Scorer::new(&plans, &df, n_rows);
    let mut scored: Vec<(usize, f64)> = masks
        .rows
        .iter()
        .enumerate()
        .map(|(i, &row)| (row, scorer.score(masks.row(i), masks.curated[i], None)))
        .filter(|&(_, score)| score > 0.0)
        .collect();
    let ideal = scorer.ideal();
    let mut mode = None;
    if let Some(blend) = blend {
        let (blended, why) = blend(&plans, n_pat, &masks, &scored, ideal);
        if let Some(blended) = blended {
            scored = blended;
        }
        mode = Some(why);
    }
    scored.retain(|&(_, score)| min_score.is_none_or(|m| score >= m));
    let total = scored.len();
    // Best first, ties in index order: a total order (rows are unique), so
    // selecting the top `top` before sorting them gives the full sort's list.
    let order = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if top < scored.len() {
        scored.select_nth_unstable_by(top, order);
        scored.truncate(top);
    }
    scored.sort_by(order);
    let blended = mode.as_ref().is_some_and(SearchMode::is_hierarchical);
    let hits = scored
        .into_iter()
        .map(|(row, score)| {
            let i = masks.rows.partition_point(|&r| r < row);
            let mut matched = Vec::new();
            scorer.score(masks.row(i), masks.curated[i], Some(&mut matched));
            let normalized = if blended {
                score.min(1.0)
            } else if ideal > 0.0 {
                (score / ideal).min(1.0)
            } else {
                0.0
            };
            Hit {
                row,
                score,
                normalized,
                matched,
            }
        })
        .collect();
    Outcome {
        hits,
        total,
        mode,
        ideal: if blended { 1.0 } else { ideal },
    }
}

/// A second pass over the flat scores (the two-pass file → section blend,
/// see `hierarchy`): given the keywords' plans, the pattern count, the scan's
/// masks, the flat `(row, score)` list and the ideal score, the re-scored
/// rows (`None`: the flat ranking stands) and the mode that says why. The
/// matcher passes it in, so scoring does not depend on the blend.
pub(super) type Blend<'a> = dyn Fn(
        &[Plan<'_>],
        usize,
        &RowMasks,
        &[(usize, f64)],
        f64,
    ) -> (Option<Vec<(usize, f64)>>, SearchMode)
    + 'a;

/// A query's patterns, and the automaton that finds them all, built when a
/// scan first needs it (the word index's sorted suffixes need none).
pub(super) struct Patterns {
    pub(super) list: Vec<String>,
    automaton: OnceCell<Option<AhoCorasick>>,
}

impl Patterns {
    /// The automaton (`None` if it cannot be built: far beyond any query's
    /// size; the search then finds nothing).
    pub(super) fn automaton(&self) -> Option<&AhoCorasick> {
        self.automaton
            .get_or_init(|| {
                crate::timings::time("automaton", || {
                    AhoCorasick::builder()
                        .match_kind(MatchKind::Standard)
                        .ascii_case_insensitive(true)
                        .kind(Some(automaton_kind(&self.list)))
                        .build(&self.list)
                        .ok()
                })
            })
            .as_ref()
    }
}

/// A keyword's patterns: its whole text and, for a Japanese compound, its lindera parts.
#[derive(Debug)]
pub(super) struct Plan<'q> {
    /// The keyword.
    pub(super) keyword: &'q Keyword,
    /// Pattern id of the whole keyword.
    pub(super) whole: usize,
    /// (part, pattern id) of each part.
    pub(super) parts: Vec<(String, usize)>,
}

/// Scores a unit's (pattern, field mask) pairs: see [`default_scoring`].
pub(super) struct Scorer<'p, 'q> {
    plans: &'p [Plan<'q>],
    /// idf of each pattern: `ln(1 + (N − df + 0.5) / (df + 0.5))`.
    idf: Vec<f64>,
    /// Per plan, a bit per pattern of its whole and parts (patterns 0–63;
    /// all bits set when it has a later one): a unit that matched none of
    /// them skips the plan, as the plan would score nothing there.
    uses: Vec<u64>,
}

impl<'p, 'q> Scorer<'p, 'q> {
    /// A scorer whose idf comes from `df` (per pattern) over `n` units.
    pub(super) fn new(plans: &'p [Plan<'q>], df: &[usize], n: usize) -> Self {
        let n = n as f64;
        let idf = df
            .iter()
            .map(|&d| {
                let d = d as f64;
                (1.0 + (n - d + 0.5) / (d + 0.5)).ln()
            })
            .collect();
        let bit = |p: usize| if p < 64 { 1u64 << p } else { u64::MAX };
        let uses = plans
            .iter()
            .map(|plan| {
                plan.parts
                    .iter()
                    .fold(bit(plan.whole), |set, &(_, p)| set | bit(p))
            })
            .collect();
        Self { plans, idf, uses }
    }

    /// The score of a unit that matched every keyword whole in its best field.
    pub(super) fn ideal(&self) -> f64 {
        self.plans
            .iter()
            .map(|plan| {
                level_weight(plan.keyword.level) * plan.keyword.weight * self.idf[plan.whole]
            })
            .sum()
    }

    /// The unit's score; with `explain`, what each keyword contributed.
    pub(super) fn score(
        &self,
        masks: &[(u32, u16)],
        curated: bool,
        mut explain: Option<&mut Vec<Match>>,
    ) -> f64 {
        let mask_of = |p: usize| {
            masks
                .iter()
                .find(|(q, _)| *q as usize == p)
                .map_or(0, |(_, m)| *m)
        };
        // The patterns the unit matched (a later pattern than 63 matches every plan).
        let present = masks.iter().fold(0u64, |set, &(p, _)| {
            set | if p < 64 { 1u64 << p } else { u64::MAX }
        });
        let mut score = 0.0;
        for (plan, &uses) in self.plans.iter().zip(&self.uses) {
            if uses & present == 0 {
                continue;
            }
            let k = plan.keyword;
            let lw = level_weight(k.level) * k.weight;
            let full = mask_of(plan.whole);
            let (mask, credit) = if full & FULL != 0 {
                (full & FULL, 1.0)
            } else {
                (full >> FIELDS, PREFIX_CREDIT)
            };
            let (points, field, partial) = if mask != 0 {
                let (field, f) = field_score(mask, curated);
                (lw * self.idf[plan.whole] * f * credit, field, None)
            } else if !plan.parts.is_empty() {
                let mut union = 0u16;
                let mut idf_sum = 0.0;
                let mut hit = 0;
                for (_, p) in &plan.parts {
                    let m = mask_of(*p) & FULL;
                    if m != 0 {
                        union |= m;
                        idf_sum += self.idf[*p];
                        hit += 1;
                    }
                }
                if hit == 0 {
                    continue;
                }
                let (field, f) = field_score(union, curated);
                let frac = f64::from(hit) / plan.parts.len() as f64;
                (
                    lw * 0.6 * frac * (idf_sum / f64::from(hit)) * f,
                    field,
                    Some(()),
                )
            } else {
                continue;
            };
            if points < MIN_POINTS {
                continue;
            }
            score += points;
            if let Some(out) = explain.as_deref_mut() {
                out.push(Match {
                    keyword: k.text.clone(),
                    level: k.level,
                    field,
                    points,
                    partial: partial.map(|()| {
                        plan.parts
                            .iter()
                            .filter(|(_, p)| mask_of(*p) & FULL != 0)
                            .map(|(s, _)| s.clone())
                            .collect()
                    }),
                });
            }
        }
        score
    }
}

/// L1 keywords (the domain) weigh 0.3; L2, L3 and question keywords 1.
fn level_weight(level: Level) -> f64 {
    if level == Level::L1 { 0.3 } else { 1.0 }
}

/// Best field and the field factor for a match mask.
fn field_score(mask: u16, curated: bool) -> (Field, f64) {
    // Rows with curated hints rely on their derived terms less.
    let weight = |f: Field| {
        if curated && f == Field::Terms {
            CURATED_TERMS_WEIGHT
        } else {
            f.weight()
        }
    };
    // The heaviest matched field (the first in `Field::ALL` order on a tie),
    // without allocating: this runs for every matching row.
    let mut best: Option<(Field, f64)> = None;
    let mut count = 0u32;
    for (i, f) in Field::ALL.iter().enumerate() {
        if mask & (1 << i) != 0 {
            count += 1;
            let w = weight(*f);
            if best.is_none_or(|(_, b)| w > b) {
                best = Some((*f, w));
            }
        }
    }
    let (best, w) = best.unwrap_or((Field::Hints, weight(Field::Hints)));
    (best, w + 0.2 * f64::from(count.saturating_sub(1)))
}

/// Weight of a derived-terms match in a row that has hints.
const CURATED_TERMS_WEIGHT: f64 = 0.15;

/// Contributions below this are dropped: a keyword found in (nearly) every row,
/// such as `json` in every path, says nothing about any of them.
const MIN_POINTS: f64 = 0.01;

/// Mask bits of whole-word matches (the bits above are word-prefix matches).
const FULL: u16 = (1 << FIELDS) - 1;
/// Credit of a word-prefix match relative to a whole-word match.
const PREFIX_CREDIT: f64 = 0.5;

/// Sorts (score desc, then row asc), fills normalised scores, cuts to `top`.
fn finish(mut hits: Vec<Hit>, top: usize, ideal: f64) -> Outcome {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
    let total = hits.len();
    hits.truncate(top);
    for h in &mut hits {
        h.normalized = if ideal > 0.0 {
            (h.score / ideal).min(1.0)
        } else {
            0.0
        };
    }
    Outcome {
        hits,
        total,
        mode: None,
        ideal,
    }
}

/// Total pattern bytes up to which the scan uses a DFA: the fastest scan,
/// but its construction grows with the square of the patterns' length (a
/// pasted 10,000-character keyword took 0.26 s, 200,000 over a minute);
/// longer patterns get the contiguous NFA, built in linear time.
const DFA_MAX_PATTERN_BYTES: usize = 4096;

/// The automaton kind for `patterns` (see [`DFA_MAX_PATTERN_BYTES`]).
pub(crate) fn automaton_kind(patterns: &[impl AsRef<str>]) -> AhoCorasickKind {
    if patterns.iter().map(|p| p.as_ref().len()).sum::<usize>() <= DFA_MAX_PATTERN_BYTES {
        AhoCorasickKind::DFA
    } else {
        AhoCorasickKind::ContiguousNFA
    }
}
