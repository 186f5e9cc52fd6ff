//! Section content: the text the judgement step reads, from the knowledge files.
//!
//! The index holds only references and hints; [`Library`] opens the
//! knowledge file a reference names (once per file) and returns the
//! section's text. Three section shapes are understood: `sections` as an
//! object of markdown strings, as an object of structured objects (rendered
//! as readable markdown), and as an array of `{id, title, content}`.
//!
//! A file's page text (a page introduction in its top-level `content`, the
//! one field [`PAGE_TEXT`] names) is a section too, with the reserved id
//! [`PAGE_ID`]: a sixth of nabledge-6-fulltext's text is page text, and 153
//! of its files have nothing else. [`page_text`] says exactly what it holds.
//! Other top-level fields (a converter's copies of the page, such as
//! fulltext's `p2_raw_lines`) are not indexed: [`left_out`] names them.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::error::{Error, Result};

/// The section id of a file's page text (its reference is
/// `path/to/file.json#_page`). A leading `_` keeps it apart from the ids
/// converters write (`s3`, `paging`); a file that has a section of its own
/// with this id keeps it, and its page text is not indexed.
pub(crate) const PAGE_ID: &str = "_page";

/// Top-level keys that are not content: the file's structure (read as
/// title, index entries and sections) and metadata (the official pages'
/// addresses, flags and versions), which are not knowledge to search.
pub(crate) const NOT_CONTENT: [&str; 7] = [
    "id",
    "title",
    "index",
    "sections",
    "official_doc_urls",
    "no_knowledge_content",
    "version",
];

/// The top-level fields that are page text. Any other field outside
/// [`NOT_CONTENT`] is not indexed and is reported by name (see
/// [`left_out`]): nabledge-6-fulltext's spreadsheet pages carry the page's
/// lines again in `p2_raw_lines`, `p2_headings` and the like, and as page
/// text they put it in front of the reader twice.
pub(crate) const PAGE_TEXT: [&str; 1] = ["content"];
use crate::index::model::split_reference;
use crate::knowledge::{Document, Root};

/// Reads sections from a knowledge directory, caching parsed files. Only
/// files inside the directory are opened (see [`Root::resolve`]).
#[derive(Debug)]
pub(crate) struct Library {
    root: Root,
    files: HashMap<String, Document>,
    /// The index file, for "is it stale?" in errors.
    index: Option<PathBuf>,
}

