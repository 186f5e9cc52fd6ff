//! The searchable text of a run of index rows, folded once, in one buffer.
//!
//! Rows of one file share their file path and file title, so a [`Haystack`]
//! stores those once per *group* (consecutive rows with the same file path and
//! file title) and then each row's own fields: section title, hints, section
//! id and derived terms. Every field is normalised (see `normalize`) and ends
//! with `\n`, which no normalised keyword contains, so one Aho-Corasick pass
//! over [`Haystack::text`] finds every keyword in every field, and a match's
//! end offset tells which *segment* (unit and field) it fell in. Units are
//! numbered in text order: a group, then its rows, then the next group.

use std::borrow::Cow;

use super::normalize::{is_folded, normalize};
use super::score::Field;
use crate::model::{EntryRef, split_reference};

/// Rows sharing one file path and file title.
#[derive(Debug, Clone, Copy)]
pub(super) struct Group {
    /// The group's own unit (file path and file title).
    pub(super) unit: u32,
    /// Rows `first..end` (positions within the haystack's rows).
    pub(super) first: u32,
    /// One past the last row.
    pub(super) end: u32,
}

/// Folded text of a run of rows (see module docs).
#[derive(Debug, Default)]
pub(super) struct Haystack {
    /// All fields, folded, each followed by `\n`.
    pub(super) text: String,
    /// Non-empty fields in text order (*segments*): where each ends (the
    /// offset of its `\n`), the unit it belongs to and which field it is.
    /// Three arrays rather than one of structs: 9 bytes a segment, not 12.
    pub(super) ends: Vec<u32>,
    /// The unit (group or row) of each segment.
    pub(super) seg_units: Vec<u32>,
    /// The field of each segment.
    pub(super) fields: Vec<Field>,
    /// Groups in row order.
    pub(super) groups: Vec<Group>,
    /// Unit of each row.
    pub(super) row_unit: Vec<u32>,
    /// Whether each row has hints (rows with curated hints weigh derived terms less).
    pub(super) curated: Vec<bool>,
    /// Number of units (groups + rows).
    pub(super) units: u32,
}

impl Haystack {
    /// Folds `rows` into one buffer.
    pub(super) fn new(rows: &[EntryRef<'_>]) -> Self {
        let bytes: usize = rows.iter().map(|r| r.len() + 6).sum();
        let mut hay = Self {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(rows.len() * 4),
            seg_units: Vec::with_capacity(rows.len() * 4),
            fields: Vec::with_capacity(rows.len() * 4),
            row_unit: Vec::with_capacity(rows.len()),
            curated: Vec::with_capacity(rows.len()),
            ..Self::default()
        };
        let mut current: Option<(&str, &str)> = None;
        for (i, row) in rows.iter().enumerate() {
            let (path, section) = split_reference(&row.reference);
            let (file_title, title) = split_title(&row.title);
            if current != Some((path, file_title)) {
                if let Some(last) = hay.groups.last_mut() {
                    last.end = i as u32;
                }
                let unit = hay.next_unit();
                hay.groups.push(Group {
                    unit,
                    first: i as u32,
                    end: rows.len() as u32,
                });
                hay.push(unit, Field::Path, path);
                hay.push(unit, Field::FileTitle, file_title);
                current = Some((path, file_title));
            }
            let unit = hay.next_unit();
            hay.row_unit.push(unit);
            hay.curated.push(!row.hints.is_empty());
            hay.push(unit, Field::Title, title);
            hay.push(unit, Field::Hints, &row.hints);
            hay.push(unit, Field::Path, section);
            hay.push(unit, Field::Terms, &row.terms);
        }
        hay
    }

    fn next_unit(&mut self) -> u32 {
        self.units += 1;
        self.units - 1
    }

    /// Appends one field, folded, if it is not empty.
    fn push(&mut self, unit: u32, field: Field, cell: &str) {
        if cell.is_empty() {
            return;
        }
        let folded = if is_folded(cell) {
            Cow::Borrowed(cell)
        } else {
            Cow::Owned(normalize(cell))
        };
        if folded.is_empty() {
            return;
        }
        self.text.push_str(&folded);
        self.ends.push(offset(self.text.len()));
        self.seg_units.push(unit);
        self.fields.push(field);
        self.text.push('\n');
    }
}

/// A text offset as `u32`. [`MAX_TEXT`] bounds a haystack's text (callers
/// split larger indexes into more haystacks), so this never saturates.
fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// The most text one haystack holds.
pub(super) const MAX_TEXT: usize = 1 << 30;

/// Splits a title written as "file title / section title" (see `src/extract.jq`)
/// at its first ` / `; a title without one is all section title.
pub(super) fn split_title(title: &str) -> (&str, &str) {
    let bytes = title.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'/', &bytes[from..]) {
        let at = from + i;
        if at > 0 && bytes[at - 1] == b' ' && bytes.get(at + 1) == Some(&b' ') {
            return (&title[..at - 1], &title[at + 2..]);
        }
        from = at + 1;
    }
    ("", title)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(reference: &'a str, title: &'a str, hints: &'a str) -> EntryRef<'a> {
        EntryRef {
            reference: reference.into(),
            title: title.into(),
            hints: hints.into(),
            terms: Cow::Borrowed(""),
        }
    }

    /// ASCII case is kept (the automaton ignores it); everything else is folded.
    #[test]
    fn file_fields_are_stored_once_per_group() {
        let rows = [
            row("a/x.json#s1", "Ｘ File / One", "Ｈｉｎｔ"),
            row("a/x.json#s2", "Ｘ File / Two", ""),
            row("b.json#s1", "Two", "h"),
        ];
        let hay = Haystack::new(&rows);
        assert_eq!(
            hay.text,
            "a/x.json\nx file\nOne\nhint\ns1\nTwo\ns2\nb.json\nTwo\nh\ns1\n"
        );
        assert_eq!(hay.units, 5);
        assert_eq!(hay.row_unit, vec![1, 2, 4]);
        assert_eq!(hay.curated, vec![true, false, true]);
        let groups: Vec<(u32, u32, u32)> = hay
            .groups
            .iter()
            .map(|g| (g.unit, g.first, g.end))
            .collect();
        assert_eq!(groups, vec![(0, 0, 2), (3, 2, 3)]);
        let fields: Vec<(u32, &str)> = hay
            .seg_units
            .iter()
            .zip(&hay.fields)
            .map(|(u, f)| (*u, f.as_str()))
            .collect();
        assert_eq!(
            fields,
            vec![
                (0, "path"),
                (0, "file_title"),
                (1, "title"),
                (1, "hints"),
                (1, "path"),
                (2, "title"),
                (2, "path"),
                (3, "path"),
                (4, "title"),
                (4, "hints"),
                (4, "path"),
            ]
        );
    }

    #[test]
    fn titles_split_at_the_first_spaced_slash() {
        for (title, want) in [
            ("File / Section", ("File", "Section")),
            ("a/b / c / d", ("a/b", "c / d")),
            ("no split", ("", "no split")),
            ("/ x", ("", "/ x")),
        ] {
            assert_eq!(split_title(title), want, "{title}");
        }
    }
}
