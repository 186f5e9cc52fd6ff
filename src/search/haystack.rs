//! What a search scans: the index text itself, in place, plus folded copies of
//! the few cells that cannot be matched as they are.
//!
//! Most cells are already normalised up to ASCII case (see `is_folded`), and
//! the automaton ignores ASCII case, so kbidx scans the index text as it lies
//! in memory (mapped from the file): no copy, no per-row allocation. A match
//! is placed by its offsets: the row whose text holds it, then the cell (and,
//! in a `file title / section title` title, the part). Matches outside a
//! searchable in-place cell (delimiters, quotes, other columns, cells that
//! need folding) are dropped. Cells that need folding (full-width letters,
//! half-width katakana, escapes, doubled spaces …) are folded once into a
//! [`Side`] buffer, each followed by `\n`, and scanned separately. The index is
//! split into contiguous chunks of rows, scanned in parallel, a row at a time:
//! consecutive rows of one file repeat its path, which is scanned in the
//! file's first row only (its matches count for every row of the file; a
//! keyword spanning the path and the `#section` part is only seen there).

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;

use aho_corasick::AhoCorasick;

use super::fields::{Field, RowMasks, match_bit};
use crate::error::Result;
use crate::index::toon::Table;
// The body stage still names the helper here.
pub(crate) use crate::parallel::in_parallel;
use crate::text::normalize::{is_folded, normalize};

/// Folded copies of the cells of a run of rows that cannot be scanned in place.
#[derive(Debug, Default)]
pub(super) struct Side {
    /// The folded cells, each followed by `\n`.
    text: String,
    /// Offset of each cell's `\n`.
    ends: Vec<u32>,
    /// Row of each cell.
    rows: Vec<u32>,
    /// Field of each cell.
    fields: Vec<Field>,
}

impl Side {
    fn push(&mut self, row: usize, field: Field, cell: &str) {
        let folded = normalize(cell);
        if folded.is_empty() {
            return;
        }
        self.text.push_str(&folded);
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
        self.rows.push(u32::try_from(row).unwrap_or(u32::MAX));
        self.fields.push(field);
        self.text.push('\n');
    }
}

/// A contiguous run of rows, folded and scanned on one thread.
#[derive(Debug)]
pub(super) struct Chunk {
    /// The rows.
    pub(super) rows: Range<usize>,
    /// Whether each row has hints (rows with curated hints weigh derived terms less).
    curated: Vec<bool>,
    /// Whether each row's reference is scanned in place (only such a row's
    /// path matches can be lent to the next rows of its file).
    path_in_place: Vec<bool>,
    /// Cells that need folding.
    side: Side,
}

/// Whether a cell can be matched where it lies in the index text.
#[allow(clippy::ptr_arg)] // whether the cell is borrowed is the point
pub(super) fn in_place(cell: &Cow<'_, str>) -> bool {
    matches!(cell, Cow::Borrowed(s) if is_folded(s))
}

/// Checks every row of `rows` (quoting, cell count) and folds the cells that need it.
pub(super) fn fold(path: &Path, text: &str, table: &Table, rows: Range<usize>) -> Result<Chunk> {
    let mut chunk = Chunk {
        rows: rows.clone(),
        curated: Vec::with_capacity(rows.len()),
        path_in_place: Vec::with_capacity(rows.len()),
        side: Side::default(),
    };
    let mut cells = Vec::with_capacity(table.columns);
    for row in rows {
        cells.clear();
        table.cells(path, text, row, &mut cells)?;
        chunk.curated.push(!cells[table.hints].is_empty());
        chunk.path_in_place.push(in_place(&cells[table.reference]));
        for (column, field) in searchable(table) {
            let cell = &cells[column];
            if cell.is_empty() || in_place(cell) {
                continue;
            }
            if field == Field::Title {
                let (file_title, title) = split_title(cell);
                chunk.side.push(row, Field::FileTitle, file_title);
                chunk.side.push(row, Field::Title, title);
            } else {
                chunk.side.push(row, field, cell);
            }
        }
    }
    Ok(chunk)
}

/// The searchable columns and their fields (the title column stands for both title fields).
pub(super) fn searchable(table: &Table) -> impl Iterator<Item = (usize, Field)> + '_ {
    [
        Some((table.reference, Field::Path)),
        table.title.map(|c| (c, Field::Title)),
        Some((table.hints, Field::Hints)),
        table.terms.map(|c| (c, Field::Terms)),
    ]
    .into_iter()
    .flatten()
}