impl Library {
    /// A library over the knowledge directory `root`.
    pub(crate) fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: Root::new(root),
            files: HashMap::new(),
            index: None,
        }
    }

    /// Blames a stale index in "no such section" errors only when `index`
    /// is older than the knowledge file the reference names.
    pub(crate) fn with_index(mut self, index: impl Into<PathBuf>) -> Self {
        self.index = Some(index.into());
        self
    }

    /// The text of the section `reference` (`path#anchor`: a section id,
    /// or a heading's text or slug, as links write them).
    pub(crate) fn section(&mut self, reference: &str) -> Result<String> {
        let (file, section) = split_reference(reference);
        let (doc, _) = self.document(reference, file)?;
        if let Some(text) = section_text(doc, section) {
            return Ok(text);
        }
        let id = self.resolve(reference)?;
        let (doc, _) = self.document(reference, file)?;
        section_text(doc, split_reference(&id).1).ok_or_else(|| self.no_section(reference, None))
    }

    /// The reference as the index writes it (`path#section-id`) of
    /// `reference`, whose anchor may be a section id, a heading's text or
    /// its slug (the link resolver's rule, `links::resolve::Anchors`).
    pub(crate) fn resolve(&mut self, reference: &str) -> Result<String> {
        let (file, anchor) = split_reference(reference);
        let (doc, _) = self.document(reference, file)?;
        if section_text(doc, anchor).is_some() {
            return Ok(reference.to_owned());
        }
        let anchors = crate::links::resolve::Anchors::of(doc);
        match anchors.section(anchor) {
            Ok(Some(id)) => Ok(format!("{file}#{id}")),
            Ok(None) => Err(self.no_section(reference, Some("the file has no sections".into()))),
            Err(why) => {
                let ids = anchors.listed();
                let listed: Vec<&str> = ids.iter().take(8).map(String::as_str).collect();
                let more = if ids.len() > 8 { ", …" } else { "" };
                Err(self.no_section(
                    reference,
                    Some(format!("{why} (sections: {}{more})", listed.join(", "))),
                ))
            }
        }
    }

    /// "No such section" for `reference`, blaming the index only when it
    /// is older than the file.
    fn no_section(&self, reference: &str, why: Option<String>) -> Error {
        let (file, section) = split_reference(reference);
        let mut detail = why.unwrap_or_else(|| format!("no section {section:?}"));
        let modified = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        if let (Some(index), Ok(path)) = (&self.index, self.root.resolve(reference, file))
            && let (Some(built), Some(changed)) = (modified(index), modified(&path))
            && built < changed
        {
            detail.push_str(&format!(
                "; {} is older than this file: run `kbidx build`",
                crate::error::display(index)
            ));
        }
        Error::NoSection {
            reference: reference.to_owned(),
            detail,
        }
    }

    /// The knowledge file `file` (a reference's file part; `reference` is
    /// what a refusal names), parsed once, and its path on disk.
    pub(crate) fn document(&mut self, reference: &str, file: &str) -> Result<(&Value, PathBuf)> {
        let path = self.root.resolve(reference, file)?;
        if !self.files.contains_key(file) {
            self.files
                .insert(file.to_owned(), crate::knowledge::read(&path)?);
        }
        Ok((self.files[file].value(), path))
    }
}

/// A document's sections (and index-entry titles) indexed by id, for many
/// lookups in one file: a linear search per section would be quadratic in
/// the file's size.
#[derive(Debug)]
pub(crate) struct Sections<'a> {
    doc: &'a Value,
    by_id: HashMap<&'a str, &'a Value>,
    titles: HashMap<&'a str, &'a str>,
}

impl<'a> Sections<'a> {
    /// Indexes `doc`'s `sections` array and its `index` entries' titles.
    pub(crate) fn new(doc: &'a Value) -> Self {
        let mut by_id = HashMap::new();
        if let Some(Value::Array(list)) = doc.get("sections") {
            for s in list {
                if let Some(id) = s.get("id").and_then(Value::as_str) {
                    by_id.entry(id).or_insert(s);
                }
            }
        }
        let mut titles = HashMap::new();
        for e in doc
            .get("index")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(id), Some(title)) = (
                e.get("id").and_then(Value::as_str),
                e.get("title").and_then(Value::as_str),
            ) {
                titles.entry(id).or_insert(title);
            }
        }
        Self { doc, by_id, titles }
    }

    /// The title of section `id`: its index entry's title (object sections)
    /// or its own (array sections), when it has one; the page text's is the
    /// file's title.
    pub(crate) fn title(&self, id: &str) -> Option<&'a str> {
        if id == PAGE_ID && !self.has_own(id) {
            return self.doc.get("title")?.as_str().filter(|t| !t.is_empty());
        }
        match self.doc.get("sections")? {
            Value::Object(_) => self.titles.get(id).copied(),
            Value::Array(_) => self.by_id.get(id)?.get("title")?.as_str(),
            _ => None,
        }
        .filter(|t| !t.is_empty())
    }

    /// Whether the file's `sections` hold a section `id` of their own.
    fn has_own(&self, id: &str) -> bool {
        match self.doc.get("sections") {
            Some(Value::Object(map)) => map.contains_key(id),
            Some(Value::Array(_)) => self.by_id.contains_key(id),
            _ => false,
        }
    }

    /// The text of section `id`, as [`section_text`] renders it ([`PAGE_ID`]:
    /// the page text, `None` when the file has none).
    pub(crate) fn text(&self, id: &str) -> Option<String> {
        let (title, body) = self.parts(id)?;
        Some(titled(title, body))
    }

    /// The text of section `id` without the `## title` heading that
    /// [`Sections::text`] puts over it: what the section itself says.
    pub(crate) fn body(&self, id: &str) -> Option<String> {
        self.parts(id).map(|(_, body)| body)
    }

    /// The heading title and the body of section `id` (the page text has
    /// no heading).
    fn parts(&self, id: &str) -> Option<(Option<&'a str>, String)> {
        if id == PAGE_ID && !self.has_own(id) {
            return page_text(self.doc).map(|text| (None, text));
        }
        match self.doc.get("sections")? {
            Value::Object(map) => Some((self.titles.get(id).copied(), render(map.get(id)?))),
            Value::Array(_) => self.by_id.get(id).map(|s| list_section_parts(s)),
            _ => None,
        }
    }
}

