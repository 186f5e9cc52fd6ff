//! Full-text fallback: a second stage that scores section *content* when the index pass is unsure.
//!
//! The index pass (`matcher`) sees only titles, hints, references and derived
//! terms. When it returns fewer than `min` confident hits (normalised score at
//! least [`CONFIDENT`]) and fewer than `--top`, [`Corpus::load`] reads every indexed section's text
//! from the knowledge files (via `content`) and [`Corpus::search`] scores it
//! against the query's keywords: BM25-style frequency over three fields
//! (title ×3, hints ×2, body ×1, saturated and length-normalised) times a
//! coverage factor (the idf-weighted share of keywords found). Text is
//! normalised with the matcher's `normalize` (NFKC + lowercase) on both sides;
//! Latin keywords match on word boundaries; stop words and keywords shorter
//! than [`MIN_CHARS`] are skipped; a Japanese keyword not found whole earns
//! partial credit from its lindera parts. Each hit carries an excerpt of about
//! [`EXCERPT_CHARS`] characters around its first match in the body.
//! [`merge`] appends the fallback's new hits after the index hits.

use std::collections::HashMap;
use std::path::Path;

use aho_corasick::{AhoCorasick, MatchKind};

use crate::index::model::{EntryRef, split_reference};
use crate::knowledge::Root;
use crate::knowledge::content::Sections;
use crate::search::{Level, Outcome, Query, Source};
use crate::text::normalize::normalize;
use crate::text::tokenize;

/// An index hit is confident when its normalised score is at least this.
pub(crate) const CONFIDENT: f64 = 0.3;
/// Default of `fallback_min`: the fallback runs when fewer index hits are confident.
pub(crate) const DEFAULT_MIN: usize = 3;
/// Keywords shorter than this (in characters) are not searched in the text.
pub(crate) const MIN_CHARS: usize = 2;
/// Corpora with at least this many sections are read on two threads.
const PARALLEL_MIN_ROWS: usize = 1000;
/// Approximate length of an excerpt, in characters.
pub(crate) const EXCERPT_CHARS: usize = 200;
/// Characters of an excerpt before its first match.
const EXCERPT_BEFORE: usize = 60;

/// Field weights of the frequency part: a match in the title counts 3, in the hints 2, in the body 1.
const FIELD_WEIGHTS: [f64; 3] = [3.0, 2.0, 1.0];
/// Field names, as reported in `matched[].field`.
const FIELD_NAMES: [&str; 3] = ["title", "hints", "body"];
/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// Credit of a keyword found only through its compound parts (times the share of parts found).
const PART_CREDIT: f64 = 0.5;

/// Words never searched in section text on their own: they occur in most
/// sections and say nothing about a question (compared after normalisation).
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "する", "できる", "ある", "いる", "なる", "行う", "使う", "思う", "教える", "知る", "わかる",
    "分かる", "たい", "ない", "いい", "よい", "良い", "こと", "もの", "ため", "よう", "方法",
    "場合", "やり方", "仕方", "とき", "何", "どう", "必要", "可能", "実装", "利用", "使用",
    "an", "as", "at", "be", "by", "do", "if", "in", "is", "it", "of", "on", "or", "so", "to",
    "we", "the", "and", "for", "how", "what", "use", "using", "with", "want", "this", "that",
    "can", "does", "from", "into", "should", "when", "where", "which", "why",
];

/// How the fallback is configured (flags and `kbidx.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Whether the fallback may run at all.
    pub enabled: bool,
    /// It runs when fewer than this many index hits are confident (0: never).
    pub min: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            enabled: true,
            min: DEFAULT_MIN,
        }
    }
}

impl Settings {
    /// Whether the index pass's `outcome`, cut at `top`, calls for the
    /// fallback: fewer than `min` confident hits, and room left for more
    /// (fallback hits are appended, see [`merge`]).
    pub fn needed(&self, outcome: &Outcome, top: usize) -> bool {
        self.enabled && confident(outcome) < self.min && outcome.hits.len() < top
    }
}