/// Byte ranges (in the index text) of a row's in-place searchable cells, with their fields.
fn spans(text: &str, table: &Table, row: usize, out: &mut Vec<(usize, usize, Field)>) {
    out.clear();
    let mut cells = Vec::with_capacity(table.columns);
    // The row was checked when the index was folded.
    if table.cells(Path::new(""), text, row, &mut cells).is_err() {
        return;
    }
    let base = text.as_ptr() as usize;
    for (column, field) in searchable(table) {
        let cell = &cells[column];
        if cell.is_empty() || !in_place(cell) {
            continue;
        }
        let start = cell.as_ptr() as usize - base;
        if field == Field::Title {
            let (file_title, title) = split_title(cell);
            for (part, field) in [(file_title, Field::FileTitle), (title, Field::Title)] {
                if !part.is_empty() {
                    let at = start + (part.as_ptr() as usize - cell.as_ptr() as usize);
                    out.push((at, at + part.len(), field));
                }
            }
        } else {
            out.push((start, start + cell.len(), field));
        }
    }
}

/// Scans every chunk (the first on this thread, the others on their own) and
/// concatenates the results in row order.
pub(super) fn scan_all(
    text: &str,
    table: &Table,
    chunks: &[Chunk],
    automaton: &AhoCorasick,
    n_pat: usize,
) -> RowMasks {
    let parts = in_parallel(chunks, |c| scan(text, table, c, automaton, n_pat));
    let mut all = RowMasks::new();
    for part in parts {
        all.append(part);
    }
    all
}

/// One chunk: the index text of its rows in place, then its side buffer; merged by row.
fn scan(
    text: &str,
    table: &Table,
    chunk: &Chunk,
    automaton: &AhoCorasick,
    n_pat: usize,
) -> RowMasks {
    let mut scratch = vec![0u16; n_pat];
    let mut touched: Vec<usize> = Vec::new();
    let curated = |row: usize| chunk.curated[row - chunk.rows.start];

    // In place, a row at a time. Rows of one file repeat its path: it is scanned
    // in the file's first row only, and its matches are lent to the rows after.
    let mut main = RowMasks::new();
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut group_path: &[u8] = &[];
    let mut group: Vec<(usize, u16)> = Vec::new();
    for row in chunk.rows.clone() {
        let (rs, re) = (table.rows[row].0 as usize, table.rows[row].1 as usize);
        let plen = path_len(&bytes[rs..re], table);
        let same = plen > 0 && &bytes[rs..rs + plen] == group_path;
        if !same {
            group.clear();
            // A reference folded in the side buffer is not scanned here, so
            // its row has no path matches to lend.
            group_path = if chunk.path_in_place[row - chunk.rows.start] {
                &bytes[rs..rs + plen]
            } else {
                &[]
            };
        }
        let from = if same { rs + plen } else { rs };
        scan_span(
            text,
            table,
            row,
            from,
            re,
            automaton,
            &mut spans,
            |p, b, end| {
                note(p, b, &mut touched, &mut scratch);
                if !same && end <= rs + plen {
                    group.push((p, b));
                }
            },
        );
        if same {
            for &(p, b) in &group {
                note(p, b, &mut touched, &mut scratch);
            }
        }
        if !touched.is_empty() {
            main.push(row, curated(row), &mut touched, &mut scratch);
        }
    }

    // Side buffer.
    let side = &chunk.side;
    if side.text.is_empty() {
        return main;
    }
    let mut extra = RowMasks::new();
    let mut seg = 0;
    let mut current = usize::MAX;
    for m in automaton.find_overlapping_iter(&side.text) {
        while side.ends.get(seg).is_some_and(|&e| (e as usize) < m.end()) {
            seg += 1;
        }
        let (Some(&row), Some(&field)) = (side.rows.get(seg), side.fields.get(seg)) else {
            break;
        };
        let row = row as usize;
        if row != current {
            if !touched.is_empty() {
                extra.push(current, curated(current), &mut touched, &mut scratch);
            }
            current = row;
        }
        let cell_start = if seg == 0 {
            0
        } else {
            side.ends[seg - 1] as usize + 1
        };
        let cell = &side.text[cell_start..side.ends[seg] as usize];
        if let Some(b) = match_bit(cell, m.start() - cell_start, m.end() - cell_start, field) {
            note(m.pattern().as_usize(), b, &mut touched, &mut scratch);
        }
    }
    if !touched.is_empty() {
        extra.push(current, curated(current), &mut touched, &mut scratch);
    }
    merge(main, &extra, &mut scratch, &mut touched)
}