/// Finds section `id` in a knowledge document and renders it as text.
pub(crate) fn section_text(doc: &Value, id: &str) -> Option<String> {
    Sections::new(doc).text(id)
}

/// The page text of `doc`: its [`PAGE_TEXT`] field (`content` as it is, or
/// rendered as [`render`] writes it when it is not a string), without the
/// strings that a section's text already holds (white space ignored). `None`
/// when nothing is left.
pub(crate) fn page_text(doc: &Value) -> Option<String> {
    let Value::Object(top) = doc else {
        return None;
    };
    let page: Vec<&Value> = PAGE_TEXT.iter().filter_map(|key| top.get(*key)).collect();
    if page.is_empty() {
        return None;
    }
    let held = squeeze(&sections_text(doc));
    let finder = |s: &str| {
        let s = squeeze(s);
        s.is_empty() || memchr::memmem::find(held.as_bytes(), s.as_bytes()).is_some()
    };
    let mut parts = Vec::new();
    for value in page {
        let Some(value) = prune(value, &finder) else {
            continue;
        };
        let text = match &value {
            Value::String(s) => s.trim().to_owned(),
            other => render(other),
        };
        if !text.trim().is_empty() {
            parts.push(text);
        }
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Characters of a knowledge file's string content that no index row holds,
/// by where they sit. The file's title, its metadata (the top-level `id`,
/// `official_doc_urls`, `no_knowledge_content` and `version`) and the ids
/// and levels of sections and index entries are not content.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LeftOut {
    /// Top-level page text ([`PAGE_TEXT`]).
    pub page: usize,
    /// Text inside `sections`.
    pub sections: usize,
    /// Index entries' titles and hints.
    pub index: usize,
    /// Other top-level fields, which are not indexed ([`FieldLeftOut`]).
    pub fields: usize,
}

impl LeftOut {
    /// All characters left out.
    pub fn total(&self) -> usize {
        self.page + self.sections + self.index + self.fields
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: Self) {
        self.page += other.page;
        self.sections += other.sections;
        self.index += other.index;
        self.fields += other.fields;
    }
}

/// A top-level field that is neither page text nor structure or metadata,
/// with string content: not indexed, so named, with how much of its text
/// the rows hold anyway (its strings are often copies of the page's).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldLeftOut {
    /// The field's name.
    pub name: String,
    /// The knowledge files that have it.
    pub files: usize,
    /// Characters of its strings, white space not counted.
    pub chars: usize,
    /// Of those, the characters in no index row ([`LeftOut::fields`]).
    pub in_no_row: usize,
}

impl FieldLeftOut {
    /// Adds `other`'s counts (the same field in another file).
    pub fn add(&mut self, other: &Self) {
        self.files += other.files;
        self.chars += other.chars;
        self.in_no_row += other.in_no_row;
    }
}

