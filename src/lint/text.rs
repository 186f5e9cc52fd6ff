//! The rules on what one section hands the judge: too much
//! (`oversized-section`), nothing but a pointer elsewhere
//! (`pointer-section`), or text its title does not describe
//! (`title-not-in-text`).
//!
//! A search result hands over the section's text, and an agent reads it
//! within a token budget: a section over the budget is cut (or crowds out
//! the other results), a section that only says "see X" costs a round trip
//! to read X, and a heading that is not about its text (sections merged
//! under one heading, a converter's placeholder heading) makes the section
//! rank for the wrong questions and be judged by the wrong heading.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::words::SectionWords;
use super::{Rule, Thresholds};
use crate::knowledge::content::{PAGE_ID, Sections};
use crate::links::markdown::knowledge_links;

/// `title-not-in-text` judges a section only when its text has at least
/// this many characters of prose (not white space, outside fenced code,
/// link targets left out). A short text leans on its heading by design (one
/// tag's table of attributes, a class described as "this interface", a code
/// sample under its caption), and the judge always reads the heading with
/// it; a long text that never uses its heading's words has outgrown it.
/// Tuned on the nabledge corpora (docs/lint.md).
pub(crate) const TITLE_MIN_PROSE_CHARS: usize = 200;

/// A title word in the section titles of at least this many files is
/// generic (see [`generic_words`]).
pub(crate) const GENERIC_TITLE_FILES: usize = 3;

/// One finding of [`sizes`] or [`titles`]: rule, section, evidence.
pub(crate) type TextFinding = (Rule, String, String);

/// The findings of `oversized-section` and `pointer-section` (those `on`
/// selects) for the sections of `doc`, page text first, then in file order.
pub(crate) fn sizes(
    doc: &Value,
    thresholds: Thresholds,
    on: &dyn Fn(Rule) -> bool,
) -> Vec<TextFinding> {
    let sections = Sections::new(doc);
    let mut out = Vec::new();
    for id in super::section_ids(doc) {
        if on(Rule::OversizedSection)
            && let Some(text) = sections.text(id)
        {
            let tokens = crate::output::tokens::estimate(&text);
            if tokens > thresholds.section_tokens {
                out.push((
                    Rule::OversizedSection,
                    id.to_owned(),
                    format!(
                        "~{tokens} tokens ({} chars), over the limit of {} tokens",
                        text.chars().count(),
                        thresholds.section_tokens
                    ),
                ));
            }
        }
        if on(Rule::PointerSection)
            && let Some(body) = sections.body(id)
        {
            let chars = body.trim().chars().count();
            if chars > thresholds.pointer_chars {
                continue;
            }
            let links = knowledge_links(&body);
            if links.is_empty() {
                continue;
            }
            let mut targets: Vec<&str> = Vec::new();
            for link in &links {
                if !targets.contains(&link.target.as_str()) {
                    targets.push(&link.target);
                }
            }
            out.push((
                Rule::PointerSection,
                id.to_owned(),
                format!(
                    "{chars} chars of text (limit {}), linking to {}",
                    thresholds.pointer_chars,
                    targets.join(", ")
                ),
            ));
        }
    }
    out
}

/// The title words that are generic in a knowledge base: those in the
/// section titles of at least [`GENERIC_TITLE_FILES`] files. A heading
/// several files share (`モジュール一覧`, `制約`, `概要`, `前提条件`) names the
/// kind of a section, not its subject, so its words need not be in the text.
pub(crate) fn generic_words<'a>(
    files: impl Iterator<Item = &'a [SectionWords]>,
) -> HashSet<String> {
    let mut files_of: HashMap<&str, usize> = HashMap::new();
    for sections in files {
        let words: HashSet<&str> = sections
            .iter()
            .flat_map(|s| s.title_words.iter().map(String::as_str))
            .collect();
        for w in words {
            *files_of.entry(w).or_default() += 1;
        }
    }
    files_of
        .into_iter()
        .filter(|(_, n)| *n >= GENERIC_TITLE_FILES)
        .map(|(w, _)| w.to_owned())
        .collect()
}

