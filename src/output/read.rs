//! The documents of `kbidx read`: one section, or the list of a file's sections.
//!
//! A file's sections are the rows the extraction program makes of it, so the
//! list gives exactly the references `search` returns and `read` accepts, with
//! each section's size in characters and estimated tokens: an agent can choose
//! what to read within its budget before reading it.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::build::extract::{Extractor, Record};
use crate::error::Result;
use crate::index::model::split_reference;
use crate::knowledge::content::{Library, Sections};

use super::tokens::estimate;

/// `kbidx read FILE#SECTION`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SectionDoc {
    /// `path#section`, as the index writes it.
    pub reference: String,
    /// The reference as given, when its anchor (a heading's text or slug)
    /// resolved to another section id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested: Option<String>,
    /// The knowledge file.
    pub file: String,
    /// The section id.
    pub section: String,
    /// The section's title, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The file's title, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_title: Option<String>,
    /// The section text, exactly as text output and `search --with-content` give it.
    pub content: String,
    /// Characters of `content`.
    pub chars: usize,
    /// Estimated tokens of `content`.
    pub tokens: usize,
    /// Whether a budget cut `content` (or left it out).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The file's links (`official_doc_urls`), when it has any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
    /// `--links`: the sections this one links to, in order of appearance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outgoing: Option<Vec<LinkedSection>>,
    /// `--links`: the sections that link to this one, in index order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backlinks: Option<Vec<LinkedSection>>,
}

/// A section at the other end of a link (`read --links`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LinkedSection {
    /// `path#section`.
    pub reference: String,
    /// The row's title in the index (absent when the index has no row for it).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub title: String,
}

/// `kbidx read FILE`: the file's sections.
#[derive(Debug, Serialize)]
pub(crate) struct FileListing {
    /// The knowledge file, as given.
    pub file: String,
    /// The file's title, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The file's links (`official_doc_urls`), when it has any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
    /// Its sections, in index order.
    pub sections: Vec<ListedSection>,
}

/// One section of a [`FileListing`].
#[derive(Debug, Serialize)]
pub(crate) struct ListedSection {
    /// `path#section`, as in the index.
    pub reference: String,
    /// The section id.
    pub section: String,
    /// The row's title, as in the index.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Characters of the section text (0 when the file has no text for it).
    pub chars: usize,
    /// Estimated tokens of the section text.
    pub tokens: usize,
}

impl SectionDoc {
    /// Reads section `reference` from `library` (its anchor as links write
    /// it: a section id, a heading's text or slug); the document names the
    /// section as the index does.
    pub(crate) fn read(library: &mut Library, reference: &str) -> Result<Self> {
        let requested = reference;
        let resolved = library.resolve(reference)?;
        let reference = resolved.as_str();
        let content = library.section(reference)?;
        let (file, section) = split_reference(reference);
        let (doc, _) = library.document(reference, file)?;
        Ok(Self {
            requested: (requested != reference).then(|| requested.to_owned()),
            reference: reference.to_owned(),
            file: file.to_owned(),
            section: section.to_owned(),
            title: Sections::new(doc).title(section).map(str::to_owned),
            file_title: file_title(doc),
            chars: content.chars().count(),
            tokens: estimate(&content),
            content,
            truncated: false,
            links: links(doc),
            outgoing: None,
            backlinks: None,
        })
    }

    /// Adds the section's outgoing links and backlinks from `links` (the
    /// links file), titled from `index`.
    pub(crate) fn with_links(
        mut self,
        links: &[crate::links::Link],
        index: &crate::index::model::Index,
    ) -> Self {
        let titles: std::collections::HashMap<&str, &str> = index
            .entries
            .iter()
            .map(|e| (e.reference.as_str(), e.title.as_str()))
            .collect();
        let linked = |reference: &str| LinkedSection {
            reference: reference.to_owned(),
            title: titles
                .get(reference)
                .copied()
                .unwrap_or_default()
                .to_owned(),
        };
        self.outgoing = Some(
            links
                .iter()
                .filter(|l| l.from == self.reference)
                .map(|l| linked(&l.to))
                .collect(),
        );
        self.backlinks = Some(
            links
                .iter()
                .filter(|l| l.to == self.reference)
                .map(|l| linked(&l.from))
                .collect(),
        );
        self
    }