/// Number of confident hits (normalised score ≥ [`CONFIDENT`]) in `outcome`.
pub(crate) fn confident(outcome: &Outcome) -> usize {
    outcome
        .hits
        .iter()
        .filter(|h| h.normalized >= CONFIDENT)
        .count()
}

/// The indexed sections' text, normalised once, ready for many searches.
#[derive(Debug, Default)]
pub(crate) struct Corpus {
    docs: Vec<Doc>,
    /// Mean body length in characters (at least 1).
    average: f64,
    /// Sections whose text could not be read (missing file, invalid JSON, unknown id).
    pub unreadable: usize,
}

/// One section: its three fields normalised, and the body as written (for excerpts).
#[derive(Debug, Default)]
struct Doc {
    fields: [String; 3],
    body: String,
    chars: usize,
}

/// A section the fallback found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FulltextHit {
    /// Row of the index (as in `Hit::row`).
    pub row: usize,
    /// Score (higher is better).
    pub score: f64,
    /// Score divided by the query's ideal score, 0–1.
    pub normalized: f64,
    /// What matched, in query keyword order.
    pub matched: Vec<TermMatch>,
    /// About [`EXCERPT_CHARS`] characters of the body around the first match, on one line.
    pub excerpt: String,
}

/// One keyword's contribution to a fallback hit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TermMatch {
    /// The keyword as given.
    pub keyword: String,
    /// Its level.
    pub level: Level,
    /// The best field it matched in: `title`, `hints` or `body`.
    pub field: &'static str,
    /// Weighted occurrences over the three fields.
    pub count: f64,
    /// Points added (its frequency points times the section's coverage; they sum to the score).
    pub points: f64,
    /// `Some(parts)` when only compound parts matched.
    pub partial: Option<Vec<String>>,
}

/// A searchable keyword: its whole form and its compound parts (pattern ids).
struct Plan<'q> {
    text: &'q str,
    level: Level,
    weight: f64,
    whole: usize,
    parts: Vec<(String, usize)>,
}

