//! The index model: one [`Entry`] per section, in canonical order.
//!
//! An [`Index`] is what `kbidx build` writes and `kbidx search` reads. It
//! owns the invariants (unique references, file order then program order)
//! but not the encoding, which lives in `toon`.

use std::borrow::Cow;

/// One section row of the index.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    /// `<path relative to the knowledge directory>#<section id>`.
    pub reference: String,
    /// The section's title (or its file's title when the section has none).
    pub title: String,
    /// The section's hints joined by single spaces, in source order.
    pub hints: String,
    /// Derived terms: distinctive words of the section's content (see `terms`);
    /// empty when derivation is off.
    pub terms: String,
}

impl Entry {
    /// The file part of the reference (before the first `#` after the last `/`).
    pub fn file(&self) -> &str {
        split_reference(&self.reference).0
    }

    /// The section id part of the reference.
    pub fn section(&self) -> &str {
        split_reference(&self.reference).1
    }
}

/// An index row whose cells may borrow from the index text (see `toon::decode_rows`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryRef<'a> {
    /// `<path>#<section id>`.
    pub reference: Cow<'a, str>,
    /// The title.
    pub title: Cow<'a, str>,
    /// The hints.
    pub hints: Cow<'a, str>,
    /// The derived terms.
    pub terms: Cow<'a, str>,
}

impl EntryRef<'_> {
    /// An owned [`Entry`].
    pub fn into_owned(self) -> Entry {
        Entry {
            reference: self.reference.into_owned(),
            title: self.title.into_owned(),
            hints: self.hints.into_owned(),
            terms: self.terms.into_owned(),
        }
    }

    /// The file part of the reference.
    pub fn file(&self) -> &str {
        split_reference(&self.reference).0
    }

    /// The section id part of the reference.
    pub fn section(&self) -> &str {
        split_reference(&self.reference).1
    }
}

impl<'a> From<&'a Entry> for EntryRef<'a> {
    fn from(e: &'a Entry) -> Self {
        Self {
            reference: Cow::Borrowed(&e.reference),
            title: Cow::Borrowed(&e.title),
            hints: Cow::Borrowed(&e.hints),
            terms: Cow::Borrowed(&e.terms),
        }
    }
}

/// Splits `path#section` at the first `#` after the last `/`.
pub fn split_reference(reference: &str) -> (&str, &str) {
    // memchr: this runs for every row on every search.
    let start = memchr::memrchr(b'/', reference.as_bytes()).map_or(0, |i| i + 1);
    match memchr::memchr(b'#', &reference.as_bytes()[start..]) {
        Some(i) => (&reference[..start + i], &reference[start + i + 1..]),
        None => (reference, ""),
    }
}

/// The whole index: entries in file order, then in the order the program emitted them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Index {
    /// The rows.
    pub entries: Vec<Entry>,
}

impl Index {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the index has no rows.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Looks up an entry by its reference.
    pub fn get(&self, reference: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.reference == reference)
    }
}

#[cfg(test)]
mod tests {
    use super::split_reference;

    #[test]
    fn references_split_after_the_last_slash() {
        assert_eq!(split_reference("a/b.json#paging"), ("a/b.json", "paging"));
        assert_eq!(split_reference("a#b/c.json#x#y"), ("a#b/c.json", "x#y"));
        assert_eq!(split_reference("c.json"), ("c.json", ""));
    }
}