    /// Text output: the content, then (with `--links`) the links.
    pub(crate) fn to_text(&self) -> String {
        let mut s = format!("{}\n", self.content);
        for (heading, list) in [
            ("links to", &self.outgoing),
            ("linked from", &self.backlinks),
        ] {
            let Some(list) = list else { continue };
            s.push_str(&format!("\n{heading} ({}):\n", list.len()));
            for l in list {
                s.push_str(&format!("  {}", quote_reference(&l.reference)));
                if !l.title.is_empty() {
                    s.push_str(&format!("  {}", l.title));
                }
                s.push('\n');
            }
        }
        s
    }
}

/// What `kbidx read` prints for its sections: one section as before (its
/// text, or its JSON document), several in turn (`== reference  title`
/// lines, or `{"version", "sections"}`; in text a section read by a heading
/// gets its line too), within a budget over the whole
/// document when one is set (the sections' text cut in order).
pub(crate) struct Reading {
    /// The printed document.
    pub(crate) document: String,
}

/// The several-section JSON document.
#[derive(Serialize)]
struct SeveralSections<'a> {
    version: u32,
    sections: &'a [SectionDoc],
}

impl Reading {
    /// The document of `docs` within `budget` (`max_chars`, `max_tokens`
    /// of the whole document), as JSON or text.
    pub(crate) fn fit(docs: Vec<SectionDoc>, budget: super::budget::Budget, json: bool) -> Self {
        Self::fit_headed(docs, budget, json, false)
    }

    /// [`Reading::fit`], with `headed`: in text, even one section read by
    /// its own id comes under its `== reference` line (after a file's
    /// listing, the line says where the listing ends and what the text is).
    pub(crate) fn fit_headed(
        mut docs: Vec<SectionDoc>,
        budget: super::budget::Budget,
        json: bool,
        headed: bool,
    ) -> Self {
        let render = |docs: &[SectionDoc]| render(docs, json, headed);
        let limit = (
            budget.max_chars.unwrap_or(usize::MAX),
            budget.max_tokens.unwrap_or(usize::MAX),
        );
        let size = |doc: &str| (doc.chars().count(), estimate(doc));
        let full = render(&docs);
        let (chars, tokens) = size(&full);
        if chars <= limit.0 && tokens <= limit.1 {
            return Self { document: full };
        }
        let texts: Vec<String> = docs
            .iter_mut()
            .map(|d| std::mem::take(&mut d.content))
            .collect();
        let (env_chars, env_tokens) = size(&render(&docs));
        let mut room = (
            limit.0.saturating_sub(env_chars),
            limit.1.saturating_sub(env_tokens),
        );
        for _ in 0..12 {
            let mut spender = super::budget::Spender::new(super::budget::Budget {
                max_chars: Some(room.0),
                max_tokens: Some(room.1),
                ..Default::default()
            });
            for (doc, text) in docs.iter_mut().zip(&texts) {
                let share = spender.take(text);
                doc.content = share.text.unwrap_or_default().to_owned();
                doc.truncated = share.truncated;
            }
            let document = render(&docs);
            let (chars, tokens) = size(&document);
            if chars <= limit.0 && tokens <= limit.1 {
                return Self { document };
            }
            let over = |size: usize, max: usize, room: usize| match size.checked_sub(max) {
                Some(excess) if excess > 0 => room.saturating_sub(excess + excess / 8 + 1),
                _ => room,
            };
            room = (over(chars, limit.0, room.0), over(tokens, limit.1, room.1));
        }
        // Not even the headers fit with any text: the headers alone.
        for doc in &mut docs {
            doc.content.clear();
            doc.truncated = true;
        }
        Self {
            document: render(&docs),
        }
    }
}

