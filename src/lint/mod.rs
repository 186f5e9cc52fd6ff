//! `kbidx lint`: what a knowledge base's maintainers should fix.
//!
//! The checks read the knowledge files the way `build` does (the same
//! discovery, the same extraction program, the same section text) and judge
//! five things: links (`broken-link`, `link-target-mismatch`), what the index
//! holds of each file (`index-without-section`, `section-without-index-entry`,
//! `content-not-indexed`), the hints (`no-hints`, `non-discriminative-hint`,
//! `repeated-hint`), the shape of each file (`empty-section`,
//! `duplicate-section-title`) and what each section hands the judge
//! (`pointer-section`, `oversized-section`, `title-not-in-text`). `rules`
//! says what each rule means and why it is a problem; every finding names
//! the file (and the section), the rule and the evidence, so a maintainer
//! can act on it without running anything else.

pub(crate) mod hints;
pub(crate) mod rules;
pub(crate) mod targets;
pub(crate) mod text;
pub(crate) mod words;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::build::extract::Record;
use crate::error::Result;
use crate::index::model::split_reference;
use crate::knowledge::content::{PAGE_ID, Sections};
use crate::links::markdown::knowledge_links;
use crate::links::resolve::{Anchors, Target, resolve};

pub(crate) use rules::Rule;

/// Thresholds of the rules (`[lint]` in `kbidx.toml`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// `non-discriminative-hint`: a hint matching more than this share of
    /// the rows (0–1; default 0.05).
    pub hint_share: f64,
    /// …and at least this many rows (default 5): in a small knowledge base
    /// every hint is a large share, but one that finds a handful of
    /// sections still narrows a search down to what an agent can read.
    pub hint_min_rows: usize,
    /// `repeated-hint`: a hint carried by at least this many files…
    pub repeated_hint_files: usize,
    /// …in at least this many directories (files in one directory are
    /// about related things; a hint shared across directories is generic).
    pub repeated_hint_dirs: usize,
    /// `oversized-section`: a section whose text is estimated at more than
    /// this many tokens (default 4000: twice the `--max-tokens 2000` budget
    /// that eval measures and most of its 5000 one, so one such section
    /// crowds out every other result of a search).
    pub section_tokens: usize,
    /// `pointer-section`: a section whose own text has at most this many
    /// characters (default 200: a sentence and a link) and holds a
    /// knowledge link.
    pub pointer_chars: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            hint_share: 0.05,
            hint_min_rows: 5,
            repeated_hint_files: 20,
            repeated_hint_dirs: 3,
            section_tokens: 4000,
            pointer_chars: 200,
        }
    }
}

/// Everything `kbidx lint` needs, resolved from flags and `kbidx.toml`.
#[derive(Debug, Clone)]
pub(crate) struct LintOptions {
    /// The knowledge directory.
    pub(crate) knowledge: PathBuf,
    /// A replacement extraction program.
    pub(crate) filter: Option<PathBuf>,
    /// Include globs.
    pub(crate) include: Vec<String>,
    /// Exclude globs.
    pub(crate) exclude: Vec<String>,
    /// The rules to run, in [`Rule::ALL`] order.
    pub(crate) rules: Vec<Rule>,
    /// Thresholds of the rules.
    pub(crate) thresholds: Thresholds,
}

/// One problem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Finding {
    /// The rule id.
    pub(crate) rule: &'static str,
    /// The knowledge file (relative to the knowledge directory).
    pub(crate) file: String,
    /// The section, when the finding is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) section: Option<String>,
    /// What was found, in words.
    pub(crate) evidence: String,
    /// Position of the section in its file (0: the file itself), for the order.
    #[serde(skip)]
    pub(crate) ordinal: usize,
}

/// How the corpus's links fared.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub(crate) struct LinkCounts {
    /// Knowledge links found (to a `.json` file or a `#anchor`).
    pub(crate) total: usize,
    /// Those that resolve to a section.
    pub(crate) resolved: usize,
    /// Those that lead to a knowledge file without sections (sound, but
    /// there is no section to follow them to).
    pub(crate) to_file: usize,
    /// Links with an anchor (`….json#anchor` or `#anchor`).
    pub(crate) anchored: usize,
    /// Of those, the ones that resolve to a section.
    pub(crate) anchored_resolved: usize,
    /// Those that do not (each one a `broken-link` finding when that rule runs).
    pub(crate) broken: usize,
}

/// The lint document (`--format json`), also what text output prints.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    /// The knowledge directory.
    pub(crate) knowledge: String,
    /// Knowledge files read.
    pub(crate) files: usize,
    /// Sections (index rows) the extraction program made of them.
    pub(crate) rows: usize,
    /// The rules that ran.
    pub(crate) rules: Vec<&'static str>,
    /// Findings per rule that ran (0 included).
    pub(crate) counts: BTreeMap<&'static str, usize>,
    /// Link resolution over the whole corpus.
    pub(crate) links: LinkCounts,
    /// The findings: by file, then section order, then rule.
    pub(crate) findings: Vec<Finding>,
}

