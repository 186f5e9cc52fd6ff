//! Text as kbidx compares it: `normalize` (NFKC + case folding) and
//! `tokenize` (lindera with the embedded IPADIC). Build, search and every
//! body-text stage use these two and nothing else, so index and queries agree.

pub mod normalize;
pub(crate) mod tokenize;
pub(crate) mod translit;

use crate::error::Result;
use normalize::normalize;
use tokenize::{Pos, tokenize};

/// The indexed terms of `text`: it is [`normalize`]d and tokenised with IPADIC;
/// nouns and unknown words give their surface, verbs and adjectives their base
/// form; particles, auxiliaries, symbols, adverbs, affixes, other classes and
/// single kana are dropped. Latin words come lowercased (by `normalize`).
pub(crate) fn terms(text: &str) -> Result<Vec<String>> {
    let tokens = tokenize(&normalize(text))?;
    Ok(tokens
        .into_iter()
        .filter_map(|t| {
            let word = match t.pos {
                Pos::Noun => t.surface,
                Pos::Verb | Pos::Adjective => t.base,
                _ if t.unknown && t.pos != Pos::Symbol => t.surface,
                _ => return None,
            };
            let mut chars = word.chars();
            let single_kana =
                matches!((chars.next(), chars.next()), (Some(c), None) if ('\u{3041}'..='\u{30ff}').contains(&c));
            (!single_kana).then_some(word)
        })
        .collect())
}
