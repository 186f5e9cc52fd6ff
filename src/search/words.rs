//! The word index: every distinct word of the index's searchable cells, with
//! the rows (and fields) it occurs in, serialised as one byte buffer that the
//! search cache (`crate::search::cache`) stores and maps back.
//!
//! It gives a search exactly the matches of the full scan (`haystack`) at a
//! cost that grows with the number of distinct words and of matching rows, not
//! with the size of the index. Cells are folded as the scan sees them and cut
//! into words at spaces and `#`; a pattern without either (see [`usable`])
//! can only match inside one word, and whether the match sits on word
//! boundaries depends on its neighbours only, which are the same inside a word
//! and its cell (a word's edge is a space, a `#` or the cell's edge, none of
//! them alphanumeric). So the automaton runs over the distinct words once and
//! each word's matches are handed to the rows it occurs in. Queries with a
//! pattern containing a space or `#` are scanned as before.
//!
//! Layout (little-endian `u32`s unless noted): a 56-byte header (magic,
//! format, kbidx version hash `u64`, index text hash `u128`, index length
//! `u64`, body hash `u64`), then the body: counts and the table's columns, the
//! row ranges, one byte per row (has hints), each word's end in the word text,
//! each word's end in the postings, the postings (`row << 3 | field`), and the
//! word text (words separated by `\n`). Loading checks every size, offset and
//! hash, so a damaged or foreign buffer is rejected, never trusted.

use std::borrow::Cow;
use std::path::Path;

use aho_corasick::AhoCorasick;
use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

use super::fields::{FIELDS, Field, RowMasks, match_kind};
use super::haystack::{in_place, searchable, split_title};
use super::score::Patterns;
use crate::error::{Error, Result};
use crate::index::file::IndexFile;
use crate::index::toon::Table;
use crate::text::normalize::normalize;

const MAGIC: &[u8; 8] = b"KBIDXWI\0";
/// Bumped whenever the layout or the folding/splitting rules change.
const FORMAT: u32 = 2;
const HEADER: usize = 56;
/// Counts and table columns at the start of the body.
const COUNTS: usize = 11;
/// "none" for an optional column.
const NONE: u32 = u32::MAX;
/// Word texts up to this size have their suffixes sorted and stored with
/// the word index (8 bytes per character stored, so at most 32 MB, and 24
/// while they are sorted; nabledge-6-fulltext's word text is 0.3 MB); a
/// larger one is scanned per search.
const LOOKUP_MAX_TEXT: usize = 4 << 20;
/// Word texts from this size up are scanned on two threads.
const PARALLEL_MIN_TEXT: usize = 64 * 1024;

/// Hash of the index text a word index belongs to.
pub fn text_hash(text: &str) -> u128 {
    xxh3_128(text.as_bytes())
}

fn version_hash() -> u64 {
    xxh3_64(env!("CARGO_PKG_VERSION").as_bytes())
}

/// Whether `pattern` can be looked up in the word index (it cannot span two words).
pub(super) fn usable(pattern: &str) -> bool {
    !pattern.is_empty() && !pattern.bytes().any(|b| matches!(b, b' ' | b'#' | b'\n'))
}

/// The bytes of a word index: built here, or mapped from the cache.
#[derive(Debug)]
enum Bytes {
    Built(Vec<u8>),
    File(IndexFile),
}

/// A word index (see module docs), validated.
#[derive(Debug)]
pub struct WordIndex {
    bytes: Bytes,
    rows: usize,
    words: usize,
    postings: usize,
    /// Offsets (in `bytes`) of the sections.
    at_curated: usize,
    at_word_ends: usize,
    at_posting_ends: usize,
    at_postings: usize,
    at_text: usize,
    /// The table read from the body.
    table: Table,
    /// The sorted suffixes of the word text (see [`sorted_suffixes`]): how
    /// many, and where their (start, word) pairs start.
    suffixes: usize,
    at_suffixes: usize,
}

