//! TOON reader for the index: a strict parser of the one tabular shape kbidx
//! writes, accepting every spelling a conforming encoder may choose (quoted
//! or bare cells, comma/tab/pipe delimiter, CRLF, comment lines, a final
//! newline). Errors carry `line:column`.

use std::path::Path;

use crate::error::{Error, Result};
use std::borrow::Cow;

use crate::index::model::{EntryRef, Index};

/// Decodes `text`, the contents of the index file `path`.
pub fn decode(path: &Path, text: &str) -> Result<Index> {
    let entries = decode_rows(path, text)?
        .into_iter()
        .map(EntryRef::into_owned)
        .collect();
    Ok(Index { entries })
}

/// Decodes `text` without copying: cells borrow from `text` unless they
/// contain escapes.
pub fn decode_rows<'a>(path: &Path, text: &'a str) -> Result<Vec<EntryRef<'a>>> {
    let table = locate(path, text)?;
    let mut cells = Vec::with_capacity(table.columns);
    let mut entries = Vec::with_capacity(table.rows.len());
    for row in 0..table.rows.len() {
        cells.clear();
        table.cells(path, text, row, &mut cells)?;
        entries.push(table.entry(&mut cells));
    }
    Ok(entries)
}

/// An index text located line by line: its columns and where each row is.
/// Rows are checked for indentation and count here; their cells are split
/// (and checked) by [`Table::cells`], so that callers can do that in parallel.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// The cell delimiter: `,`, tab or `|`.
    pub delimiter: u8,
    /// Number of columns.
    pub columns: usize,
    /// Column of `reference`.
    pub reference: usize,
    /// Column of `title`, if any.
    pub title: Option<usize>,
    /// Column of `hints`.
    pub hints: usize,
    /// Column of `terms`, if any.
    pub terms: Option<usize>,
    /// Byte range of each row's cells in the text: after the 2-space indent, before `\r\n`.
    pub rows: Vec<(u32, u32)>,
    /// Length of the byte-order mark the text starts with (0 or 3).
    pub bom: usize,
}

impl Table {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The text of row `row` (its cells, undecoded).
    pub fn row<'a>(&self, text: &'a str, row: usize) -> &'a str {
        let (start, end) = self.rows[row];
        &text[start as usize..end as usize]
    }

    /// Splits row `row` of `text` into decoded cells (appended to `cells`),
    /// checking quoting and the cell count.
    pub fn cells<'a>(
        &self,
        path: &Path,
        text: &'a str,
        row: usize,
        cells: &mut Vec<Cow<'a, str>>,
    ) -> Result<()> {
        let start = self.rows[row].0 as usize;
        let at = |offset: usize, message: String| {
            Error::syntax_at(path, &text[self.bom..], start + offset - self.bom, message)
        };
        let first = cells.len();
        split_row(self.row(text, row), char::from(self.delimiter), cells)
            .map_err(|(offset, m)| at(offset, m))?;
        let found = cells.len() - first;
        if found != self.columns {
            return Err(at(
                0,
                format!(
                    "expected {} cells, found {found} (quote cells that contain `{}`)",
                    self.columns,
                    char::from(self.delimiter)
                ),
            ));
        }
        Ok(())
    }

    /// Row `row`'s reference cell, decoded as [`Table::cells`] decodes it
    /// (`None` where that fails). When it is the first cell and unquoted the
    /// other cells are not split: counting the files of a million rows
    /// (`search::limit`) reads one cell of each.
    pub fn reference<'a>(&self, text: &'a str, row: usize) -> Option<Cow<'a, str>> {
        let raw = self.row(text, row);
        let trimmed = raw.trim_start_matches(' ');
        if self.reference == 0 && !trimmed.starts_with('"') {
            let end = memchr::memchr(self.delimiter, trimmed.as_bytes()).unwrap_or(trimmed.len());
            return Some(Cow::Borrowed(trimmed[..end].trim_end_matches(' ')));
        }
        let mut cells = Vec::with_capacity(self.columns);
        split_row(raw, char::from(self.delimiter), &mut cells).ok()?;
        (cells.len() == self.columns).then(|| std::mem::take(&mut cells[self.reference]))
    }

    /// The entry made of `cells` (one row's, from [`Table::cells`]), taking them.
    pub fn entry<'a>(&self, cells: &mut [Cow<'a, str>]) -> EntryRef<'a> {
        let mut take = |i: usize| std::mem::take(&mut cells[i]);
        EntryRef {
            reference: take(self.reference),
            title: self.title.map(&mut take).unwrap_or_default(),
            hints: take(self.hints),
            terms: self.terms.map(&mut take).unwrap_or_default(),
        }
    }
}

