//! Refinement suggestions: words an agent can add to its next search.
//!
//! An agent's second search is only as good as the words it adds, and the
//! words that find a section are the ones the knowledge base uses (its
//! hints, titles and derived terms), which the agent cannot see. After a
//! search, the vocabulary of the top results is counted: a word that
//! several top results carry, that is rare in the whole index and that the
//! query lacks is a likely refinement (or, when the results are off-topic,
//! a sign of which topic they are about).
//!
//! A suggestion is a word as the knowledge writes it: a hint, a noun of a
//! title or a derived term, both cut by [`whole_words`] (never a piece of a
//! loanword, an identifier or a format string). Agents called the rest
//! noise, so two kinds of whole word are kept out too: Latin words under 4
//! letters and words of hiragana only, unless a hint or (for Latin) a title
//! names them (`rid`, `ctx`, もと are log keys, variables and function words
//! of the text; `DAO`, `SQL` come from titles).

use std::collections::HashMap;

use serde::Serialize;

use super::body::BodyIndex;
use super::{Level, Matcher, Query};
use crate::text::normalize::normalize;
use crate::text::terms;
use crate::text::tokenize::{Pos, question_keywords, whole_words};

/// How many top results are looked at.
const TOP: usize = 10;
/// Words in more than this share of the index's rows are not suggested.
const COMMON: f64 = 0.05;
/// ... but in a small index a word may be in this many rows.
const MIN_COMMON: f64 = 5.0;
/// Rows of the index a suggested word must be in at least.
const MIN_ROWS: usize = 3;

/// One suggested word.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Suggestion {
    /// The word as the index writes it.
    pub(crate) word: String,
    /// The level to search it at: `l2` for a file's topic (the part of a
    /// title before ` / `), `l3` for everything else.
    pub(crate) level: &'static str,
    /// How many of the top results carry it.
    pub(crate) results: usize,
}

/// Where the knowledge writes a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    /// A derived term of the section's text.
    Term,
    /// A title.
    Title,
    /// A hint.
    Hint,
}

/// A candidate word while counting.
struct Candidate {
    word: String,
    topic: bool,
    /// The most telling place it was found in.
    source: Source,
    rows: usize,
    last_row: usize,
}

/// Whether a word from `source` may be suggested: Latin words under 4
/// letters only from a hint or title, words of hiragana only from a hint.
fn admissible(norm: &str, source: Source) -> bool {
    if norm.is_ascii() && norm.len() < 4 {
        return source >= Source::Title;
    }
    if norm.chars().all(|c| matches!(c, '\u{3041}'..='\u{309f}')) {
        return source == Source::Hint;
    }
    true
}

/// The nouns of a title, runs of nouns joined (compounds whole:
/// 楽観的ロック, フレームワーク), from one tokenizer call.
fn title_words(title: &str) -> Vec<String> {
    let text = normalize(title);
    let Ok(tokens) = whole_words(&text) else {
        return Vec::new();
    };
    let mut words = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    for t in &tokens {
        // A compound goes on through suffixes (的, 化) and adjoining nouns.
        let joins = t.pos == Pos::Noun || (t.pos == Pos::Suffix && run.is_some());
        match &mut run {
            Some((_, end)) if joins && *end == t.start => *end = t.end,
            _ => {
                if let Some((start, end)) = run.take() {
                    words.push(text[start..end].to_owned());
                }
                run = joins.then_some((t.start, t.end));
            }
        }
    }
    if let Some((start, end)) = run {
        words.push(text[start..end].to_owned());
    }
    words
}

