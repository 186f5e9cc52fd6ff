//! The index: its model (one [`model::Entry`] per section), its TOON text
//! (`toon`) and the index file on disk (`file`).

pub(crate) mod file;
pub mod model;
pub mod toon;
