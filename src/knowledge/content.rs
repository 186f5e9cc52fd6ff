//! Section content: the text the judgement step reads, from the knowledge files.
//!
//! The index holds only references and hints; [`Library`] opens the
//! knowledge file a reference names (once per file) and returns the
//! section's text. Three section shapes are understood: `sections` as an
//! object of markdown strings, as an object of structured objects (rendered
//! as readable markdown), and as an array of `{id, title, content}`.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::index::model::split_reference;
use crate::knowledge::{Document, Root};

/// Reads sections from a knowledge directory, caching parsed files. Only
/// files inside the directory are opened (see [`Root::resolve`]).
#[derive(Debug)]
pub(crate) struct Library {
    root: Root,
    files: HashMap<String, Document>,
}

impl Library {
    /// A library over the knowledge directory `root`.
    pub(crate) fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: Root::new(root),
            files: HashMap::new(),
        }
    }

    /// The text of the section `reference` (`path#section`).
    pub(crate) fn section(&mut self, reference: &str) -> Result<String> {
        let (file, section) = split_reference(reference);
        let (doc, path) = self.document(reference, file)?;
        section_text(doc, section).ok_or_else(|| {
            Error::data(
                path,
                format!("no section {section:?} (reference {reference:?}; is the index stale?)"),
            )
        })
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
    /// or its own (array sections), when it has one.
    pub(crate) fn title(&self, id: &str) -> Option<&'a str> {
        match self.doc.get("sections")? {
            Value::Object(_) => self.titles.get(id).copied(),
            Value::Array(_) => self.by_id.get(id)?.get("title")?.as_str(),
            _ => None,
        }
        .filter(|t| !t.is_empty())
    }

    /// The text of section `id`, as [`section_text`] renders it.
    pub(crate) fn text(&self, id: &str) -> Option<String> {
        match self.doc.get("sections")? {
            Value::Object(map) => Some(titled(self.titles.get(id).copied(), render(map.get(id)?))),
            Value::Array(_) => self.by_id.get(id).map(|s| list_section_text(s)),
            _ => None,
        }
    }
}

/// Finds section `id` in a knowledge document and renders it as text.
pub(crate) fn section_text(doc: &Value, id: &str) -> Option<String> {
    Sections::new(doc).text(id)
}

/// An array-style section `{id, title, content}` as text.
fn list_section_text(s: &Value) -> String {
    let title = s
        .get("title")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty());
    titled(title, s.get("content").map(render).unwrap_or_default())
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
    }
}
