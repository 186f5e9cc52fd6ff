//! The body stage: BM25F over each section's title, hints, derived terms and
//! text, for every query.
//!
//! The index pass (`matcher`) sees titles, hints, paths and derived terms as
//! strings; this stage sees the words of the section text too. Every field is
//! normalised and tokenised exactly like queries ([`terms`]: NFKC + case
//! folding, IPADIC content words), so a question's words meet the words the
//! section is written in. [`BodyIndex::build`] reads every section once
//! through the one knowledge reader; the search cache keeps the result, so a
//! search only looks its query words up. It also keeps each section's
//! normalised text, which levelled keywords are looked for in literally
//! ([`BodyIndex::literal`]).
//!
//! Scoring is BM25F: a word's frequency in a row is the weighted sum of its
//! per-field frequencies, each length-normalised against the field's mean
//! length, saturated once (`k1`), times the word's idf over the rows.

use std::collections::HashMap;
use std::path::Path;

use crate::index::model::{EntryRef, split_reference};
use crate::knowledge::Root;
use crate::knowledge::content::Sections;
use crate::search::bm25::{idf, terms};
use crate::search::{Level, Query};
use crate::text::normalize::normalize;

/// The fields of a row, in the order of [`Params::weights`].
const N_FIELDS: usize = 4;
/// At most this many katakana words stand for one English query word.
const BRIDGES_PER_WORD: usize = 2;
/// How alike (with vowels) an English word and a katakana word with a
/// two-consonant skeleton must be to be bridged.
const SHORT_SIMILARITY: f64 = 0.6;

/// BM25F parameters (chosen on the dev split: docs/accuracy.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Params {
    /// Weight of a word occurrence per field (title, hints, terms, body).
    pub(crate) weights: [f64; N_FIELDS],
    /// Length normalisation per field (0: none, 1: full).
    pub(crate) b: [f64; N_FIELDS],
    /// Term-frequency saturation.
    pub(crate) k1: f64,
    /// Share of a row's score that comes from its whole file (the same
    /// BM25F with the file as the document): a section often carries only
    /// the aspect of a question ("module list", "settings") while its file
    /// carries the topic.
    pub(crate) file: f64,
    /// Weight of a katakana word an English query word was bridged to
    /// (retry → リトライ, [`crate::text::translit`]), relative to the English
    /// word's own; 0 turns bridges off. 0.7: the largest weight with no dev
    /// loss (docs/accuracy.md).
    pub(crate) bridge: f64,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            weights: [5.0, 1.0, 0.5, 1.0],
            b: [1.0, 1.0, 0.0, 0.5],
            k1: 0.8,
            file: 0.2,
            bridge: 0.7,
        }
    }
}

/// Word postings of every row's four fields, in one byte buffer that is
/// both the in-memory form and the search cache's entry (so a cached index
/// is searched where it is mapped, without parsing).
///
/// Layout (little-endian): a [`HEADER`]-byte header (magic, the index text
/// hash and the knowledge fingerprint it was built for, the checksum of
/// everything after it, the row, word and
/// posting counts, the rows with unreadable text, the mean length of each
/// field), then the field lengths of each row (`u32` × 4), the word offsets
/// into the word bytes and the posting offsets (`u32`, one more than words
/// each), the words' bytes (sorted), and the postings (`u32` row, `u16` × 4
/// frequencies), row ascending per word, then each row's normalised section
/// text (`u32` offsets, one more than rows, and the bytes), then the rows of
/// each character-pair bucket of that text (`u32` log2 of the bucket count,
/// `u32` offsets, one more than buckets, and the `u32` rows, ascending per
/// bucket), then the file list.
#[derive(Debug)]
pub(crate) struct BodyIndex {
    bytes: Bytes,
    /// The hash of the index text this body index was built for.
    hash: u128,
    n_rows: usize,
    n_words: usize,
    n_postings: usize,
    average: [f64; N_FIELDS],
    /// Byte offsets of the sections after the header.
    lengths_at: usize,
    files_of_rows_at: usize,
    /// Per file (in the order of [`files`]): its rows' field lengths summed.
    file_lengths: Vec<[u32; N_FIELDS]>,
    file_average: [f64; N_FIELDS],
    word_offsets_at: usize,
    posting_offsets_at: usize,
    words_at: usize,
    postings_at: usize,
    /// Where each row's normalised section text starts (offsets into the text bytes).
    text_offsets_at: usize,
    text_at: usize,
    gram_bits: u32,
    gram_offsets_at: usize,
    gram_rows_at: usize,
    n_gram_rows: usize,
    /// The katakana words by their bridge key (see [`bridge_key`]): entries,
    /// where their keys' offsets, word indexes and keys start.
    n_bridges: usize,
    bridge_offsets_at: usize,
    bridge_words_at: usize,
    bridge_keys_at: usize,
    /// Rows whose section text could not be read (missing file, invalid JSON,
    /// outside the knowledge directory, unknown id): they keep their other fields.
    /// Part of the stored layout; no report shows it (the fallback's note
    /// counts its own unreadable sections).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) unreadable: usize,
}

/// Where the bytes live: built in memory, or a mapped cache entry.
enum Bytes {
    Owned(Vec<u8>),
    Mapped(crate::index::file::IndexFile),
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes", self.as_slice().len())
    }
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Self::Owned(v) => v,
            Self::Mapped(file) => file.bytes(),
        }
    }
}

const MAGIC: &[u8; 8] = b"KBIDXB06";
/// At most 2^16 buckets in the character-pair index of the section text;
/// fewer for less text (one per 16 distinct pairs of a row, summed), so a
/// small knowledge base keeps a small entry.
const GRAM_BITS: u32 = 16;

/// The distinct hashes of the character pairs of `text`, ascending: a
/// multiplicative hash of both code points, whose top bits are the pair's
/// bucket. Pairs share buckets: a bucket's rows are those whose text holds
/// any pair of the bucket, a superset of each pair's.
fn gram_hashes(text: &str) -> Vec<u64> {
    let mut chars = text.chars();
    let mut hashes = Vec::new();
    if let Some(mut previous) = chars.next() {
        for c in chars {
            let pair = (u64::from(u32::from(previous)) << 32) | u64::from(u32::from(c));
            hashes.push(pair.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            previous = c;
        }
    }
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// The bucket of the pair hash `hash` among 2^`bits` buckets.
fn gram_bucket(hash: u64, bits: u32) -> usize {
    hash.checked_shr(64 - bits).unwrap_or(0) as usize
}

/// Appends the `u32` offsets of consecutive items of the given lengths: 0,
/// then each running total (saturating, as a stored offset cannot exceed
/// `u32::MAX`).
fn push_offsets(out: &mut Vec<u8>, lengths: impl IntoIterator<Item = usize>) {
    let mut offset = 0u32;
    out.extend_from_slice(&offset.to_le_bytes());
    for length in lengths {
        offset = offset.saturating_add(u32::try_from(length).unwrap_or(u32::MAX));
        out.extend_from_slice(&offset.to_le_bytes());
    }
}

/// The buckets of a row's pair hashes (ascending, as [`gram_hashes`]
/// returns them), ascending and each once.
fn row_buckets(hashes: &[u64], bits: u32) -> impl Iterator<Item = usize> + '_ {
    let mut last = None;
    hashes.iter().filter_map(move |&h| {
        let bucket = gram_bucket(h, bits);
        (last.replace(bucket) != Some(bucket)).then_some(bucket)
    })
}
/// Header size: magic, index hash (16), fingerprint (8), checksum (8), four `u32` counts, four
/// `f64` means.
const HEADER: usize = 8 + 16 + 8 + 8 + 16 + 32;
/// Where the checksum sits; it covers the bytes from [`CHECKED`] to the end.
const CHECKSUM: usize = 32;
const CHECKED: usize = CHECKSUM + 8;

/// The checksum of an entry's bytes `b` (xxh3 of everything after the checksum field).
fn checksum(b: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(b.get(CHECKED..).unwrap_or_default())
}
const POSTING: usize = 4 + 2 * N_FIELDS;

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// The files the rows' text comes from: each distinct file part of the
/// references, in row order.
pub(crate) fn files<'e>(entries: &'e [EntryRef<'_>]) -> Vec<&'e str> {
    let mut files: Vec<&str> = Vec::new();
    for e in entries {
        let file = split_reference(&e.reference).0;
        if files.last() != Some(&file) {
            files.push(file);
        }
    }
    files
}

/// What an English query word and a katakana word of the text must share
/// to be bridged: the consonant skeleton of the katakana word's romaji and
/// whether it starts with a vowel (`None`: not katakana). A two-consonant
/// skeleton is also checked for likeness at search time.
fn bridge_key(katakana: &str) -> Option<Vec<u8>> {
    let romaji = crate::text::translit::katakana_romaji(katakana)?;
    let skeleton = crate::text::translit::romaji_skeleton(&romaji);
    let vowel = romaji.starts_with(['a', 'e', 'i', 'o', 'u']);
    Some([skeleton.as_bytes(), &[u8::from(vowel)]].concat())
}

/// [`fingerprint_in_parallel`] on one thread: its definition, for tests.
#[cfg(test)]
pub(crate) fn fingerprint<'f>(files: impl IntoIterator<Item = &'f str>, knowledge: &Path) -> u64 {
    let files: Vec<&str> = files.into_iter().collect();
    let stats: Vec<_> = files.iter().map(|f| stat(knowledge, f)).collect();
    digest(&files, &stats)
}

/// What the section text was read from, in a few bytes: the kbidx version
/// and each file's path, size and modification time (the files are not
/// read). A cached body index is used only while this is unchanged. The
/// files' status is read on two threads: one status read per file (935 on
/// nabledge-6-fulltext, about 2 ms) is most of what mapping a cached body
/// index costs, and every search that maps one does it.
fn fingerprint_in_parallel(files: &[&str], knowledge: &Path) -> u64 {
    let half = files.len() / 2;
    let (first, second) = files.split_at(half);
    let read = |part: &[&str]| -> Vec<_> { part.iter().map(|f| stat(knowledge, f)).collect() };
    if first.len() < 64 {
        return digest(files, &read(files));
    }
    let stats = std::thread::scope(|scope| {
        let other = scope.spawn(|| read(second));
        let mut stats = read(first);
        // Reading a status does not panic; if it did, re-raise it here.
        stats.extend(
            other
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
        );
        stats
    });
    digest(files, &stats)
}

/// The fingerprint of `files` whose status (size, modification time) is `stats`.
fn digest(files: &[&str], stats: &[Option<(u64, u128)>]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    for (file, stat) in files.iter().zip(stats) {
        hasher.update(file.as_bytes());
        hasher.update(&[0]);
        if let Some((len, modified)) = stat {
            hasher.update(&len.to_le_bytes());
            hasher.update(&modified.to_le_bytes());
        }
    }
    hasher.digest()
}

/// The size and modification time (nanoseconds since the epoch, 0 before
/// it) of `file`, a path relative to the knowledge directory `knowledge`
/// (`/`-separated), if it can be read. Reading each file's status relative to
/// its directory (`fstatat`) measured 1.87 -> 1.58 ms per fulltext search:
/// not a difference a user sees, so the portable whole-path `metadata` stays.
fn stat(knowledge: &Path, file: &str) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(knowledge.join(file)).ok()?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Some((meta.len(), modified))
}

