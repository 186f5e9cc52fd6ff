//! kbidx: a section index and keyword search for JSON knowledge bases.
//!
//! Modules follow the data: `knowledge` (finding and reading the knowledge
//! files, the section text in them), `build` (knowledge files → index),
//! `index` (the index model, its TOON text and file), `links` (links
//! between sections and the links file), `lint` (checks for knowledge maintainers), `text` (normalise and tokenise, shared
//! by build and search), `query` (keywords or a question, as every ranking
//! backend takes them), `rank` (what a ranking backend outside the index
//! file returns), `parallel` (work split over threads), `search` (query → ranked rows), `output` (the report
//! a search prints), `answer` (a search request → the answer document, with
//! the content handed over: the one path of search, MCP and eval), `eval` (accuracy over query sets) and `mcp` (the search
//! and read tools over the Model Context Protocol); `init` sets a
//! repository up (configuration, hook, skill, MCP clients); `cli` turns the
//! command line into typed options and calls them.
pub(crate) mod answer;
pub mod build;
pub mod cli;
pub mod config;
pub mod error;
pub mod eval;
#[doc(hidden)]
pub mod fuzzing;
pub mod index;
pub(crate) mod init;
pub mod knowledge;
pub mod links;
pub(crate) mod lint;
pub(crate) mod manual;
pub(crate) mod mcp;
pub(crate) mod output;
pub(crate) mod parallel;
pub(crate) mod pg;
pub(crate) mod progress;
pub mod query;
pub(crate) mod rank;
pub mod search;
pub mod text;
pub(crate) mod timings;

pub use error::{Error, Result};
