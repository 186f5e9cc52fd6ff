//! The words of each section, for the rules that compare words
//! (`title-not-in-text`, `link-target-mismatch`).
//!
//! Words are what search matches on: [`crate::text::terms`] of the
//! normalised text (nouns as written, verbs and adjectives in their base
//! form, no particles or symbols), so a rule agrees with what a keyword
//! search would find. Tokenising is the expensive part of lint, so each
//! file's sections are tokenised once, when a rule first asks for them, and
//! kept for the other rule and for later links into the same file.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::error::Result;
use crate::knowledge::content::{PAGE_ID, Sections};
use crate::text::normalize::normalize;
use crate::text::terms;

/// One section's title and text, as words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SectionWords {
    /// The section id ([`PAGE_ID`]: the page text).
    pub(crate) id: String,
    /// Its own title (`None` for the page text, whose title is the file's).
    pub(crate) title: Option<String>,
    /// The words of the title.
    pub(crate) title_words: HashSet<String>,
    /// The words of its text (without the title's heading line, and
    /// without link targets: a path or anchor is not what a reader reads).
    pub(crate) text_words: HashSet<String>,
    /// That text, normalised and without long vowel marks (for words the
    /// tokeniser splits differently in a title and in running text).
    pub(crate) text: String,
    /// Characters of that text (link targets left out), trimmed.
    pub(crate) text_chars: usize,
    /// Of those, the characters outside fenced code blocks (not white space).
    pub(crate) prose_chars: usize,
}

impl SectionWords {
    /// Whether `word` is in the title: as a word, or (two characters or
    /// more on both sides) inside a title word or around one. The tokeniser
    /// keeps an unknown compound whole (`ファクトリインジェクション`) where
    /// another text splits it (`ファクトリ`, `インジェクション`).
    pub(crate) fn title_has(&self, word: &str) -> bool {
        self.title_words.contains(word) || self.title_words.iter().any(|w| overlaps(word, w))
    }

    /// Whether `word` is in the text: as a word, or (at two characters or
    /// more) inside the normalised text or around one of its words, or as
    /// the same loanword in the other script. `SQL Server` is `sqlserver`
    /// in code, a compound splits differently in a title and in a sentence
    /// (`ファイルアップロード`, `アップロードしたファイル`), and a `handler` is
    /// a ハンドラ in prose.
    pub(crate) fn text_has(&self, word: &str) -> bool {
        if self.text_words.contains(word) {
            return true;
        }
        if word.chars().count() < 2 {
            return false;
        }
        self.text.contains(&without_long_vowels(word))
            || self
                .text_words
                .iter()
                .any(|w| overlaps(word, w) || loanword(word, w))
    }
}

/// Whether one of two words holds the other, both of two characters or more.
fn overlaps(a: &str, b: &str) -> bool {
    let long = |w: &str| w.chars().nth(1).is_some();
    long(a) && long(b) && (a.contains(b) || b.contains(a))
}

/// `word` without the katakana long vowel mark: クエリー and クエリ, サーバー
/// and サーバ are one word spelled two ways.
fn without_long_vowels(word: &str) -> String {
    word.replace('ー', "")
}

/// Whether `a` and `b` are one English word and its katakana spelling: the
/// body stage's vocabulary bridge (`text::translit`), kept to English words
/// of 4 letters or more and skeletons of 3 consonants or more, where it
/// seldom pairs unrelated words.
fn loanword(a: &str, b: &str) -> bool {
    use crate::text::translit::{english_skeleton, katakana_romaji, romaji_skeleton};
    let pair = |english: &str, katakana: &str| {
        let Some(romaji) = katakana_romaji(katakana) else {
            return false;
        };
        let vowel = |w: &str| w.starts_with(['a', 'e', 'i', 'o', 'u']);
        english.len() >= 4
            && vowel(english) == vowel(&romaji)
            && english_skeleton(english)
                .is_some_and(|e| e.len() >= 3 && e == romaji_skeleton(&romaji))
    };
    pair(a, b) || pair(b, a)
}

/// One knowledge file's words.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FileWords {
    /// The words of the file's title.
    pub(crate) title_words: HashSet<String>,
    /// Its sections, page text first, then in file order.
    pub(crate) sections: Vec<SectionWords>,
}

/// Each knowledge file's [`FileWords`], computed on first use.
#[derive(Debug, Default)]
pub(crate) struct Words {
    files: HashMap<String, FileWords>,
}

impl Words {
    /// The words of the knowledge file `relative`, whose document is `doc`.
    pub(crate) fn of(&mut self, relative: &str, doc: &Value) -> Result<&FileWords> {
        if !self.files.contains_key(relative) {
            let words = FileWords {
                title_words: match doc.get("title").and_then(Value::as_str) {
                    Some(title) => terms(title)?.into_iter().collect(),
                    None => HashSet::new(),
                },
                sections: section_words(doc)?,
            };
            self.files.insert(relative.to_owned(), words);
        }
        Ok(&self.files[relative])
    }

