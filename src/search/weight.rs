//! Path weights set by the knowledge's maintainers (`[[weight]]` in
//! kbidx.toml): a factor on the score of every section whose file matches a
//! glob, so that pages which flood results (API reference, release notes)
//! can be demoted, or a core guide promoted, without editing the knowledge.
//!
//! [`apply`] is the one place a weight acts: on a backend's ranked
//! candidates (index file or PostgreSQL, either mode), before the final
//! order and the cut to `top`, so that a demoted section can leave the list
//! and one from further down can take its place.

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::{Placed, Ranking, Source, Stages};
use crate::index::model::split_reference;

/// One `[[weight]]` entry: files matching `glob` (relative to the knowledge
/// directory, globset syntax like `include`/`exclude`) score `factor` times.
#[derive(Debug, Clone, PartialEq)]
pub struct Weight {
    /// The glob as written.
    pub glob: String,
    /// A finite number above 0: below 1 demotes, above 1 promotes.
    pub factor: f64,
}

/// The configured weights (none by default), compiled once.
#[derive(Debug, Clone, Default)]
pub struct Weights {
    entries: Vec<Weight>,
    set: Option<GlobSet>,
}

impl PartialEq for Weights {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

/// What a weight did to one result: the globs that matched its file (in
/// configuration order), their combined factor, and the points it added to
/// the score (negative when it demoted).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Applied {
    pub(crate) globs: Vec<String>,
    pub(crate) factor: f64,
    pub(crate) points: f64,
}

impl Weights {
    /// Compiles `entries`; the error is the 0-based position of the first bad
    /// entry and what is wrong with it.
    pub fn new(entries: Vec<Weight>) -> Result<Self, (usize, String)> {
        if entries.is_empty() {
            return Ok(Self::default());
        }
        let mut builder = GlobSetBuilder::new();
        for (i, entry) in entries.iter().enumerate() {
            if !(entry.factor.is_finite() && entry.factor > 0.0) {
                return Err((
                    i,
                    format!(
                        "factor must be a finite number above 0, not {}",
                        entry.factor
                    ),
                ));
            }
            let glob = Glob::new(&entry.glob)
                .map_err(|e| (i, format!("invalid glob {:?}: {}", entry.glob, e.kind())))?;
            builder.add(glob);
        }
        let set = builder
            .build()
            .map_err(|e| (0, format!("invalid globs: {e}")))?;
        Ok(Self {
            entries,
            set: Some(set),
        })
    }

    /// Whether no weight is configured (then searches are exactly as without).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in configuration order.
    pub fn entries(&self) -> &[Weight] {
        &self.entries
    }

    /// The combined factor for `file` and the entries that matched it, or
    /// `None` when none does. Several matching entries multiply: each glob
    /// says how much its pages matter, independently of the others.
    pub(crate) fn factor(&self, file: &str) -> Option<(f64, Vec<usize>)> {
        let matched = self.set.as_ref()?.matches(file);
        if matched.is_empty() {
            return None;
        }
        let factor = matched.iter().map(|&i| self.entries[i].factor).product();
        Some((factor, matched))
    }
}

/// Re-ranks `ranking` (a backend's candidates, best first; `references` are
/// their references in order) by their weighted scores and keeps `cut` of
/// them. A result's score and its tie-break (the body stage's score) are
/// multiplied by its file's factor, `normalized_score` too (clamped to 1);
/// equal weighted scores keep the backend's order. The full-text
/// fallback's results, on a scale of their own, stay after the index
/// pass's. With no candidate weighted, the ranking is only cut.
pub(crate) fn apply(weights: &Weights, ranking: &mut Ranking, references: &[String], cut: usize) {
    let factors: Vec<Option<(f64, Vec<usize>)>> = references
        .iter()
        .map(|r| weights.factor(split_reference(r).0))
        .collect();
    if factors.iter().all(Option::is_none) {
        cut_to(ranking, cut);
        return;
    }
    let fused = ranking.results.iter().any(|p| p.fused.is_some());
    let rows = ranking.rows();
    let body: std::collections::HashMap<usize, f64> = ranking
        .body_hits()
        .iter()
        .map(|h| (h.row, h.score))
        .collect();
    let (hits, fallback, sections) = match &ranking.stages {
        Stages::Index { outcome, pass, .. } => (
            &outcome.hits[..],
            pass.as_ref().map_or(&[][..], |p| &p.hits[..]),
            &[][..],
        ),
        Stages::Sections(ranked) => (&[][..], &[][..], &ranked.sections[..]),
    };
    let best_section = sections
        .first()
        .map_or(1.0, |h| h.score.max(f64::MIN_POSITIVE));
    // (position, fallback group, weighted score, weighted normalised, weighted tie, unweighted score)
    let mut keyed: Vec<(usize, u8, f64, f64, f64, f64)> = ranking
        .results
        .iter()
        .enumerate()
        .map(|(i, placed)| {
            let (score, normalized, group) = match (placed.fused, placed.source) {
                (Some((s, n)), _) => (s, n, 0),
                (None, Source::Index(k)) => (hits[k].score, hits[k].normalized, 0),
                (None, Source::Fulltext(k)) => (fallback[k].score, fallback[k].normalized, 1),
                (None, Source::Section(k)) => {
                    let s = sections[k].score;
                    (s, (s / best_section).min(1.0), 0)
                }
                (None, Source::Body(_) | Source::Text(_)) => (0.0, 0.0, 0),
            };
            let tie = match (fused, placed.source) {
                (true, Source::Index(_) | Source::Body(_) | Source::Text(_)) => rows
                    .get(i)
                    .and_then(|r| body.get(r))
                    .copied()
                    .unwrap_or(0.0),
                _ => 0.0,
            };
            let f = factors[i].as_ref().map_or(1.0, |(f, _)| *f);
            (
                i,
                group,
                score * f,
                (normalized * f).min(1.0),
                tie * f,
                score,
            )
        })
        .collect();
    keyed.sort_by(|a, b| {
        a.1.cmp(&b.1)
            .then(b.2.total_cmp(&a.2))
            .then(b.4.total_cmp(&a.4))
            .then(a.0.cmp(&b.0))
    });
    keyed.truncate(cut);
    let mut results: Vec<Option<Placed>> = std::mem::take(&mut ranking.results)
        .into_iter()
        .map(Some)
        .collect();
    ranking.results = keyed
        .iter()
        .filter_map(|k| {
            let mut placed = results[k.0].take()?;
            placed.fused = Some((k.2, k.3));
            placed.weight = factors[k.0].as_ref().map(|(factor, matched)| Applied {
                globs: matched
                    .iter()
                    .map(|&e| weights.entries[e].glob.clone())
                    .collect(),
                factor: *factor,
                points: k.2 - k.5,
            });
            Some(placed)
        })
        .collect();
    if !fused {
        compact(ranking);
    }
}