/// What of `doc`'s string content the rows made of it do not hold: a string
/// counts as held when it occurs, white space ignored, in `rows` (the rows'
/// titles, hints and texts, one after another). Also the fields that are not
/// indexed, each with the characters of its strings and how many of them no
/// row holds, in file order.
pub(crate) fn left_out(doc: &Value, rows: &str) -> (LeftOut, Vec<FieldLeftOut>) {
    // Where a string sits: page text, sections, index, then the other
    // fields, `FIELD + i` for `fields[i]`.
    const PAGE: usize = 0;
    const SECTIONS: usize = 1;
    const INDEX: usize = 2;
    const FIELD: usize = 3;
    let mut strings: Vec<(usize, &str)> = Vec::new();
    let mut fields = Vec::new();
    let Value::Object(top) = doc else {
        return (LeftOut::default(), fields);
    };
    for (key, value) in top {
        match key.as_str() {
            "sections" => leaves(value, &["id", "level"], SECTIONS, &mut strings),
            "index" => leaves(value, &["id"], INDEX, &mut strings),
            key if NOT_CONTENT.contains(&key) => {}
            key if PAGE_TEXT.contains(&key) => leaves(value, &[], PAGE, &mut strings),
            key => {
                leaves(value, &[], FIELD + fields.len(), &mut strings);
                fields.push(FieldLeftOut {
                    name: key.to_owned(),
                    files: 1,
                    chars: 0,
                    in_no_row: 0,
                });
            }
        }
    }
    let squeezed: Vec<String> = strings.iter().map(|(_, s)| squeeze(s)).collect();
    let patterns: Vec<&str> = squeezed.iter().map(String::as_str).collect();
    let held = held_in(&squeeze(rows), &patterns);
    let mut out = LeftOut::default();
    for (((place, _), s), held) in strings.iter().zip(&squeezed).zip(held) {
        let chars = s.chars().count();
        if let Some(field) = place.checked_sub(FIELD) {
            fields[field].chars += chars;
        }
        if held {
            continue;
        }
        match *place {
            PAGE => out.page += chars,
            SECTIONS => out.sections += chars,
            INDEX => out.index += chars,
            field => {
                out.fields += chars;
                fields[field - FIELD].in_no_row += chars;
            }
        }
    }
    // A field of numbers, flags or empty strings only has no text to name.
    fields.retain(|f| f.chars > 0);
    (out, fields)
}

/// Whether each of `patterns` occurs in `hay` (an empty pattern does).
///
/// A file's strings mostly occur in its rows in the order the file holds
/// them, so each is looked for from where the one before it was found, and
/// only then from the start: about one pass over `hay` in all. Rows in
/// another order could make that quadratic, so past a budget of bytes
/// scanned the patterns still undecided go through one Aho-Corasick pass
/// instead. That automaton is not built up front because compiling one of
/// every string of a file costs several times its text (it was most of
/// `kbidx build --terms 0`'s time: docs/benchmarks.md).
fn held_in(hay: &str, patterns: &[&str]) -> Vec<bool> {
    let budget = 4 * hay.len() + patterns.iter().map(|p| p.len()).sum::<usize>() + 4096;
    held_within(hay, patterns, budget)
}