/// What [`scan_all`] finds in `rows` (sorted, unique), scanning those rows
/// only: the same masks for every row of `rows` that has a match, and no
/// other row. Each row is scanned as `scan` would in its chunk: a row that
/// repeats its file's path gets the path matches of its group's first row
/// (scanned for them) and is scanned past its path. Patterns must not
/// contain `\n` (a side cell is scanned on its own).
pub(super) fn scan_rows(
    text: &str,
    table: &Table,
    chunks: &[Chunk],
    automaton: &AhoCorasick,
    n_pat: usize,
    rows: &[usize],
) -> RowMasks {
    let mut all = RowMasks::new();
    let mut scratch = vec![0u16; n_pat];
    let mut touched: Vec<usize> = Vec::new();
    let mut spans = Vec::new();
    let bytes = text.as_bytes();
    let mut rest = rows;
    for chunk in chunks {
        let start = rest.partition_point(|&r| r < chunk.rows.start);
        let end = rest.partition_point(|&r| r < chunk.rows.end);
        let (mine, after) = (&rest[start..end], &rest[end..]);
        rest = after;
        let path_of = |row: usize| {
            let (rs, re) = (table.rows[row].0 as usize, table.rows[row].1 as usize);
            &bytes[rs..rs + path_len(&bytes[rs..re], table)]
        };
        let in_place_path = |row: usize| chunk.path_in_place[row - chunk.rows.start];
        // The last row looked at: (row, first row of its run of one path, the
        // run's first row whose path is in place before `row`).
        let mut last: Option<(usize, usize, Option<usize>)> = None;
        // The group whose path matches were gathered last, and those matches.
        let mut lent: Option<(usize, Vec<(usize, u16)>)> = None;
        for &row in mine {
            let path = path_of(row);
            // The rows before `row` in its chunk with its path (`run..row`) and
            // the first of them whose path is scanned in place: `scan` lends
            // that row's path matches to every later row of the run.
            let mut run = row;
            let mut group = None;
            if !path.is_empty() {
                while run > chunk.rows.start && path_of(run - 1) == path {
                    run -= 1;
                    if let Some((prev, prev_run, prev_group)) = last
                        && prev == run
                    {
                        run = prev_run;
                        group = prev_group;
                        break;
                    }
                }
                let from = last.filter(|l| l.1 == run).map_or(run, |l| l.0);
                if group.is_none() {
                    group = (from..row).find(|&r| in_place_path(r));
                }
            }
            last = Some((row, run, group));
            let (rs, re) = (table.rows[row].0 as usize, table.rows[row].1 as usize);
            let from = if group.is_some() { rs + path.len() } else { rs };
            scan_span(
                text,
                table,
                row,
                from,
                re,
                automaton,
                &mut spans,
                |p, b, _| {
                    note(p, b, &mut touched, &mut scratch);
                },
            );
            if let Some(g) = group {
                if lent.as_ref().is_none_or(|l| l.0 != g) {
                    let (gs, ge) = (table.rows[g].0 as usize, table.rows[g].1 as usize);
                    let path_end = gs + path.len();
                    let mut found = Vec::new();
                    scan_span(
                        text,
                        table,
                        g,
                        gs,
                        ge,
                        automaton,
                        &mut spans,
                        |p, b, end| {
                            if end <= path_end {
                                found.push((p, b));
                            }
                        },
                    );
                    lent = Some((g, found));
                }
                for &(p, b) in lent.as_ref().map_or(&[][..], |l| &l.1) {
                    note(p, b, &mut touched, &mut scratch);
                }
            }
            // The row's folded cells, each on its own.
            let side = &chunk.side;
            let first = side.rows.partition_point(|&r| (r as usize) < row);
            let end_seg = side.rows.partition_point(|&r| (r as usize) <= row);
            for seg in first..end_seg {
                let cell_start = if seg == 0 {
                    0
                } else {
                    side.ends[seg - 1] as usize + 1
                };
                let cell = &side.text[cell_start..side.ends[seg] as usize];
                for m in automaton.find_overlapping_iter(cell) {
                    if let Some(b) = match_bit(cell, m.start(), m.end(), side.fields[seg]) {
                        note(m.pattern().as_usize(), b, &mut touched, &mut scratch);
                    }
                }
            }
            if !touched.is_empty() {
                let curated = chunk.curated[row - chunk.rows.start];
                all.push(row, curated, &mut touched, &mut scratch);
            }
        }
    }
    all
}