/// Reads the header and finds every row of `text`, the contents of the index file `path`.
pub fn locate(path: &Path, text: &str) -> Result<Table> {
    let err = |line: usize, col_byte: usize, line_text: &str, message: String| {
        let column = line_text[..col_byte.min(line_text.len())].chars().count() + 1;
        Error::Syntax {
            path: path.to_path_buf(),
            line: line + 1,
            column,
            message,
        }
    };
    if u32::try_from(text.len()).is_err() {
        return Err(Error::data(path, "index larger than 4 GiB: not supported"));
    }
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[bom..];
    // (line number, byte offset in `text`, line without `\r`), comment lines left out.
    let mut offset = bom;
    let mut lines = split_lines(body)
        .map(|l| {
            let at = offset;
            offset += l.len() + 1;
            (at, l.strip_suffix('\r').unwrap_or(l))
        })
        .enumerate()
        .filter(|(_, (_, l))| !l.trim_start_matches(' ').starts_with('#'));

    // Header: first non-blank line.
    let (header_no, header) = loop {
        match lines.next() {
            Some((_, (_, l))) if l.trim().is_empty() => continue,
            Some((no, (_, l))) => break (no, l),
            None => {
                return Err(err(
                    0,
                    0,
                    "",
                    format!("empty index: expected `{}` header", expected_header()),
                ));
            }
        }
    };
    let (declared, delimiter, columns) =
        parse_header(header).map_err(|(at, m)| err(header_no, at, header, m))?;
    let pick = |name: &str| columns.iter().position(|c| c == name);
    let (Some(reference), Some(hints)) = (pick("reference"), pick("hints")) else {
        return Err(err(
            header_no,
            0,
            header,
            "header must have `reference` and `hints` columns".into(),
        ));
    };
    let mut table = Table {
        // parse_header only returns `,`, tab or `|`.
        delimiter: u8::try_from(delimiter).unwrap_or(b','),
        columns: columns.len(),
        reference,
        title: pick("title"),
        hints,
        terms: pick("terms"),
        rows: Vec::with_capacity(declared.min(1 << 20)),
        bom,
    };
    let mut blank_inside: Option<usize> = None;
    for (no, (at, line)) in lines {
        if line.trim().is_empty() {
            if !table.rows.is_empty() {
                blank_inside.get_or_insert(no);
            }
            continue;
        }
        if let Some(blank) = blank_inside {
            return Err(err(blank, 0, "", "blank line inside the rows".into()));
        }
        let Some(row) = line.strip_prefix("  ") else {
            return Err(err(
                no,
                0,
                line,
                "expected a row indented by 2 spaces".into(),
            ));
        };
        if row.starts_with(' ') {
            return Err(err(
                no,
                2,
                line,
                "expected a row indented by 2 spaces".into(),
            ));
        }
        if table.rows.len() == declared {
            return Err(err(
                no,
                0,
                line,
                format!("more rows than the {declared} the header declares"),
            ));
        }
        // Offsets fit: the text is under 4 GiB (checked above).
        let start = (at + 2) as u32;
        table.rows.push((start, start + row.len() as u32));
    }
    if table.rows.len() != declared {
        return Err(err(
            header_no,
            header.find('[').map_or(0, |i| i + 1),
            header,
            format!(
                "header declares {declared} rows, found {} (run `kbidx build` to rebuild the index)",
                table.rows.len()
            ),
        ));
    }
    Ok(table)
}

/// `text` split at `\n` (like `str::split('\n')`), with memchr.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes());
    std::iter::from_fn(move || {
        if start > text.len() {
            return None;
        }
        let end = ends.next().unwrap_or(text.len());
        let line = &text[start..end];
        start = end + 1;
        Some(line)
    })
}

fn expected_header() -> String {
    format!("{}[N]{{{}}}:", super::KEY, super::FIELDS.join(","))
}

type ParseError = (usize, String);

