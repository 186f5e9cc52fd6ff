//! What the body stage reports a row matched, as values until a report
//! writes them: the query words (an English word bridged to katakana is a
//! [`Bridge`], written `english→カタカナ` only in output) and the field.

use crate::query::Level;

/// An English query word and the katakana word the body stage searched for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bridge {
    pub(crate) from: String,
    pub(crate) to: String,
}

/// A query word as the body stage matched it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Word {
    /// The query word itself.
    Own(String),
    /// The katakana word an English query word was bridged to.
    Bridged(Bridge),
}

impl std::fmt::Display for Word {
    /// As reports write it: the word, or `english→カタカナ`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Own(word) => f.write_str(word),
            Self::Bridged(Bridge { from, to }) => write!(f, "{from}→{to}"),
        }
    }
}

/// Where a body match is: one of a row's own fields, or its file (the
/// file's share of the score).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatchField {
    Title,
    Hints,
    Terms,
    Body,
    File,
}

impl MatchField {
    /// A row's own fields, in the body index's field order.
    pub(crate) const OWN: [Self; 4] = [Self::Title, Self::Hints, Self::Terms, Self::Body];

    /// The name reports write.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Title => "title",
            Self::Hints => "hints",
            Self::Terms => "terms",
            Self::Body => "body",
            Self::File => "file",
        }
    }
}

/// What matched in a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BodyMatch {
    /// The query word matched in a row's own field; for [`MatchField::File`],
    /// every query word its file matched.
    pub(crate) words: Vec<Word>,
    /// The level of the word (for the file, of its heaviest word).
    pub(crate) level: Level,
    pub(crate) field: MatchField,
    /// Points, on the score's scale.
    pub(crate) points: f64,
}

impl BodyMatch {
    /// The words as reports write them, space-separated.
    pub(crate) fn shown(&self) -> String {
        let words: Vec<String> = self.words.iter().map(Word::to_string).collect();
        words.join(" ")
    }

    /// The bridge of a match of one bridged word (a file's match of several
    /// words has none: passages and confidence look at single words).
    pub(crate) fn bridge(&self) -> Option<&Bridge> {
        match self.words.as_slice() {
            [Word::Bridged(bridge)] => Some(bridge),
            _ => None,
        }
    }
}
