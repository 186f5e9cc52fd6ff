//! Queries: levelled keywords, from flags, a JSON document, or a question.
//!
//! Every keyword keeps the text the caller gave (for reports) and its
//! normalised form (for matching). A question is turned into keywords by
//! `tokenize::question_keywords`; those keywords get [`Level::Question`],
//! which scores like L3, and a keyword that is a part of a longer compound
//! from the same question counts half (the compound already scored it).

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::text::normalize::normalize;
use crate::text::tokenize;

/// How specific a keyword is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Domain (e.g. データベース): context only; 0 points under the seed rule.
    L1,
    /// Component (e.g. UniversalDao).
    L2,
    /// Function (e.g. ページング).
    L3,
    /// Extracted from a plain question by kbidx; scores like L3.
    Question,
}

impl Level {
    /// `l1`, `l2`, `l3` or `q`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::L1 => "l1",
            Self::L2 => "l2",
            Self::L3 => "l3",
            Self::Question => "q",
        }
    }
}

/// One keyword of a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyword {
    /// As given (or as extracted).
    pub text: String,
    /// [`normalize`]d.
    pub norm: String,
    /// Its level.
    pub level: Level,
    /// 1.0, or 0.5 for a part of a longer compound extracted from the same question.
    pub weight: f64,
    /// The concepts it names: keywords an agent grouped as synonyms
    /// (`ページング|paging`) share one; every other keyword has its own; a
    /// keyword given in two groups names both. Only `confidence` reads them
    /// (synonyms of one concept count once).
    pub concepts: Vec<usize>,
}

/// A search request: keywords, plus the question they came from, if any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// The plain question, when the keywords were extracted from one.
    pub question: Option<String>,
    /// Keywords, deduplicated by normalised form (the first occurrence wins).
    pub keywords: Vec<Keyword>,
    /// What was cut to keep the work per query bounded (see [`MAX_QUESTION_CHARS`],
    /// [`MAX_KEYWORD_CHARS`], [`MAX_KEYWORDS`]), in words; empty when nothing was.
    pub truncated: Vec<String>,
    /// What a reader of the results should know of how the keywords were
    /// taken (a keyword given at two levels); empty when nothing.
    pub notes: Vec<String>,
    /// Concepts numbered so far (see [`Keyword::concepts`]).
    concepts: usize,
}

/// Characters of a question kbidx reads; the rest is cut (a pasted log is
/// a normal question, and its start says what it is about).
pub(crate) const MAX_QUESTION_CHARS: usize = 4_000;

/// Characters of one keyword kbidx reads; the rest is cut.
pub(crate) const MAX_KEYWORD_CHARS: usize = 200;

/// Keywords of one query; later ones are dropped.
pub(crate) const MAX_KEYWORDS: usize = 256;

/// `text` cut to its first `max` characters, and whether it was cut.
fn cut(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (&text[..at], true),
        None => (text, false),
    }
}

/// The JSON an agent writes for `--keywords FILE`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelledKeywords {
    /// Domain keywords.
    #[serde(default)]
    pub l1: Vec<String>,
    /// Component keywords.
    #[serde(default)]
    pub l2: Vec<String>,
    /// Function keywords.
    #[serde(default)]
    pub l3: Vec<String>,
}

impl Query {
    /// A query from levelled keyword lists. Empty and duplicate keywords are dropped.
    pub fn from_levels(levels: &LevelledKeywords) -> Self {
        let mut query = Self::default();
        for (level, list) in [
            (Level::L1, &levels.l1),
            (Level::L2, &levels.l2),
            (Level::L3, &levels.l3),
        ] {
            for text in list {
                query.push_synonyms(text, level);
            }
        }
        query
    }

    /// Parses the `--keywords` JSON `{"l1": [..], "l2": [..], "l3": [..]}` read from `source`.
    pub fn parse_levels(source: &str, text: &str) -> Result<LevelledKeywords> {
        serde_json::from_str(text).map_err(|e| {
            Error::json(
                source,
                text,
                "invalid keywords JSON (expected {\"l1\": [..], \"l2\": [..], \"l3\": [..]})",
                &e,
            )
        })
    }

    /// A query from a plain question (Japanese or English); a question over
    /// [`MAX_QUESTION_CHARS`] is cut first.
    pub fn from_question(question: &str) -> Result<Self> {
        let (question, cut_question) = cut(question, MAX_QUESTION_CHARS);
        let words = tokenize::question_keywords(question)?;
        let mut query = Self {
            question: Some(question.to_owned()),
            ..Self::default()
        };
        if cut_question {
            query.truncated.push(format!(
                "the question was cut to its first {MAX_QUESTION_CHARS} characters"
            ));
        }
        for (i, word) in words.iter().enumerate() {
            if query.keywords.len() >= MAX_KEYWORDS {
                break;
            }
            let part = words[..i].iter().any(|earlier| {
                earlier.chars().count() > word.chars().count() && earlier.contains(word.as_str())
            });
            query.push(word, Level::Question, if part { 0.5 } else { 1.0 });
        }
        Ok(query)
    }

    /// Adds keywords extracted from `question` to an existing query (levelled keywords win).
    pub fn add_question(&mut self, question: &str) -> Result<()> {
        let extra = Self::from_question(question)?;
        self.question = extra.question;
        self.truncated.extend(extra.truncated);
        for k in extra.keywords {
            self.push(&k.text, k.level, k.weight);
        }
        Ok(())
    }

