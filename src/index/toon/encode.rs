//! TOON writer for the index: header, rows, and the §7.2 quoting rules.

use std::fmt::Write as _;

use crate::index::model::{Entry, Index};

/// Encodes `index` as `sections[N]{reference,title,hints}:` (plus a `terms`
/// column when any entry has derived terms) and one row per entry, each line
/// ending in `\n` (so the file ends with one newline).
pub fn encode(index: &Index) -> String {
    let entries = &index.entries;
    let with_terms = entries.iter().any(|e| !e.terms.is_empty());
    let mut out = String::with_capacity(64 + rows_len(entries));
    push_header(&mut out, index.len(), with_terms);
    push_rows(&mut out, entries, with_terms);
    out
}

/// The length of `entries`' rows when no cell is quoted (the usual case): an
/// output buffer of this capacity is written without growing.
fn rows_len(entries: &[Entry]) -> usize {
    entries
        .iter()
        .map(|e| e.reference.len() + e.title.len() + e.hints.len() + e.terms.len() + 6)
        .sum()
}

/// Appends the header line of an index of `rows` rows: what [`encode`]
/// writes before the rows (`with_terms` as there: whether any entry has terms).
pub fn push_header(out: &mut String, rows: usize, with_terms: bool) {
    let _ = writeln!(
        out,
        "{}[{}]{{{}{}}}:",
        super::KEY,
        rows,
        super::FIELDS.join(","),
        if with_terms { ",terms" } else { "" }
    );
}

/// Appends a tabular array `key[N]{fields}:` with one line per row: two
/// spaces, the row's cells (already quoted, see [`quote`]) joined by `,`,
/// `\n`. The one table writer of the other TOON documents kbidx writes (the
/// links file, search reports); the index's own rows are written in place
/// ([`push_row`]) to keep a large build from allocating per cell.
pub(crate) fn push_table(out: &mut String, key: &str, fields: &[&str], rows: &[Vec<String>]) {
    let _ = writeln!(out, "{key}[{}]{{{}}}:", rows.len(), fields.join(","));
    for row in rows {
        out.push_str("  ");
        out.push_str(&row.join(","));
        out.push('\n');
    }
}

/// Appends one line per entry: two spaces, the cells, `\n`.
fn push_rows(out: &mut String, entries: &[Entry], with_terms: bool) {
    for e in entries {
        push_row(out, e, with_terms);
    }
}

/// Appends the line [`encode`] writes for `entry` (rows are independent, so
/// an index's text is its header followed by its entries' rows).
pub fn push_row(out: &mut String, e: &Entry, with_terms: bool) {
    out.push_str("  ");
    push_cell(out, &e.reference, ',');
    out.push(',');
    push_cell(out, &e.title, ',');
    out.push(',');
    push_cell(out, &e.hints, ',');
    if with_terms {
        out.push(',');
        push_cell(out, &e.terms, ',');
    }
    out.push('\n');
}

/// Whether a string cell must be quoted (TOON v4 §7.2) with `delimiter` active.
pub fn needs_quotes(s: &str, delimiter: char) -> bool {
    s.is_empty()
        || s.starts_with([' ', '\t'])
        || s.ends_with([' ', '\t'])
        || matches!(s, "true" | "false" | "null")
        || is_numeric_like(s)
        || s.starts_with(['-', '#'])
        || has_special(s, delimiter)
}

/// Whether `s` contains a character that forces quoting. All of them are
/// ASCII except perhaps `delimiter`, and no byte of a multi-byte UTF-8
/// sequence is ASCII, so an ASCII delimiter allows a byte scan: one table
/// look-up per byte, eight bytes per test (an index is mostly long runs of
/// text with nothing to quote).
fn has_special(s: &str, delimiter: char) -> bool {
    match u8::try_from(delimiter) {
        Ok(b',') => any_byte_in(s.as_bytes(), &SPECIAL_COMMA),
        Ok(d) if d.is_ascii() => any_byte_in(s.as_bytes(), &with_byte(SPECIAL, d)),
        _ => s.chars().any(|c| {
            matches!(c, ':' | '"' | '\\' | '[' | ']' | '{' | '}') || c < ' ' || c == delimiter
        }),
    }
}