/// Notes the match bit `b` of pattern `p` for the row being scanned.
fn note(p: usize, b: u16, touched: &mut Vec<usize>, scratch: &mut [u16]) {
    if scratch[p] == 0 {
        touched.push(p);
    }
    scratch[p] |= b;
}

/// The matches in `text[from..to]` of the row `row` that lie in one of its
/// in-place searchable cells and on word boundaries there, as `scan` judges
/// them: `found(pattern, bit, end)` for each.
#[allow(clippy::too_many_arguments)] // the scan's state, passed as `scan` keeps it
fn scan_span(
    text: &str,
    table: &Table,
    row: usize,
    from: usize,
    to: usize,
    automaton: &AhoCorasick,
    spans: &mut Vec<(usize, usize, Field)>,
    mut found: impl FnMut(usize, u16, usize),
) {
    let mut spans_loaded = false;
    for m in automaton.find_overlapping_iter(&text[from..to]) {
        let (start, end) = (from + m.start(), from + m.end());
        if !spans_loaded {
            self::spans(text, table, row, spans);
            spans_loaded = true;
        }
        // Boundaries are judged within the cell (or title part) only.
        let Some(&(cell_start, cell_end, field)) =
            spans.iter().find(|s| s.0 <= start && end <= s.1)
        else {
            continue;
        };
        let cell = &text[cell_start..cell_end];
        if let Some(b) = match_bit(cell, start - cell_start, end - cell_start, field) {
            found(m.pattern().as_usize(), b, end);
        }
    }
}

/// Length of a row's file path (its reference up to the `#` of the section id)
/// when the reference is the row's first cell and unquoted; 0 otherwise.
pub(super) fn path_len(row: &[u8], table: &Table) -> usize {
    if table.reference != 0 || row.first() == Some(&b'"') {
        return 0;
    }
    let cell = &row[..memchr::memchr(table.delimiter, row).unwrap_or(row.len())];
    let name = memchr::memrchr(b'/', cell).map_or(0, |i| i + 1);
    memchr::memchr(b'#', &cell[name..]).map_or(0, |i| name + i)
}

/// `a` and `b` (row-ordered masks over `n_pat` patterns) merged, the masks
/// of rows in both OR-ed.
pub(super) fn merge_into(a: RowMasks, b: RowMasks, n_pat: usize) -> RowMasks {
    merge(a, &b, &mut vec![0u16; n_pat], &mut Vec::new())
}

