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
}

/// A search request: keywords, plus the question they came from, if any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// The plain question, when the keywords were extracted from one.
    pub question: Option<String>,
    /// Keywords, deduplicated by normalised form (the first occurrence wins).
    pub keywords: Vec<Keyword>,
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
                query.push(text, level, 1.0);
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

    /// A query from a plain question (Japanese or English).
    pub fn from_question(question: &str) -> Result<Self> {
        let words = tokenize::question_keywords(question)?;
        let mut query = Self {
            question: Some(question.to_owned()),
            keywords: Vec::new(),
        };
        for (i, word) in words.iter().enumerate() {
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
        for k in extra.keywords {
            self.push(&k.text, k.level, k.weight);
        }
        Ok(())
    }

    /// Adds one keyword unless it is empty or already present.
    pub fn push(&mut self, text: &str, level: Level, weight: f64) {
        let norm = normalize(text);
        if norm.is_empty() || self.keywords.iter().any(|k| k.norm == norm) {
            return;
        }
        self.keywords.push(Keyword {
            text: text.trim().to_owned(),
            norm,
            level,
            weight,
        });
    }

    /// Whether there is nothing to search for.
    pub fn is_empty(&self) -> bool {
        self.keywords.is_empty()
    }
}