/// The `title-not-in-text` findings among `sections` (one file's, as
/// [`super::words::Words`] gives them): a section with a title of its own
/// and [`TITLE_MIN_PROSE_CHARS`] of prose, whose title has a word that is
/// not `generic` and is not a single Latin word, and shares no word with
/// the text (as [`SectionWords::text_has`] matches words).
pub(crate) fn titles(sections: &[SectionWords], generic: &HashSet<String>) -> Vec<TextFinding> {
    let mut out = Vec::new();
    for s in sections {
        let Some(title) = &s.title else {
            continue;
        };
        if s.id == PAGE_ID || s.prose_chars < TITLE_MIN_PROSE_CHARS {
            continue;
        }
        if s.title_words.iter().all(|w| generic.contains(w)) {
            continue;
        }
        // A heading that is one Latin word is a name (`TestDataConvertor`,
        // `FAQ`, `Robustness`), and the text describes what it names in its
        // own words ("このインタフェースは…").
        let mut words: Vec<&str> = s.title_words.iter().map(String::as_str).collect();
        if let [word] = words.as_slice()
            && word.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            continue;
        }
        if words.iter().any(|w| s.text_has(w)) {
            continue;
        }
        words.sort_unstable();
        out.push((
            Rule::TitleNotInText,
            s.id.clone(),
            format!(
                "title {title:?} shares no word with its {} chars of text (title words: {})",
                s.text_chars,
                words.join(", ")
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::words::Words;

    #[test]
    fn sizes_and_pointers() {
        let long = "データベースアクセスの説明。".repeat(40);
        let doc = serde_json::json!({"title": "T", "content": "[top](b.json#x)",
            "sections": [
                {"id": "s1", "title": "長い", "content": long},
                {"id": "s2", "title": "参照", "content": "[詳細](b.json#y) を参照。[詳細](b.json#y)"},
                {"id": "s3", "title": "外部", "content": "[site](https://example.com) を参照。"},
                {"id": "s4", "title": "本文", "content": format!("{} [x](b.json#z)", "あ".repeat(30))}]});
        let thresholds = Thresholds {
            section_tokens: 300,
            pointer_chars: 40,
            ..Thresholds::default()
        };
        let got: Vec<(&str, String, String)> = sizes(&doc, thresholds, &|_| true)
            .into_iter()
            .map(|(rule, section, evidence)| (rule.id(), section, evidence))
            .collect();
        let want = [
            (
                "pointer-section",
                PAGE_ID,
                "15 chars of text (limit 40), linking to b.json#x",
            ),
            (
                "oversized-section",
                "s1",
                "~402 tokens (567 chars), over the limit of 300 tokens",
            ),
            (
                "pointer-section",
                "s2",
                "33 chars of text (limit 40), linking to b.json#y",
            ),
        ];
        let want: Vec<(&str, String, String)> = want
            .iter()
            .map(|(r, s, e)| (*r, (*s).to_owned(), (*e).to_owned()))
            .collect();
        assert_eq!(got, want);
        let only: Vec<Rule> = sizes(&doc, thresholds, &|r| r == Rule::OversizedSection)
            .into_iter()
            .map(|(rule, _, _)| rule)
            .collect();
        assert_eq!(only, [Rule::OversizedSection]);
    }

    #[test]
    fn titles_that_are_not_in_the_text() -> crate::error::Result<()> {
        let prose = "本機能では、入力された値を検証してから業務処理へ渡す。".repeat(10);
        let doc = serde_json::json!({"title": "T", "sections": [
            // The title's words are nowhere in a long text: reported.
            {"id": "s1", "title": "emailタグ", "content": prose},
            // Shared word.
            {"id": "s2", "title": "入力値の検証", "content": prose},
            // Shares 業務 and 処理.
            {"id": "s3", "title": "業務処理方式", "content": prose},
            // Generic: in the titles of three files.
            {"id": "s4", "title": "概要", "content": prose},
            // A name.
            {"id": "s5", "title": "TestDataConvertor", "content": prose},
            // Too little prose (code does not count).
            {"id": "s6", "title": "送信処理", "content": format!("```\n{prose}\n```\n短い。")},
            // No title of its own.
            {"id": "s7", "content": prose}]});
        let other = serde_json::json!({"title": "O", "sections": [{"id": "a", "title": "概要", "content": "x"}]});
        let mut words = Words::default();
        words.of("a.json", &doc)?;
        words.of("b.json", &other)?;
        words.of("c.json", &other)?;
        let generic = generic_words(
            ["a.json", "b.json", "c.json"]
                .iter()
                .filter_map(|f| words.get(f))
                .map(|w| w.sections.as_slice()),
        );
        assert!(generic.contains("概要"), "{generic:?}");
        let file = words
            .get("a.json")
            .map(|w| w.sections.clone())
            .unwrap_or_default();
        let got: Vec<String> = titles(&file, &generic)
            .into_iter()
            .map(|(_, section, evidence)| format!("{section}: {evidence}"))
            .collect();
        assert_eq!(
            got,
            [format!(
                "s1: title \"emailタグ\" shares no word with its {} chars of text (title words: email, タグ)",
                prose.chars().count()
            )]
        );
        Ok(())
    }
}