/// Merges two row-ordered mask lists, OR-ing the masks of rows in both.
fn merge(a: RowMasks, b: &RowMasks, scratch: &mut [u16], touched: &mut Vec<usize>) -> RowMasks {
    if b.rows.is_empty() {
        return a;
    }
    let mut out = RowMasks::new();
    let (mut i, mut j) = (0, 0);
    while i < a.rows.len() || j < b.rows.len() {
        let row = match (a.rows.get(i), b.rows.get(j)) {
            (Some(&x), Some(&y)) => x.min(y),
            (Some(&x), None) => x,
            (None, Some(&y)) => y,
            (None, None) => break,
        };
        let mut curated = false;
        for (masks, k) in [(&a, &mut i), (b, &mut j)] {
            if masks.rows.get(*k) == Some(&row) {
                curated = masks.curated[*k];
                for &(p, m) in masks.row(*k) {
                    let p = p as usize;
                    if scratch[p] == 0 {
                        touched.push(p);
                    }
                    scratch[p] |= m;
                }
                *k += 1;
            }
        }
        out.push(row, curated, touched, scratch);
    }
    out
}

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

    const VOCAB: &[&str] = &[
        "page",
        "per",
        "Paging",
        "ページング",
        "ロック",
        "dao",
        "ＤＡＯ",
        "ﾍﾟｰｼﾞ",
        "x-y",
        "#",
        " ",
        "  ",
        ",",
        "\"",
        " / ",
        "\\",
        "Ａ",
    ];

    fn vocab_text(max: usize) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy;
        proptest::collection::vec(proptest::sample::select(VOCAB), 0..max).prop_map(|v| v.concat())
    }

    proptest::proptest! {
        /// Scanning some rows finds what the scan of every row finds in them,
        /// whatever the chunks (a file's rows lend their path matches within one).
        #[test]
        fn scanning_some_rows_equals_the_full_scan(
            rows in proptest::collection::vec(
                (0..3usize, vocab_text(3), vocab_text(4), vocab_text(4)), 1..16),
            patterns in proptest::collection::vec(vocab_text(3), 1..4),
            size in 1..6usize,
            pick in proptest::collection::vec(proptest::bool::ANY, 16),
        ) {
            use crate::index::model::{Entry, Index};
            let mut entries: Vec<Entry> = rows
                .into_iter()
                .map(|(path, id, title, hints)| Entry {
                    reference: format!("{}#{id}", ["a/paging.json", "b.json", "dao/x-y.json"][path]),
                    title,
                    hints,
                    terms: String::new(),
                })
                .collect();
            entries.sort_by(|a, b| a.reference.split('#').next().cmp(&b.reference.split('#').next()));
            let text = crate::index::toon::encode(&Index { entries });
            let path = Path::new("i.toon");
            let table = crate::index::toon::locate(path, &text)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            let chunks: Vec<Chunk> = (0..table.len())
                .step_by(size)
                .map(|s| fold(path, &text, &table, s..(s + size).min(table.len())))
                .collect::<Result<_>>()
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            let patterns: Vec<String> = patterns
                .iter()
                .map(|p| normalize(p))
                .filter(|p| !p.is_empty())
                .collect();
            if patterns.is_empty() {
                return Ok(());
            }
            let automaton = AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::Standard)
                .ascii_case_insensitive(true)
                .build(&patterns)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            // Per matching row: (row, curated, its (pattern, mask) pairs sorted).
            type Rows = Vec<(usize, bool, Vec<(u32, u16)>)>;
            let sorted = |m: &RowMasks| -> Rows {
                (0..m.rows.len())
                    .map(|i| {
                        let mut items = m.row(i).to_vec();
                        items.sort_unstable();
                        (m.rows[i], m.curated[i], items)
                    })
                    .collect()
            };
            let subset: Vec<usize> = (0..table.len()).filter(|&r| pick[r]).collect();
            let all = sorted(&scan_all(&text, &table, &chunks, &automaton, patterns.len()));
            let some = sorted(&scan_rows(&text, &table, &chunks, &automaton, patterns.len(), &subset));
            let expected: Vec<_> = all.into_iter().filter(|r| pick[r.0]).collect();
            proptest::prop_assert_eq!(some, expected);
        }
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

    #[test]
    fn only_cells_that_need_it_are_folded() -> Result<()> {
        let text = "sections[3]{reference,title,hints}:\n  a.json#x,Ａ / One,hint\n  a.json#y,File / Two,\"quoted, \\\"escaped\\\"\"\n  b.json#z,plain,ﾍﾟｰｼﾞ  x\n";
        let table = crate::index::toon::locate(Path::new("i.toon"), text)?;
        let chunk = fold(Path::new("i.toon"), text, &table, 0..3)?;
        assert_eq!(chunk.side.text, "a\none\nquoted, \"escaped\"\nページ x\n");
        assert_eq!(chunk.side.rows, vec![0, 0, 1, 2]);
        assert_eq!(
            chunk.side.fields,
            vec![Field::FileTitle, Field::Title, Field::Hints, Field::Hints]
        );
        assert_eq!(chunk.curated, vec![true, true, true]);
        let mut out = Vec::new();
        spans(text, &table, 1, &mut out);
        let cells: Vec<(&str, &str)> = out
            .iter()
            .map(|&(s, e, f)| (&text[s..e], f.as_str()))
            .collect();
        assert_eq!(
            cells,
            vec![
                ("a.json#y", "path"),
                ("File", "file_title"),
                ("Two", "title")
            ]
        );
        Ok(())
    }
}
