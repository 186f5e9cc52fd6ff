//! What a keyword match is, wherever it is found: the row [`Field`] it is
//! in, whether it sits on word boundaries ([`match_bit`]), and the per-row
//! masks of (pattern, fields) that the scan (`haystack`, `words`) produces
//! and scoring (`score`, `hierarchy`) consumes.

/// A row field a keyword can match in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    /// The section (or file) title.
    Title,
    /// The hints.
    Hints,
    /// The reference (`path#section`).
    Path,
    /// The file's title: the part of a `file title / section title` title before ` / `.
    FileTitle,
    /// Derived terms (distinctive words of the section's content).
    Terms,
}

/// Number of fields.
pub(super) const FIELDS: usize = 5;

impl Field {
    pub(super) const ALL: [Self; FIELDS] = [
        Self::Title,
        Self::Hints,
        Self::Path,
        Self::FileTitle,
        Self::Terms,
    ];

    /// `title`, `hints` or `path`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Title => "title",
            Self::Hints => "hints",
            Self::Path => "path",
            Self::FileTitle => "file_title",
            Self::Terms => "terms",
        }
    }

    /// Default-scoring weight of a match in this field.
    pub(super) fn weight(self) -> f64 {
        match self {
            Self::Hints => 1.0,
            Self::Title => 0.9,
            Self::Path => 0.7,
            Self::FileTitle => 0.6,
            Self::Terms => 0.5,
        }
    }
}

/// Shortest Latin keyword (in bytes) that may match as a word prefix.
const PREFIX_MIN: usize = 4;

/// How a match sits in its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Boundary {
    /// On word boundaries at its ASCII-alphanumeric ends (Japanese ends always are).
    Word,
    /// Starts a word but the word goes on (`rest` in `restful`).
    Prefix,
    /// Inside a word.
    Inside,
}

fn boundary(bytes: &[u8], start: usize, end: usize) -> Boundary {
    let alnum = |b: u8| b.is_ascii_alphanumeric();
    let left_ok = !alnum(bytes[start]) || start == 0 || !alnum(bytes[start - 1]);
    let right_ok = !alnum(bytes[end - 1]) || end == bytes.len() || !alnum(bytes[end]);
    match (left_ok, right_ok) {
        (true, true) => Boundary::Word,
        (true, false) => Boundary::Prefix,
        _ => Boundary::Inside,
    }
}

/// The mask bit of a match at `start..end` of `cell` in field `field`: a
/// whole word sets the field's bit, a word prefix of [`PREFIX_MIN`]+ bytes the
/// bit [`FIELDS`] above it; a match inside a word gives `None`.
pub(super) fn match_bit(cell: &str, start: usize, end: usize, field: Field) -> Option<u16> {
    match match_kind(cell.as_bytes(), start, end) {
        0 => None,
        kind => Some(kind << field as usize),
    }
}

/// [`match_bit`] for the first field (`kind << field` gives any other's): 1
/// for a whole word, `1 << FIELDS` for a word prefix, 0 inside a word.
pub(super) fn match_kind(text: &[u8], start: usize, end: usize) -> u16 {
    match boundary(text, start, end) {
        Boundary::Word => 1,
        Boundary::Prefix if end - start >= PREFIX_MIN => 1 << FIELDS,
        _ => 0,
    }
}

/// Whether a match at `start..end` of `text` sits on word boundaries, for the
/// ends that are ASCII alphanumeric (Japanese ends always count as boundaries).
#[cfg(test)]
fn at_word_boundaries(text: &str, start: usize, end: usize) -> bool {
    boundary(text.as_bytes(), start, end) == Boundary::Word
}

/// For each row with at least one match: the fields each pattern matched in.
#[derive(Debug, Default)]
pub(super) struct RowMasks {
    /// Matching rows, in index order.
    pub(super) rows: Vec<usize>,
    /// Whether each of those rows has hints.
    pub(super) curated: Vec<bool>,
    /// `items[ends[i]..ends[i + 1]]` are row `rows[i]`'s (pattern, field mask) pairs.
    pub(super) ends: Vec<usize>,
    /// (pattern, field mask): low [`FIELDS`](FIELDS) bits
    /// whole-word matches, the next ones word prefixes.
    pub(super) items: Vec<(u32, u16)>,
}

impl RowMasks {
    /// The (pattern, mask) pairs of the `i`-th matching row.
    pub(super) fn row(&self, i: usize) -> &[(u32, u16)] {
        &self.items[self.ends[i]..self.ends[i + 1]]
    }

    pub(super) fn new() -> Self {
        Self {
            ends: vec![0],
            ..Self::default()
        }
    }

    /// Appends `row` with the pairs gathered in `scratch` (at the `touched` patterns).
    pub(super) fn push(
        &mut self,
        row: usize,
        curated: bool,
        touched: &mut Vec<usize>,
        scratch: &mut [u16],
    ) {
        for p in touched.drain(..) {
            self.items.push((p as u32, scratch[p]));
            scratch[p] = 0;
        }
        self.rows.push(row);
        self.curated.push(curated);
        self.ends.push(self.items.len());
    }

    /// The same masks with pattern `p` numbered `ids[p]`.
    pub(super) fn renumber(mut self, ids: &[usize]) -> Self {
        for item in &mut self.items {
            item.0 = ids[item.0 as usize] as u32;
        }
        self
    }

    pub(super) fn append(&mut self, other: Self) {
        let offset = self.items.len();
        self.rows.extend(other.rows);
        self.curated.extend(other.curated);
        self.ends
            .extend(other.ends.iter().skip(1).map(|e| e + offset));
        self.items.extend(other.items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_boundaries_apply_to_latin_ends_only() {
        for (text, needle, want) in [
            ("property", "per", false),
            ("per page", "per", true),
            ("universal-dao.json", "dao", true),
            ("universaldao", "dao", false),
            ("sqlファイル", "sql", true),
            ("楽観的ロック", "ロック", true),
            ("@version", "version", true),
            ("v2", "v", false),
        ] {
            let start = text.find(needle).unwrap_or(0);
            assert_eq!(
                at_word_boundaries(text, start, start + needle.len()),
                want,
                "{needle} in {text}"
            );
        }
    }
}