/// The first position in `range` where `before` is false, given that it is
/// true up to some position and false after (a binary search over the
/// index's sorted words, or over one word's postings, sorted by row).
fn partition_point(range: std::ops::Range<usize>, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (range.start, range.end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A set of rows, one bit each (a multi-word keyword's rows: those with
/// all of its words; looked up once per posting of its words).
#[derive(Debug, Default, Clone, PartialEq)]
struct Rows(Vec<u64>);

impl Rows {
    /// The rows of `rows` below `n`.
    fn of(n: usize, rows: impl Iterator<Item = usize>) -> Self {
        let mut bits = vec![0u64; n.div_ceil(64)];
        for row in rows.filter(|&r| r < n) {
            bits[row / 64] |= 1 << (row % 64);
        }
        Self(bits)
    }

    /// The rows in both.
    fn and(self, other: &Self) -> Self {
        Self(self.0.iter().zip(&other.0).map(|(a, b)| a & b).collect())
    }

    fn has(&self, row: usize) -> bool {
        self.0
            .get(row / 64)
            .is_some_and(|b| b >> (row % 64) & 1 == 1)
    }
}

/// A row and its score, ordered as the body stage ranks: a higher score
/// first, then the lower row (so "less" is "better" and a max-heap's head
/// is the weakest row kept).
#[derive(Debug, Clone, Copy)]
struct Best {
    score: f64,
    row: usize,
}

impl Ord for Best {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.row.cmp(&other.row))
    }
}

impl PartialOrd for Best {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Best {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Best {}

/// The `top` rows of positive score, as (row, score), in no particular
/// order: a bounded heap instead of a list of every scored row (a common
/// word scores most rows of a large knowledge base).
fn best_rows(scores: &[f64], top: usize) -> Vec<(usize, f64)> {
    let mut best: std::collections::BinaryHeap<Best> = std::collections::BinaryHeap::new();
    if top == 0 {
        return Vec::new();
    }
    for (row, &score) in scores.iter().enumerate() {
        if score <= 0.0 {
            continue;
        }
        let candidate = Best { score, row };
        if best.len() < top {
            best.push(candidate);
        } else if best.peek().is_some_and(|weakest| candidate < *weakest) {
            best.pop();
            best.push(candidate);
        }
    }
    best.into_iter().map(|b| (b.row, b.score)).collect()
}

/// A word of the query, as the body stage searches it.
struct QueryWord {
    word: String,
    level: Level,
    weight: f64,
    /// The multi-word keyword it belongs to, when it counts only with its siblings.
    group: Option<usize>,
    /// The English query word a bridged katakana word stands for.
    via: Option<String>,
}

impl QueryWord {
    /// The word as `matched` reports it: bridged from its English word, or itself.
    fn shown(&self) -> Word {
        match &self.via {
            Some(english) => Word::Bridged(Bridge {
                from: english.clone(),
                to: self.word.clone(),
            }),
            None => Word::Own(self.word.clone()),
        }
    }

    /// Whether the word counts in `row`: anywhere, or, when it belongs to a
    /// multi-word keyword, only in that keyword's rows.
    fn counts_in(&self, row: usize, groups: &[Rows]) -> bool {
        self.group.is_none_or(|g| groups[g].has(row))
    }
}

pub(crate) use super::body_match::BodyMatch;
use super::body_match::{Bridge, MatchField, Word};

/// Postings under construction: word → (row, frequency per field).
type Building<'w> = Vec<(&'w str, Vec<(u32, [u16; N_FIELDS])>)>;

/// A row as a tokenising thread leaves it: its words, as ids in that
/// thread's [`Counter`], with their frequency per field.
struct Tokenised {
    counts: Vec<(u32, [u16; N_FIELDS])>,
    lengths: [u32; N_FIELDS],
    readable: bool,
    /// The section text, normalised.
    text: String,
    /// The hashes of its character pairs ([`gram_hashes`]).
    pairs: Vec<u64>,
}

/// One thread's vocabulary while it tokenises rows: each word is stored
/// once, not once per occurrence.
#[derive(Default)]
struct Counter {
    ids: foldhash::HashMap<Box<str>, u32>,
    /// Per word id: the last row that counted it, and where in that row.
    last: Vec<(u32, u32)>,
    rows: u32,
}

impl Counter {
    /// Counts the terms of a row's fields (title, hints and terms
    /// normalised, then `text`, the normalised section text).
    /// Without a tokeniser (a broken embedded dictionary), fields have no words.
    fn row(
        &mut self,
        mut tokeniser: Option<&mut crate::text::tokenize::Tokeniser>,
        fields: [String; N_FIELDS - 1],
        text: String,
        readable: bool,
    ) -> Tokenised {
        self.rows += 1;
        let mut counts: Vec<(u32, [u16; N_FIELDS])> = Vec::new();
        let mut lengths = [0u32; N_FIELDS];
        for (f, field) in fields
            .iter()
            .map(String::as_str)
            .chain([text.as_str()])
            .enumerate()
        {
            let Some(tokeniser) = tokeniser.as_deref_mut() else {
                continue;
            };
            // lindera does not fail on text; the field keeps the words it gave.
            let _ = tokeniser.each_term(field, |word| {
                lengths[f] += 1;
                let id = match self.ids.get(word) {
                    Some(&id) => id,
                    None => {
                        let id = self.last.len() as u32;
                        self.ids.insert(word.into(), id);
                        self.last.push((0, 0));
                        id
                    }
                };
                let last = &mut self.last[id as usize];
                if last.0 != self.rows {
                    *last = (self.rows, counts.len() as u32);
                    counts.push((id, [0; N_FIELDS]));
                }
                let count = &mut counts[last.1 as usize].1[f];
                *count = count.saturating_add(1);
            });
        }
        Tokenised {
            counts,
            lengths,
            readable,
            pairs: gram_hashes(&text),
            text,
        }
    }

    /// The words by id.
    fn words(self) -> Vec<Box<str>> {
        let mut words = vec![Box::<str>::default(); self.last.len()];
        for (word, id) in self.ids {
            words[id as usize] = word;
        }
        words
    }
}

/// A row the body stage found, with what matched.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BodyHit {
    /// Row of the index.
    pub(crate) row: usize,
    /// BM25F score.
    pub(crate) score: f64,
    /// The query words that matched, with the field each matched best in and its points.
    pub(crate) matched: Vec<BodyMatch>,
}

impl BodyIndex {
    /// Indexes `entries` (the index rows, in order) with their section text
    /// from `knowledge`. Files are read and tokenised on a few threads.
    /// `hash` is the index text's hash: a cached entry is valid for that
    /// text and, through [`fingerprint_in_parallel`], for the files as they are now.
    ///
    /// Long on purpose: one pass from rows to the stored layout (read and
    /// tokenise on threads, postings, lengths, text), writing one buffer.
    pub(crate) fn build(entries: &[EntryRef<'_>], knowledge: &Path, hash: u128) -> Self {
        let files = files(entries);
        let key = (hash, fingerprint_in_parallel(&files, knowledge));
        // Consecutive rows of one file form a group: the file is read once.
        let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
        let mut start = 0;
        for i in 1..=entries.len() {
            if i == entries.len()
                || split_reference(&entries[i].reference).0
                    != split_reference(&entries[start].reference).0
            {
                groups.push(start..i);
                start = i;
            }
        }
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .clamp(1, 8);
        // Small runs of files, taken in turn by whichever thread is free:
        // files differ a hundredfold in text, halves would not balance.
        let chunks: Vec<&[std::ops::Range<usize>]> = groups.chunks(8).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let progress =
            crate::progress::Progress::new("search cache: body index", groups.len(), "files");
        let tokenised = crate::timings::time("body tokenise", || {
            crate::parallel::in_parallel(&vec![(); threads], |()| {
                let root = Root::new(knowledge);
                let mut counter = Counter::default();
                let mut tokeniser = crate::text::tokenize::Tokeniser::for_many_texts().ok();
                let mut done: Vec<(usize, Vec<Tokenised>)> = Vec::new();
                loop {
                    let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(groups) = chunks.get(c) else { break };
                    let mut rows = Vec::new();
                    for group in groups.iter() {
                        progress.advance(1);
                        let file = split_reference(&entries[group.start].reference).0;
                        let document = root
                            .resolve(file, file)
                            .and_then(|path| crate::knowledge::read(&path))
                            .ok();
                        let sections = document.as_ref().map(|d| Sections::new(d.value()));
                        for e in &entries[group.clone()] {
                            let id = split_reference(&e.reference).1;
                            let body = sections.as_ref().and_then(|s| s.text(id));
                            let text = normalize(body.as_deref().unwrap_or(""));
                            rows.push(counter.row(
                                tokeniser.as_mut(),
                                [&e.title, &e.hints, &e.terms].map(|f| normalize(f)),
                                text,
                                body.is_some(),
                            ));
                        }
                    }
                    done.push((c, rows));
                }
                (counter.words(), done)
            })
        });
        // One vocabulary from the threads' own, each thread's word ids
        // mapped into it; then the rows in index order.
        let mut ids: foldhash::HashMap<&str, u32> = foldhash::HashMap::default();
        let mut vocabulary: Vec<&str> = Vec::new();
        let to_global: Vec<Vec<u32>> = tokenised
            .iter()
            .map(|(words, _)| {
                words
                    .iter()
                    .map(|w| {
                        *ids.entry(w).or_insert_with(|| {
                            vocabulary.push(w);
                            vocabulary.len() as u32 - 1
                        })
                    })
                    .collect()
            })
            .collect();
        let mut in_order: Vec<(usize, usize, &Vec<Tokenised>)> = tokenised
            .iter()
            .enumerate()
            .flat_map(|(t, (_, done))| done.iter().map(move |(c, rows)| (*c, t, rows)))
            .collect();
        in_order.sort_unstable_by_key(|&(c, _, _)| c);
        let mut lengths: Vec<[u32; N_FIELDS]> = Vec::new();
        let mut totals = [0u64; N_FIELDS];
        let mut unreadable = 0;
        let mut postings: Vec<Vec<(u32, [u16; N_FIELDS])>> = vec![Vec::new(); vocabulary.len()];
        let mut texts: Vec<&str> = Vec::new();
        let mut row_hashes: Vec<&[u64]> = Vec::new();
        for (_, thread, rows) in in_order {
            for row in rows {
                let at = lengths.len() as u32;
                texts.push(&row.text);
                row_hashes.push(&row.pairs);
                unreadable += usize::from(!row.readable);
                for (total, l) in totals.iter_mut().zip(row.lengths) {
                    *total += u64::from(l);
                }
                lengths.push(row.lengths);
                for &(word, counts) in &row.counts {
                    postings[to_global[thread][word as usize] as usize].push((at, counts));
                }
            }
        }
        let mut words: Building = vocabulary.into_iter().zip(postings).collect();
        words.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let file_of_row: Vec<u32> = groups
            .iter()
            .enumerate()
            .flat_map(|(file, rows)| rows.clone().map(move |_| file as u32))
            .collect();
        let n = lengths.len().max(1) as f64;
        let average = totals.map(|t| (t as f64 / n).max(1.0));
        let n_postings: usize = words.iter().map(|(_, p)| p.len()).sum();
        // Room for the whole entry (gram rows at most one per pair), so
        // that it is written without growing and copying.
        let mut out = Vec::with_capacity(
            HEADER
                + texts.iter().map(|t| t.len() + 4).sum::<usize>()
                + words.iter().map(|(w, _)| w.len() + 8).sum::<usize>()
                + n_postings * (4 + 2 * N_FIELDS)
                + lengths.len() * 4 * (N_FIELDS + 1)
                + row_hashes.iter().map(|h| 4 * h.len()).sum::<usize>()
                + (4 << GRAM_BITS)
                + files.iter().map(|f| f.len() + 4).sum::<usize>()
                + 1024,
        );
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&key.0.to_le_bytes());
        out.extend_from_slice(&key.1.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes()); // the checksum, filled in below
        for count in [lengths.len(), words.len(), n_postings, unreadable] {
            out.extend_from_slice(&(count as u32).to_le_bytes());
        }
        for mean in average {
            out.extend_from_slice(&mean.to_le_bytes());
        }
        for row in &lengths {
            for l in row {
                out.extend_from_slice(&l.to_le_bytes());
            }
        }
        for file in &file_of_row {
            out.extend_from_slice(&file.to_le_bytes());
        }
        push_offsets(&mut out, words.iter().map(|(w, _)| w.len()));
        push_offsets(&mut out, words.iter().map(|(_, postings)| postings.len()));
        for (w, _) in &words {
            out.extend_from_slice(w.as_bytes());
        }
        for (_, postings) in &mut words {
            postings.sort_unstable_by_key(|p| p.0);
            for (row, counts) in postings.iter() {
                out.extend_from_slice(&row.to_le_bytes());
                for c in counts {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
        }
        // Each row's section text, normalised: levelled keywords are also
        // looked for in it literally (see `literal`).
        push_offsets(&mut out, texts.iter().map(|t| t.len()));
        for text in &texts {
            out.extend_from_slice(text.as_bytes());
        }
        // The rows of each character-pair bucket of that text: the literal
        // scan reads only the rows that hold every pair of a keyword.
        let pairs: usize = row_hashes.iter().map(|h| h.len()).sum();
        let bits = (pairs / 16)
            .max(1)
            .next_power_of_two()
            .trailing_zeros()
            .min(GRAM_BITS);
        let mut counts = vec![0u32; 1 << bits];
        for hashes in &row_hashes {
            for bucket in row_buckets(hashes, bits) {
                counts[bucket] += 1;
            }
        }
        out.extend_from_slice(&bits.to_le_bytes());
        let mut offset = 0u32;
        out.extend_from_slice(&offset.to_le_bytes());
        let mut next = Vec::with_capacity(counts.len());
        for count in &counts {
            next.push(offset as usize);
            offset += count;
            out.extend_from_slice(&offset.to_le_bytes());
        }
        let mut gram_rows = vec![0u32; offset as usize];
        for (row, hashes) in row_hashes.iter().enumerate() {
            for bucket in row_buckets(hashes, bits) {
                gram_rows[next[bucket]] = row as u32;
                next[bucket] += 1;
            }
        }
        for row in &gram_rows {
            out.extend_from_slice(&row.to_le_bytes());
        }
        // The katakana words by their bridge key, so that a search looks an
        // English word's key up instead of transliterating every katakana
        // word of the vocabulary (about 0.3 ms per search on fulltext).
        let katakana = partition_point(0..words.len(), |i| words[i].0 < "\u{30A1}")
            ..partition_point(0..words.len(), |i| words[i].0 < "\u{30FD}");
        let mut keyed: Vec<(Vec<u8>, u32)> = katakana
            .filter_map(|i| Some((bridge_key(words[i].0)?, i as u32)))
            .collect();
        keyed.sort_unstable();
        out.extend_from_slice(&(keyed.len() as u32).to_le_bytes());
        push_offsets(&mut out, keyed.iter().map(|(key, _)| key.len()));
        for (_, word) in &keyed {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for (key, _) in &keyed {
            out.extend_from_slice(key);
        }
        // The file list last: a cached entry re-checks these files.
        out.extend_from_slice(&(files.len() as u32).to_le_bytes());
        for file in &files {
            out.extend_from_slice(&(file.len() as u32).to_le_bytes());
            out.extend_from_slice(file.as_bytes());
        }
        let sum = checksum(&out);
        out[CHECKSUM..CHECKED].copy_from_slice(&sum.to_le_bytes());
        Self::from_bytes(Bytes::Owned(out), Some(key.0), |_| key.1)
            .unwrap_or_else(|| unreachable!("a freshly built body index is well-formed"))
    }

    /// The body index in `bytes` if it is well-formed, was built for the
    /// index text whose hash is `hash` (any, when `None`: see
    /// [`BodyIndex::built_for`]) and for files whose fingerprint, as
    /// `fingerprint` computes it from the entry's file list, is unchanged.
    fn from_bytes(
        bytes: Bytes,
        hash: Option<u128>,
        fingerprint: impl FnOnce(&[&str]) -> u64 + Send,
    ) -> Option<Self> {
        let b = bytes.as_slice();
        let built_for = u128::from_le_bytes(b.get(8..24)?.try_into().ok()?);
        if b.get(..8)? != MAGIC || hash.is_some_and(|h| h != built_for) {
            return None;
        }
        let stored = u64::from_le_bytes(b.get(24..32)?.try_into().ok()?);
        let count = |i: usize| u32_at(b, CHECKED + 4 * i).map(|c| c as usize);
        let (n_rows, n_words, n_postings, unreadable) =
            (count(0)?, count(1)?, count(2)?, count(3)?);
        let mut average = [0.0; N_FIELDS];
        for (f, mean) in average.iter_mut().enumerate() {
            let at = CHECKED + 16 + 8 * f;
            *mean = f64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?);
        }
        let lengths_at = HEADER;
        let files_of_rows_at = lengths_at + n_rows * 4 * N_FIELDS;
        let word_offsets_at = files_of_rows_at + n_rows * 4;
        let posting_offsets_at = word_offsets_at + (n_words + 1) * 4;
        let words_at = posting_offsets_at + (n_words + 1) * 4;
        let words_len = u32_at(b, word_offsets_at + n_words * 4)? as usize;
        let postings_at = words_at + words_len;
        let text_offsets_at = postings_at + n_postings * POSTING;
        let text_at = text_offsets_at + (n_rows + 1) * 4;
        let gram_at = text_at + u32_at(b, text_offsets_at + n_rows * 4)? as usize;
        let gram_bits = u32_at(b, gram_at).filter(|&bits| bits <= GRAM_BITS)?;
        let gram_offsets_at = gram_at + 4;
        let gram_rows_at = gram_offsets_at + ((1 << gram_bits) + 1) * 4;
        let n_gram_rows = u32_at(b, gram_offsets_at + (1 << gram_bits) * 4)? as usize;
        let bridges_at = gram_rows_at + n_gram_rows * 4;
        let n_bridges = u32_at(b, bridges_at)? as usize;
        let bridge_offsets_at = bridges_at + 4;
        let bridge_words_at = bridge_offsets_at + (n_bridges + 1) * 4;
        let bridge_keys_at = bridge_words_at + n_bridges * 4;
        let files_at = bridge_keys_at + u32_at(b, bridge_offsets_at + n_bridges * 4)? as usize;
        if u32_at(b, posting_offsets_at + n_words * 4)? as usize != n_postings {
            return None;
        }
        let n_files = u32_at(b, files_at)? as usize;
        // A damaged count must not reserve more than the entry could hold.
        let mut files = Vec::with_capacity(n_files.min(b.len() / 4));
        let mut at = files_at + 4;
        for _ in 0..n_files {
            let len = u32_at(b, at)? as usize;
            files.push(std::str::from_utf8(b.get(at + 4..at + 4 + len)?).ok()?);
            at += 4 + len;
        }
        let n_files = files.len();
        if at != b.len() {
            return None;
        }
        // The counts and the file list above were only read (every read
        // bounds-checked); nothing is built from them until the checksum
        // matches, which rejects a torn, cut, extended or damaged entry. The
        // files' status is read meanwhile, on other threads: neither needs
        // the other, and the status reads are the longer of the two.
        let (sum, fresh) = std::thread::scope(|scope| {
            let fresh = scope.spawn(|| fingerprint(&files) == stored);
            let sum = crate::timings::time("body checksum", || checksum(b));
            // Neither panics on any input; if one did, re-raise it here.
            (
                sum,
                fresh
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            )
        });
        if u64::from_le_bytes(b.get(CHECKSUM..CHECKED)?.try_into().ok()?) != sum || !fresh {
            return None;
        }
        let mut file_lengths = vec![[0u32; N_FIELDS]; n_files];
        for row in 0..n_rows {
            let file = u32_at(b, files_of_rows_at + 4 * row)? as usize;
            for (f, total) in file_lengths.get_mut(file)?.iter_mut().enumerate() {
                *total = total.saturating_add(u32_at(b, lengths_at + (row * N_FIELDS + f) * 4)?);
            }
        }
        let mut file_average = [1.0; N_FIELDS];
        for (f, mean) in file_average.iter_mut().enumerate() {
            let total: u64 = file_lengths.iter().map(|l| u64::from(l[f])).sum();
            *mean = (total as f64 / n_files.max(1) as f64).max(1.0);
        }
        // The rest is not checked here (a search maps the entry and reads only
        // what its words need; the checksum already rules out damage): every
        // read below is bounds-checked and rows out of range are skipped, so
        // even an entry with a valid checksum over nonsense (fuzz target
        // `body_index`) gives wrong scores at worst, never a crash.
        Some(Self {
            bytes,
            hash: built_for,
            n_rows,
            n_words,
            n_postings,
            average,
            lengths_at,
            files_of_rows_at,
            file_lengths,
            file_average,
            word_offsets_at,
            posting_offsets_at,
            words_at,
            postings_at,
            text_offsets_at,
            text_at,
            gram_bits,
            gram_offsets_at,
            gram_rows_at,
            n_gram_rows,
            n_bridges,
            bridge_offsets_at,
            bridge_words_at,
            bridge_keys_at,
            unreadable,
        })
    }

    /// Row `row`'s section text, normalised, as bytes (empty when out of
    /// range or damaged). Bytes, not `str`: the literal scan matches UTF-8
    /// patterns on them directly, so no search validates the whole text.
    fn text(&self, row: usize) -> &[u8] {
        let b = self.bytes.as_slice();
        let at = |i: usize| u32_at(b, self.text_offsets_at + 4 * i).map(|o| o as usize);
        match (at(row), at(row + 1)) {
            (Some(start), Some(end)) if row < self.n_rows => b
                .get(self.text_at + start..self.text_at + end)
                .unwrap_or_default(),
            _ => &[],
        }
    }

    /// The positions of character-pair bucket `bucket`'s rows in the bucket
    /// rows (clamped: a damaged offset reads no further than the rows).
    fn gram_range(&self, bucket: usize) -> std::ops::Range<usize> {
        let at = |i: usize| {
            u32_at(self.bytes.as_slice(), self.gram_offsets_at + 4 * i)
                .map_or(0, |o| (o as usize).min(self.n_gram_rows))
        };
        let (start, end) = (at(bucket), at(bucket + 1));
        start..end.max(start)
    }

    /// The bucket row at position `i` (a row no search returns when damaged).
    fn gram_row(&self, i: usize) -> usize {
        u32_at(self.bytes.as_slice(), self.gram_rows_at + 4 * i).map_or(usize::MAX, |r| r as usize)
    }

    /// The rows whose text can hold `pattern`: those in the bucket of each of
    /// its character pairs (the text holds every pair of a string it holds),
    /// ascending; `None` (every row) for a pattern of one character. The
    /// shortest bucket is read whole and each of its rows looked up in the
    /// others (galloping search, rows ascending), so a frequent pair's long
    /// bucket costs a few reads per candidate, not its length.
    fn candidates(&self, pattern: &str) -> Option<Vec<usize>> {
        let mut ranges: Vec<std::ops::Range<usize>> = gram_hashes(pattern)
            .into_iter()
            .map(|h| gram_bucket(h, self.gram_bits))
            .map(|bucket| self.gram_range(bucket))
            .collect();
        ranges.sort_by_key(|r| (r.len(), r.start));
        ranges.dedup();
        let (shortest, others) = ranges.split_first()?;
        let mut rows: Vec<usize> = shortest.clone().map(|i| self.gram_row(i)).collect();
        for range in others {
            let mut from = range.start;
            rows.retain(|&row| {
                // Galloping from the last row's place (both lists ascend):
                // a dense bucket costs a few reads per candidate.
                let (mut lo, mut hi, mut step) = (from, from, 1);
                while hi < range.end && self.gram_row(hi) < row {
                    lo = hi + 1;
                    hi = lo.saturating_add(step);
                    step = step.saturating_mul(2);
                }
                from = partition_point(lo..hi.min(range.end), |i| self.gram_row(i) < row);
                from < range.end && self.gram_row(from) == row
            });
        }
        Some(rows)
    }

    /// For each of `patterns` (normalised: NFKC + case folding), the rows
    /// whose section text holds it literally, Latin ends on word boundaries
    /// (`id` is not found in `identifier`), rows ascending. Each pattern is
    /// looked for only in its candidate rows (all rows for one character),
    /// up to its first occurrence on word boundaries in each.
    pub(crate) fn literal(&self, patterns: &[String]) -> Vec<Vec<usize>> {
        let mut rows = vec![Vec::new(); patterns.len()];
        if patterns.iter().any(String::is_empty) {
            return rows;
        }
        for (pattern, found) in patterns.iter().zip(&mut rows) {
            let finder = memchr::memmem::Finder::new(pattern.as_bytes());
            let holds = |row: usize| {
                let text = self.text(row);
                // Every occurrence, overlapping ones too: one that fails the
                // word boundaries can overlap one that passes (`a-a` in `xa-a-a`).
                let mut from = 0;
                while let Some(at) = text.get(from..).and_then(|t| finder.find(t)) {
                    let start = from + at;
                    let end = start + pattern.len();
                    if crate::search::fallback::on_word_boundaries_bytes(text, start, end) {
                        return true;
                    }
                    from = start + 1;
                }
                false
            };
            match self.candidates(pattern) {
                Some(candidates) => found.extend(
                    candidates
                        .into_iter()
                        .filter(|&row| row < self.n_rows && holds(row)),
                ),
                None => found.extend((0..self.n_rows).filter(|&row| holds(row))),
            }
        }
        rows
    }

    /// The entry `bytes` as the search cache would load it for the index
    /// text hash `hash` and knowledge fingerprint `fingerprint` (the fuzz
    /// target `body_index`, through `crate::fuzzing`).
    pub(crate) fn from_entry(bytes: Vec<u8>, hash: u128, fingerprint: u64) -> Option<Self> {
        Self::from_bytes(Bytes::Owned(bytes), Some(hash), |_| fingerprint)
    }

    /// Writes the checksum of the entry `bytes` into it (a fuzz target
    /// seals its mutations so that they reach the checks behind the checksum).
    pub(crate) fn seal(bytes: &mut [u8]) {
        let sum = checksum(bytes);
        if let Some(field) = bytes.get_mut(CHECKSUM..CHECKED) {
            field.copy_from_slice(&sum.to_le_bytes());
        }
    }

    /// A cached body index: the mapped entry `file`, if it was built for the
    /// index text whose hash is `hash` (any, when `None`: the caller checks
    /// [`BodyIndex::built_for`] once it knows the hash) and its files in
    /// `knowledge` are unchanged.
    pub(crate) fn from_file(
        file: crate::index::file::IndexFile,
        hash: Option<u128>,
        knowledge: &Path,
    ) -> Option<Self> {
        Self::from_bytes(Bytes::Mapped(file), hash, |files| {
            crate::timings::time("freshness", || fingerprint_in_parallel(files, knowledge))
        })
    }

    /// Whether this body index was built for the index text whose hash is `hash`.
    pub(crate) fn built_for(&self, hash: u128) -> bool {
        self.hash == hash
    }

    /// The bytes, as the cache stores them.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// The key of bridge entry `i` (empty when out of range or damaged).
    fn bridge_key(&self, i: usize) -> &[u8] {
        let b = self.bytes.as_slice();
        let at = |i: usize| u32_at(b, self.bridge_offsets_at + 4 * i).map(|o| o as usize);
        match (at(i), at(i + 1)) {
            (Some(start), Some(end)) if start <= end => b
                .get(self.bridge_keys_at + start..self.bridge_keys_at + end)
                .unwrap_or_default(),
            _ => &[],
        }
    }

    /// The vocabulary index of the word of bridge entry `i`.
    fn bridge_word(&self, i: usize) -> Option<usize> {
        u32_at(self.bytes.as_slice(), self.bridge_words_at + 4 * i)
            .map(|w| w as usize)
            .filter(|&w| w < self.n_words)
    }

    fn word(&self, i: usize) -> &[u8] {
        let b = self.bytes.as_slice();
        let at = |j: usize| u32_at(b, self.word_offsets_at + 4 * j).unwrap_or(0) as usize;
        b.get(self.words_at + at(i)..self.words_at + at(i + 1))
            .unwrap_or_default()
    }

    /// The position of the first word not below `bound` in the sorted words.
    fn lower_bound(&self, bound: &[u8]) -> usize {
        partition_point(0..self.n_words, |i| self.word(i) < bound)
    }

    /// The range of `word`'s postings (empty when the index lacks it).
    fn posting_range(&self, word: &str) -> std::ops::Range<usize> {
        let lo = self.lower_bound(word.as_bytes());
        if lo < self.n_words && self.word(lo) == word.as_bytes() {
            // Clamped: a damaged offset must not make a search walk past the postings.
            let at = |j: usize| {
                (u32_at(self.bytes.as_slice(), self.posting_offsets_at + 4 * j).unwrap_or(0)
                    as usize)
                    .min(self.n_postings)
            };
            at(lo)..at(lo + 1).max(at(lo))
        } else {
            0..0
        }
    }

    /// Posting `p`: (row, frequency per field).
    fn posting(&self, p: usize) -> (usize, [u16; N_FIELDS]) {
        let b = self.bytes.as_slice();
        let at = self.postings_at + p * POSTING;
        // Out of range (a damaged entry only): a row no search returns.
        let row = u32_at(b, at).map_or(usize::MAX, |r| r as usize);
        let mut counts = [0u16; N_FIELDS];
        for (f, c) in counts.iter_mut().enumerate() {
            let at = at + 4 + 2 * f;
            *c = b
                .get(at..at + 2)
                .map_or(0, |x| u16::from_le_bytes([x[0], x[1]]));
        }
        (row, counts)
    }

    /// The postings of `word`: (row, frequency per field).
    fn postings(&self, word: &str) -> impl ExactSizeIterator<Item = (usize, [u16; N_FIELDS])> + '_ {
        self.posting_range(word).map(move |p| self.posting(p))
    }

    /// The rows `word` counts in (with its idf and per-field frequencies):
    /// rows in range, and only its group's rows when it belongs to one.
    fn word_postings<'s>(
        &'s self,
        word: &'s QueryWord,
        groups: &'s [Rows],
    ) -> impl Iterator<Item = (usize, f64, [u16; N_FIELDS])> + 's {
        let range = self.posting_range(&word.word);
        let idf = idf(self.n_rows as f64, range.len() as f64);
        range
            .map(move |p| self.posting(p))
            .filter(move |&(row, _)| row < self.n_rows && word.counts_in(row, groups))
            .map(move |(row, counts)| (row, idf, counts))
    }

    /// How many rows the index has.
    pub(crate) fn rows(&self) -> usize {
        self.n_rows
    }

    /// How many rows have `word` in any field.
    pub(crate) fn document_frequency(&self, word: &str) -> usize {
        self.postings(word).len()
    }

    /// The file `row` comes from (its index in [`files`]), if in range.
    fn file_of(&self, row: usize) -> Option<usize> {
        let file = u32_at(self.bytes.as_slice(), self.files_of_rows_at + 4 * row)? as usize;
        (file < self.file_lengths.len()).then_some(file)
    }

    fn lengths(&self, row: usize) -> [u32; N_FIELDS] {
        let b = self.bytes.as_slice();
        let mut out = [0u32; N_FIELDS];
        for (f, l) in out.iter_mut().enumerate() {
            *l = u32_at(b, self.lengths_at + (row * N_FIELDS + f) * 4).unwrap_or(0);
        }
        out
    }

    /// Vocabulary bridges for `words`: (English query word, katakana word of
    /// this index with the same consonant skeleton), at most
    /// [`BRIDGES_PER_WORD`] per English word, the most frequent first. Only
    /// lowercase Latin words of 4 letters or more with a skeleton of 2
    /// consonants or more are bridged (shorter ones match too much), and the
    /// two words must both start with a vowel or both with a consonant.
    fn bridges(&self, words: &[QueryWord]) -> Vec<(String, String)> {
        let mut wanted: Vec<(String, &str, String, bool)> = Vec::new();
        for w in words
            .iter()
            .filter(|w| w.via.is_none() && w.word.len() >= 4)
        {
            // A plural also tries its singular (artifacts → アーティファクト).
            let mut forms = vec![w.word.as_str()];
            if let Some(singular) = w.word.strip_suffix('s').filter(|s| !s.ends_with('s')) {
                forms.push(singular);
            }
            for form in forms {
                if let Some(skeleton) =
                    crate::text::translit::english_skeleton(form).filter(|s| s.len() >= 2)
                {
                    let vowel = form.starts_with(['a', 'e', 'i', 'o', 'u']);
                    wanted.push((w.word.clone(), form, skeleton, vowel));
                }
            }
        }
        if wanted.is_empty() {
            return Vec::new();
        }
        let mut found: Vec<(String, String, usize)> = Vec::new();
        for (english, form, skeleton, vowel) in &wanted {
            let key = [skeleton.as_bytes(), &[u8::from(*vowel)]].concat();
            let start = partition_point(0..self.n_bridges, |i| self.bridge_key(i) < &key[..]);
            let end = partition_point(start..self.n_bridges, |i| self.bridge_key(i) == &key[..]);
            for i in start..end {
                let Some(word) = self
                    .bridge_word(i)
                    .and_then(|w| std::str::from_utf8(self.word(w)).ok())
                else {
                    continue;
                };
                if skeleton.len() >= 3
                    || crate::text::translit::katakana_romaji(word).is_some_and(|romaji| {
                        crate::text::translit::similarity(form, &romaji) >= SHORT_SIMILARITY
                    })
                {
                    found.push((
                        english.clone(),
                        word.to_owned(),
                        self.document_frequency(word),
                    ));
                }
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)).then(a.1.cmp(&b.1)));
        let mut out: Vec<(String, String)> = Vec::new();
        for (english, katakana, _) in found {
            let n = out.iter().filter(|(e, _)| *e == english).count();
            if n < BRIDGES_PER_WORD && !out.iter().any(|(e, k)| *e == english && *k == katakana) {
                out.push((english, katakana));
            }
        }
        out
    }

    /// The best `top` rows for `query` by BM25F (score descending, then row
    /// ascending). A query word counts once, with the highest level weight of
    /// the keywords it came from (L1 0.3, others 1).
    ///
    /// Long on purpose: the hot path of a question: dense score arrays, the
    /// file share and the matches of the best rows share local state (scores,
    /// file counts, scale) that helpers would have to pass around per word.
    pub(crate) fn search(&self, query: &Query, params: &Params, top: usize) -> Vec<BodyHit> {
        // (word, level, weight, group): a levelled keyword of several words
        // (`zzzz-no-such-keyword`, `universal dao`) counts only in rows that
        // have all of them (its group's rows); a question's words count alone.
        let mut query_words: Vec<QueryWord> = Vec::new();
        let mut groups: Vec<Rows> = Vec::new();
        for k in &query.keywords {
            let weight = if k.level == Level::L1 { 0.3 } else { 1.0 } * k.weight.min(1.0);
            let words = terms(&k.norm).unwrap_or_default();
            let group = (k.level != Level::Question && words.len() > 1).then(|| {
                let mut rows: Option<Rows> = None;
                for w in &words {
                    let here = Rows::of(self.n_rows, self.postings(w).map(|(row, _)| row));
                    rows = Some(match rows {
                        None => here,
                        Some(r) => r.and(&here),
                    });
                }
                groups.push(rows.unwrap_or_default());
                groups.len() - 1
            });
            for w in words {
                match query_words.iter_mut().find(|q| q.word == w) {
                    Some(existing) => {
                        if existing.weight < weight {
                            existing.level = k.level;
                            existing.weight = weight;
                        }
                        // Free anywhere if any keyword asks for it alone.
                        existing.group = existing.group.and(group);
                    }
                    None => query_words.push(QueryWord {
                        word: w,
                        level: k.level,
                        weight,
                        group,
                        via: None,
                    }),
                }
            }
        }
        if params.bridge > 0.0 {
            let bridged = self.bridges(&query_words);
            for (english, katakana) in bridged {
                let Some(from) = query_words.iter().find(|q| q.word == english) else {
                    continue;
                };
                let (level, weight) = (from.level, from.weight * params.bridge);
                if query_words.iter().all(|q| q.word != katakana) {
                    query_words.push(QueryWord {
                        word: katakana,
                        level,
                        weight,
                        group: None,
                        via: Some(english),
                    });
                }
            }
        }
        // A word's points in a row, and the field it counts most in.
        let points = |word: &QueryWord, idf: f64, row: usize, counts: [u16; N_FIELDS]| {
            let lengths = self.lengths(row);
            let mut tf = 0.0;
            let mut best = (0.0, 0);
            for f in 0..N_FIELDS {
                if counts[f] == 0 {
                    continue;
                }
                let norm =
                    1.0 - params.b[f] + params.b[f] * f64::from(lengths[f]) / self.average[f];
                let part = params.weights[f] * f64::from(counts[f]) / norm;
                if part > best.0 {
                    best = (part, f);
                }
                tf += part;
            }
            (
                word.weight * idf * tf * (params.k1 + 1.0) / (tf + params.k1),
                best.1,
            )
        };
        // Scores in a dense array (a common word reaches most rows); what
        // matched is gathered for the best rows only.
        let file_share = params.file;
        let n_files = self.file_lengths.len();
        let mut scores = vec![0.0f64; self.n_rows];
        let mut file_scores = vec![0.0f64; if file_share > 0.0 { n_files } else { 0 }];
        let mut file_counts = vec![[0u32; N_FIELDS]; file_scores.len()];
        let mut file_seen = vec![false; file_counts.len()];
        let mut touched: Vec<usize> = Vec::new();
        // (file, query word, points): what `matched` reports as field `file`.
        let mut file_points: Vec<(usize, usize, f64)> = Vec::new();
        for (w, word) in query_words.iter().enumerate() {
            for (row, idf, counts) in self.word_postings(word, &groups) {
                scores[row] += points(word, idf, row, counts).0;
                if let Some(file) = self.file_of(row).filter(|&f| f < file_counts.len()) {
                    if !file_seen[file] {
                        file_seen[file] = true;
                        touched.push(file);
                    }
                    for (t, c) in file_counts[file].iter_mut().zip(counts) {
                        *t = t.saturating_add(u32::from(c));
                    }
                }
            }
            // The file as one document: the same BM25F over its rows' fields summed.
            let df = touched.len() as f64;
            let idf = idf(n_files as f64, df);
            for file in touched.drain(..) {
                file_seen[file] = false;
                let counts = std::mem::take(&mut file_counts[file]);
                let mut tf = 0.0;
                for f in (0..N_FIELDS).filter(|&f| counts[f] > 0) {
                    let norm = 1.0 - params.b[f]
                        + params.b[f] * f64::from(self.file_lengths[file][f])
                            / self.file_average[f];
                    tf += params.weights[f] * f64::from(counts[f]) / norm;
                }
                let points = word.weight * idf * tf * (params.k1 + 1.0) / (tf + params.k1);
                file_scores[file] += points;
                file_points.push((file, w, points));
            }
        }
        // What one point of a word's own match and of its file's adds to a
        // row's score: `matched` reports points on the score's scale, so that
        // a row's entries sum to its score.
        let mut scale = (1.0, 0.0);
        if file_share > 0.0 {
            let best_row = scores.iter().copied().fold(0.0, f64::max);
            let best_file = file_scores.iter().copied().fold(0.0, f64::max);
            if best_row > 0.0 && best_file > 0.0 {
                scale = ((1.0 - file_share) / best_row, file_share / best_file);
                for (row, score) in scores.iter_mut().enumerate() {
                    let file = self.file_of(row).map_or(0.0, |f| file_scores[f]);
                    *score = scale.0 * *score + scale.1 * file;
                }
            }
        }
        let best = best_rows(&scores, top);
        let mut ranked: Vec<BodyHit> = best
            .into_iter()
            .map(|(row, score)| BodyHit {
                row,
                score,
                matched: Vec::new(),
            })
            .collect();
        // What matched in the best rows: a word with many postings is looked
        // up per row (its postings are sorted by row), a rarer one walked.
        let mut rows: Vec<(usize, usize)> =
            ranked.iter().enumerate().map(|(i, h)| (h.row, i)).collect();
        rows.sort_unstable();
        for word in &query_words {
            let range = self.posting_range(&word.word);
            let idf = idf(self.n_rows as f64, range.len() as f64);
            let mut found: Vec<(usize, [u16; N_FIELDS])> = Vec::new();
            if range.len() > rows.len() * 16 {
                for &(row, i) in &rows {
                    let lo = partition_point(range.clone(), |p| self.posting(p).0 < row);
                    if lo < range.end && word.counts_in(row, &groups) {
                        let (at, counts) = self.posting(lo);
                        if at == row {
                            found.push((i, counts));
                        }
                    }
                }
            } else {
                for p in range {
                    let (row, counts) = self.posting(p);
                    if let Ok(k) = rows.binary_search_by(|r| r.0.cmp(&row))
                        && word.counts_in(row, &groups)
                    {
                        found.push((rows[k].1, counts));
                    }
                }
            }
            for (i, counts) in found {
                let hit = &mut ranked[i];
                let (p, field) = points(word, idf, hit.row, counts);
                hit.matched.push(BodyMatch {
                    words: vec![word.shown()],
                    level: word.level,
                    field: MatchField::OWN[field],
                    points: p * scale.0,
                });
            }
        }
        if !file_points.is_empty() {
            let mut ranked_files: HashMap<usize, Vec<usize>> = HashMap::new();
            for (i, hit) in ranked.iter().enumerate() {
                if let Some(file) = self.file_of(hit.row) {
                    ranked_files.entry(file).or_default().push(i);
                }
            }
            // One entry per word its file matched, with that word's points
            // (a report names each word with its level, never the query
            // joined into one string).
            let mut per_file: HashMap<usize, Vec<(usize, f64)>> = HashMap::new();
            for &(file, w, p) in &file_points {
                if !ranked_files.contains_key(&file) {
                    continue;
                }
                let words = per_file.entry(file).or_default();
                match words.iter_mut().find(|(seen, _)| *seen == w) {
                    Some((_, points)) => *points += p,
                    None => words.push((w, p)),
                }
            }
            for (file, words) in per_file {
                for &i in &ranked_files[&file] {
                    for &(w, points) in &words {
                        let word = &query_words[w];
                        ranked[i].matched.push(BodyMatch {
                            words: vec![word.shown()],
                            level: word.level,
                            field: MatchField::File,
                            points: points * scale.1,
                        });
                    }
                }
            }
        }
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::model::Entry;

    proptest::proptest! {
        /// The heap keeps exactly what sorting every scored row and cutting would.
        #[test]
        fn best_rows_are_the_sorted_top(
            scores in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(0.0), 0.0f64..4.0, proptest::strategy::Just(1.5)], 0..200),
            top in 0usize..50,
        ) {
            let mut sorted: Vec<(usize, f64)> = scores
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, s)| s > 0.0)
                .collect();
            sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            sorted.truncate(top);
            let mut got = best_rows(&scores, top);
            got.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            proptest::prop_assert_eq!(got, sorted);
        }
    }

    #[test]
    fn row_sets_hold_their_rows_below_the_bound() {
        let a = Rows::of(130, [0, 63, 64, 129, 130, 500].into_iter());
        let b = Rows::of(130, [63, 129, 5].into_iter());
        for (row, in_a, in_both) in [
            (0, true, false),
            (5, false, false),
            (63, true, true),
            (64, true, false),
            (129, true, true),
            (130, false, false),
            (500, false, false),
        ] {
            assert_eq!(a.has(row), in_a, "row {row}");
            assert_eq!(a.clone().and(&b).has(row), in_both, "row {row}");
        }
    }

    /// A knowledge directory with two files and the index rows that point into it.
    fn corpus() -> (tempfile::TempDir, Vec<Entry>) {
        let dir = tempfile::tempdir().expect("temp dir");
        let write =
            |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
        write(
            "a.json",
            r#"{"index":[{"id":"retry","hints":["リトライ"]},{"id":"lock","hints":["ロック"]}],
               "sections":{"retry":"失敗した処理を自動で再実行する。retry handler",
                           "lock":"楽観的ロックで後勝ちを防ぐ。optimistic lock"}}"#,
        );
        write(
            "b.json",
            r#"{"sections":[{"id":"s1","title":"Paging","content":"ページングと件数の取得。paging with offset"}]}"#,
        );
        let entry = |reference: &str, title: &str, hints: &str| Entry {
            reference: reference.into(),
            title: title.into(),
            hints: hints.into(),
            terms: String::new(),
        };
        let entries = vec![
            entry("a.json#retry", "Retry", "リトライ"),
            entry("a.json#lock", "Lock", "ロック"),
            entry("b.json#s1", "Paging", ""),
            entry("missing.json#x", "Gone", ""),
        ];
        (dir, entries)
    }

    /// An entry with a title only.
    fn titled(reference: &str, title: &str) -> Entry {
        Entry {
            reference: reference.into(),
            title: title.into(),
            hints: String::new(),
            terms: String::new(),
        }
    }

    fn refs(entries: &[Entry]) -> Vec<EntryRef<'_>> {
        entries.iter().map(EntryRef::from).collect()
    }

    fn question(text: &str) -> Query {
        Query::from_question(text).expect("tokenizer")
    }

    #[test]
    fn finds_sections_by_words_of_their_text() {
        let (dir, entries) = corpus();
        let index = BodyIndex::build(&refs(&entries), dir.path(), 7);
        assert_eq!(index.unreadable, 1, "missing.json has no text");
        let hits = index.search(
            &question("処理を自動で再実行したい"),
            &Params::default(),
            10,
        );
        assert_eq!(hits.first().map(|h| h.row), Some(0), "{hits:?}");
        assert!(
            hits[0]
                .matched
                .iter()
                .any(|m| m.shown() == "実行" && m.field == MatchField::Body),
            "{hits:?}"
        );
        let hits = index.search(&question("後勝ちを防ぎたい"), &Params::default(), 10);
        assert_eq!(hits.first().map(|h| h.row), Some(1), "{hits:?}");
    }

    /// The fingerprint sees an edit, a new modification time, a removal or
    /// a new file in any directory.
    #[test]
    fn fingerprint_sees_every_file_change() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("x/y")).expect("dirs");
        let files = ["a.json", "x/b.json", "x/y/c.json", "x/y/d.json", "z.json"];
        for file in &files[..4] {
            std::fs::write(root.join(file), "{}").expect("write");
        }
        let now = || fingerprint(files, root);
        let start = now();
        assert_eq!(now(), start, "unchanged files, unchanged fingerprint");
        let mut seen = vec![start];
        let changed = |what: &str, seen: &mut Vec<u64>| {
            let f = now();
            assert!(!seen.contains(&f), "{what} is not seen");
            seen.push(f);
        };
        std::fs::write(root.join("x/y/c.json"), "{ }").expect("write");
        changed("a longer file", &mut seen);
        let file = std::fs::File::options()
            .write(true)
            .open(root.join("x/b.json"))
            .expect("open");
        file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(86_400))
            .expect("set mtime");
        changed("a new modification time, same size", &mut seen);
        std::fs::remove_file(root.join("x/y/d.json")).expect("remove");
        changed("a removed file", &mut seen);
        std::fs::write(root.join("z.json"), "{}").expect("write");
        changed("a new file", &mut seen);
    }

    /// Reading the files' status on two threads gives the fingerprint of
    /// reading it on one, in file order, on both sides of the size below
    /// which it stays on one thread, missing files included.
    #[test]
    fn parallel_fingerprint_equals_the_sequential_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let names: Vec<String> = (0..300).map(|i| format!("f{i:03}.json")).collect();
        for (i, name) in names.iter().enumerate().filter(|(i, _)| i % 7 != 0) {
            std::fs::write(root.join(name), "x".repeat(i)).expect("write");
        }
        for n in [0, 1, 2, 127, 128, 129, 300] {
            let files: Vec<&str> = names[..n].iter().map(String::as_str).collect();
            assert_eq!(
                fingerprint_in_parallel(&files, root),
                fingerprint(files.iter().copied(), root),
                "{n} files"
            );
        }
        let mut reversed: Vec<&str> = names.iter().map(String::as_str).collect();
        let forward = fingerprint_in_parallel(&reversed, root);
        reversed.reverse();
        assert_ne!(
            fingerprint_in_parallel(&reversed, root),
            forward,
            "order counts"
        );
    }

    /// The literal scan reads only the rows holding every character pair of
    /// a keyword, and finds exactly what a scan of every row finds: inside
    /// katakana compounds (リラン in バッチリラン, one word to IPADIC), across
    /// scripts, for one-character keywords, and not inside Latin words.
    #[test]
    fn literal_matches_equal_a_scan_of_every_row() {
        let (dir, mut entries) = corpus();
        std::fs::write(
            dir.path().join("c.json"),
            r#"{"sections":{"rerun":"バッチリランの手順。id_map と identifier xa-a-a"}}"#,
        )
        .expect("write");
        entries.push(Entry {
            reference: "c.json#rerun".into(),
            title: "Rerun".into(),
            hints: String::new(),
            terms: String::new(),
        });
        let index = BodyIndex::build(&refs(&entries), dir.path(), 7);
        let every_row = |pattern: &str| -> Vec<usize> {
            (0..index.rows())
                .filter(|&row| {
                    let text = index.text(row);
                    (0..text.len()).any(|start| {
                        text[start..].starts_with(pattern.as_bytes())
                            && crate::search::fallback::on_word_boundaries_bytes(
                                text,
                                start,
                                start + pattern.len(),
                            )
                    })
                })
                .collect()
        };
        for (patterns, expected) in [
            (vec!["リラン"], vec![vec![4]]),
            (vec!["再実行", "retry"], vec![vec![0], vec![0]]),
            // `_` ends a word here: `id` is found in `id_map`, not in `identifier`.
            (vec!["try", "id"], vec![vec![], vec![4]]),
            (vec!["ロック", "ー"], vec![vec![1], vec![2]]),
            (
                vec!["ング", "offset", "処理を自動"],
                vec![vec![2], vec![2], vec![0]],
            ),
            (vec!["の", "zzqqxx"], vec![vec![2, 4], vec![]]),
            (vec!["。"], vec![vec![0, 1, 2, 4]]),
            (vec!["リラン", "リラン"], vec![vec![4], vec![4]]),
            // The first occurrence fails the word boundaries, the overlapping second passes.
            (vec!["a-a"], vec![vec![4]]),
        ] {
            let patterns: Vec<String> = patterns.into_iter().map(String::from).collect();
            let found = index.literal(&patterns);
            assert_eq!(found, expected, "{patterns:?}");
            for (pattern, rows) in patterns.iter().zip(&found) {
                assert_eq!(*rows, every_row(pattern), "{pattern}");
            }
        }
    }

    /// An English question reaches Japanese text through katakana loanwords
    /// of the index (session → セッション), shown as `english→カタカナ`, and
    /// not when bridges are off.
    #[test]
    fn english_words_bridge_to_katakana() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("a.json"),
            r#"{"sections":[{"id":"s1","title":"セッションストア","content":"セッションの内容を保存する。"},
                            {"id":"s2","title":"ログ","content":"ログを出力する。"}]}"#,
        )
        .expect("write");
        let entries = vec![
            titled("a.json#s1", "セッションストア"),
            titled("a.json#s2", "ログ"),
        ];
        let index = BodyIndex::build(&refs(&entries), dir.path(), 7);
        let query = question("Where is the session stored?");
        let hits = index.search(&query, &Params::default(), 10);
        assert_eq!(hits.first().map(|h| h.row), Some(0), "{hits:?}");
        assert!(
            hits[0]
                .matched
                .iter()
                .any(|m| m.shown() == "session→セッション"),
            "{hits:?}"
        );
        let off = Params {
            bridge: 0.0,
            ..Params::default()
        };
        assert!(index.search(&query, &off, 10).is_empty());
    }

    /// The stored bridge table finds what transliterating every katakana word
    /// of the vocabulary finds: long and two-consonant skeletons, words that
    /// start with a vowel, plurals, near misses that are not alike enough.
    #[test]
    fn bridge_table_equals_a_scan_of_the_katakana_words() {
        let dir = tempfile::tempdir().expect("temp dir");
        let words = "セッション データ ドット エラー アーティファクト リトライ ロード リード \
                     コピー キープ プラグイン サーバ サーバー ログ ラグ アイテム ドキュメント";
        std::fs::write(
            dir.path().join("a.json"),
            format!(r#"{{"sections":[{{"id":"s1","title":"t","content":"{words}"}}]}}"#),
        )
        .expect("write");
        let index = BodyIndex::build(&refs(&[titled("a.json#s1", "t")]), dir.path(), 7);
        let english = [
            "session",
            "data",
            "dot",
            "error",
            "errors",
            "artifacts",
            "retry",
            "load",
            "read",
            "copy",
            "keep",
            "plugins",
            "server",
            "servers",
            "logs",
            "lag",
            "item",
            "document",
            "kept",
            "zzqqxx",
        ];
        let query: Vec<QueryWord> = english
            .iter()
            .map(|w| QueryWord {
                word: (*w).to_owned(),
                level: Level::L3,
                weight: 1.0,
                group: None,
                via: None,
            })
            .collect();
        // The scan the table replaces: every katakana word, transliterated.
        let scan = |form: &str| -> Vec<String> {
            let Some(skeleton) = crate::text::translit::english_skeleton(form) else {
                return Vec::new();
            };
            let vowel = form.starts_with(['a', 'e', 'i', 'o', 'u']);
            (0..index.n_words)
                .filter_map(|i| std::str::from_utf8(index.word(i)).ok())
                .filter(|w| {
                    crate::text::translit::katakana_romaji(w).is_some_and(|romaji| {
                        crate::text::translit::romaji_skeleton(&romaji) == skeleton
                            && romaji.starts_with(['a', 'e', 'i', 'o', 'u']) == vowel
                            && (skeleton.len() >= 3
                                || crate::text::translit::similarity(form, &romaji)
                                    >= SHORT_SIMILARITY)
                    })
                })
                .map(str::to_owned)
                .collect()
        };
        let bridged = index.bridges(&query);
        let mut matched = 0;
        for w in english.iter().filter(|w| w.len() >= 4) {
            let mut expected: Vec<String> = scan(w);
            if let Some(singular) = w.strip_suffix('s').filter(|s| !s.ends_with('s')) {
                expected.extend(scan(singular));
            }
            expected.sort();
            expected.dedup();
            let mut got: Vec<String> = bridged
                .iter()
                .filter(|(e, _)| e == w)
                .map(|(_, k)| k.clone())
                .collect();
            got.sort();
            // Every word is in one section: the most frequent are the first by text.
            expected.truncate(BRIDGES_PER_WORD);
            assert_eq!(got, expected, "{w}");
            matched += got.len();
        }
        assert!(matched >= 8, "{bridged:?}");
    }

    /// A section that carries only the aspect of a question ("modules")
    /// ranks above another file's section with the same aspect when its
    /// file carries the topic, and the file's share can be switched off.
    #[test]
    fn the_file_carries_the_topic() {
        let dir = tempfile::tempdir().expect("temp dir");
        let write =
            |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
        write(
            "mail.json",
            r#"{"sections":[{"id":"s1","title":"Mail","content":"mail sending with templates"},
                            {"id":"s2","title":"Modules","content":"add these modules"}]}"#,
        );
        write(
            "lock.json",
            r#"{"sections":[{"id":"s1","title":"Lock","content":"optimistic lock"},
                            {"id":"s2","title":"Modules","content":"add these modules"}]}"#,
        );
        let entries = vec![
            titled("lock.json#s1", "Lock"),
            titled("lock.json#s2", "Modules"),
            titled("mail.json#s1", "Mail"),
            titled("mail.json#s2", "Modules"),
        ];
        let index = BodyIndex::build(&refs(&entries), dir.path(), 7);
        let query = question("which modules for mail sending");
        let rank = |params: &Params| {
            let hits = index.search(&query, params, 10);
            let at = |row| hits.iter().position(|h| h.row == row);
            (at(3), at(1))
        };
        let (mail, lock) = rank(&Params::default());
        assert!(
            mail < lock,
            "mail modules {mail:?} before lock modules {lock:?}"
        );
        let alone = Params {
            file: 0.0,
            ..Params::default()
        };
        let hits = index.search(&query, &alone, 10);
        let (a, b) = (
            hits.iter().find(|h| h.row == 1),
            hits.iter().find(|h| h.row == 3),
        );
        assert_eq!(a.map(|h| h.score), b.map(|h| h.score), "{hits:?}");
    }

    /// The bytes round-trip through the cache form; a different index hash,
    /// a changed file or any damage (a cut, a flipped bit or byte, bytes
    /// appended) is rejected.
    #[test]
    fn cache_entries_are_checked_and_never_crash() {
        let (dir, entries) = corpus();
        let rows = refs(&entries);
        let built = BodyIndex::build(&rows, dir.path(), 7);
        let bytes = built.as_bytes().to_vec();
        let root = dir.path();
        let files = |list: &[&str]| fingerprint(list.iter().copied(), root);
        let again = BodyIndex::from_bytes(Bytes::Owned(bytes.clone()), Some(7), files)
            .expect("a fresh entry loads");
        let q = question("ロックとページング");
        assert_eq!(
            again.search(&q, &Params::default(), 10),
            built.search(&q, &Params::default(), 10)
        );
        assert!(BodyIndex::from_bytes(Bytes::Owned(bytes.clone()), Some(8), files).is_none());
        std::fs::write(root.join("b.json"), r#"{"sections":[]}"#).expect("write");
        assert!(
            BodyIndex::from_bytes(Bytes::Owned(bytes.clone()), Some(7), files).is_none(),
            "a changed knowledge file invalidates the entry"
        );
        let fixed = |_: &[&str]| u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"));
        let load = |b: Vec<u8>| BodyIndex::from_bytes(Bytes::Owned(b), Some(7), fixed).is_some();
        assert!(load(bytes.clone()));
        for cut in 0..bytes.len() {
            assert!(!load(bytes[..cut].to_vec()), "cut at {cut}");
        }
        for junk in [&[0u8][..], b"x", &[0; 8]] {
            assert!(!load([&bytes[..], junk].concat()), "{junk:?} appended");
        }
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                assert!(!load(damaged), "byte {at} ^ {flip:#x}");
            }
        }
    }
}
