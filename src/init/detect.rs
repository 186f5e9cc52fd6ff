//! Where the knowledge is and what it holds, before `kbidx init` writes anything.
//!
//! [`knowledge_dir`] picks the knowledge directory (the flag, then
//! `kbidx.toml`'s, then `knowledge/`, then the one directory named
//! `knowledge` below the repository); [`summarize`] reads every knowledge
//! file once (with the same strict reader the build uses, so an invalid file
//! stops `init` with its `line:column`) and says what the user has: files,
//! sections, the schema the built-in extraction sees, the languages.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result, display};
use crate::knowledge::content::PAGE_TEXT;

/// Directories never searched for a knowledge directory: they hold tools'
/// files, not a team's documents.
const SKIPPED: [&str; 5] = [".git", "node_modules", "target", ".venv", "index"];

/// How deep below the repository a directory named `knowledge` is looked for
/// (`.claude/skills/<name>/knowledge` is four levels down).
const MAX_DEPTH: usize = 4;

/// The knowledge directory of the repository `dir`, relative to it with `/`
/// separators: `given` (from `--knowledge` or `kbidx.toml`) when set, else
/// `knowledge/`, else the only directory named `knowledge` holding a `*.json`
/// file within [`MAX_DEPTH`] levels. None or several: an error naming `dir`.
pub(crate) fn knowledge_dir(dir: &Path, given: Option<&Path>) -> Result<String> {
    if let Some(given) = given {
        let meta = std::fs::metadata(given)
            .map_err(|e| Error::io(given, "cannot open knowledge directory", e))?;
        if !meta.is_dir() {
            return Err(Error::data(given, "knowledge path is not a directory"));
        }
        return inside(dir, given);
    }
    if dir.join("knowledge").is_dir() {
        return Ok("knowledge".to_owned());
    }
    let mut found: Vec<String> = walkdir::WalkDir::new(dir)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !SKIPPED.contains(&e.file_name().to_string_lossy().as_ref())
        })
        .filter_map(std::result::Result::ok)
        .filter(|e| e.file_type().is_dir() && e.file_name() == "knowledge" && has_json(e.path()))
        .filter_map(|e| inside(dir, e.path()).ok())
        .collect();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Error::data(
            dir,
            format!(
                "no knowledge found: no knowledge/ directory, nor one named knowledge holding \
                 *.json files within {MAX_DEPTH} levels; give --knowledge DIR"
            ),
        )),
        _ => Err(Error::data(
            dir,
            format!(
                "several knowledge directories ({}); choose one with --knowledge DIR",
                found.join(", ")
            ),
        )),
    }
}

/// Whether `dir` holds a `*.json` file at any depth.
fn has_json(dir: &Path) -> bool {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(std::result::Result::ok)
        .any(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "json"))
}

/// `path` relative to the repository `dir`, `/`-separated; an error when it
/// lies outside (the hooks, the skill and the MCP entries name it relative to
/// the repository root).
pub(crate) fn inside(dir: &Path, path: &Path) -> Result<String> {
    let root = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, "cannot open", e))?;
    let real = std::fs::canonicalize(path).map_err(|e| Error::io(path, "cannot open", e))?;
    let relative = real.strip_prefix(&root).map_err(|_| {
        Error::data(
            path,
            format!(
                "not inside {}: kbidx init sets up one repository",
                display(dir)
            ),
        )
    })?;
    Ok(slashed(relative))
}

/// A relative path with `/` separators (`.` for the directory itself).
pub(crate) fn slashed(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// What the knowledge holds, as `kbidx init` reports it.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Summary {
    /// The knowledge directory, relative to the repository.
    #[serde(rename = "path")]
    pub(crate) knowledge: String,
    /// Knowledge files (`*.json` matching the include globs).
    pub(crate) files: usize,
    /// Index rows the build makes from them.
    pub(crate) sections: usize,
    /// Files whose `sections` is an object (id → text), with an `index` list.
    pub(crate) sections_object: usize,
    /// Files whose `sections` is a list of `{id, title, …}`.
    pub(crate) sections_list: usize,
    /// Files with neither: they give no rows (besides page text).
    pub(crate) no_sections: usize,
    /// Entries of the files' `index` lists.
    pub(crate) index_entries: usize,
    /// Of those, the ones with at least one hint.
    pub(crate) with_hints: usize,
    /// Files with page text (top-level text outside the sections, section `_page`).
    pub(crate) page_text: usize,
    /// The languages of the text, by their share of its letters (at least 5%).
    pub(crate) languages: Vec<Language>,
    /// The files' titles (top-level `title`), in file order, for the skill.
    #[serde(skip)]
    pub(crate) titles: Vec<String>,
}

/// One language of the knowledge and its share of the letters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Language {
    /// `ja` (kana and kanji) or `en` (Latin letters).
    pub(crate) code: &'static str,
    /// Share of the letters, 0–1, two decimals.
    pub(crate) share: f64,
}