impl Corpus {
    /// Reads the text of every row in `entries` from the knowledge directory
    /// `knowledge` (each file once). A section that cannot be read counts as
    /// empty text and is counted in [`Corpus::unreadable`].
    pub(crate) fn load(entries: &[EntryRef<'_>], knowledge: &Path) -> Self {
        // Large corpora are read in two halves (split between files) in parallel.
        let mid = entries.len() / 2;
        let split = if entries.len() >= PARALLEL_MIN_ROWS {
            let file = |i: usize| split_reference(&entries[i].reference).0;
            mid + entries[mid..]
                .iter()
                .take_while(|e| split_reference(&e.reference).0 == file(mid))
                .count()
        } else {
            entries.len()
        };
        let halves: Vec<&[EntryRef<'_>]> = match entries.split_at(split) {
            (all, []) => vec![all],
            (first, second) => vec![first, second],
        };
        let mut docs = Vec::with_capacity(entries.len());
        let mut unreadable = 0;
        for (part, n) in crate::parallel::in_parallel(&halves, |half| Self::read(half, knowledge)) {
            docs.extend(part);
            unreadable += n;
        }
        Self::from_docs(docs, unreadable)
    }

    /// The documents of `entries` (consecutive rows of whole files) and how many were unreadable.
    fn read(entries: &[EntryRef<'_>], knowledge: &Path) -> (Vec<Doc>, usize) {
        let mut docs = Vec::with_capacity(entries.len());
        let mut unreadable = 0;
        let mut i = 0;
        while i < entries.len() {
            let file = split_reference(&entries[i].reference).0;
            let end = i + entries[i..]
                .iter()
                .take_while(|e| split_reference(&e.reference).0 == file)
                .count();
            // Unreadable files (missing, invalid, or outside the knowledge
            // directory) give no text: the fallback is best effort.
            let document = Root::new(knowledge)
                .resolve(file, file)
                .and_then(|path| crate::knowledge::read(&path))
                .ok();
            let sections = document.as_ref().map(|d| Sections::new(d.value()));
            for e in &entries[i..end] {
                let id = split_reference(&e.reference).1;
                let body = sections.as_ref().and_then(|s| s.text(id));
                if body.is_none() {
                    unreadable += 1;
                }
                docs.push(Doc::new(&e.title, &e.hints, body.unwrap_or_default()));
            }
            i = end;
        }
        (docs, unreadable)
    }

    /// A corpus of `(title, hints, body)` rows, in row order (for tests).
    #[cfg(test)]
    pub(crate) fn from_texts(rows: &[(&str, &str, &str)]) -> Self {
        let docs = rows
            .iter()
            .map(|(t, h, b)| Doc::new(t, h, (*b).to_owned()))
            .collect();
        Self::from_docs(docs, 0)
    }

    fn from_docs(docs: Vec<Doc>, unreadable: usize) -> Self {
        let total: usize = docs.iter().map(|d| d.chars).sum();
        let average = (total as f64 / docs.len().max(1) as f64).max(1.0);
        Self {
            docs,
            average,
            unreadable,
        }
    }

    /// Scores every section against `query`; returns the best `top`, best
    /// first (ties on row order), each with its excerpt.
    ///
    /// Long on purpose: one scan of every section with the query's automaton,
    /// then scoring, coverage and excerpts over the same per-section counts.
    pub(crate) fn search(&self, query: &Query, top: usize) -> Vec<FulltextHit> {
        let mut patterns: Vec<String> = Vec::new();
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut intern = |s: &str| -> usize {
            *ids.entry(s.to_owned()).or_insert_with(|| {
                patterns.push(s.to_owned());
                patterns.len() - 1
            })
        };
        let mut plans = Vec::new();
        for k in &query.keywords {
            if !searchable(&k.norm) {
                continue;
            }
            let whole = intern(&k.norm);
            let mut parts = Vec::new();
            if !k.norm.is_ascii() {
                let split = tokenize::parts(&k.norm).unwrap_or_default();
                if split.len() >= 2 {
                    for p in split.iter().filter(|p| searchable(p) && **p != k.norm) {
                        parts.push((p.clone(), intern(p)));
                    }
                }
            }
            let level_weight = if k.level == Level::L1 { 0.3 } else { 1.0 };
            plans.push(Plan {
                text: &k.text,
                level: k.level,
                weight: level_weight * k.weight,
                whole,
                parts,
            });
        }
        if plans.is_empty() || top == 0 {
            return Vec::new();
        }
        let Ok(automaton) = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(crate::search::score::automaton_kind(&patterns)))
            .build(&patterns)
        else {
            return Vec::new();
        };

        // One scan: per section, each pattern's occurrences per field.
        let n_pat = patterns.len();
        let mut counts: Vec<Vec<(usize, [u32; 3])>> = Vec::with_capacity(self.docs.len());
        let mut df = vec![0usize; n_pat];
        let mut scratch = vec![[0u32; 3]; n_pat];
        let mut touched = Vec::new();
        for doc in &self.docs {
            for (f, text) in doc.fields.iter().enumerate() {
                for m in automaton.find_overlapping_iter(text.as_str()) {
                    if !on_word_boundaries(text, m.start(), m.end()) {
                        continue;
                    }
                    let p = m.pattern().as_usize();
                    if scratch[p] == [0; 3] {
                        touched.push(p);
                    }
                    scratch[p][f] += 1;
                }
            }
            let mut row = Vec::with_capacity(touched.len());
            for p in touched.drain(..) {
                df[p] += 1;
                row.push((p, scratch[p]));
                scratch[p] = [0; 3];
            }
            counts.push(row);
        }
        let n = self.docs.len() as f64;
        let idf = |p: usize| super::bm25::idf(n, df[p] as f64);
        // A keyword found nowhere weighs as much as one found in a single section.
        let rare = super::bm25::idf(n, 1.0);
        let ideal_weights: Vec<f64> = plans
            .iter()
            .map(|k| k.weight * if df[k.whole] == 0 { rare } else { idf(k.whole) })
            .collect();
        let ideal: f64 = ideal_weights.iter().sum();

        let mut hits = Vec::new();
        for (row, row_counts) in counts.iter().enumerate() {
            if row_counts.is_empty() {
                continue;
            }
            let count_of = |p: usize| {
                row_counts
                    .iter()
                    .find(|(q, _)| *q == p)
                    .map_or([0; 3], |(_, c)| *c)
            };
            let norm = K1 * (1.0 - B + B * self.docs[row].chars as f64 / self.average);
            let saturate = |tf: f64| tf * (K1 + 1.0) / (tf + norm);
            let mut score = 0.0;
            let mut covered = 0.0;
            let mut matched = Vec::new();
            for (k, ideal_k) in plans.iter().zip(&ideal_weights) {
                let whole = count_of(k.whole);
                let (c, credit, weight_idf, field_counts, partial) = if whole != [0; 3] {
                    (whole, 1.0, idf(k.whole), whole, None)
                } else {
                    let found: Vec<&(String, usize)> = k
                        .parts
                        .iter()
                        .filter(|(_, p)| count_of(*p) != [0; 3])
                        .collect();
                    if found.is_empty() {
                        continue;
                    }
                    let mut sum = [0u32; 3];
                    for (_, p) in &found {
                        for (s, c) in sum.iter_mut().zip(count_of(*p)) {
                            *s += c;
                        }
                    }
                    let mean_idf =
                        found.iter().map(|(_, p)| idf(*p)).sum::<f64>() / found.len() as f64;
                    let share = found.len() as f64 / k.parts.len() as f64;
                    let names = found.iter().map(|(s, _)| s.clone()).collect();
                    (sum, PART_CREDIT * share, mean_idf, sum, Some(names))
                };
                let tf: f64 = c
                    .iter()
                    .zip(FIELD_WEIGHTS)
                    .map(|(&n, w)| f64::from(n) * w)
                    .sum::<f64>()
                    / if partial.is_some() {
                        k.parts.len().max(1) as f64
                    } else {
                        1.0
                    };
                let points = k.weight * weight_idf * credit * saturate(tf);
                score += points;
                covered += ideal_k * credit;
                let field = field_counts
                    .iter()
                    .position(|&n| n > 0)
                    .map_or("body", |i| FIELD_NAMES[i]);
                matched.push(TermMatch {
                    keyword: k.text.to_owned(),
                    level: k.level,
                    field,
                    count: tf,
                    points,
                    partial,
                });
            }
            let coverage = if ideal > 0.0 { covered / ideal } else { 0.0 };
            let score = score * coverage;
            // Report each keyword's share of the final score (they sum to it).
            for m in &mut matched {
                m.points *= coverage;
            }
            if score > 0.0 {
                hits.push(FulltextHit {
                    row,
                    score,
                    normalized: 0.0,
                    matched,
                    excerpt: String::new(),
                });
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
        hits.truncate(top);
        // The best a section can do: every keyword whole, saturated frequency.
        let best = ideal * (K1 + 1.0);
        for h in &mut hits {
            h.normalized = if best > 0.0 {
                (h.score / best).min(1.0)
            } else {
                0.0
            };
            let terms: Vec<&str> = plans
                .iter()
                .flat_map(|k| {
                    std::iter::once(patterns[k.whole].as_str())
                        .chain(k.parts.iter().map(|(s, _)| s.as_str()))
                })
                .collect();
            h.excerpt = excerpt(&self.docs[h.row].body, &terms);
        }
        hits
    }
}

impl Doc {
    fn new(title: &str, hints: &str, body: String) -> Self {
        let norm = normalize(&body);
        Self {
            chars: norm.chars().count(),
            fields: [normalize(title), normalize(hints), norm],
            body,
        }
    }
}

/// Whether a normalised keyword is searched in the text: long enough and not a stop word.
fn searchable(norm: &str) -> bool {
    norm.chars().count() >= MIN_CHARS && !STOP_WORDS.contains(&norm)
}

/// Whether `text[start..end]` sits on word boundaries at its ASCII-alphanumeric
/// ends (Japanese ends always do): `per` does not match in `property`.
pub(crate) fn on_word_boundaries(text: &str, start: usize, end: usize) -> bool {
    on_word_boundaries_bytes(text.as_bytes(), start, end)
}

/// [`on_word_boundaries`] over UTF-8 bytes (the body index's section text).
pub(crate) fn on_word_boundaries_bytes(b: &[u8], start: usize, end: usize) -> bool {
    let alnum = |x: u8| x.is_ascii_alphanumeric();
    let left = start == 0 || !alnum(b[start]) || !alnum(b[start - 1]);
    let right = end == b.len() || !alnum(b[end - 1]) || !alnum(b[end]);
    left && right
}

/// About [`EXCERPT_CHARS`] characters of `body` (as written, white space
/// collapsed to single spaces) around the first occurrence of any of the
/// normalised `terms`, with `…` where it was cut; the start of the body when
/// none occurs in it.
pub(crate) fn excerpt(body: &str, terms: &[&str]) -> String {
    // Normalise word by word (white space separated), remembering where each
    // word starts in the original, so that a match maps back to it.
    let words: Vec<&str> = body.split_whitespace().collect();
    let mut norm = String::new();
    let mut starts: Vec<(usize, usize)> = Vec::with_capacity(words.len()); // (norm byte, word index)
    for (i, w) in words.iter().enumerate() {
        if !norm.is_empty() {
            norm.push(' ');
        }
        starts.push((norm.len(), i));
        norm.push_str(&normalize(w));
    }
    let first = terms
        .iter()
        .filter(|t| !t.is_empty())
        .filter_map(|t| {
            norm.match_indices(*t)
                .map(|(at, _)| at)
                .find(|&at| on_word_boundaries(&norm, at, at + t.len()))
        })
        .min();
    // The hit as a character position in the space-joined original words.
    let flat: Vec<char> = words.join(" ").chars().collect();
    let hit = first.map_or(0, |at| {
        let k = starts.partition_point(|&(s, _)| s <= at) - 1;
        let (s, i) = starts[k];
        let word = words[i];
        let norm_word = &norm[s..];
        let within = norm_word[..at - s].chars().count();
        let norm_len = normalize(word).chars().count().max(1);
        let orig_len = word.chars().count();
        let before: usize = words[..i].iter().map(|w| w.chars().count() + 1).sum();
        before + (within * orig_len / norm_len).min(orig_len)
    });
    let start = hit.saturating_sub(EXCERPT_BEFORE);
    let end = (start + EXCERPT_CHARS).min(flat.len());
    let start = end.saturating_sub(EXCERPT_CHARS).min(start);
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    s.extend(&flat[start..end]);
    if end < flat.len() {
        s.push('…');
    }
    s
}

/// What the fallback did in one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Disabled (`--no-fallback`, `fallback = false`, or `--scoring seed`).
    Off,
    /// Enough index hits were confident.
    NotNeeded,
    /// Needed, but the knowledge directory does not exist.
    NoKnowledge,
    /// Needed, but the knowledge is over `body_limit` (see `limit`).
    TooLarge,
    /// It ran.
    Ran,
}

impl Status {
    /// `off`, `not needed`, `no knowledge directory`, `over body_limit` or `ran`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::NotNeeded => "not needed",
            Self::NoKnowledge => "no knowledge directory",
            Self::TooLarge => "over body_limit",
            Self::Ran => "ran",
        }
    }
}

