//! Section content: the text the judgement step reads, from the knowledge files.
//!
//! The index holds only references and hints; [`Library`] opens the
//! knowledge file a reference names (once per file) and returns the
//! section's text. Three section shapes are understood: `sections` as an
//! object of markdown strings, as an object of structured objects (rendered
//! as readable markdown), and as an array of `{id, title, content}`.
//!
//! A file's text outside its sections (its page text: a page introduction in
//! a top-level `content`, or any other top-level field that is not the
//! file's structure or metadata) is a section too, with the reserved id
//! [`PAGE_ID`]: a sixth of nabledge-6-fulltext's text is page text, and 153
//! of its files have nothing else. [`page_text`] says exactly what it holds.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::error::{Error, Result};

/// The section id of a file's page text (its reference is
/// `path/to/file.json#_page`). A leading `_` keeps it apart from the ids
/// converters write (`s3`, `paging`); a file that has a section of its own
/// with this id keeps it, and its page text is not indexed.
pub(crate) const PAGE_ID: &str = "_page";

/// Top-level keys that are not page text: the file's structure (read as
/// title, index entries and sections) and metadata (the official pages'
/// addresses, flags and versions), which are not knowledge to search.
pub(crate) const NOT_PAGE_TEXT: [&str; 7] = [
    "id",
    "title",
    "index",
    "sections",
    "official_doc_urls",
    "no_knowledge_content",
    "version",
];
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

/// The page text of `doc`: its top-level fields other than [`NOT_PAGE_TEXT`],
/// in file order (`content` as it is, any other field under its name, as
/// [`render`] writes it), without the strings that a section's text already
/// holds (white space ignored: nabledge-6-fulltext's spreadsheet pages keep
/// their rows both as sections and as raw `data_rows`). `None` when nothing
/// is left.
pub(crate) fn page_text(doc: &Value) -> Option<String> {
    let Value::Object(top) = doc else {
        return None;
    };
    let page: Vec<(&String, &Value)> = top
        .iter()
        .filter(|(key, _)| !NOT_PAGE_TEXT.contains(&key.as_str()))
        .collect();
    if page.is_empty() {
        return None;
    }
    let held = squeeze(&sections_text(doc));
    let finder = |s: &str| {
        let s = squeeze(s);
        s.is_empty() || memchr::memmem::find(held.as_bytes(), s.as_bytes()).is_some()
    };
    let mut parts = Vec::new();
    for (key, value) in page {
        let Some(value) = prune(value, &finder) else {
            continue;
        };
        let text = match (key.as_str(), &value) {
            ("content", Value::String(s)) => s.trim().to_owned(),
            ("content", other) => render(other),
            (key, other) => {
                let mut one = serde_json::Map::new();
                one.insert(key.to_owned(), other.clone());
                render(&Value::Object(one))
            }
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
    /// Top-level page text.
    pub page: usize,
    /// Text inside `sections`.
    pub sections: usize,
    /// Index entries' titles and hints.
    pub index: usize,
}

impl LeftOut {
    /// All characters left out.
    pub fn total(&self) -> usize {
        self.page + self.sections + self.index
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: Self) {
        self.page += other.page;
        self.sections += other.sections;
        self.index += other.index;
    }
}

/// What of `doc`'s string content the rows made of it do not hold: a string
/// counts as held when it occurs, white space ignored, in `rows` (the rows'
/// titles, hints and texts, one after another). One Aho-Corasick pass over
/// the rows finds every string at once, so the check is linear in the file.
pub(crate) fn left_out(doc: &Value, rows: &str) -> LeftOut {
    let mut strings: Vec<(usize, &str)> = Vec::new();
    let Value::Object(top) = doc else {
        return LeftOut::default();
    };
    for (key, value) in top {
        match key.as_str() {
            "id" | "title" | "official_doc_urls" | "no_knowledge_content" | "version" => {}
            "sections" => leaves(value, &["id", "level"], 1, &mut strings),
            "index" => leaves(value, &["id"], 2, &mut strings),
            _ => leaves(value, &[], 0, &mut strings),
        }
    }
    let squeezed: Vec<String> = strings.iter().map(|(_, s)| squeeze(s)).collect();
    let mut patterns: Vec<&str> = squeezed
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect();
    patterns.sort_unstable();
    patterns.dedup();
    let mut found = vec![false; patterns.len()];
    // A contiguous NFA, not the DFA the default picks for few patterns:
    // the automaton serves one pass over one file's rows, and building a
    // DFA of the file's strings costs far more than that pass can save.
    let automaton = aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
        .build(&patterns);
    if let Ok(automaton) = automaton {
        let mut missing = patterns.len();
        for m in automaton.find_overlapping_iter(squeeze(rows).as_str()) {
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
    let mut out = LeftOut::default();
    for ((place, _), s) in strings.iter().zip(&squeezed) {
        let Ok(i) = patterns.binary_search(&s.as_str()) else {
            continue;
        };
        if !found[i] {
            let chars = s.chars().count();
            match place {
                0 => out.page += chars,
                1 => out.sections += chars,
                _ => out.index += chars,
            }
        }
    }
    out
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

/// `s` without white space, for comparisons that ignore it.
pub(crate) fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
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
    fn page_text_is_the_top_level_text_the_sections_do_not_hold() {
        let cases = [
            // A page introduction, as nabledge-6-fulltext writes it.
            (
                serde_json::json!({"id": "p", "title": "T", "content": "intro\n", "no_knowledge_content": false,
                                   "sections": [{"id": "s1", "title": "A", "content": "body"}]}),
                Some("intro"),
            ),
            // Other top-level fields under their names; strings a section
            // already holds (white space ignored) are left out.
            (
                serde_json::json!({"title": "T", "content": "intro", "sheet": "P1",
                                   "rows": [["body  text", "extra"], ["body text"]],
                                   "sections": [{"id": "s1", "content": "body text"}]}),
                Some("intro\n\nsheet: P1\n\nrows:\n  - - extra"),
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
    fn left_out_counts_content_no_row_holds() {
        let doc = serde_json::json!({
            "id": "metadata-is-not-content", "title": "T", "official_doc_urls": ["https://x"],
            "content": "page text",
            "index": [{"id": "a", "title": "Entry", "hints": ["hint"]}],
            "sections": {"a": "section a", "b": "orphan"}});
        let rows = "T / Entry\nhint\nsection a\n";
        assert_eq!(
            left_out(&doc, rows),
            LeftOut {
                page: 8,
                sections: 6,
                index: 0
            }
        );
        let all = "T / Entry\nhint\nsection a\npage  text\norphan";
        assert_eq!(left_out(&doc, all).total(), 0);
    }
}