/// Every suffix of the word text `text` (words ending at `word_ends`, each
/// followed by a newline) that starts a character, cut at the end of its
/// word, in byte order, as (start, word): the words that contain a pattern
/// are then one binary search away, where an automaton scans the whole word
/// text. Sorted when the word index is built and stored with it.
fn sorted_suffixes(text: &[u8], word_ends: &[u32]) -> Vec<(u32, u32)> {
    let mut keyed: Vec<(u64, u32, u32, u32)> = Vec::with_capacity(text.len());
    let mut start = 0;
    for (w, &end) in word_ends.iter().enumerate() {
        let end = end as usize;
        for i in start..end {
            // A pattern is text: it starts a character, never inside one.
            if text[i] & 0xC0 != 0x80 {
                // The first 8 bytes, zero-padded: ordered as the suffixes are.
                let mut key = [0u8; 8];
                let n = (end - i).min(8);
                key[..n].copy_from_slice(&text[i..i + n]);
                keyed.push((u64::from_be_bytes(key), i as u32, end as u32, w as u32));
            }
        }
        start = end + 1;
    }
    let slice = |s: &(u64, u32, u32, u32)| &text[s.1 as usize..s.2 as usize];
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| slice(a).cmp(slice(b))));
    keyed.into_iter().map(|(_, i, _, w)| (i, w)).collect()
}