/// One row as the extraction program gave it, with its hints item by item.
#[derive(Debug)]
pub(crate) struct Row {
    /// The knowledge file.
    pub(crate) file: String,
    /// The section id.
    pub(crate) section: String,
    /// Position of the section in its file (1-based).
    pub(crate) ordinal: usize,
    /// The row's title, as in the index.
    pub(crate) title: String,
    /// Its hints, item by item.
    pub(crate) hints: Vec<String>,
}

/// Runs the selected rules over the knowledge directory.
///
/// Long on purpose: one pass over the knowledge files that every rule
/// reads (extracted rows, section text, links, words), in the order the
/// report lists findings.
pub(crate) fn lint(options: &LintOptions) -> Result<Report> {
    let extractor = crate::build::extractor(options.filter.as_deref())?;
    let found =
        crate::knowledge::discover_some(&options.knowledge, &options.include, &options.exclude)?;
    let mut docs = Vec::with_capacity(found.files.len());
    for file in &found.files {
        docs.push(crate::knowledge::read(&file.path)?);
    }
    let anchors: HashMap<String, Anchors> = found
        .files
        .iter()
        .zip(&docs)
        .map(|(file, doc)| (file.relative.clone(), Anchors::of(doc.value())))
        .collect();
    let by_path: HashMap<&str, &Value> = found
        .files
        .iter()
        .zip(&docs)
        .map(|(file, doc)| (file.relative.as_str(), doc.value()))
        .collect();
    let on = |rule: Rule| options.rules.contains(&rule);
    let mut findings = Vec::new();
    let mut rows = Vec::new();
    let mut links = LinkCounts::default();
    let mut words = words::Words::default();
    for (file, doc) in found.files.iter().zip(&docs) {
        let value = doc.value();
        let sections = Sections::new(value);
        let order = section_order(value);
        let ordinal = |id: &str| order.get(id).map_or(0, |i| i + 1);
        let finding = |rule: Rule, section: Option<String>, evidence: String| Finding {
            rule: rule.id(),
            file: file.relative.clone(),
            ordinal: section.as_deref().map_or(0, ordinal),
            section,
            evidence,
        };
        // What the rows hold, as `build` counts it for `left_out`: each
        // row's title, hints and section text.
        let mut held = String::new();
        for (record, hints) in extractor.run_with_hints(&file.relative, &file.path, doc.to_jaq())? {
            if let Record::Entry(entry) = record {
                let section = crate::build::row_section(&entry, &file.relative).to_owned();
                if on(Rule::ContentNotIndexed) {
                    let text = sections.text(&section).unwrap_or_default();
                    for part in [&entry.title, &entry.hints, &text] {
                        held.push_str(part);
                        held.push('\n');
                    }
                }
                rows.push(Row {
                    file: file.relative.clone(),
                    ordinal: ordinal(&section),
                    section,
                    title: entry.title,
                    hints,
                });
            }
        }
        if on(Rule::ContentNotIndexed) {
            let (missing, fields) = crate::knowledge::content::left_out(value, &held);
            if missing.total() > 0 {
                // Fields that are not indexed, named with what no row holds of them.
                let fields: Vec<String> = fields
                    .iter()
                    .filter(|f| f.in_no_row > 0)
                    .map(|f| format!("{} {}", f.name, f.in_no_row))
                    .collect();
                let fields = if fields.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", {} in fields that are not indexed ({})",
                        missing.fields,
                        fields.join(", ")
                    )
                };
                findings.push(finding(
                    Rule::ContentNotIndexed,
                    None,
                    format!(
                        "{} chars of string content (white space not counted) are in no index row: {} of page text, {} in sections, {} in index entries{fields}",
                        missing.total(),
                        missing.page,
                        missing.sections,
                        missing.index
                    ),
                ));
            }
        }
        for (rule, section, evidence) in rules::shape(value) {
            if on(rule) {
                findings.push(finding(rule, section, evidence));
            }
        }
        if on(Rule::OversizedSection) || on(Rule::PointerSection) {
            for (rule, section, evidence) in text::sizes(value, options.thresholds, &on) {
                findings.push(finding(rule, Some(section), evidence));
            }
        }
        if on(Rule::TitleNotInText) {
            words.of(&file.relative, value)?;
        }
        // Links: in every section's text, and in the text before the first
        // section (the page's preamble), which belongs to the file.
        let mut texts: Vec<(Option<&str>, String)> = Vec::new();
        if let Some(preamble) = value.get("content").and_then(Value::as_str) {
            texts.push((None, preamble.to_owned()));
        }
        for id in own_ids(value) {
            texts.push((Some(id), sections.text(id).unwrap_or_default()));
        }
        // A section that repeats a link repeats its mismatch: reported once.
        let mut mismatched = std::collections::HashSet::new();
        for (section, text) in texts {
            for link in knowledge_links(&text) {
                links.total += 1;
                let anchored = link.target.contains('#');
                links.anchored += usize::from(anchored);
                match resolve(&file.relative, &link.target, &anchors) {
                    Ok(Target::Section(to)) => {
                        links.resolved += 1;
                        links.anchored_resolved += usize::from(anchored);
                        // A link to the top of a file (no anchor, or the
                        // page text) names the page, not one of its sections.
                        let (to_file, to_section) = split_reference(&to);
                        if on(Rule::LinkTargetMismatch)
                            && anchored
                            && to_section != PAGE_ID
                            && let Some(target) = by_path.get(to_file)
                            && !mismatched.contains(&(
                                section,
                                link.text.clone(),
                                link.target.clone(),
                            ))
                            && let Some(evidence) = targets::check(
                                &link.text,
                                to_section,
                                words.of(to_file, target)?,
                                section.filter(|_| to_file == file.relative),
                            )?
                        {
                            mismatched.insert((section, link.text.clone(), link.target.clone()));
                            findings.push(finding(
                                Rule::LinkTargetMismatch,
                                section.map(str::to_owned),
                                format!("[{}]({}): {evidence}", link.text, link.target),
                            ));
                        }
                    }
                    Ok(Target::File(_)) => links.to_file += 1,
                    Err(reason) => {
                        links.broken += 1;
                        if on(Rule::BrokenLink) {
                            findings.push(finding(
                                Rule::BrokenLink,
                                section.map(str::to_owned),
                                format!("[{}]({}): {reason}", link.text, link.target),
                            ));
                        }
                    }
                }
            }
        }
    }
    if on(Rule::TitleNotInText) {
        let files: Vec<(&str, &words::FileWords)> = found
            .files
            .iter()
            .filter_map(|f| Some((f.relative.as_str(), words.get(&f.relative)?)))
            .collect();
        let generic = text::generic_words(files.iter().map(|(_, w)| w.sections.as_slice()));
        for (file, file_words) in &files {
            let order = section_order(by_path[file]);
            for (rule, section, evidence) in text::titles(&file_words.sections, &generic) {
                findings.push(Finding {
                    rule: rule.id(),
                    file: (*file).to_owned(),
                    ordinal: order.get(section.as_str()).map_or(0, |i| i + 1),
                    section: Some(section),
                    evidence,
                });
            }
        }
    }
    if on(Rule::NoHints) || on(Rule::NonDiscriminativeHint) || on(Rule::RepeatedHint) {
        findings.extend(hints::check(&rows, options.thresholds, &on));
    }
    findings.sort_by(|a, b| {
        (&a.file, a.ordinal, rules::position(a.rule), &a.evidence).cmp(&(
            &b.file,
            b.ordinal,
            rules::position(b.rule),
            &b.evidence,
        ))
    });
    let mut counts: BTreeMap<&'static str, usize> =
        options.rules.iter().map(|r| (r.id(), 0)).collect();
    for f in &findings {
        *counts.entry(f.rule).or_default() += 1;
    }
    Ok(Report {
        knowledge: crate::error::display(&options.knowledge),
        files: found.files.len(),
        rows: rows.len(),
        rules: options.rules.iter().map(|r| r.id()).collect(),
        counts,
        links,
        findings,
    })
}

