//! Matching of index rows against queries: normalisation and tokenisation.
pub mod normalize;
pub mod tokenize;