/// [`held_in`] with the number of bytes the searches from a cursor may scan
/// before the rest go through the automaton.
fn held_within(hay: &str, patterns: &[&str], mut budget: usize) -> Vec<bool> {
    let hay = hay.as_bytes();
    let mut held: Vec<Option<bool>> = vec![None; patterns.len()];
    let mut seen: foldhash::HashMap<&str, bool> = foldhash::HashMap::default();
    let mut cursor = 0;
    for (i, &p) in patterns.iter().enumerate() {
        if p.is_empty() {
            held[i] = Some(true);
            continue;
        }
        if let Some(&known) = seen.get(p) {
            held[i] = Some(known);
            continue;
        }
        let needle = p.as_bytes();
        let at = match find(&hay[cursor..], needle, &mut budget) {
            Found::At(at) => Some(cursor + at),
            Found::Nowhere => match find(hay, needle, &mut budget) {
                Found::At(at) => Some(at),
                Found::Nowhere => None,
                Found::OutOfBudget => break,
            },
            Found::OutOfBudget => break,
        };
        if let Some(at) = at {
            cursor = at + needle.len();
        }
        held[i] = Some(at.is_some());
        seen.insert(p, at.is_some());
    }
    let undecided: Vec<&str> = {
        let mut rest: Vec<&str> = patterns
            .iter()
            .zip(&held)
            .filter(|(_, h)| h.is_none())
            .map(|(p, _)| *p)
            .collect();
        rest.sort_unstable();
        rest.dedup();
        rest
    };
    if !undecided.is_empty() {
        let mut found = vec![false; undecided.len()];
        // A contiguous NFA, not the DFA the default picks for few patterns:
        // the automaton serves one pass over one file's rows.
        let automaton = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(&undecided);
        if let Ok(automaton) = automaton {
            let mut missing = undecided.len();
            for m in automaton.find_overlapping_iter(hay) {
                let seen = &mut found[m.pattern().as_usize()];
                if !*seen {
                    *seen = true;
                    missing -= 1;
                    if missing == 0 {
                        break;
                    }
                }
            }
        }
        for (h, p) in held.iter_mut().zip(patterns) {
            if h.is_none() {
                *h = undecided.binary_search(p).ok().map(|i| found[i]);
            }
        }
    }
    held.into_iter().map(|h| h.unwrap_or(false)).collect()
}

/// Collects the strings under `value` with `place`, skipping the values of
/// object keys in `skip` one level down (the ids of list entries).
fn leaves<'a>(value: &'a Value, skip: &[&str], place: usize, out: &mut Vec<(usize, &'a str)>) {
    match value {
        Value::String(s) => out.push((place, s)),
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Object(map) => {
                        for (k, v) in map {
                            if !skip.contains(&k.as_str()) {
                                leaves(v, &[], place, out);
                            }
                        }
                    }
                    other => leaves(other, &[], place, out),
                }
            }
        }
        Value::Object(map) => {
            for v in map.values() {
                leaves(v, &[], place, out);
            }
        }
        _ => {}
    }
}

/// The text of every section of `doc`, one after another.
fn sections_text(doc: &Value) -> String {
    match doc.get("sections") {
        Some(Value::Object(map)) => map.values().map(render).collect::<Vec<_>>().join("\n"),
        Some(Value::Array(list)) => list
            .iter()
            .map(list_section_text)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// What [`find`] found.
enum Found {
    /// The first occurrence starts at this byte.
    At(usize),
    /// There is none.
    Nowhere,
    /// The budget ran out first.
    OutOfBudget,
}

/// The first occurrence of `needle` (not empty) in `hay`, charging `budget`
/// the bytes scanned and compared. A long needle is looked for by its first
/// bytes, then compared whole at each place they occur: setting up a
/// substring search costs time in the needle's length, and a file's rows are
/// searched for strings as long as whole sections.
fn find(hay: &[u8], needle: &[u8], budget: &mut usize) -> Found {
    const HEAD: usize = 32;
    let head = &needle[..needle.len().min(HEAD)];
    let finder = memchr::memmem::Finder::new(head);
    let mut scanned = 0;
    // Every occurrence of the head, overlapping ones too (`find_iter`'s
    // are not: in `ああああa` the needle's head found at 0 would hide the
    // match at 3).
    let mut from = 0;
    while let Some(i) = finder.find(&hay[from..]) {
        let at = from + i;
        let Some(left) = budget.checked_sub(at - scanned + needle.len()) else {
            *budget = 0;
            return Found::OutOfBudget;
        };
        *budget = left;
        scanned = at;
        if hay[at..].starts_with(needle) {
            return Found::At(at);
        }
        from = at + 1;
    }
    match budget.checked_sub(hay.len() - scanned) {
        Some(left) => {
            *budget = left;
            Found::Nowhere
        }
        None => {
            *budget = 0;
            Found::OutOfBudget
        }
    }
}

/// `s` without white space (what [`char::is_whitespace`] calls white space),
/// for comparisons that ignore it. It runs over every string of every
/// knowledge file in a build, so it copies the runs between white space
/// rather than char by char.
pub(crate) fn squeeze(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if !MAY_BE_WHITE_SPACE[usize::from(bytes[i])] {
            i += 1;
            continue;
        }
        let space = white_space_len(&bytes[i..]);
        if space == 0 {
            i += 1;
            continue;
        }
        out.push_str(&s[start..i]);
        i += space;
        start = i;
    }
    out.push_str(&s[start..]);
    out
}

/// The bytes a white space character can start with in UTF-8 (see
/// [`white_space_len`]): one table look-up skips all others.
const MAY_BE_WHITE_SPACE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = matches!(b, 0x09..=0x0D | 0x20 | 0xC2 | 0xE1 | 0xE2 | 0xE3);
        b += 1;
    }
    table
};

