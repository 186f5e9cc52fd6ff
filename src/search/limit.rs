//! The cap on the knowledge size for which kbidx reads all of the section
//! text: building a body index takes about 25 times the text in memory (and
//! minutes at a million sections), and the full-text fallback reads every
//! knowledge file. Above the cap (`body_limit` in kbidx.toml) no command
//! builds a body index and the fallback does not run: searches rank on the
//! index alone, as with `--no-body --no-fallback`. A body index already in
//! the search cache is used whatever the size (see `searcher`).

use std::fmt;
use std::path::Path;

use crate::index::model::split_reference;

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

/// The total size of the knowledge files that `references` (the index's,
/// in row order) come from: each file as `body::files` lists it, one status
/// read per file; a file that cannot be read counts 0. An iterator, not the
/// decoded rows: a million rows decoded at once cost more than a search.
pub(crate) fn knowledge_bytes<S: AsRef<str>>(
    references: impl IntoIterator<Item = S>,
    knowledge: &Path,
) -> u64 {
    let mut bytes = 0;
    let mut last: Option<String> = None;
    for reference in references {
        let file = split_reference(reference.as_ref()).0;
        if last.as_deref() != Some(file) {
            bytes += std::fs::metadata(knowledge.join(file)).map_or(0, |m| m.len());
            last = Some(file.to_owned());
        }
    }
    bytes
}

/// [`knowledge_bytes`] of an index of `rows` rows, `reference(row)` giving
/// each row's reference, reading about 2·log₂(rows per file) references per
/// file instead of every row: a run of one file's rows is found by doubling
/// the step until the file changes, then halving back to where it does. It
/// relies on each file's rows being consecutive, as in every index `kbidx
/// build` writes; in an index edited by hand so that they are not, a file
/// whose rows lie between two rows of another may go uncounted.
pub(crate) fn knowledge_bytes_by_runs<'a>(
    rows: usize,
    reference: impl Fn(usize) -> std::borrow::Cow<'a, str>,
    knowledge: &Path,
) -> u64 {
    let file = |row: usize| -> String { split_reference(&reference(row)).0.to_owned() };
    let mut bytes = 0;
    let mut start = 0;
    while start < rows {
        let name = file(start);
        // `same` holds `name`; `other` is the first row known not to (or the end).
        let (mut same, mut step) = (start, 1);
        let mut other = loop {
            match start.checked_add(step).filter(|&r| r < rows) {
                Some(probe) if file(probe) == name => same = probe,
                Some(probe) => break probe,
                None => break rows,
            }
            step *= 2;
        };
        while other - same > 1 {
            let mid = same + (other - same) / 2;
            if file(mid) == name {
                same = mid;
            } else {
                other = mid;
            }
        }
        bytes += std::fs::metadata(knowledge.join(&name)).map_or(0, |m| m.len());
        start = other;
    }
    bytes
}

/// `Some` when the knowledge `references` come from is over `limit` bytes.
pub(crate) fn check<S: AsRef<str>>(
    references: impl IntoIterator<Item = S>,
    knowledge: &Path,
    limit: u64,
) -> Option<Oversize> {
    let bytes = knowledge_bytes(references, knowledge);
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

    /// Each file once, as `body::files` lists the files the body index reads.
    #[test]
    fn knowledge_bytes_count_each_file_of_the_rows_once() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("a.json"), "12345")?;
        std::fs::write(dir.path().join("b.json"), "123")?;
        std::fs::write(dir.path().join("unused.json"), "1234567")?;
        let rows = ["a.json#x", "a.json#y", "b.json#z", "missing.json#w"];
        assert_eq!(knowledge_bytes(rows, dir.path()), 8);
        // By runs: the same, for every run length around the doubling steps.
        for lengths in [[1, 1, 1], [2, 3, 1], [5, 1, 9], [8, 7, 16]] {
            let mut refs: Vec<String> = Vec::new();
            for (file, n) in ["a.json", "b.json", "missing.json"].iter().zip(lengths) {
                refs.extend((0..n).map(|i| format!("{file}#s{i}")));
            }
            let by_runs = knowledge_bytes_by_runs(
                refs.len(),
                |row| std::borrow::Cow::Borrowed(refs[row].as_str()),
                dir.path(),
            );
            assert_eq!(by_runs, 8, "{lengths:?}");
            assert_eq!(knowledge_bytes(&refs, dir.path()), 8, "{lengths:?}");
        }
        let one = |n: usize| knowledge_bytes_by_runs(n, |_| "a.json#x".into(), dir.path());
        assert_eq!((one(0), one(1), one(1000)), (0, 5, 5));
        assert_eq!(check(rows, dir.path(), 8), None);
        assert_eq!(
            check(rows, dir.path(), 7),
            Some(Oversize { bytes: 8, limit: 7 })
        );
        Ok(())
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