/// Reads every file in `files` and counts what [`Summary`] reports (`sections`
/// and `knowledge` are the caller's: they come from the build).
pub(crate) fn summarize(files: &[crate::knowledge::KnowledgeFile]) -> Result<Summary> {
    let mut summary = Summary {
        files: files.len(),
        ..Summary::default()
    };
    let (mut ja, mut latin) = (0usize, 0usize);
    for file in files {
        let document = crate::knowledge::read(&file.path)?;
        let value = document.value();
        match value.get("sections") {
            Some(serde_json::Value::Object(_)) => summary.sections_object += 1,
            Some(serde_json::Value::Array(_)) => summary.sections_list += 1,
            _ => summary.no_sections += 1,
        }
        if let Some(entries) = value.get("index").and_then(serde_json::Value::as_array) {
            summary.index_entries += entries.len();
            summary.with_hints += entries
                .iter()
                .filter(|e| {
                    e.get("hints")
                        .and_then(serde_json::Value::as_array)
                        .is_some_and(|h| !h.is_empty())
                })
                .count();
        }
        if let Some(object) = value.as_object()
            && object
                .iter()
                .any(|(key, v)| PAGE_TEXT.contains(&key.as_str()) && !is_empty(v))
        {
            summary.page_text += 1;
        }
        if let Some(title) = value.get("title").and_then(serde_json::Value::as_str)
            && !title.trim().is_empty()
        {
            summary.titles.push(title.to_owned());
        }
        count_letters(value, &mut ja, &mut latin);
    }
    let total = (ja + latin).max(1) as f64;
    let mut languages: Vec<Language> = [("ja", ja), ("en", latin)]
        .into_iter()
        .map(|(code, n)| Language {
            code,
            share: (n as f64 / total * 100.0).round() / 100.0,
        })
        .filter(|l| l.share >= 0.05)
        .collect();
    // Larger share first; equal shares keep ja before en.
    languages.sort_by(|a, b| b.share.total_cmp(&a.share));
    summary.languages = languages;
    Ok(summary)
}

/// Whether a value counts as no page text (as `has_page` in `src/extract.jq`,
/// which reads the fields of [`PAGE_TEXT`]).
fn is_empty(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Null => true,
        serde_json::Value::String(s) => s.is_empty(),
        serde_json::Value::Array(a) => a.is_empty(),
        serde_json::Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Adds the Japanese (kana, kanji) and Latin letters of every string in `value`.
fn count_letters(value: &serde_json::Value, ja: &mut usize, latin: &mut usize) {
    match value {
        serde_json::Value::String(text) => {
            for c in text.chars() {
                if c.is_ascii_alphabetic() {
                    *latin += 1;
                } else if is_japanese(c) {
                    *ja += 1;
                }
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                count_letters(item, ja, latin);
            }
        }
        serde_json::Value::Object(fields) => {
            for item in fields.values() {
                count_letters(item, ja, latin);
            }
        }
        _ => {}
    }
}

/// Hiragana, katakana (and its half-width forms) and the CJK ideographs.
fn is_japanese(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{FF66}'..='\u{FF9F}')
}

impl Summary {
    /// The report's lines, e.g. `knowledge: knowledge (3 files, 12 sections)`.
    pub(crate) fn to_text(&self) -> String {
        let mut schema = Vec::new();
        for (n, what) in [
            (self.sections_object, "sections as an object"),
            (self.sections_list, "sections as a list"),
            (self.no_sections, "no sections"),
        ] {
            if n > 0 {
                schema.push(format!("{what} in {n} {}", plural(n, "file")));
            }
        }
        let hints = if self.with_hints == 0 {
            "no hints".to_owned()
        } else {
            format!(
                "hints on {} of {} index entries",
                self.with_hints, self.index_entries
            )
        };
        let page = match self.page_text {
            0 => "no page text".to_owned(),
            n => format!("page text in {n} {}", plural(n, "file")),
        };
        let languages = if self.languages.is_empty() {
            "none found".to_owned()
        } else {
            self.languages
                .iter()
                .map(|l| format!("{} {:.0}%", l.code, l.share * 100.0))
                .collect::<Vec<_>>()
                .join(", ")
                + " of letters"
        };
        format!(
            "knowledge: {} ({} {}, {} {})\n  schema: {}; {hints}; {page}\n  languages: {languages}\n",
            self.knowledge,
            self.files,
            plural(self.files, "file"),
            self.sections,
            plural(self.sections, "section"),
            schema.join(", "),
        )
    }
}

/// `word` or its plural for `n`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// The repository's name as a skill name: its directory's name, lowercased,
/// every run of other characters than ASCII letters and digits one `-`
/// (Claude Code's rule for skill names), `knowledge` when nothing is left.
pub(crate) fn skill_name(dir: &Path) -> String {
    let name = std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.trim_end_matches('-').chars().take(64).collect();
    if slug.is_empty() {
        "knowledge".to_owned()
    } else {
        slug
    }
}

/// `rel` (relative to the repository `dir`) as a path to open.
pub(crate) fn join(dir: &Path, rel: &str) -> PathBuf {
    if dir == Path::new(".") {
        PathBuf::from(rel)
    } else {
        dir.join(rel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_are_counted_by_script() {
        let (mut ja, mut latin) = (0, 0);
        let value = serde_json::json!({"a": "索引 index", "b": ["カナ", 3, {"c": "ok"}]});
        count_letters(&value, &mut ja, &mut latin);
        assert_eq!((ja, latin), (4, 7));
    }

    #[test]
    fn summary_text_names_schema_hints_and_languages() {
        let summary = Summary {
            knowledge: "knowledge".into(),
            files: 2,
            sections: 5,
            sections_object: 1,
            sections_list: 1,
            index_entries: 3,
            with_hints: 2,
            page_text: 1,
            languages: vec![Language {
                code: "ja",
                share: 0.71,
            }],
            ..Summary::default()
        };
        assert_eq!(
            summary.to_text(),
            "knowledge: knowledge (2 files, 5 sections)\n  schema: sections as an object in 1 \
             file, sections as a list in 1 file; hints on 2 of 3 index entries; page text in 1 \
             file\n  languages: ja 71% of letters\n"
        );
    }
}