/// The length in bytes of the white space character `bytes` starts with, or
/// 0: U+0009–U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028,
/// U+2029, U+202F, U+205F and U+3000 in UTF-8 (`squeeze_is_char_filter`
/// checks every character against the standard library).
fn white_space_len(bytes: &[u8]) -> usize {
    match bytes {
        [b'\t'..=b'\r' | b' ', ..] => 1,
        [0xC2, 0x85 | 0xA0, ..] => 2,
        [0xE1, 0x9A, 0x80, ..]
        | [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..]
        | [0xE2, 0x81, 0x9F, ..]
        | [0xE3, 0x80, 0x80, ..] => 3,
        _ => 0,
    }
}

/// `value` without the strings `held` says are held elsewhere, and without
/// what is then empty (nulls, empty arrays and objects); `None` when nothing
/// is left. A number or boolean counts as the text it is written as.
fn prune(value: &Value, held: &dyn Fn(&str) -> bool) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(s) => (!held(s)).then(|| value.clone()),
        Value::Number(_) | Value::Bool(_) => (!held(&value.to_string())).then(|| value.clone()),
        Value::Array(items) => {
            let kept: Vec<Value> = items.iter().filter_map(|v| prune(v, held)).collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(map) => {
            let kept: serde_json::Map<String, Value> = map
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), prune(v, held)?)))
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
    }
}

/// An array-style section `{id, title, content}` as text.
fn list_section_text(s: &Value) -> String {
    let (title, body) = list_section_parts(s);
    titled(title, body)
}

/// An array-style section's heading title and body.
fn list_section_parts(s: &Value) -> (Option<&str>, String) {
    let title = s
        .get("title")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty());
    (title, s.get("content").map(render).unwrap_or_default())
}

/// `body` under a `## title` heading, when there is a title.
fn titled(title: Option<&str>, body: String) -> String {
    match title {
        Some(t) => format!("## {t}\n\n{body}"),
        None => body,
    }
}

/// Renders a JSON value as readable markdown-ish text.
pub(crate) fn render(value: &Value) -> String {
    let mut out = String::new();
    render_into(&mut out, value, 0);
    out.trim_end().to_owned()
}