    /// Adds the keywords of `text`, one concept: alternatives separated by
    /// `|` (`ページング|paging|改ページ`) are synonyms the agent grouped, each
    /// searched as a keyword of its own.
    pub fn push_synonyms(&mut self, text: &str, level: Level) {
        let concept = self.next_concept();
        for alternative in text.split('|') {
            self.push_concept(alternative, level, 1.0, concept);
        }
    }

    /// A concept number no keyword has yet.
    fn next_concept(&mut self) -> usize {
        self.concepts += 1;
        self.concepts - 1
    }

    /// Adds one keyword unless it is empty or already present; one over
    /// [`MAX_KEYWORD_CHARS`] is cut, one past [`MAX_KEYWORDS`] dropped
    /// (both noted in [`Query::truncated`]).
    pub fn push(&mut self, text: &str, level: Level, weight: f64) {
        let concept = self.next_concept();
        self.push_concept(text, level, weight, concept);
    }

    /// [`Query::push`] as a keyword of `concept`.
    fn push_concept(&mut self, text: &str, level: Level, weight: f64, concept: usize) {
        let (text, cut_keyword) = cut(text, MAX_KEYWORD_CHARS);
        if cut_keyword {
            self.note(format!(
                "keywords were cut to their first {MAX_KEYWORD_CHARS} characters"
            ));
        }
        let norm = normalize(text);
        if norm.is_empty() {
            return;
        }
        if let Some(k) = self.keywords.iter_mut().find(|k| k.norm == norm) {
            // L1 keywords are context: a repeat at L1 names no concept.
            if level != Level::L1 && !k.concepts.contains(&concept) {
                k.concepts.push(concept);
            }
            // A keyword given at two levels is searched once, at the level
            // that weighs more (L2 and L3 weigh the same: the first stays).
            if k.level != level && level != Level::Question && k.level != Level::Question {
                let first = k.level;
                if first == Level::L1 {
                    // An L1 keyword names no concept: only the new level's counts.
                    k.level = level;
                    k.concepts = vec![concept];
                }
                let note = format!(
                    "keyword {:?} is given at {} and {}: searched once, at {}",
                    k.text,
                    first.as_str(),
                    level.as_str(),
                    k.level.as_str()
                );
                if !self.notes.contains(&note) {
                    self.notes.push(note);
                }
            }
            return;
        }
        if self.keywords.len() >= MAX_KEYWORDS {
            self.note(format!(
                "keywords after the first {MAX_KEYWORDS} were dropped"
            ));
            return;
        }
        self.keywords.push(Keyword {
            text: text.trim().to_owned(),
            norm,
            level,
            weight,
            concepts: vec![concept],
        });
    }

    /// Notes `what` in [`Query::truncated`] once.
    fn note(&mut self, what: String) {
        if !self.truncated.contains(&what) {
            self.truncated.push(what);
        }
    }

    /// Whether there is nothing to search for.
    pub fn is_empty(&self) -> bool {
        self.keywords.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_queries_are_cut_with_a_notice() {
        // A pasted log as a question: its first MAX_QUESTION_CHARS characters.
        let log = "ERROR retry failed at handler ".repeat(10_000);
        let q = Query::from_question(&log).unwrap_or_default();
        assert_eq!(
            q.question.as_deref().map(|s| s.chars().count()),
            Some(MAX_QUESTION_CHARS)
        );
        assert_eq!(q.truncated.len(), 1, "{:?}", q.truncated);
        // One long keyword: cut; many keywords: the first MAX_KEYWORDS.
        let levels = LevelledKeywords {
            l3: vec!["あ".repeat(200_000)],
            ..LevelledKeywords::default()
        };
        let q = Query::from_levels(&levels);
        assert_eq!(q.keywords[0].text.chars().count(), MAX_KEYWORD_CHARS);
        let levels = LevelledKeywords {
            l2: (0..1000).map(|i| format!("word{i}")).collect(),
            ..LevelledKeywords::default()
        };
        let q = Query::from_levels(&levels);
        assert_eq!(q.keywords.len(), MAX_KEYWORDS);
        assert_eq!(q.truncated.len(), 1, "{:?}", q.truncated);
        // Grouped synonyms share a concept; the rest have their own.
        let levels = LevelledKeywords {
            l2: vec!["DAO".into()],
            l3: vec![
                "ページング|paging| |改ページ".into(),
                "limit".into(),
                "dao|offset".into(),
            ],
            ..LevelledKeywords::default()
        };
        let q = Query::from_levels(&levels);
        let concepts: Vec<(&str, &[usize])> = q
            .keywords
            .iter()
            .map(|k| (k.text.as_str(), k.concepts.as_slice()))
            .collect();
        assert_eq!(
            concepts,
            [
                ("DAO", &[0, 3][..]),
                ("ページング", &[1]),
                ("paging", &[1]),
                ("改ページ", &[1]),
                ("limit", &[2]),
                ("offset", &[3]),
            ]
        );
        // A short query is not cut.
        let q = Query::from_question("ページングを実装したい").unwrap_or_default();
        assert!(q.truncated.is_empty());
    }
}
