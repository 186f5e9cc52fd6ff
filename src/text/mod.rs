//! Text as kbidx compares it: `normalize` (NFKC + case folding) and
//! `tokenize` (lindera with the embedded IPADIC). Build, search and every
//! body-text stage use these two and nothing else, so index and queries agree.

pub mod normalize;
pub(crate) mod tokenize;
pub(crate) mod translit;