fn render_into(out: &mut String, value: &Value, depth: usize) {
    let indent = "  ".repeat(depth);
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => {
            for item in items {
                out.push_str(&indent);
                out.push_str("- ");
                if is_scalar(item) {
                    out.push_str(&scalar(item));
                    out.push('\n');
                } else {
                    let mut sub = String::new();
                    render_into(&mut sub, item, depth + 1);
                    let inner = "  ".repeat(depth + 1);
                    out.push_str(sub.strip_prefix(&inner).unwrap_or(&sub));
                }
            }
        }
        Value::Object(map) => {
            for (key, v) in map {
                out.push_str(&indent);
                if is_scalar(v) {
                    let text = scalar(v);
                    if text.contains('\n') {
                        out.push_str(&format!("{key}:\n{text}\n"));
                    } else {
                        out.push_str(&format!("{key}: {text}\n"));
                    }
                } else {
                    out.push_str(&format!("{key}:\n"));
                    render_into(out, v, depth + 1);
                }
            }
        }
        other => {
            out.push_str(&indent);
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".to_owned(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_three_shapes() {
        let markdown =
            serde_json::json!({"index": [{"id": "a", "title": "A"}], "sections": {"a": "text"}});
        assert_eq!(
            section_text(&markdown, "a").as_deref(),
            Some("## A\n\ntext")
        );
        let structured = serde_json::json!({"sections": {"p": {"description": "d", "methods": [{"name": "per"}], "n": 3}}});
        insta::assert_snapshot!(section_text(&structured, "p").unwrap_or_default(), @r"
        description: d
        methods:
          - name: per
        n: 3
        ");
        let list = serde_json::json!({"sections": [{"id": "s1", "title": "T", "content": "body"}]});
        assert_eq!(section_text(&list, "s1").as_deref(), Some("## T\n\nbody"));
        assert_eq!(section_text(&list, "s2"), None);
        for (doc, id) in [(&markdown, "a"), (&list, "s1")] {
            let body = Sections::new(doc).body(id);
            assert_eq!(
                body.as_deref(),
                Some(if id == "a" { "text" } else { "body" })
            );
        }
    }

    #[test]
    fn page_text_is_the_content_the_sections_do_not_hold() {
        let cases = [
            // A page introduction, as nabledge-6-fulltext writes it.
            (
                serde_json::json!({"id": "p", "title": "T", "content": "intro\n", "no_knowledge_content": false,
                                   "sections": [{"id": "s1", "title": "A", "content": "body"}]}),
                Some("intro"),
            ),
            // Only `content`: other top-level fields (a spreadsheet page's
            // copies of its lines and rows) are not page text.
            (
                serde_json::json!({"title": "T", "content": "intro\nline", "sheet_type": "P2",
                                   "p2_raw_lines": [[[1, "intro"]], [[2, "line"]]],
                                   "p2_headings": [{"text": "intro", "level": 3}],
                                   "sections": [{"id": "s1", "content": "body text"}]}),
                Some("intro\nline"),
            ),
            // Structured content is rendered; strings a section already
            // holds (white space ignored) are left out of it.
            (
                serde_json::json!({"title": "T", "content": {"rows": [["body  text", "extra"], ["body text"]]},
                                   "sections": [{"id": "s1", "content": "body text"}]}),
                Some("rows:\n  - - extra"),
            ),
            // Other fields only: no page text.
            (
                serde_json::json!({"title": "T", "sheet_type": "P1", "sections": []}),
                None,
            ),
            // Structure and metadata only: no page text.
            (
                serde_json::json!({"id": "p", "title": "T", "official_doc_urls": ["u"], "version": "6",
                                   "index": [], "sections": {}}),
                None,
            ),
            (
                serde_json::json!({"title": "T", "content": "  ", "sections": []}),
                None,
            ),
        ];
        for (doc, want) in cases {
            assert_eq!(page_text(&doc).as_deref(), want, "{doc}");
            assert_eq!(Sections::new(&doc).text(PAGE_ID).as_deref(), want, "{doc}");
        }
        let doc = serde_json::json!({"title": "T", "content": "x", "sections": []});
        assert_eq!(Sections::new(&doc).title(PAGE_ID), Some("T"));
    }

    #[test]
    fn squeeze_is_char_filter() {
        let all: String = (0..=u32::from(char::MAX))
            .filter_map(char::from_u32)
            .flat_map(|c| ['a', c])
            .collect();
        let want: String = all.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(squeeze(&all), want);
        assert_eq!(squeeze(" a\u{3000}b\n\u{2029}"), "ab");
    }

    #[test]
    fn a_needle_whose_head_overlaps_itself_is_found() {
        // The needle's 32-byte head occurs at 0 and at 3 (one `あ` later);
        // only the second is followed by the rest of the needle.
        let hay = format!("{}a", "あ".repeat(12));
        let needle = format!("{}a", "あ".repeat(11));
        for budget in [usize::MAX, 0] {
            assert_eq!(
                held_within(&hay, &[&needle], budget),
                [true],
                "budget {budget}"
            );
        }
        assert_eq!(held_in(&hay, &[&needle, "aあ"]), [true, false]);
    }

    proptest::proptest! {
        /// Searching from a cursor, with or without the automaton for the
        /// rest, says what a plain substring test says.
        #[test]
        fn held_in_is_a_substring_test(
            hay in "[ab\u{3042}]{0,120}",
            picks in proptest::collection::vec((0usize..130, 0usize..60, "[ab\u{3042}]{0,40}"), 0..12),
            budget in 0usize..200,
        ) {
            // Half of the patterns are pieces of `hay`, some longer than
            // the head `find` looks for first.
            let chars: Vec<char> = hay.chars().collect();
            let patterns: Vec<String> = picks
                .into_iter()
                .map(|(start, len, other)| match start.checked_sub(chars.len()) {
                    None => chars[start..(start + len).min(chars.len())].iter().collect(),
                    Some(_) => other,
                })
                .collect();
            let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
            let want: Vec<bool> = patterns.iter().map(|p| hay.contains(p)).collect();
            proptest::prop_assert_eq!(&held_in(&hay, &patterns), &want);
            proptest::prop_assert_eq!(&held_within(&hay, &patterns, budget), &want);
            proptest::prop_assert_eq!(&held_within(&hay, &patterns, 0), &want);
        }
    }

    #[test]
    fn left_out_counts_content_no_row_holds() {
        let doc = serde_json::json!({
            "id": "metadata-is-not-content", "title": "T", "official_doc_urls": ["https://x"],
            "content": "page text",
            "index": [{"id": "a", "title": "Entry", "hints": ["hint"]}],
            "sections": {"a": "section a", "b": "orphan"}});
        let rows = "T / Entry\nhint\nsection a\n";
        assert_eq!(
            left_out(&doc, rows),
            (
                LeftOut {
                    page: 8,
                    sections: 6,
                    index: 0,
                    fields: 0
                },
                vec![]
            )
        );
        let all = "T / Entry\nhint\nsection a\npage  text\norphan";
        assert_eq!(left_out(&doc, all).0.total(), 0);
    }

    #[test]
    fn left_out_names_the_fields_that_are_not_page_text() {
        // A spreadsheet page as nabledge-6-fulltext writes it: its lines
        // again in `p2_raw_lines`, its headings in `p2_headings`.
        let doc = serde_json::json!({
            "id": "p", "title": "T", "content": "Intro\nline one", "sheet_type": "P2",
            "p2_headings": [{"text": "Intro", "level": 3}],
            "p2_raw_lines": [[[1, "Intro"]], [[2, "line one"]], [[3, "only here"]]],
            "p2_base_col": 1, "sections": []});
        let rows = "T\n\nIntro\nline one\n";
        let field = |name: &str, chars, in_no_row| FieldLeftOut {
            name: name.to_owned(),
            files: 1,
            chars,
            in_no_row,
        };
        assert_eq!(
            left_out(&doc, rows),
            (
                LeftOut {
                    page: 0,
                    sections: 0,
                    index: 0,
                    fields: 2 + 8
                },
                vec![
                    field("sheet_type", 2, 2),
                    field("p2_headings", 5, 0),
                    field("p2_raw_lines", 5 + 7 + 8, 8),
                ]
            )
        );
    }
}
