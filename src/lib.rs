//! kbidx: a section index and keyword search for JSON knowledge bases.
pub mod bm25;
pub mod cache;
pub mod cli;
pub mod config;
pub mod content;
pub mod error;
pub mod eval;
pub mod extract;
pub mod fallback;
pub mod index_file;
pub mod knowledge;
pub mod matcher;
pub mod model;
pub mod output;
pub mod pipeline;
pub mod placement;
pub mod terms;
pub mod toon;

pub use error::{Error, Result};