/// The section ids of `doc` in file order, after [`PAGE_ID`] when the file
/// has page text (as `read` lists them).
pub(crate) fn section_ids(doc: &Value) -> Vec<&str> {
    let mut ids = own_ids(doc);
    if !ids.contains(&PAGE_ID) && crate::knowledge::content::page_text(doc).is_some() {
        ids.insert(0, PAGE_ID);
    }
    ids
}

/// The ids of `doc`'s own sections in file order, each once.
fn own_ids(doc: &Value) -> Vec<&str> {
    let mut ids: Vec<&str> = match doc.get("sections") {
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|s| s.get("id").and_then(Value::as_str))
            .collect(),
        Some(Value::Object(map)) => map.keys().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(*id));
    ids
}

/// Each section id of `doc` with its position in the file.
fn section_order(doc: &Value) -> HashMap<&str, usize> {
    own_ids(doc)
        .into_iter()
        .enumerate()
        .map(|(i, id)| (id, i))
        .collect()
}

impl Report {
    /// Text output: one line per finding, then a summary line.
    pub(crate) fn to_text(&self) -> String {
        let mut s = String::new();
        for f in &self.findings {
            let place = match &f.section {
                Some(section) => format!("{}#{section}", f.file),
                None => f.file.clone(),
            };
            let place = crate::output::read::quote_reference(&place);
            s.push_str(&format!("{place}: {}: {}\n", f.rule, f.evidence));
        }
        let counts: Vec<String> = self
            .counts
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(rule, n)| format!("{rule} {n}"))
            .collect();
        let summary = if counts.is_empty() {
            "no findings".to_owned()
        } else {
            format!("{} findings ({})", self.findings.len(), counts.join(", "))
        };
        s.push_str(&format!(
            "{summary}: {} files, {} sections, {} rules; links: {} of {} resolve to a section ({} of {} with an anchor), {} to a file without sections, {} broken\n",
            self.files,
            self.rows,
            self.rules.len(),
            self.links.resolved,
            self.links.total,
            self.links.anchored_resolved,
            self.links.anchored,
            self.links.to_file,
            self.links.broken
        ));
        s
    }
}