/// The fallback stage of one search.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pass {
    /// What happened.
    pub status: Status,
    /// Confident index hits.
    pub confident: usize,
    /// The settings' `min`.
    pub min: usize,
    /// The fallback's hits, best first (empty unless it ran).
    pub hits: Vec<FulltextHit>,
    /// Sections whose text could not be read (when it ran).
    pub unreadable: usize,
}

/// The result order: every index hit, in order, then the fallback's hits
/// whose row the index pass did not return; at most `top`.
///
/// Appending was chosen by `kbidx eval` (docs/accuracy.md): it never moved
/// an index hit out of the top `top`, while interleaving or fusing the two
/// rankings lost sections the index ranked 20th–26th on nabledge-6-large.
pub(crate) fn merge(index_rows: &[usize], fulltext_rows: &[usize], top: usize) -> Vec<Source> {
    let fresh = (0..fulltext_rows.len())
        .filter(|&i| !index_rows.contains(&fulltext_rows[i]))
        .map(Source::Fulltext);
    (0..index_rows.len())
        .map(Source::Index)
        .chain(fresh)
        .take(top)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(words: &[&str]) -> Query {
        let mut q = Query::default();
        for w in words {
            q.push(w, Level::L3, 1.0);
        }
        q
    }

    /// Rows ranked by the fallback for `keywords` over `(title, hints, body)` rows.
    fn rank(rows: &[(&str, &str, &str)], keywords: &[&str]) -> Vec<usize> {
        Corpus::from_texts(rows)
            .search(&query(keywords), 10)
            .iter()
            .map(|h| h.row)
            .collect()
    }

    macro_rules! t {
        ($($name:ident: $rows:expr, $kw:expr => $want:expr;)*) => {$(
            #[test]
            fn $name() {
                let want: Vec<usize> = $want;
                assert_eq!(rank(&$rows, &$kw), want);
            }
        )*};
    }

    t! {
        body_matches_count:
            [("A", "", "ロールバックの説明"), ("B", "", "関係のない本文")], ["ロールバック"]
            => vec![0];
        title_outweighs_hints_outweighs_body:
            [("x", "", "コミット"), ("y", "コミット", "z"), ("コミット", "", "w"), ("v", "", "無関係")],
            ["コミット"]
            => vec![2, 1, 0];
        coverage_beats_frequency:
            [("a", "", "境界 境界 境界 境界 境界 境界"), ("b", "", "境界 コミット")], ["境界", "コミット"]
            => vec![1, 0];
        normalised_both_sides_fullwidth:
            [("a", "", "ＵｎｉｖｅｒｓａｌＤａｏ を使う"), ("b", "", "ﾍﾟｰｼﾞﾝｸﾞ")], ["UniversalDAO"]
            => vec![0];
        normalised_both_sides_halfwidth_kana:
            [("a", "", "ＵｎｉｖｅｒｓａｌＤａｏ を使う"), ("b", "", "ﾍﾟｰｼﾞﾝｸﾞ")], ["ページング"]
            => vec![1];
        latin_needs_word_boundaries:
            [("a", "", "property accessor"), ("b", "", "per page")], ["per"]
            => vec![1];
        stop_words_and_short_keywords_are_skipped:
            [("a", "", "実装する方法"), ("b", "", "x y")], ["実装", "方法", "x"]
            => vec![];
        compound_parts_give_partial_credit:
            [("a", "", "楽観的ロックを使う"), ("b", "", "排他制御")], ["楽観ロック"]
            => vec![0];
        ties_break_on_row_order:
            [("a", "", "dao"), ("b", "", "dao")], ["dao"]
            => vec![0, 1];
    }

    #[test]
    fn hits_report_fields_and_normalised_score() {
        let corpus =
            Corpus::from_texts(&[("ロック", "", "楽観的ロックはバージョン番号で排他制御する")]);
        let hits = corpus.search(&query(&["排他制御", "ロック"]), 10);
        assert_eq!(hits.len(), 1);
        let fields: Vec<(&str, &str)> = hits[0]
            .matched
            .iter()
            .map(|m| (m.keyword.as_str(), m.field))
            .collect();
        assert_eq!(fields, [("排他制御", "body"), ("ロック", "title")]);
        assert!(
            hits[0].normalized > 0.0 && hits[0].normalized <= 1.0,
            "{hits:?}"
        );
    }

    #[test]
    fn excerpts_center_on_the_first_hit() {
        let long = format!("{}キーワード{}", "前".repeat(300), "後".repeat(300));
        let cut = excerpt(&long, &["キーワード"]);
        assert!(cut.starts_with('…') && cut.ends_with('…'), "{cut}");
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 2);
        assert_eq!(
            cut.find("キーワード").map(|i| cut[..i].chars().count()),
            Some(EXCERPT_BEFORE + 1)
        );
        for (body, terms, want) in [
            // Short bodies come whole, white space collapsed to single spaces.
            (
                "## Title\n\nfirst  line\nsecond",
                vec!["second"],
                "## Title first line second",
            ),
            // No match: the start of the body.
            ("abc def", vec!["xyz"], "abc def"),
            // Matching is on normalised text; the excerpt keeps the original.
            (
                "UniversalDao で検索",
                vec!["universaldao"],
                "UniversalDao で検索",
            ),
            ("", vec!["x"], ""),
        ] {
            assert_eq!(excerpt(body, &terms), want, "{body}");
        }
        // A full-width word maps back to its original position.
        let body = format!("{} ＤＡＯ {}", "a ".repeat(100), "b ".repeat(100));
        let cut = excerpt(&body, &["dao"]);
        assert!(cut.starts_with('…'), "{cut}");
        assert_eq!(
            cut.find("ＤＡＯ").map(|i| cut[..i].chars().count()),
            Some(EXCERPT_BEFORE + 1)
        );
    }

    #[test]
    fn merge_appends_and_never_duplicates() {
        use Source::{Fulltext as F, Index as I};
        for (index, fulltext, top, want) in [
            (vec![10, 11], vec![20, 21], 10, vec![I(0), I(1), F(0), F(1)]),
            // A fallback hit the index found is skipped.
            (
                vec![10, 11, 12],
                vec![11, 20],
                10,
                vec![I(0), I(1), I(2), F(1)],
            ),
            // Cut at top.
            (vec![10, 11], vec![20, 21], 3, vec![I(0), I(1), F(0)]),
            // No index hits.
            (vec![], vec![20], 5, vec![F(0)]),
            // A full list leaves no room.
            (vec![10, 11], vec![20], 2, vec![I(0), I(1)]),
        ] {
            assert_eq!(merge(&index, &fulltext, top), want);
        }
    }

    #[test]
    fn needed_only_when_unsure_and_there_is_room() {
        use crate::search::Hit;
        let outcome = |scores: &[f64]| Outcome {
            hits: scores
                .iter()
                .enumerate()
                .map(|(row, &n)| Hit {
                    row,
                    score: n,
                    normalized: n,
                    matched: Vec::new(),
                })
                .collect(),
            total: scores.len(),
            mode: None,
            ideal: 1.0,
        };
        let on = Settings {
            enabled: true,
            min: 2,
        };
        let off = Settings {
            enabled: false,
            min: 2,
        };
        for (settings, scores, top, want) in [
            (on, vec![0.9, 0.5], 30, false), // two confident hits
            (on, vec![0.9, 0.29], 30, true), // one: fewer than min
            (on, vec![], 30, true),          // none at all
            (on, vec![0.1, 0.1], 2, false),  // unsure, but no room left
            (off, vec![], 30, false),        // disabled
            (
                Settings {
                    enabled: true,
                    min: 0,
                },
                vec![],
                30,
                false,
            ),
        ] {
            assert_eq!(
                settings.needed(&outcome(&scores), top),
                want,
                "{scores:?} top {top}"
            );
        }
    }
}