/// Parses `sections[N<delim?>]{f1<delim>f2…}:` → (N, delimiter, fields).
fn parse_header(line: &str) -> std::result::Result<(usize, char, Vec<String>), ParseError> {
    let bad = |at: usize| (at, format!("expected `{}` header", expected_header()));
    let rest = line.strip_prefix(super::KEY).ok_or_else(|| bad(0))?;
    let at = super::KEY.len();
    let rest = rest.strip_prefix('[').ok_or_else(|| bad(at))?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let count_text = &rest[..digits];
    if digits == 0 || (digits > 1 && count_text.starts_with('0')) {
        return Err((at + 1, "invalid row count in `[N]`".into()));
    }
    let declared: usize = count_text
        .parse()
        .map_err(|_| (at + 1, "invalid row count in `[N]`".to_owned()))?;
    let rest = &rest[digits..];
    let (delimiter, rest) = match rest.chars().next() {
        Some('\t') => ('\t', &rest[1..]),
        Some('|') => ('|', &rest[1..]),
        _ => (',', rest),
    };
    let close = at + 1 + digits + usize::from(delimiter != ',');
    let rest = rest.strip_prefix(']').ok_or_else(|| {
        (
            close,
            "expected `]` after the row count (`[N,]` is not TOON)".to_owned(),
        )
    })?;
    let rest = rest.strip_prefix('{').ok_or_else(|| bad(close + 1))?;
    let end = rest.rfind("}:").ok_or_else(|| bad(close + 2))?;
    if !rest[end + 2..].trim_matches(' ').is_empty() {
        return Err((
            close + 2 + end + 2,
            "unexpected content after the header".into(),
        ));
    }
    let mut cells = Vec::new();
    split_row(&rest[..end], delimiter, &mut cells).map_err(|(i, m)| (close + 2 + i, m))?;
    let fields: Vec<String> = cells.into_iter().map(Cow::into_owned).collect();
    for (i, f) in fields.iter().enumerate() {
        if fields[..i].contains(f) {
            return Err((close + 2, format!("duplicate column `{f}`")));
        }
    }
    Ok((declared, delimiter, fields))
}

/// Splits one row into decoded cells on unquoted `delimiter`, appending them to `cells`.
fn split_row<'a>(
    row: &'a str,
    delimiter: char,
    cells: &mut Vec<Cow<'a, str>>,
) -> std::result::Result<(), ParseError> {
    let mut rest = row;
    let mut offset = 0;
    loop {
        let trimmed = rest.trim_start_matches(' ');
        offset += rest.len() - trimmed.len();
        rest = trimmed;
        if let Some(body) = rest.strip_prefix('"') {
            let (value, used) = unquote(body).map_err(|(i, m)| {
                (
                    if i == usize::MAX {
                        offset
                    } else {
                        offset + 1 + i
                    },
                    m,
                )
            })?;
            cells.push(value);
            let after = &rest[1 + used..];
            let after_trim = after.trim_start_matches(' ');
            offset += 1 + used + (after.len() - after_trim.len());
            rest = after_trim;
            match rest.chars().next() {
                None => return Ok(()),
                Some(c) if c == delimiter => {
                    offset += c.len_utf8();
                    rest = &rest[c.len_utf8()..];
                }
                Some(_) => return Err((offset, "unexpected text after a quoted cell".into())),
            }
        } else {
            // The delimiter is ASCII (`,`, tab or `|`); memchr is several times faster than `str::find`.
            match memchr::memchr(delimiter as u8, rest.as_bytes()) {
                Some(i) => {
                    cells.push(Cow::Borrowed(rest[..i].trim_end_matches(' ')));
                    offset += i + delimiter.len_utf8();
                    rest = &rest[i + delimiter.len_utf8()..];
                }
                None => {
                    cells.push(Cow::Borrowed(rest.trim_end_matches(' ')));
                    return Ok(());
                }
            }
        }
    }
}

