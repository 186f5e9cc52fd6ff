//! Derived terms: distinctive words of each section's content, for the index.
//!
//! Hints are curated and miss words users ask about; hint-less corpora have
//! none. At build time [`candidates`] tokenises a section's text with the
//! same normaliser and IPADIC tokenizer as queries and keeps the nouns and
//! identifiers that are whole words of one morpheme: a piece IPADIC cut out
//! of a loanword or a hyphenated identifier is no term (プラグ, イン of
//! プラグイン; see [`tokenize::whole_words`]), and neither is the joined word
//! (as terms, joined words cost dev recall: docs/accuracy.md, Tried and
//! dropped). [`select`] keeps, per section, the `k` words with the highest
//! tf·idf across the whole knowledge base that its title and hints do not
//! already contain. They are written to the index's `terms` column.

use std::collections::HashMap;

use crate::text::normalize::normalize;
use crate::text::tokenize::{self, Pos};

/// Characters of a section's text that are tokenised (bounds time and memory
/// on very large sections; the start of a section is its most telling part).
const MAX_CHARS: usize = 20_000;

/// Distinct candidates kept per section (the most frequent).
const MAX_CANDIDATES: usize = 64;

/// Candidate terms of one section's text with their counts: the most frequent
/// [`MAX_CANDIDATES`], ties broken on the term.
pub(crate) fn candidates(text: &str) -> Vec<(String, u32)> {
    let end = text
        .char_indices()
        .nth(MAX_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let text = normalize(&text[..end]);
    let Ok(tokens) = tokenize::whole_words(&text) else {
        return Vec::new();
    };
    let mut counts: HashMap<String, u32> = HashMap::new();
    for t in tokens {
        if t.pos == Pos::Noun
            && !t.joined
            && tokenize::standalone_noun(&t.surface, &t.subclass)
            && keep(&t.surface)
        {
            *counts.entry(t.surface).or_default() += 1;
        }
    }
    let mut list: Vec<(String, u32)> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    list.truncate(MAX_CANDIDATES);
    list
}

/// Whether a token is worth indexing: 2+ characters (3+ for Latin), not a
/// number, not a markup fragment, not dotted (a file name, package, version
/// or host: `tag_reference.json`, `nablarch.fw.web`, `5.3.0.release`; the
/// names that matter are also written on their own).
fn keep(s: &str) -> bool {
    if s.contains('.') {
        return false;
    }
    let chars = s.chars().count();
    let ascii = s.is_ascii();
    if (ascii && chars < 3) || !(2..=40).contains(&chars) {
        return false;
    }
    if s.chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    {
        return false;
    }
    !matches!(
        s,
        "http"
            | "https"
            | "www"
            | "com"
            | "html"
            | "the"
            | "and"
            | "for"
            | "this"
            | "that"
            | "with"
    )
}

/// Picks at most `k` terms per section: tf·idf over all sections
/// (`(1 + ln tf) · ln(N / df)`), skipping terms found in more than a tenth of
/// the sections and terms already in `covered[i]` (the section's normalised
/// title and hints). Ties break on the term.
pub(crate) fn select(
    candidates: &[Vec<(String, u32)>],
    covered: &[String],
    k: usize,
) -> Vec<String> {
    let n = candidates.len();
    let mut df: HashMap<&str, usize> = HashMap::new();
    for terms in candidates {
        for (t, _) in terms {
            *df.entry(t.as_str()).or_default() += 1;
        }
    }
    let max_df = (n / 10).max(2);
    candidates
        .iter()
        .zip(covered)
        .map(|(terms, covered)| {
            let mut scored: Vec<(f64, &str)> = terms
                .iter()
                .map(|(t, f)| (t.as_str(), *f))
                .filter(|(t, _)| df[t] <= max_df && !covered.contains(t))
                .map(|(t, f)| {
                    (
                        (1.0 + f64::from(f).ln()) * (n as f64 / df[t] as f64).ln(),
                        t,
                    )
                })
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
            scored
                .into_iter()
                .take(k)
                .map(|(_, t)| t)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinctive_terms_win() {
        let docs = [
            "楽観的ロックはバージョンカラムで排他制御を行う。OptimisticLockException が送出される。",
            "ページングは per と page で指定する。",
            "ログ出力の設定。",
        ];
        let cands: Vec<Vec<(String, u32)>> = docs.iter().map(|d| candidates(d)).collect();
        assert!(
            cands[0].iter().any(|(t, _)| t == "optimisticlockexception"),
            "{:?}",
            cands[0]
        );
        let covered = vec!["排他制御".to_owned(), String::new(), String::new()];
        let picked = select(&cands, &covered, 3);
        assert_eq!(picked.len(), 3);
        assert!(!picked[0].split(' ').any(|t| t == "排他"), "{}", picked[0]);
        assert!(picked[1].contains("ページング"), "{}", picked[1]);
    }
}
