//! The lint rules: their ids, and the checks on one file's shape.

use std::collections::HashMap;

use serde_json::Value;

/// A lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rule {
    /// A link to a file or anchor that does not exist.
    BrokenLink,
    /// A link whose text names another section of the target file clearly
    /// better than the section it leads to.
    LinkTargetMismatch,
    /// An `index` entry whose id names no section.
    IndexWithoutSection,
    /// A section that no `index` entry names (search never finds it).
    SectionWithoutIndexEntry,
    /// A file whose string content no index row holds (an extraction
    /// program that drops text).
    ContentNotIndexed,
    /// A section with no hints, in a corpus that has hints.
    NoHints,
    /// A hint that matches more than a share of all rows.
    NonDiscriminativeHint,
    /// A hint carried by many files in several directories.
    RepeatedHint,
    /// A section with no text (and no subsections under it).
    EmptySection,
    /// A short section that holds little but a link elsewhere.
    PointerSection,
    /// A section whose text is over the token limit.
    OversizedSection,
    /// Two sections of one file with the same title.
    DuplicateSectionTitle,
    /// A section whose title shares no word with its text.
    TitleNotInText,
}

impl Rule {
    /// Every rule, in report order: links, what the index holds, hints,
    /// then each section's shape and text.
    pub(crate) const ALL: [Rule; 13] = [
        Rule::BrokenLink,
        Rule::LinkTargetMismatch,
        Rule::IndexWithoutSection,
        Rule::SectionWithoutIndexEntry,
        Rule::ContentNotIndexed,
        Rule::NoHints,
        Rule::NonDiscriminativeHint,
        Rule::RepeatedHint,
        Rule::EmptySection,
        Rule::PointerSection,
        Rule::OversizedSection,
        Rule::DuplicateSectionTitle,
        Rule::TitleNotInText,
    ];

    /// The id that `--rule`, `--skip` and the report use.
    pub(crate) fn id(self) -> &'static str {
        match self {
            Rule::BrokenLink => "broken-link",
            Rule::LinkTargetMismatch => "link-target-mismatch",
            Rule::IndexWithoutSection => "index-without-section",
            Rule::SectionWithoutIndexEntry => "section-without-index-entry",
            Rule::ContentNotIndexed => "content-not-indexed",
            Rule::NoHints => "no-hints",
            Rule::NonDiscriminativeHint => "non-discriminative-hint",
            Rule::RepeatedHint => "repeated-hint",
            Rule::EmptySection => "empty-section",
            Rule::PointerSection => "pointer-section",
            Rule::OversizedSection => "oversized-section",
            Rule::DuplicateSectionTitle => "duplicate-section-title",
            Rule::TitleNotInText => "title-not-in-text",
        }
    }

    /// The rule with id `id`, or a usage error listing the ids.
    pub(crate) fn parse(id: &str) -> crate::error::Result<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id).ok_or_else(|| {
            let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
            crate::error::Error::Usage(format!(
                "unknown lint rule {id:?} (rules: {})",
                ids.join(", ")
            ))
        })
    }
}

/// The report position of the rule with id `id`.
pub(crate) fn position(id: &str) -> usize {
    Rule::ALL
        .iter()
        .position(|r| r.id() == id)
        .unwrap_or(usize::MAX)
}

/// One finding of [`shape`]: rule, section (`None`: the file), evidence.
pub(crate) type ShapeFinding = (Rule, Option<String>, String);