/// `docs` as one document: text or JSON.
fn render(docs: &[SectionDoc], json: bool, headed: bool) -> String {
    let mut s = match (docs, json) {
        ([doc], true) => serde_json::to_string_pretty(doc).unwrap_or_default(),
        (_, true) => serde_json::to_string_pretty(&SeveralSections {
            version: super::DOCUMENT_VERSION,
            sections: docs,
        })
        .unwrap_or_default(),
        // One section read by its own id: its text alone. Read by a heading
        // (or several sections), each under its `== reference` line, so
        // that the id to cite is printed.
        ([doc], false) if doc.requested.is_none() && !headed => {
            return with_cut(doc.to_text(), doc);
        }
        (_, false) => {
            let mut s = String::new();
            for (i, doc) in docs.iter().enumerate() {
                if i > 0 {
                    s.push('\n');
                }
                s.push_str(&format!("== {}", quote_reference(&doc.reference)));
                if let Some(requested) = &doc.requested {
                    s.push_str(&format!(" (from {})", quote_reference(requested)));
                }
                if let Some(title) = &doc.title {
                    s.push_str(&format!("  {title}"));
                }
                s.push('\n');
                s.push_str(&with_cut(doc.to_text(), doc));
            }
            return s;
        }
    };
    s.push('\n');
    s
}

/// A section's text output, with `…` on a line of its own where a budget cut it.
fn with_cut(mut text: String, doc: &SectionDoc) -> String {
    if doc.truncated {
        text.push_str(super::GAP);
        text.push('\n');
    }
    text
}

impl FileListing {
    /// Lists the sections `extractor` makes of `file` (a path relative to
    /// `library`'s directory).
    pub(crate) fn read(library: &mut Library, extractor: &Extractor, file: &str) -> Result<Self> {
        let (doc, path) = library.document(file, file)?;
        let (title, links) = (file_title(doc), links(doc));
        let records = extractor.run(file, &path, crate::knowledge::read(&path)?.to_jaq())?;
        let mut sections = Vec::new();
        for record in records {
            let Record::Entry(entry) = record else {
                continue;
            };
            let text = library.section(&entry.reference).unwrap_or_default();
            sections.push(ListedSection {
                section: entry.section().to_owned(),
                chars: text.chars().count(),
                tokens: estimate(&text),
                reference: entry.reference,
                title: entry.title,
            });
        }
        Ok(Self {
            file: file.to_owned(),
            title,
            links,
            sections,
        })
    }

    /// One line for the file, then one per section.
    pub(crate) fn to_text(&self) -> String {
        let mut s = quote_reference(&self.file).into_owned();
        if let Some(title) = &self.title {
            s.push_str(&format!("  {title}"));
        }
        let n = self.sections.len();
        s.push_str(&format!(
            "  ({n} section{})\n",
            if n == 1 { "" } else { "s" }
        ));
        for section in &self.sections {
            s.push_str(&format!(
                "  {}  {} chars  ~{} tokens",
                quote_reference(&section.reference),
                section.chars,
                section.tokens
            ));
            if !section.title.is_empty() {
                s.push_str(&format!("  {}", section.title));
            }
            s.push('\n');
        }
        s
    }
}

/// `reference` for text output: as it is, or as a JSON string when it holds
/// white space, a comma or a double quote (so a line still splits into its
/// fields, and the reference can be pasted back).
pub(crate) fn quote_reference(reference: &str) -> Cow<'_, str> {
    if reference.contains(|c: char| c.is_whitespace() || c == ',' || c == '"') {
        Cow::Owned(serde_json::to_string(reference).unwrap_or_else(|_| reference.to_owned()))
    } else {
        Cow::Borrowed(reference)
    }
}

fn file_title(doc: &Value) -> Option<String> {
    doc.get("title")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

fn links(doc: &Value) -> Vec<String> {
    doc.get("official_doc_urls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_with_spaces_or_commas_are_quoted() {
        let cases = [
            ("a/b.json#c", "a/b.json#c"),
            ("a b.json#c", "\"a b.json#c\""),
            ("a.json#x,y", "\"a.json#x,y\""),
            ("a.json#\"q\"", "\"a.json#\\\"q\\\"\""),
            ("a.json#tab\there", "\"a.json#tab\\there\""),
            ("日本語.json#節", "日本語.json#節"),
        ];
        for (reference, want) in cases {
            assert_eq!(quote_reference(reference), want, "{reference:?}");
        }
    }
}