/// Up to `limit` suggestions for `query` from the index rows `rows` (the
/// ranking, best first). `body` gives each word's document frequency (how
/// rare it is in the index); without it every word counts as equally rare.
///
/// Long on purpose: the words of the top rows are gathered, filtered and
/// ranked over one table of candidates (word, topic, source, rows).
pub(crate) fn suggest(
    matcher: &Matcher<'_>,
    body: Option<&BodyIndex>,
    query: &Query,
    rows: &[usize],
    limit: usize,
) -> Vec<Suggestion> {
    let top = &rows[..rows.len().min(TOP)];
    if top.is_empty() || limit == 0 {
        return Vec::new();
    }
    // What the query already has: its normalised text and its words.
    let mut asked = String::new();
    for k in &query.keywords {
        asked.push_str(&k.norm);
        asked.push(' ');
    }
    if let Some(q) = &query.question {
        asked.push_str(&normalize(q));
    }
    let asked_words: Vec<String> = terms(&asked).unwrap_or_default();
    let mut candidates: HashMap<String, Candidate> = HashMap::new();
    let mut titles: HashMap<String, Vec<String>> = HashMap::new();
    for (i, &row) in top.iter().enumerate() {
        let entry = matcher.entry(row);
        let (file_title, section_title) = match entry.title.split_once(" / ") {
            Some((file, section)) => (file, section),
            None => ("", &*entry.title),
        };
        let mut words: Vec<(String, bool, Source)> = Vec::new();
        for (title, topic) in [(file_title, true), (section_title, false)] {
            // Top results often share a file title: tokenise each title once.
            let list = titles
                .entry(title.to_owned())
                .or_insert_with(|| title_words(title));
            words.extend(list.iter().map(|w| (w.clone(), topic, Source::Title)));
        }
        for (list, source) in [(&entry.hints, Source::Hint), (&entry.terms, Source::Term)] {
            words.extend(
                list.split_whitespace()
                    .map(|w| (w.to_owned(), false, source)),
            );
        }
        for (word, topic, source) in words {
            let norm = normalize(&word);
            if norm.chars().count() < 2 || norm.chars().all(|c| !c.is_alphabetic()) {
                continue;
            }
            let c = candidates.entry(norm).or_insert(Candidate {
                word,
                topic,
                source,
                rows: 0,
                last_row: usize::MAX,
            });
            c.topic |= topic;
            c.source = c.source.max(source);
            if c.last_row != i {
                c.last_row = i;
                c.rows += 1;
            }
        }
    }
    // A word several top results share, unless only one result was found.
    let min_rows = top.len().min(2);
    let n = body.map_or(1.0, |b| b.rows() as f64).max(1.0);
    let mut scored: Vec<(f64, String, Candidate)> = candidates
        .into_iter()
        .filter(|(norm, c)| {
            c.rows >= min_rows && !asked.contains(norm.as_str()) && admissible(norm, c.source)
        })
        .filter_map(|(norm, c)| {
            // A word the body index holds whole needs no tokenising (the
            // tokenizer is what costs here); a compound is at most as common
            // as its rarest part.
            let whole = body.map_or(0, |b| b.document_frequency(&norm));
            let df = if whole > 0 {
                if asked_words.contains(&norm) {
                    return None;
                }
                whole
            } else {
                let parts = terms(&norm).unwrap_or_default();
                // Nothing left after tokenising, or every part asked already.
                if parts.is_empty() || parts.iter().all(|p| asked_words.contains(p)) {
                    return None;
                }
                body.map_or(1, |b| {
                    parts
                        .iter()
                        .map(|p| b.document_frequency(p))
                        .min()
                        .unwrap_or(1)
                })
            };
            // Common words (in more than 5% of the rows) discriminate nothing;
            // words in fewer than 3 rows are sample values (nonces, foo) more
            // often than vocabulary.
            if body.is_some() && (df as f64 > (n * COMMON).max(MIN_COMMON) || df < MIN_ROWS) {
                return None;
            }
            // How well the word separates the top results from the rest:
            // its share of the top results against its share of the index,
            // as a log ratio, for each top result that carries it.
            let lift = body.map_or(1.0, |_| {
                let top_share = c.rows as f64 / top.len() as f64;
                (top_share * n / df.max(1) as f64).ln().max(0.0)
            });
            Some((c.rows as f64 * lift, norm, c))
        })
        .filter(|(score, _, _)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.2.rows.cmp(&a.2.rows))
            .then(a.1.cmp(&b.1))
    });
    // Best first, until `limit` pass the last check: a word kbidx would not
    // take from a question as a keyword (a generic noun such as 理由 or 下記,
    // a verb fragment) is no search word.
    scored
        .into_iter()
        .filter(|(_, norm, _)| question_keywords(norm).unwrap_or_default().contains(norm))
        .take(limit)
        .map(|(_, _, c)| Suggestion {
            word: c.word,
            level: if c.topic { Level::L2 } else { Level::L3 }.as_str(),
            results: c.rows,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Titles give their nouns, compounds whole, normalised.
    #[test]
    fn title_words_keep_compounds() {
        for (title, want) in [
            ("楽観的ロック", vec!["楽観的ロック"]),
            ("ユニバーサルDAO", vec!["ユニバーサルdao"]),
            ("コード管理", vec!["コード管理"]),
            (
                "画面などで表示する名称のソート順",
                vec!["画面", "表示", "名称", "ソート順"],
            ),
            // Stop words stay here; `suggest` drops them with its last check.
            ("Ｐａｇｉｎｇ with offset", vec!["paging", "with", "offset"]),
            // Loanwords and identifiers whole, format strings no words.
            ("ウィンドウの設定", vec!["ウィンドウ", "設定"]),
            ("データベースアクセス", vec!["データベースアクセス"]),
            ("パラメータのバインド", vec!["パラメータ", "バインド"]),
            ("%rid %tclient", vec![]),
            ("/web-inf/view", vec!["web-inf", "view"]),
            ("", vec![]),
        ] {
            assert_eq!(title_words(title), want, "{title}");
        }
    }

    /// Short Latin words and hiragana words only from where they are chosen.
    #[test]
    fn admissible_by_source() {
        for (word, source, want) in [
            ("rid", Source::Term, false),
            ("ctx", Source::Term, false),
            ("dao", Source::Title, true),
            ("sql", Source::Hint, true),
            ("もと", Source::Term, false),
            ("もと", Source::Title, false),
            ("ひな形", Source::Term, true),
            ("バインド", Source::Term, true),
            ("handler", Source::Term, true),
        ] {
            assert_eq!(admissible(word, source), want, "{word} {source:?}");
        }
    }
}