/// The checks on one document's shape: index entries against sections (when
/// the file has both an `index` array and a `sections` object), empty
/// sections and duplicate titles.
pub(crate) fn shape(doc: &Value) -> Vec<ShapeFinding> {
    let mut out = Vec::new();
    let index: Vec<&Value> = doc
        .get("index")
        .and_then(Value::as_array)
        .map(|list| list.iter().collect())
        .unwrap_or_default();
    let entry_ids: Vec<&str> = index
        .iter()
        .filter_map(|e| e.get("id").and_then(Value::as_str))
        .collect();
    match doc.get("sections") {
        Some(Value::Object(map)) => {
            if doc.get("index").is_some() {
                for id in &entry_ids {
                    if !map.contains_key(*id) {
                        out.push((
                            Rule::IndexWithoutSection,
                            Some((*id).to_owned()),
                            format!(
                                "index entry {id:?} names no section (sections: {})",
                                preview(map.keys().map(String::as_str))
                            ),
                        ));
                    }
                }
                for id in map.keys() {
                    if !entry_ids.contains(&id.as_str()) {
                        out.push((
                            Rule::SectionWithoutIndexEntry,
                            Some(id.clone()),
                            format!(
                                "section {id:?} has no index entry: it is indexed under the file title without hints ({} chars of text)",
                                crate::knowledge::content::render(&map[id]).chars().count()
                            ),
                        ));
                    }
                }
            }
            for (id, value) in map {
                if crate::knowledge::content::render(value).trim().is_empty() {
                    out.push((
                        Rule::EmptySection,
                        Some(id.clone()),
                        format!("section {id:?} has no text ({})", describe(value)),
                    ));
                }
            }
            let titles = index
                .iter()
                .filter_map(|e| Some((e.get("id")?.as_str()?, e.get("title")?.as_str()?, None)));
            duplicates(titles, &mut out);
        }
        Some(Value::Array(list)) => {
            let level = |s: &Value| s.get("level").and_then(Value::as_u64).unwrap_or(0);
            for (i, s) in list.iter().enumerate() {
                let Some(id) = s.get("id").and_then(Value::as_str) else {
                    continue;
                };
                let text = s.get("content").map(crate::knowledge::content::render);
                if !text.unwrap_or_default().trim().is_empty() {
                    continue;
                }
                // A heading whose text is its subsections (the next section is
                // deeper) is a container, not an empty section.
                let container = list.get(i + 1).is_some_and(|next| level(next) > level(s));
                if !container {
                    out.push((
                        Rule::EmptySection,
                        Some(id.to_owned()),
                        format!(
                            "section {id:?} ({:?}) has no text and no subsections",
                            s.get("title").and_then(Value::as_str).unwrap_or_default()
                        ),
                    ));
                }
            }
            // Each section's parent heading: the nearest earlier section of a
            // lower level (the evidence says whether duplicates are siblings).
            let mut stack: Vec<(u64, &str)> = Vec::new();
            let mut titles = Vec::new();
            for s in list {
                let (Some(id), Some(title)) = (
                    s.get("id").and_then(Value::as_str),
                    s.get("title").and_then(Value::as_str),
                ) else {
                    continue;
                };
                while stack.last().is_some_and(|(l, _)| *l >= level(s)) {
                    stack.pop();
                }
                titles.push((id, title, stack.last().map(|(_, t)| *t)));
                stack.push((level(s), title));
            }
            duplicates(titles.into_iter(), &mut out);
        }
        _ => {}
    }
    out
}

/// A `duplicate-section-title` finding for each section whose (trimmed,
/// non-empty) title an earlier section of the file already has.
fn duplicates<'a>(
    titles: impl Iterator<Item = (&'a str, &'a str, Option<&'a str>)>,
    out: &mut Vec<ShapeFinding>,
) {
    let mut first: HashMap<&str, (&str, Option<&str>)> = HashMap::new();
    for (id, title, parent) in titles {
        let title = title.trim();
        if title.is_empty() {
            continue;
        }
        if let Some((earlier, earlier_parent)) = first.get(title) {
            let under = match (earlier_parent, parent) {
                (Some(a), Some(b)) if *a == b => format!(" (both under {a:?})"),
                (Some(a), Some(b)) => format!(" (under {a:?} and {b:?})"),
                _ => String::new(),
            };
            out.push((
                Rule::DuplicateSectionTitle,
                Some(id.to_owned()),
                format!("title {title:?} is also the title of section {earlier:?}{under}"),
            ));
        } else {
            first.insert(title, (id, parent));
        }
    }
}

/// What an empty section's value is, in words.
fn describe(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "an empty string",
        Value::Null => "null",
        Value::Object(_) => "an object without text",
        Value::Array(_) => "an array without text",
        _ => "no text",
    }
}

/// Up to five names, then how many more.
pub(crate) fn preview<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    let mut s = names.iter().take(5).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 5 {
        s.push_str(&format!(", … {} more", names.len() - 5));
    }
    if s.is_empty() {
        s.push_str("none");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let cases: &[(Value, &[(&str, &str)])] = &[
            (
                serde_json::json!({"index": [{"id": "a", "title": "T"}, {"id": "b", "title": "T"}],
                    "sections": {"a": "text", "c": ""}}),
                &[
                    ("index-without-section", "b"),
                    ("section-without-index-entry", "c"),
                    ("empty-section", "c"),
                    ("duplicate-section-title", "b"),
                ],
            ),
            (
                serde_json::json!({"sections": [
                    {"id": "s1", "title": "Parent", "level": 2, "content": ""},
                    {"id": "s2", "title": "Child", "level": 3, "content": "x"},
                    {"id": "s3", "title": "Leaf", "level": 3, "content": "  "},
                    {"id": "s4", "title": "Child", "level": 2, "content": "y"}]}),
                &[("empty-section", "s3"), ("duplicate-section-title", "s4")],
            ),
            (
                serde_json::json!({"index": [{"id": "a"}], "sections": {"a": {"description": "d"}}}),
                &[],
            ),
        ];
        for (doc, want) in cases {
            let got: Vec<(&str, String)> = shape(doc)
                .into_iter()
                .map(|(rule, section, _)| (rule.id(), section.unwrap_or_default()))
                .collect();
            let want: Vec<(&str, String)> =
                want.iter().map(|(r, s)| (*r, (*s).to_owned())).collect();
            assert_eq!(got, want, "{doc}");
        }
    }

    #[test]
    fn rule_ids_round_trip() {
        for rule in Rule::ALL {
            assert_eq!(Rule::parse(rule.id()).ok(), Some(rule));
        }
        assert!(Rule::parse("nope").is_err());
    }
}
