//! Text as kbidx compares it: `normalize` (NFKC + case folding) and
//! `tokenize` (lindera with the embedded IPADIC). Build, search and every
//! body-text stage use these two and nothing else, so index and queries agree.

pub mod normalize;
pub(crate) mod tokenize;
pub(crate) mod translit;

use crate::error::Result;
use normalize::normalize;

/// The indexed terms of `text`: it is [`normalize`]d and tokenised with IPADIC;
/// nouns and unknown words give their surface, verbs and adjectives their base
/// form; particles, auxiliaries, symbols, adverbs, affixes, other classes and
/// single kana are dropped. Latin words come lowercased (by `normalize`).
pub(crate) fn terms(text: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    tokenize::each_term(&normalize(text), |w| words.push(w.to_owned()))?;
    Ok(words)
}