    /// The words of `relative` when [`Words::of`] has computed them.
    pub(crate) fn get(&self, relative: &str) -> Option<&FileWords> {
        self.files.get(relative)
    }
}

/// The distinct words of `text`, in order of appearance.
pub(crate) fn distinct(text: &str) -> Result<Vec<String>> {
    let mut seen = HashSet::new();
    Ok(terms(text)?
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect())
}

/// [`SectionWords`] of every section of `doc`.
fn section_words(doc: &Value) -> Result<Vec<SectionWords>> {
    let sections = Sections::new(doc);
    let mut out = Vec::new();
    for id in super::section_ids(doc) {
        let Some(text) = sections.body(id) else {
            continue;
        };
        let title = (id != PAGE_ID)
            .then(|| sections.title(id))
            .flatten()
            .map(str::to_owned);
        let read = without_link_targets(&text);
        out.push(SectionWords {
            id: id.to_owned(),
            title_words: match &title {
                Some(t) => terms(t)?.into_iter().collect(),
                None => HashSet::new(),
            },
            title,
            text_words: terms(&read)?.into_iter().collect(),
            text_chars: read.trim().chars().count(),
            prose_chars: prose_chars(&read),
            text: without_long_vowels(&normalize(&read)),
        });
    }
    Ok(out)
}

/// The characters of `text` that are not white space and not inside a
/// fenced code block (```` ``` ```` or `~~~`).
fn prose_chars(text: &str) -> usize {
    let mut fence: Option<&str> = None;
    let mut n = 0;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => n += line.chars().filter(|c| !c.is_whitespace()).count(),
            _ => {}
        }
    }
    n
}

/// `text` with the `(target)` of each inline link `[text](target)` left
/// out (the link text stays).
pub(crate) fn without_link_targets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..=at]);
        let target = &rest[at + 2..];
        // The target ends at the `)` that closes it (targets may hold
        // balanced parentheses) and never runs past the line.
        let mut depth = 0usize;
        let mut end = None;
        for (i, c) in target.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = Some(i);
                    break;
                }
                ')' => depth -= 1,
                '\n' => break,
                _ => {}
            }
        }
        match end {
            Some(i) => rest = &target[i + 1..],
            None => {
                out.push('(');
                rest = target;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_as_words() -> Result<()> {
        let doc = serde_json::json!({"title": "Page", "content": "ページの説明",
            "sections": [{"id": "s1", "title": "排他制御", "content": "楽観的ロックを使う。"},
                         {"id": "s2", "content": ""}]});
        let mut words = Words::default();
        let file = words.of("a.json", &doc)?;
        assert!(file.title_words.contains("page"), "{:?}", file.title_words);
        let got = &file.sections;
        let ids: Vec<(&str, Option<&str>, usize)> = got
            .iter()
            .map(|s| (s.id.as_str(), s.title.as_deref(), s.text_chars))
            .collect();
        assert_eq!(
            ids,
            [
                (PAGE_ID, None, 6),
                ("s1", Some("排他制御"), 10),
                ("s2", None, 0)
            ]
        );
        assert!(
            got[1].title_words.contains("排他"),
            "{:?}",
            got[1].title_words
        );
        assert!(
            got[1].text_words.contains("ロック"),
            "{:?}",
            got[1].text_words
        );
        assert_eq!(distinct("ロック、ロックする")?, ["ロック", "する"]);
        Ok(())
    }

    #[test]
    fn words_in_titles_and_texts() -> Result<()> {
        let doc = serde_json::json!({"title": "T", "sections": [
            {"id": "s1", "title": "ファクトリインジェクション",
             "content": "アップロードしたファイルは `SQLServerDialect` のハンドラが読む。クエリパラメータも。"}]});
        let mut words = Words::default();
        let file = words.of("a.json", &doc)?;
        let s = &file.sections[0];
        let cases: &[(&str, bool, bool)] = &[
            // (word, in the title, in the text)
            ("ファクトリ", true, false),
            ("インジェクション", true, false),
            ("ファイルアップロード", false, true),
            ("sql", false, true),
            ("handler", false, true),
            ("クエリーパラメータ", false, true),
            ("読む", false, true),
            ("書く", false, false),
            ("ル", false, false),
        ];
        for (word, title, text) in cases {
            assert_eq!(
                (s.title_has(word), s.text_has(word)),
                (*title, *text),
                "{word}: {:?} / {:?}",
                s.title_words,
                s.text_words
            );
        }
        Ok(())
    }

    #[test]
    fn link_targets_are_left_out() {
        let cases = [
            ("see [x](a.json#s1) and [y](b.json)", "see [x] and [y]"),
            ("[f(x)](a.json#f(x)) done", "[f(x)] done"),
            ("[open](a.json\nnext", "[open](a.json\nnext"),
            ("no links", "no links"),
        ];
        for (text, want) in cases {
            assert_eq!(without_link_targets(text), want, "{text:?}");
        }
    }
}