/// `SPECIAL[b]` is 1 when byte `b` forces quoting whatever the delimiter.
const SPECIAL: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 32 {
        table[b] = 1;
        b += 1;
    }
    let mut i = 0;
    let listed = b":\"\\[]{}";
    while i < listed.len() {
        table[listed[i] as usize] = 1;
        i += 1;
    }
    table
};

/// [`SPECIAL`] plus the default delimiter, `,`.
const SPECIAL_COMMA: [u8; 256] = with_byte(SPECIAL, b',');

/// `table` with `byte` marked too.
const fn with_byte(mut table: [u8; 256], byte: u8) -> [u8; 256] {
    table[byte as usize] = 1;
    table
}

/// Whether any byte of `bytes` is marked in `table`.
fn any_byte_in(bytes: &[u8], table: &[u8; 256]) -> bool {
    let hit = |b: u8| table[usize::from(b)];
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        if hit(c[0])
            | hit(c[1])
            | hit(c[2])
            | hit(c[3])
            | hit(c[4])
            | hit(c[5])
            | hit(c[6])
            | hit(c[7])
            != 0
        {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| hit(b) != 0)
}

/// `s` as a cell: quoted and escaped (§7.1) when [`needs_quotes`], else as is.
pub fn quote(s: &str, delimiter: char) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_cell(&mut out, s, delimiter);
    out
}

fn push_cell(out: &mut String, s: &str, delimiter: char) {
    if !needs_quotes(s, delimiter) {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `/^[+-]?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/i`
fn is_numeric_like(s: &str) -> bool {
    fn digits(b: &[u8], i: &mut usize) -> bool {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    }
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if !digits(b, &mut i) {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if !digits(b, &mut i) {
            return false;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if !digits(b, &mut i) {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_table() {
        for (s, want) in [
            ("plain", false),
            ("ページング per page", false),
            ("", true),
            (" x", true),
            ("x\t", true),
            ("true", true),
            ("True", false),
            ("42", true),
            ("1.5e+3", true),
            ("1.", false),
            ("v1.2", false),
            ("a,b", true),
            ("a|b", false),
            ("a:b", true),
            ("-x", true),
            ("x-y", false),
            ("#x", true),
            ("x#y", false),
            ("[", true),
            ("}", true),
            ("\u{7}", true),
            ("\u{7f}", false),
        ] {
            assert_eq!(needs_quotes(s, ','), want, "{s:?}");
        }
        assert_eq!(quote("a\"b\\c\u{1}", ','), r#""a\"b\\c\u0001""#);
    }

    /// The byte scan finds what a character scan finds, whatever the
    /// position of the special character in or after the 8-byte chunks.
    #[test]
    fn byte_scan_matches_char_scan() {
        let by_chars = |s: &str, d: char| {
            s.chars()
                .any(|c| matches!(c, ':' | '"' | '\\' | '[' | ']' | '{' | '}') || c < ' ' || c == d)
        };
        let fillers = ["", "a", "ページ", "abcdefg", "abcdefgh", "0123456789abcdef"];
        let specials = [
            "", ":", "\"", "\\", "[", "]", "{", "}", ",", "|", "\t", "\n", "\u{1f}", ";", "\u{7f}",
            "é",
        ];
        for before in fillers {
            for special in specials {
                for after in fillers {
                    let s = format!("{before}{special}{after}");
                    for d in [',', '|', '\t', ';', 'é'] {
                        assert_eq!(has_special(&s, d), by_chars(&s, d), "{s:?} {d:?}");
                    }
                }
            }
        }
    }
}