/// The first position in `range` where `before` is false, given that it is
/// true up to some position and false after.
fn partition_point(range: std::ops::Range<usize>, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (range.start, range.end);
    while lo < hi {
        let mid = usize::midpoint(lo, hi);
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn push_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn to_u32(path: &Path, n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::data(path, format!("too many {what} for the word index")))
}

impl WordIndex {
    /// Builds the word index of `text` (the index file `path`, located as `table`),
    /// whose hash is `hash` (see [`text_hash`]). Errors as [`Table::cells`].
    ///
    /// Long on purpose: one pass from the index text to the stored word
    /// index (words, postings, field bits), writing one buffer.
    pub(super) fn build(path: &Path, text: &str, table: &Table, hash: u128) -> Result<Self> {
        let rows = table.len();
        if rows >= 1 << 29 {
            return Err(Error::data(path, "too many rows for the word index"));
        }
        let mut ids: foldhash::HashMap<Box<str>, u32> = foldhash::HashMap::default();
        let mut word_text: Vec<u8> = Vec::new();
        let mut word_ends: Vec<u32> = Vec::new();
        // (word, posting) in row order.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut curated: Vec<u8> = Vec::with_capacity(rows);
        let mut cells = Vec::with_capacity(table.columns);
        let mut lower = String::new();
        for row in 0..rows {
            cells.clear();
            table.cells(path, text, row, &mut cells)?;
            curated.push(u8::from(!cells[table.hints].is_empty()));
            for (column, field) in searchable(table) {
                let cell = &cells[column];
                if cell.is_empty() {
                    continue;
                }
                let folded = in_place(cell);
                let parts = if field == Field::Title {
                    let (file_title, title) = split_title(cell);
                    [(file_title, Field::FileTitle), (title, Field::Title)]
                } else {
                    [("", field), (cell.as_ref(), field)]
                };
                for (part, field) in parts {
                    if part.is_empty() {
                        continue;
                    }
                    let part: Cow<'_, str> = if folded {
                        Cow::Borrowed(part)
                    } else {
                        Cow::Owned(normalize(part))
                    };
                    for word in part.split([' ', '#']).filter(|w| !w.is_empty()) {
                        lower.clear();
                        lower.push_str(word);
                        lower.make_ascii_lowercase();
                        let id = if let Some(&id) = ids.get(lower.as_str()) {
                            id
                        } else {
                            let id = to_u32(path, ids.len(), "words")?;
                            ids.insert(lower.as_str().into(), id);
                            word_text.extend_from_slice(lower.as_bytes());
                            word_ends.push(to_u32(path, word_text.len(), "words")?);
                            word_text.push(b'\n');
                            id
                        };
                        // rows < 2^29, so the shift cannot overflow.
                        pairs.push((id, (row as u32) << 3 | field as u32));
                    }
                }
            }
        }
        // Postings grouped by word (counting sort), each word's sorted and unique.
        let words = word_ends.len();
        let mut posting_ends = vec![0u32; words + 1];
        for &(w, _) in &pairs {
            posting_ends[w as usize + 1] += 1;
        }
        for i in 1..=words {
            posting_ends[i] += posting_ends[i - 1];
        }
        let mut fill: Vec<u32> = posting_ends[..words].to_vec();
        let mut postings = vec![0u32; pairs.len()];
        for &(w, p) in &pairs {
            postings[fill[w as usize] as usize] = p;
            fill[w as usize] += 1;
        }
        drop(pairs);
        let mut packed: Vec<u32> = Vec::with_capacity(postings.len());
        let mut ends: Vec<u32> = Vec::with_capacity(words);
        for w in 0..words {
            let list = &mut postings[posting_ends[w] as usize..posting_ends[w + 1] as usize];
            list.sort_unstable();
            let from = packed.len();
            for &p in list.iter() {
                if packed.len() == from || packed.last() != Some(&p) {
                    packed.push(p);
                }
            }
            ends.push(to_u32(path, packed.len(), "postings")?);
        }

        let mut out = Vec::with_capacity(
            HEADER
                + 4 * (COUNTS + 2 * rows + 2 * words + packed.len())
                + rows.next_multiple_of(4)
                + word_text.len(),
        );
        out.extend_from_slice(MAGIC);
        push_u32(&mut out, FORMAT);
        push_u32(&mut out, 0);
        out.extend_from_slice(&version_hash().to_le_bytes());
        out.extend_from_slice(&hash.to_le_bytes());
        out.extend_from_slice(&(text.len() as u64).to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes()); // body hash, filled in below
        let optional = |c: Option<usize>| c.map_or(NONE, |c| c as u32);
        for v in [
            to_u32(path, rows, "rows")?,
            to_u32(path, words, "words")?,
            to_u32(path, packed.len(), "postings")?,
            to_u32(path, word_text.len(), "words")?,
            u32::from(table.delimiter),
            table.columns as u32,
            table.reference as u32,
            optional(table.title),
            table.hints as u32,
            optional(table.terms),
            table.bom as u32,
        ] {
            push_u32(&mut out, v);
        }
        for &(start, end) in &table.rows {
            push_u32(&mut out, start);
            push_u32(&mut out, end);
        }
        out.extend_from_slice(&curated);
        out.resize(out.len().next_multiple_of(4), 0);
        for v in word_ends.iter().chain(&ends).chain(&packed) {
            push_u32(&mut out, *v);
        }
        out.extend_from_slice(&word_text);
        let suffixes = if word_text.len() <= LOOKUP_MAX_TEXT {
            sorted_suffixes(&word_text, &word_ends)
        } else {
            Vec::new()
        };
        push_u32(&mut out, to_u32(path, suffixes.len(), "words")?);
        for (start, word) in suffixes {
            push_u32(&mut out, start);
            push_u32(&mut out, word);
        }
        let body = xxh3_64(&out[HEADER..]);
        out[48..56].copy_from_slice(&body.to_le_bytes());
        Self::load(Bytes::Built(out), hash, text).ok_or_else(|| {
            Error::data(
                path,
                "internal error: the word index just built does not load",
            )
        })
    }

    /// The hash of the index text this word index was built for.
    pub(crate) fn text_hash(&self) -> u128 {
        let b = self.bytes();
        b.get(24..40)
            .and_then(|h| h.try_into().ok())
            .map_or(0, u128::from_le_bytes)
    }

    /// Validates a word index read from the cache for `text` (hash `hash`):
    /// `None` when it is damaged, from another kbidx, or for another text.
    pub fn from_file(file: IndexFile, hash: u128, text: &str) -> Option<Self> {
        Self::load(Bytes::File(file), hash, text)
    }

    fn load(bytes: Bytes, hash: u128, text: &str) -> Option<Self> {
        let b = match &bytes {
            Bytes::Built(v) => v.as_slice(),
            Bytes::File(f) => f.bytes(),
        };
        if b.len() < HEADER + 4 * COUNTS
            || &b[..8] != MAGIC
            || u32_at(b, 8) != FORMAT
            || u32_at(b, 12) != 0
            || b[16..24] != version_hash().to_le_bytes()
            || b[24..40] != hash.to_le_bytes()
            || b[40..48] != (text.len() as u64).to_le_bytes()
            || b[48..56] != xxh3_64(&b[HEADER..]).to_le_bytes()
        {
            return None;
        }
        let count = |i: usize| u32_at(b, HEADER + 4 * i) as usize;
        let (rows, words, postings, text_len) = (count(0), count(1), count(2), count(3));
        let optional = |v: usize| (v != NONE as usize).then_some(v);
        let at_rows = HEADER + 4 * COUNTS;
        let at_curated = at_rows.checked_add(rows.checked_mul(8)?)?;
        let at_word_ends = at_curated.checked_add(rows.next_multiple_of(4))?;
        let at_posting_ends = at_word_ends.checked_add(words.checked_mul(4)?)?;
        let at_postings = at_posting_ends.checked_add(words.checked_mul(4)?)?;
        let at_text = at_postings.checked_add(postings.checked_mul(4)?)?;
        let at_suffixes = at_text.checked_add(text_len)?;
        let suffixes = u32_at(b, at_suffixes) as usize;
        if at_suffixes
            .checked_add(4)?
            .checked_add(suffixes.checked_mul(8)?)?
            != b.len()
        {
            return None;
        }
        let columns = count(5);
        let in_row = |c: usize| c < columns;
        let table = Table {
            delimiter: u8::try_from(count(4)).ok()?,
            columns,
            reference: count(6),
            title: optional(count(7)),
            hints: count(8),
            terms: optional(count(9)),
            rows: (0..rows)
                .map(|r| (u32_at(b, at_rows + 8 * r), u32_at(b, at_rows + 8 * r + 4)))
                .collect(),
            bom: count(10),
        };
        let columns_ok = in_row(table.reference)
            && in_row(table.hints)
            && table.title.is_none_or(in_row)
            && table.terms.is_none_or(in_row)
            && table.bom <= 3
            && text.is_char_boundary(table.bom);
        let rows_ok = table.rows.iter().all(|&(s, e)| {
            s <= e && text.is_char_boundary(s as usize) && text.is_char_boundary(e as usize)
        });
        let ends_ok = |at: usize, n: usize, limit: usize| {
            let mut prev = 0;
            (0..n).all(|i| {
                let e = u32_at(b, at + 4 * i) as usize;
                let ok = e >= prev && e <= limit;
                prev = e;
                ok
            })
        };
        if !columns_ok
            || !rows_ok
            || !ends_ok(at_word_ends, words, text_len)
            || !ends_ok(at_posting_ends, words, postings)
        {
            return None;
        }
        Some(Self {
            bytes,
            rows,
            words,
            postings,
            at_curated,
            at_word_ends,
            at_posting_ends,
            at_postings,
            at_text,
            table,
            suffixes,
            at_suffixes,
        })
    }

    /// The word text.
    fn text(&self) -> &[u8] {
        let b = self.bytes();
        b.get(self.at_text..self.at_suffixes).unwrap_or_default()
    }

    /// (start in the word text, word) of stored suffix `i`, if in range.
    fn suffix(&self, i: usize) -> Option<(usize, usize)> {
        let b = self.bytes();
        let at = self.at_suffixes + 4 + 8 * i;
        let word = u32_at(b, at + 4) as usize;
        (word < self.words).then(|| (u32_at(b, at) as usize, word))
    }

    /// The text of stored suffix `i`: from its start to the end of its word
    /// (empty when damaged).
    fn suffix_text(&self, i: usize) -> &[u8] {
        match self.suffix(i) {
            Some((start, word)) => self
                .text()
                .get(start..self.word(word).1)
                .unwrap_or_default(),
            None => &[],
        }
    }

    /// The stored suffixes that start with `pattern`: (start, word) each.
    fn starting_with(&self, pattern: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
        let lo = partition_point(0..self.suffixes, |i| self.suffix_text(i) < pattern);
        let hi = partition_point(lo..self.suffixes, |i| {
            self.suffix_text(i).starts_with(pattern)
        });
        (lo..hi).filter_map(|i| self.suffix(i))
    }

    fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Built(v) => v,
            Bytes::File(f) => f.bytes(),
        }
    }

    /// The serialised index (what the cache stores).
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes()
    }

    /// The table of the index text it was built from.
    pub(super) fn table(&self) -> &Table {
        &self.table
    }

    /// Start and end (exclusive) of word `w` in the word text.
    fn word(&self, w: usize) -> (usize, usize) {
        let b = self.bytes();
        let end = u32_at(b, self.at_word_ends + 4 * w) as usize;
        let start = if w == 0 {
            0
        } else {
            u32_at(b, self.at_word_ends + 4 * (w - 1)) as usize + 1
        };
        (start.min(end), end)
    }

    /// (word, pattern, kind) for every pattern of `automaton` found in words
    /// `first..last` (kind: see [`match_kind`]), in word order.
    fn scan_words(
        &self,
        automaton: &AhoCorasick,
        first: usize,
        last: usize,
    ) -> Vec<(u32, u32, u16)> {
        let mut found: Vec<(u32, u32, u16)> = Vec::new();
        if first >= last {
            return found;
        }
        let text = self.text();
        let from = self.word(first).0;
        let to = self.word(last - 1).1;
        let mut w = first;
        let mut bounds = self.word(w);
        for m in automaton.find_overlapping_iter(&text[from..to]) {
            let (start, end) = (from + m.start(), from + m.end());
            while end > bounds.1 && w + 1 < last {
                w += 1;
                bounds = self.word(w);
            }
            if start < bounds.0 || end > bounds.1 {
                continue; // spans a separator: impossible for usable patterns
            }
            let kind = match_kind(&text[bounds.0..bounds.1], start - bounds.0, end - bounds.0);
            if kind == 0 {
                continue;
            }
            let p = m.pattern().as_u32();
            match found
                .iter_mut()
                .rev()
                .take_while(|f| f.0 == w as u32)
                .find(|f| f.1 == p)
            {
                Some(f) => f.2 |= kind,
                None => found.push((w as u32, p, kind)),
            }
        }
        found
    }

    /// The postings of word `w` (offsets into the postings).
    fn posting_range(&self, w: usize) -> std::ops::Range<usize> {
        let b = self.bytes();
        let start = if w == 0 {
            0
        } else {
            u32_at(b, self.at_posting_ends + 4 * (w - 1)) as usize
        };
        let end = u32_at(b, self.at_posting_ends + 4 * w) as usize;
        start.min(end)..end.min(self.postings)
    }

    /// For each of `tokens`, a flag per row: whether one of the row's words
    /// contains it (ASCII case ignored). From the sorted suffixes when they
    /// are built, else by one scan of the word text. `None` when the
    /// automaton for the scan cannot be built.
    pub(super) fn rows_containing(&self, tokens: &[String]) -> Option<Vec<Vec<bool>>> {
        self.rows_containing_by(tokens, self.suffixes > 0)
    }

    /// [`WordIndex::rows_containing`], from the sorted suffixes (`lookup`) or a scan.
    fn rows_containing_by(&self, tokens: &[String], lookup: bool) -> Option<Vec<Vec<bool>>> {
        let text = self.text();
        let lower: Vec<String> = tokens.iter().map(|t| t.to_ascii_lowercase()).collect();
        let mut words: Vec<Vec<u32>> = vec![Vec::new(); tokens.len()];
        if lookup {
            for (token, found) in lower.iter().zip(&mut words) {
                found.extend(self.starting_with(token.as_bytes()).map(|(_, w)| w as u32));
            }
        } else if !tokens.is_empty() {
            let automaton = AhoCorasick::builder()
                .kind(Some(super::score::automaton_kind(&lower)))
                .build(&lower)
                .ok()?;
            let mut w = 0;
            for m in automaton.find_overlapping_iter(text) {
                while w + 1 < self.words && self.word(w).1 < m.end() {
                    w += 1;
                }
                words[m.pattern().as_usize()].push(w as u32);
            }
        }
        let b = self.bytes();
        Some(
            words
                .into_iter()
                .map(|found| {
                    let mut rows = vec![false; self.rows];
                    for w in found {
                        for i in self.posting_range(w as usize) {
                            let row = (u32_at(b, self.at_postings + 4 * i) >> 3) as usize;
                            if let Some(flag) = rows.get_mut(row) {
                                *flag = true;
                            }
                        }
                    }
                    rows
                })
                .collect(),
        )
    }

    /// For every row with a match: the fields each of `patterns` matched in,
    /// exactly as `haystack::scan_all` finds them (for patterns that are
    /// [`usable`]); `None` when the patterns' automaton cannot be built.
    pub(super) fn masks(&self, patterns: &Patterns) -> Option<RowMasks> {
        let found = if self.suffixes > 0 {
            self.look_up(&patterns.list)
        } else {
            self.scan(patterns.automaton()?)
        };
        Some(self.rows_of(&found, patterns.list.len()))
    }

    /// (word, pattern, kind) of every word a [`usable`] pattern of `patterns`
    /// matches in (kind: see [`match_kind`]), from the sorted suffixes: what
    /// [`WordIndex::scan`] finds, sorted by word and pattern.
    fn look_up(&self, patterns: &[String]) -> Vec<(u32, u32, u16)> {
        let text = self.text();
        let mut found: Vec<(u32, u32, u16)> = Vec::new();
        for (p, pattern) in patterns.iter().enumerate() {
            if !usable(pattern) {
                continue; // a space or `#` is in no word
            }
            // The automaton ignores ASCII case; the words are in lower case.
            let lower = pattern.to_ascii_lowercase();
            for (start, w) in self.starting_with(lower.as_bytes()) {
                let (from, to) = self.word(w);
                let (Some(at), Some(word)) = (start.checked_sub(from), text.get(from..to)) else {
                    continue; // a damaged entry: nothing to find
                };
                let kind = match_kind(word, at, at + lower.len());
                if kind != 0 {
                    found.push((w as u32, p as u32, kind));
                }
            }
        }
        found.sort_unstable();
        found.dedup_by(|later, kept| {
            let same = later.0 == kept.0 && later.1 == kept.1;
            if same {
                kept.2 |= later.2;
            }
            same
        });
        found
    }

    /// (word, pattern, kind) of every word a pattern of `automaton` matches
    /// in, in word order, by a scan of the word text (in two halves in
    /// parallel when it is long).
    fn scan(&self, automaton: &AhoCorasick) -> Vec<(u32, u32, u16)> {
        let text_len = self.text().len();
        let halves: Vec<(usize, usize)> = if text_len >= PARALLEL_MIN_TEXT && self.words >= 2 {
            // The first word ending past the middle of the text.
            let (mut lo, mut hi) = (0, self.words);
            while lo < hi {
                let mid = usize::midpoint(lo, hi);
                if self.word(mid).1 < text_len / 2 {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            vec![(0, lo), (lo, self.words)]
        } else {
            vec![(0, self.words)]
        };
        crate::parallel::in_parallel(&halves, |&(first, last)| {
            self.scan_words(automaton, first, last)
        })
        .concat()
    }

    /// The masks of every row from the words' matches `found`.
    fn rows_of(&self, found: &[(u32, u32, u16)], n_pat: usize) -> RowMasks {
        let b = self.bytes();
        let posting_range = |w: usize| self.posting_range(w);

        // Postings → (pattern, mask) per row, grouped by row (counting sort).
        let rows = self.rows;
        let posting = |i: usize| u32_at(b, self.at_postings + 4 * i);
        let mut starts = vec![0u32; rows + 1];
        for &(w, _, _) in found {
            for i in posting_range(w as usize) {
                let row = (posting(i) >> 3) as usize;
                if row < rows {
                    starts[row + 1] += 1;
                }
            }
        }
        for r in 1..=rows {
            starts[r] += starts[r - 1];
        }
        let mut fill = starts.clone();
        let mut items = vec![(0u32, 0u16); starts[rows] as usize];
        for &(w, p, kind) in found {
            for i in posting_range(w as usize) {
                let post = posting(i);
                let (row, field) = ((post >> 3) as usize, post & 7);
                if row < rows && (field as usize) < FIELDS {
                    items[fill[row] as usize] = (p, kind << field);
                    fill[row] += 1;
                }
            }
        }
        let mut out = RowMasks::new();
        let mut scratch = vec![0u16; n_pat];
        let mut touched = Vec::new();
        for row in 0..rows {
            let (s, e) = (starts[row] as usize, fill[row] as usize);
            if s == e {
                continue;
            }
            for &(p, mask) in &items[s..e] {
                let p = p as usize;
                if p < n_pat {
                    if scratch[p] == 0 {
                        touched.push(p);
                    }
                    scratch[p] |= mask;
                }
            }
            let curated = b.get(self.at_curated + row).is_some_and(|&c| c != 0);
            out.push(row, curated, &mut touched, &mut scratch);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(text: &str) -> Result<WordIndex> {
        let table = crate::index::toon::locate(Path::new("i.toon"), text)?;
        WordIndex::build(Path::new("i.toon"), text, &table, text_hash(text))
    }

    fn words(index: &WordIndex) -> Vec<String> {
        String::from_utf8_lossy(index.text())
            .split_terminator('\n')
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn words_are_folded_cells_cut_at_spaces_and_hashes() -> Result<()> {
        let text = "sections[2]{reference,title,hints}:\n  a/b.json#x,Ｆｉｌｅ / Sec One,Paging per-page\n  a/b.json#y,File / two,\"q, r\"\n";
        let index = built(text)?;
        assert_eq!(
            words(&index),
            vec![
                "a/b.json", "x", "file", "sec", "one", "paging", "per-page", "y", "two", "q,", "r"
            ]
        );
        Ok(())
    }

    #[test]
    fn loading_rejects_other_texts_and_damage() -> Result<()> {
        let text = "sections[1]{reference,hints}:\n  a.json#x,paging\n";
        let index = built(text)?;
        let bytes = index.as_bytes().to_vec();
        let load =
            |b: Vec<u8>, t: &str| WordIndex::load(Bytes::Built(b), text_hash(t), t).is_some();
        assert!(load(bytes.clone(), text));
        assert!(!load(
            bytes.clone(),
            "sections[1]{reference,hints}:\n  a.json#x,pagin\n"
        ));
        for at in [0, 9, 20, 30, 60, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            assert!(!load(damaged, text), "byte {at}");
        }
        assert!(!load(bytes[..bytes.len() - 1].to_vec(), text));
        assert!(!load(Vec::new(), text));
        Ok(())
    }

    proptest::proptest! {
        /// Damaged entries (any byte flipped, cut anywhere, junk appended) never load.
        #[test]
        fn damaged_entries_never_load(at in 0usize..10_000, bit in 0u8..8, cut in 0usize..10_000) {
            let text = "sections[3]{reference,title,hints}:\n  a/b.json#x,Ｆｉｌｅ / One,paging per-page\n  a/b.json#y,File / Two,\"q, r\"\n  c.json#z,,ロック\n";
            let index = built(text).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            let bytes = index.as_bytes().to_vec();
            let load = |b: Vec<u8>| WordIndex::load(Bytes::Built(b), text_hash(text), text).is_some();
            let mut flipped = bytes.clone();
            let i = at % flipped.len();
            flipped[i] ^= 1 << bit;
            proptest::prop_assert!(!load(flipped), "flipped bit {} of byte {}", bit, i);
            proptest::prop_assert!(!load(bytes[..cut % bytes.len()].to_vec()));
            let mut longer = bytes.clone();
            longer.extend_from_slice(&bytes[..cut % bytes.len() + 1]);
            proptest::prop_assert!(!load(longer));
        }
    }

    /// The sorted suffixes find what the scan of the word text finds.
    #[test]
    fn suffix_lookups_equal_the_scan() -> Result<()> {
        let text = "sections[3]{reference,title,hints}:\n  a/paging.json#x,Ｆｉｌｅ / Paging per-page,ページング pagination restful\n  a/b.json#y,File / two,\"rest, page\"\n  c.json#z,楽観的ロック,ロック ＤＡＯ dao-x pages\n";
        let index = built(text)?;
        let patterns: Vec<String> = [
            "page",
            "pag",
            "rest",
            "paging",
            "ロック",
            "ング",
            "dao",
            "x",
            "json",
            "a/b",
            "p",
            "zz",
            "per page",
            "PAGE",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&patterns)
            .map_err(|e| Error::Usage(e.to_string()))?;
        let mut scanned = index.scan(&automaton);
        scanned.sort_unstable();
        let tokens = ["pag", "ロック", "A/B", "zz"].map(String::from);
        let scanned_rows = index.rows_containing_by(&tokens, false);
        assert!(index.suffixes > 0, "the suffixes are stored");
        assert_eq!(index.look_up(&patterns), scanned);
        assert!(!scanned.is_empty());
        let rows = index.rows_containing(&tokens);
        assert_eq!(rows, scanned_rows);
        assert_eq!(
            rows,
            Some(vec![
                vec![true, true, true],
                vec![false, false, true],
                vec![false, true, false],
                vec![false, false, false]
            ])
        );
        Ok(())
    }

    #[test]
    fn usable_patterns_cannot_span_words() {
        for (pattern, want) in [
            ("paging", true),
            ("per-page", true),
            ("a/b.json", true),
            ("per page", false),
            ("b.json#x", false),
            ("", false),
        ] {
            assert_eq!(usable(pattern), want, "{pattern}");
        }
    }
}