/// Keeps the first `cut` results of `ranking`.
fn cut_to(ranking: &mut Ranking, cut: usize) {
    if ranking.results.len() <= cut {
        return;
    }
    ranking.results.truncate(cut);
    if ranking.results.iter().all(|p| p.fused.is_none()) {
        compact(ranking);
    }
}

/// Without the body stage, the index pass's hits are exactly the results
/// (at most `cut`, as an unweighted search keeps them): the deeper hits the
/// weights looked at are dropped, the kept ones stay in the index pass's
/// order, and the fallback's count of confident hits follows.
fn compact(ranking: &mut Ranking) {
    let Stages::Index { outcome, pass, .. } = &mut ranking.stages else {
        return;
    };
    let mut kept: Vec<usize> = ranking
        .results
        .iter()
        .filter_map(|p| match p.source {
            Source::Index(k) => Some(k),
            _ => None,
        })
        .collect();
    kept.sort_unstable();
    let mut at = vec![usize::MAX; outcome.hits.len()];
    for (new, &old) in kept.iter().enumerate() {
        at[old] = new;
    }
    let hits = std::mem::take(&mut outcome.hits);
    outcome.hits = hits
        .into_iter()
        .enumerate()
        .filter(|(k, _)| at[*k] != usize::MAX)
        .map(|(_, h)| h)
        .collect();
    for placed in &mut ranking.results {
        if let Source::Index(k) = &mut placed.source {
            *k = at[*k];
        }
    }
    if let Some(pass) = pass {
        pass.confident = super::fallback::confident(outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(entries: &[(&str, f64)]) -> Result<Weights, (usize, String)> {
        Weights::new(
            entries
                .iter()
                .map(|&(glob, factor)| Weight {
                    glob: glob.to_owned(),
                    factor,
                })
                .collect(),
        )
    }

    /// Glob matching (relative paths, `**` across directories, `*` too, as
    /// `include`/`exclude` match) and the product of matching factors.
    /// A file's combined factor and matching entries, or none.
    type Factor = Option<(f64, Vec<usize>)>;

    /// The bad entry's position and message, or none.
    type Named<'a> = Option<(usize, &'a str)>;

    #[test]
    fn factors_multiply_over_matching_globs() {
        let w = weights(&[
            ("javadoc/**", 0.5),
            ("**/release-notes*.json", 0.8),
            ("guide/*.json", 2.0),
        ]);
        assert!(w.is_ok(), "{w:?}");
        let Ok(w) = w else { return };
        let cases: &[(&str, Factor)] = &[
            ("javadoc/nablarch/Foo.json", Some((0.5, vec![0]))),
            ("javadoc.json", None),
            ("about/release-notes-6u2.json", Some((0.8, vec![1]))),
            ("javadoc/release-notes.json", Some((0.4, vec![0, 1]))),
            ("guide/build.json", Some((2.0, vec![2]))),
            // `*` crosses `/` in globset's default syntax, as in `include`.
            ("guide/deep/build.json", Some((2.0, vec![2]))),
            ("troubleshooting.json", None),
        ];
        for (file, want) in cases {
            assert_eq!(&w.factor(file), want, "{file}");
        }
        assert_eq!(Weights::default().factor("javadoc/a.json"), None);
        assert!(Weights::default().is_empty());
    }

    #[test]
    fn bad_entries_are_named() {
        let cases: &[(&[(&str, f64)], Named<'_>)] = &[
            (&[("a/**", 0.5), ("b/**", 1.5)], None),
            (&[("a/**", 1e-9)], None),
            (
                &[("a/**", 0.5), ("b/**", 0.0)],
                Some((1, "factor must be a finite number above 0, not 0")),
            ),
            (
                &[("a/**", -1.0)],
                Some((0, "factor must be a finite number above 0, not -1")),
            ),
            (
                &[("a/**", f64::NAN)],
                Some((0, "factor must be a finite number above 0, not NaN")),
            ),
            (
                &[("a/**", f64::INFINITY)],
                Some((0, "factor must be a finite number above 0, not inf")),
            ),
            (
                &[("a/**", 0.5), ("a/[", 0.5)],
                Some((
                    1,
                    "invalid glob \"a/[\": unclosed character class; missing ']'",
                )),
            ),
        ];
        for (entries, want) in cases {
            let got = weights(entries).err();
            assert_eq!(
                got.as_ref().map(|(i, m)| (*i, m.as_str())),
                *want,
                "{entries:?}"
            );
        }
    }
}
