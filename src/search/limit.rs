//! The cap on the knowledge size for which kbidx reads all of the section
//! text: building a body index takes about 25 times the text in memory (and
//! minutes at a million sections), and the full-text fallback reads every
//! knowledge file. Above the cap (`body_limit` in kbidx.toml) no command
//! builds a body index and the fallback does not run: searches rank on the
//! index alone, as with `--no-body --no-fallback`. A body index already in
//! the search cache is used whatever the size (see `searcher`).

use std::fmt;
use std::path::Path;

use crate::index::model::EntryRef;

/// One mebibyte: the unit of `body_limit`.
pub(crate) const MIB: u64 = 1024 * 1024;

/// The cap unless kbidx.toml sets `body_limit`: 64 MiB, ten times
/// nabledge-6-fulltext's 6.2 MiB of knowledge files.
pub const DEFAULT_BODY_LIMIT: u64 = 64 * MIB;

/// Knowledge over the cap: what a search says once, on stderr (and in JSON's `notes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Oversize {
    /// Bytes of the knowledge files the index's rows come from.
    pub(crate) bytes: u64,
    /// The cap, in bytes.
    pub(crate) limit: u64,
}

impl fmt::Display for Oversize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the knowledge is {}, over body_limit = {} (MiB): ranking on titles, hints and \
             terms only (no body stage, no full-text fallback); raise body_limit in \
             kbidx.toml to search the section text (building its index takes about 25 times \
             the knowledge in memory)",
            size(self.bytes),
            self.limit / MIB
        )
    }
}

/// `bytes` for people: whole bytes under a mebibyte, else MiB with one decimal.
fn size(bytes: u64) -> String {
    if bytes < MIB {
        format!("{bytes} bytes")
    } else {
        // Display only: a mebibyte count fits an f64 exactly far beyond any disk.
        format!("{:.1} MiB", bytes as f64 / MIB as f64)
    }
}

/// The total size of the knowledge files `entries` come from (one status
/// read per file; a file that cannot be read counts 0).
pub(crate) fn knowledge_bytes(entries: &[EntryRef<'_>], knowledge: &Path) -> u64 {
    super::body::files(entries)
        .iter()
        .filter_map(|f| std::fs::metadata(knowledge.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

/// `Some` when the knowledge `entries` come from is over `limit` bytes.
pub(crate) fn check(entries: &[EntryRef<'_>], knowledge: &Path, limit: u64) -> Option<Oversize> {
    let bytes = knowledge_bytes(entries, knowledge);
    (bytes > limit).then_some(Oversize { bytes, limit })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_bytes_or_mebibytes() {
        for (bytes, text) in [
            (0, "0 bytes"),
            (1023, "1023 bytes"),
            (MIB, "1.0 MiB"),
            (1_234_567_890, "1177.4 MiB"),
        ] {
            assert_eq!(size(bytes), text, "{bytes}");
        }
    }

    #[test]
    fn the_note_names_the_size_the_cap_and_the_key() {
        let note = Oversize {
            bytes: 3 * MIB / 2,
            limit: MIB,
        }
        .to_string();
        assert!(note.starts_with("the knowledge is 1.5 MiB, over body_limit = 1 (MiB)"));
        assert!(note.contains("raise body_limit in kbidx.toml"));
        assert!(!note.contains('\n'));
    }
}