/// Decodes a quoted string body (after the opening quote): (value, bytes used incl. closing quote).
/// Borrows when the body has no escapes.
fn unquote(body: &str) -> std::result::Result<(Cow<'_, str>, usize), ParseError> {
    if let Some(end) = memchr::memchr2(b'"', b'\\', body.as_bytes())
        && body.as_bytes()[end] == b'"'
    {
        return Ok((Cow::Borrowed(&body[..end]), end + 1));
    }
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((Cow::Owned(out), i + 1)),
            '\\' => match chars.next() {
                Some((_, '\\')) => out.push('\\'),
                Some((_, '"')) => out.push('"'),
                Some((_, 'n')) => out.push('\n'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, 't')) => out.push('\t'),
                Some((j, 'u')) => {
                    let hex = body
                        .get(j + 1..j + 5)
                        .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
                    let ch = hex
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .and_then(char::from_u32);
                    let Some(ch) = ch else {
                        return Err((i, "invalid \\u escape".into()));
                    };
                    out.push(ch);
                    for _ in 0..4 {
                        chars.next();
                    }
                }
                _ => return Err((i, "invalid escape sequence".into())),
            },
            c => out.push(c),
        }
    }
    // usize::MAX: point at the opening quote.
    Err((usize::MAX, "unterminated string".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        decode(Path::new("index.toon"), text)
            .map(|_| ())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    /// `Table::reference` reads the cell `Table::cells` reads, however it is spelled.
    #[test]
    fn reference_alone_is_the_decoded_cell() -> Result<()> {
        let texts = [
            "sections[3]{reference,title,hints}:\n  a.json#x,T,h\n  b.json#y  ,\"T,2\",\"h\"\n  \"c,d.json#\\\"z\\\"\",T,h\n",
            "sections[2|]{hints|reference}:\n  \"a|b\" | x.json#a\n  c|y.json#b\n",
            "sections[1\t]{reference\thints}:\n  e.json#only\th\n",
        ];
        for text in texts {
            let table = locate(Path::new("i"), text)?;
            for row in 0..table.len() {
                let mut cells = Vec::new();
                table.cells(Path::new("i"), text, row, &mut cells)?;
                let want = table.entry(&mut cells).reference;
                assert_eq!(table.reference(text, row), Some(want), "{text:?} row {row}");
            }
        }
        Ok(())
    }

    #[test]
    fn accepts_other_encoders_spellings() {
        let text = "# comment\r\nsections[2|]{hints|reference}:\r\n  \"a|b\" | x.json#a\r\n  c|y.json#b\r\n";
        let index = decode(Path::new("i"), text).map_err(|e| e.to_string());
        let got = index.map(|i| {
            i.entries
                .iter()
                .map(|e| (e.reference.clone(), e.hints.clone()))
                .collect::<Vec<_>>()
        });
        assert_eq!(
            got,
            Ok(vec![
                ("x.json#a".into(), "a|b".into()),
                ("y.json#b".into(), "c".into())
            ])
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        for (text, want) in [
            (
                "",
                "index.toon:1:1: empty index: expected `sections[N]{reference,title,hints}:` header",
            ),
            (
                "files[1,]{a}:\n",
                "index.toon:1:1: expected `sections[N]{reference,title,hints}:` header",
            ),
            (
                "sections[1,]{reference,title,hints}:\n  a,b,c\n",
                "index.toon:1:11: expected `]` after the row count (`[N,]` is not TOON)",
            ),
            (
                "sections[03]{reference,hints}:\n",
                "index.toon:1:10: invalid row count in `[N]`",
            ),
            (
                "sections[2]{reference,title,hints}:\n  a#b,t,h\n",
                "index.toon:1:10: header declares 2 rows, found 1 (run `kbidx build` to rebuild the index)",
            ),
            (
                "sections[1]{reference,title,hints}:\n  a#b,t\n",
                "index.toon:2:3: expected 3 cells, found 2 (quote cells that contain `,`)",
            ),
            (
                "sections[1]{reference,title,hints}:\n  a#b,\"t,h\n",
                "index.toon:2:7: unterminated string",
            ),
            (
                "sections[1]{reference,title,hints}:\n a#b,t,h\n",
                "index.toon:2:1: expected a row indented by 2 spaces",
            ),
            (
                "sections[1]{reference,title,hints}:\n  a#b,t,h\n  c#d,t,h\n",
                "index.toon:3:1: more rows than the 1 the header declares",
            ),
            (
                "sections[1]{reference,title}:\n",
                "index.toon:1:1: header must have `reference` and `hints` columns",
            ),
            (
                "sections[2]{reference,title,hints}:\n  a#b,t,h\n\n  c#d,t,h\n",
                "index.toon:3:1: blank line inside the rows",
            ),
            (
                "sections[1]{reference,title,hints}:\n  a#b,\"x\\q\",h\n",
                "index.toon:2:9: invalid escape sequence",
            ),
        ] {
            assert_eq!(err(text), want, "{text:?}");
        }
    }
}
