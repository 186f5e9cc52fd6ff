//! kbidx: a section index and keyword search for JSON knowledge bases.
pub mod config;
pub mod error;
pub mod extract;
pub mod knowledge;
pub mod model;
pub mod toon;

pub use error::{Error, Result};
