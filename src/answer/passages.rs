//! Query-focused passages (`search --passages`): instead of a section's text
//! from its start, hand over the paragraphs that hold the query's words.
//!
//! A section is cut into units: paragraphs (runs of lines between blank
//! lines; a fenced code block is never split at its blank lines), and the
//! lines of a paragraph too long to fit the passage whole (a long table,
//! list or code block). The section's first line (its `## title` heading,
//! as `knowledge::content` renders it) is always kept, so the judge knows
//! what the section is. Every other unit scores the query words it holds,
//! each word once, with the body stage's weights (an L1 word 0.3, any other
//! 1, a question's compound part half): the words are the body stage's own,
//! [`terms`] of the normalised keyword and of the unit, so a unit scores
//! exactly for the words the search matched in the section's text.
//!
//! Units are taken best first (score, then document order) while the
//! passage stays within the caps; a taken unit brings the nearest heading
//! above it when that still fits (a `### …` line says what the paragraph is
//! about). The passage lists the taken units in document order, with a line
//! `…` wherever text was left out. Units that hold no query word are never
//! taken: a shorter passage leaves the budget to later results.
//!
//! When the whole section fits, it is handed over as it is (not a passage).
//! When no unit holds a query word, the section is cut from its start as
//! `output::budget::fit` cuts it (not a passage either). When units hold
//! query words but none fits, the best one is cut to what is left. The
//! result is a function of the text, the words and the caps alone:
//! deterministic.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::error::Result;
use crate::output::budget::fit;
use crate::output::tokens::estimate;
use crate::search::body_match::Bridge;
use crate::search::{Level, Query};
use crate::text::terms;

/// Characters of a passage when no per-result cap is given (about 400
/// estimated tokens of Japanese prose): with the 20,000-character budget of
/// the evaluations, 20 or more results are handed over (docs/accuracy.md,
/// "Query-focused passages").
pub(crate) const DEFAULT_PASSAGE_CHARS: usize = 1000;

pub(crate) use crate::output::GAP;

/// The query's words as the body stage searches them, with their weights.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct QueryWords(Vec<(String, f64)>);

impl QueryWords {
    /// The words of `query`'s keywords (each word once, at its highest weight).
    pub(crate) fn of(query: &Query) -> Result<Self> {
        let mut words: Vec<(String, f64)> = Vec::new();
        for k in &query.keywords {
            let weight = if k.level == Level::L1 { 0.3 } else { 1.0 } * k.weight.min(1.0);
            for word in terms(&k.norm)? {
                match words.iter_mut().find(|(w, _)| *w == word) {
                    Some((_, w)) => *w = w.max(weight),
                    None => words.push((word, weight)),
                }
            }
        }
        Ok(Self(words))
    }

    /// Adds the katakana words the body stage bridged English query words
    /// to (`bridges`, shown as `english→カタカナ`), each at the bridge's
    /// share of its English word's weight, so that an English question's
    /// passage of Japanese text is chosen by the words its search matched.
    pub(crate) fn add_bridged<'k>(&mut self, bridges: impl IntoIterator<Item = &'k Bridge>) {
        let share = crate::search::body::Params::default().bridge;
        for Bridge { from, to: katakana } in bridges {
            let Some(weight) = self.0.iter().find(|(w, _)| w == from).map(|(_, w)| *w) else {
                continue;
            };
            if self.0.iter().all(|(w, _)| w != katakana) {
                self.0.push((katakana.to_owned(), weight * share));
            }
        }
    }
}

/// A unit of a section: a byte range of its text (no line break at either end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unit {
    start: usize,
    end: usize,
}

/// A section's text cut into units, each with its words: analysed once,
/// for any number of queries (`kbidx eval` keeps one per section).
#[derive(Debug, Clone)]
pub(crate) struct Paragraphs {
    text: String,
    /// Units in document order; the first is the first line (kept always).
    units: Vec<Unit>,
    /// The words ([`terms`]) of each unit.
    words: Vec<HashSet<String>>,
    /// Whether each unit is a markdown heading line (`#`…).
    heading: Vec<bool>,
    /// For a table row split from its table: the unit of the table's
    /// header row (the separator row follows it).
    table_head: Vec<Option<usize>>,
    /// The caps: characters and estimated tokens.
    caps: (usize, usize),
}

/// A section's content as a passage hands it over.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Passage<'a> {
    /// The text to hand over.
    pub text: Cow<'a, str>,
    /// Whether anything (but white space) of the section was left out.
    pub truncated: bool,
    /// Whether `text` is a selection of paragraphs (not the section's start).
    pub passage: bool,
}

impl Paragraphs {
    /// Cuts `text` into units for passages within `max_chars` characters
    /// and `max_tokens` estimated tokens (a paragraph that does not fit them
    /// is split into its lines), and finds each unit's words.
    pub(crate) fn new(text: &str, max_chars: usize, max_tokens: usize) -> Result<Self> {
        let (units, table_head) = units(text, max_chars, max_tokens);
        let words = units
            .iter()
            .map(|u| Ok(terms(&text[u.start..u.end])?.into_iter().collect()))
            .collect::<Result<Vec<_>>>()?;
        let heading = units
            .iter()
            .map(|u| {
                let unit = &text[u.start..u.end];
                unit.starts_with('#') && !unit.contains('\n')
            })
            .collect();
        Ok(Self {
            text: text.to_owned(),
            units,
            words,
            heading,
            table_head,
            caps: (max_chars, max_tokens),
        })
    }

    /// The passage for `words` within the caps (see the module comment).
    pub(crate) fn passage(&self, words: &QueryWords) -> Passage<'_> {
        let text = self.text.as_str();
        let (max_chars, max_tokens) = self.caps;
        let whole = fit(text, max_chars, max_tokens);
        if !whole.truncated || self.units.is_empty() {
            return Passage {
                text: Cow::Borrowed(whole.text),
                truncated: false,
                passage: false,
            };
        }
        let scores = self.scores(words);
        // Best first: score, then document order (the head is kept anyway).
        let mut order: Vec<usize> = (1..self.units.len()).filter(|&i| scores[i] > 0.0).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        if order.is_empty() {
            return Passage {
                text: Cow::Borrowed(whole.text),
                truncated: true,
                passage: false,
            };
        }
        let fits = |s: &str| s.chars().count() <= max_chars && estimate(s) <= max_tokens;
        let mut kept = vec![false; self.units.len()];
        kept[0] = true;
        if !fits(&self.render(&kept)) {
            // Not even the heading fits: the start of the section, cut.
            return Passage {
                text: Cow::Borrowed(whole.text),
                truncated: true,
                passage: false,
            };
        }
        let mut any = false;
        for &i in &order {
            kept[i] = true;
            if !fits(&self.render(&kept)) {
                kept[i] = false;
                continue;
            }
            any = true;
            // A table row's header and separator rows, when they still fit.
            if let Some(h) = self.table_head[i].filter(|&h| !kept[h]) {
                kept[h] = true;
                kept[h + 1] = true;
                if !fits(&self.render(&kept)) {
                    kept[h] = false;
                    kept[h + 1] = false;
                }
            }
            // The nearest heading above it, when that still fits.
            if let Some(h) = (1..i)
                .rev()
                .find(|&h| self.heading[h])
                .filter(|&h| !kept[h])
            {
                kept[h] = true;
                if !fits(&self.render(&kept)) {
                    kept[h] = false;
                }
            }
        }
        let rendered = if any {
            self.render(&kept)
        } else {
            // Units hold query words but none fits whole: the best one, cut
            // to what the heading and the gap markers leave.
            let best = order[0];
            kept[best] = true;
            let unit = &self.units[best];
            let outside = self.render_with(&kept, Some(""));
            let room_chars = max_chars.saturating_sub(outside.chars().count());
            let room_tokens = max_tokens.saturating_sub(estimate(&outside));
            let cut = fit(&text[unit.start..unit.end], room_chars, room_tokens).text;
            if cut.is_empty() {
                return Passage {
                    text: Cow::Borrowed(whole.text),
                    truncated: true,
                    passage: false,
                };
            }
            // The cut unit is followed by a gap marker, as left-out text is.
            let s = self.render_with(&kept, Some(cut));
            if !fits(&s) {
                // The estimate of the joined text can exceed the parts' sum:
                // then the section's start, as without passages.
                return Passage {
                    text: Cow::Borrowed(whole.text),
                    truncated: true,
                    passage: false,
                };
            }
            s
        };
        Passage {
            text: Cow::Owned(rendered),
            truncated: true,
            passage: true,
        }
    }

    /// Each unit's score for `words`: the weights of the query words it
    /// holds, each times its inverse frequency among the section's units
    /// (BM25's idf over the units), so that a word in every row of a table
    /// (`必須`) chooses less than one in a single paragraph.
    fn scores(&self, words: &QueryWords) -> Vec<f64> {
        let n = self.units.len().saturating_sub(1) as f64;
        let idf: Vec<f64> = words
            .0
            .iter()
            .map(|(w, _)| {
                let df = self
                    .words
                    .iter()
                    .skip(1)
                    .filter(|set| set.contains(w))
                    .count() as f64;
                crate::search::bm25::idf(n, df)
            })
            .collect();
        self.words
            .iter()
            .map(|set| {
                words
                    .0
                    .iter()
                    .zip(&idf)
                    .filter(|((w, _), _)| set.contains(w))
                    .map(|((_, weight), idf)| weight * idf)
                    .sum()
            })
            .collect()
    }

    /// The kept units in document order, joined as the module comment says.
    fn render(&self, kept: &[bool]) -> String {
        self.render_with(kept, None)
    }

    /// [`Self::render`]; `cut` replaces the text of the one kept unit that
    /// is not the head (and marks it as cut).
    fn render_with(&self, kept: &[bool], cut: Option<&str>) -> String {
        let text = self.text.as_str();
        let mut out = String::new();
        let mut last: Option<usize> = None;
        for (i, unit) in self.units.iter().enumerate() {
            if !kept[i] {
                continue;
            }
            if let Some(prev) = last {
                if prev + 1 == i {
                    out.push_str(&text[self.units[prev].end..unit.start]);
                } else {
                    // `…` set off as the text it replaces was: by a blank
                    // line after a paragraph, by a line break between lines.
                    out.push_str(self.separator_after(prev));
                    out.push_str(GAP);
                    out.push_str(self.separator_after(i - 1));
                }
            }
            match cut.filter(|_| i > 0) {
                Some(part) => {
                    // The cut unit is the only one after the head: done.
                    out.push_str(part);
                    out.push('\n');
                    out.push_str(GAP);
                    return out;
                }
                None => out.push_str(&text[unit.start..unit.end]),
            }
            last = Some(i);
        }
        if let Some(prev) = last.filter(|&p| p + 1 < self.units.len()) {
            out.push_str(self.separator_after(prev));
            out.push_str(GAP);
        }
        out
    }

    /// `"\n\n"` when a blank line follows unit `i` (it ends a paragraph),
    /// else `"\n"`.
    fn separator_after(&self, i: usize) -> &'static str {
        let end = self.units[i].end;
        let next = self.units.get(i + 1).map_or(self.text.len(), |u| u.start);
        if self.text[end..next].matches('\n').count() >= 2 {
            "\n\n"
        } else {
            "\n"
        }
    }
}

/// Whether `line` opens or closes a fenced code block (also inside a quote).
fn is_fence(line: &str) -> bool {
    let bare = line.trim_start().trim_start_matches('>').trim_start();
    bare.starts_with("```") || bare.starts_with("~~~")
}

/// The units of `text` (see the module comment): the first line, then the
/// paragraphs, each split into its lines when it does not fit the caps.
fn units(text: &str, max_chars: usize, max_tokens: usize) -> (Vec<Unit>, Vec<Option<usize>>) {
    // Lines as byte ranges without their line break.
    let mut lines: Vec<Unit> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        lines.push(Unit {
            start: at,
            end: at + body.len(),
        });
        at += line.len();
    }
    // Paragraphs: runs of non-blank lines, a code fence's blank lines included.
    let mut paragraphs: Vec<Vec<Unit>> = Vec::new();
    let mut current: Vec<Unit> = Vec::new();
    let mut in_fence = false;
    for (n, line) in lines.into_iter().enumerate() {
        let body = &text[line.start..line.end];
        if n == 0 {
            // The first line is a unit of its own: the head.
            if !body.trim().is_empty() {
                paragraphs.push(vec![line]);
            }
            in_fence = is_fence(body);
            continue;
        }
        if is_fence(body) {
            in_fence = !in_fence;
        }
        if body.trim().is_empty() && !in_fence {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
            continue;
        }
        current.push(line);
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    let mut units = Vec::new();
    let mut heads = Vec::new();
    for lines in paragraphs {
        let (first, last) = (lines[0], lines[lines.len() - 1]);
        let paragraph = &text[first.start..last.end];
        if paragraph.chars().count() > max_chars || estimate(paragraph) > max_tokens {
            let at = units.len();
            units.extend(
                lines
                    .into_iter()
                    .filter(|l| !text[l.start..l.end].trim().is_empty()),
            );
            // A table split into its rows: each row brings the header row
            // and the separator under it (a row without them is unreadable).
            let line = |i: usize| units.get(i).map(|u: &Unit| text[u.start..u.end].trim());
            let table = line(at).is_some_and(|l| l.starts_with('|'))
                && line(at + 1).is_some_and(|l| {
                    l.starts_with('|') && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
                });
            heads.resize(units.len(), None);
            if table {
                for head in heads.iter_mut().skip(at + 2) {
                    *head = Some(at);
                }
            }
        } else {
            units.push(Unit {
                start: first.start,
                end: last.end,
            });
            heads.push(None);
        }
    }
    (units, heads)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The words of L3 keywords `list` (also the adaptive hand-over's tests).
    pub(crate) fn words(list: &[&str]) -> QueryWords {
        let mut q = Query::default();
        for w in list {
            q.push(w, Level::L3, 1.0);
        }
        QueryWords::of(&q).unwrap_or_default()
    }

    fn passage(text: &str, query: &[&str], max_chars: usize) -> (String, bool, bool) {
        let p = Paragraphs::new(text, max_chars, usize::MAX)
            .map(|p| {
                let got = p.passage(&words(query));
                (got.text.into_owned(), got.truncated, got.passage)
            })
            .unwrap_or_default();
        assert!(p.0.chars().count() <= max_chars, "{p:?} over {max_chars}");
        p
    }

    const ENGLISH: &str = "## Paging\n\nIntro about the library.\n\nUse per and page to page results.\n\nTransactions are elsewhere.\n\nThe offset decides the first row of a page.";

    const JAPANESE: &str = "## ページング\n\nユニバーサルDAOの概要です。\n\n### 検索\n\nページングはperメソッドとpageメソッドで指定する。\n\nトランザクションの説明。\n\n件数の取得には別のSQLを発行する。";

    /// (text, query words, max chars, passage, truncated, is a passage)
    type Case<'a> = (&'a str, &'a [&'a str], usize, &'a str, bool, bool);

    #[test]
    fn bridged_words_choose_paragraphs() {
        let mut q = Query::default();
        q.push("retry", Level::Question, 1.0);
        let mut words = QueryWords::of(&q).unwrap_or_default();
        let bridge = |from: &str, to: &str| Bridge {
            from: from.into(),
            to: to.into(),
        };
        words.add_bridged(&[bridge("retry", "リトライ"), bridge("other", "アザー")]);
        assert_eq!(
            words,
            QueryWords(vec![("retry".into(), 1.0), ("リトライ".into(), 0.7)])
        );
    }

    #[test]
    fn paragraphs_are_chosen_by_the_query_words_they_hold() {
        let cases: &[Case<'_>] = &[
            // The whole section fits: as it is.
            (ENGLISH, &["page"], 1000, ENGLISH, false, false),
            // The two paragraphs with the words, in document order, gaps marked.
            (
                ENGLISH,
                &["page", "offset"],
                110,
                "## Paging\n\n…\n\nUse per and page to page results.\n\n…\n\nThe offset decides the first row of a page.",
                true,
                true,
            ),
            // Room for one: the one holding more of the words.
            (
                ENGLISH,
                &["page", "per", "offset"],
                60,
                "## Paging\n\n…\n\nUse per and page to page results.\n\n…",
                true,
                true,
            ),
            // No paragraph holds a word: the section's start, cut.
            (
                ENGLISH,
                &["zzz"],
                40,
                "## Paging\n\nIntro about the library.",
                true,
                false,
            ),
            // Japanese, tokenised like the query; the heading above comes along.
            (
                JAPANESE,
                &["ページング", "per"],
                70,
                "## ページング\n\n…\n\n### 検索\n\nページングはperメソッドとpageメソッドで指定する。\n\n…",
                true,
                true,
            ),
            // 件数 and SQL are in the last paragraph only; the nearest
            // heading above it comes along.
            (
                JAPANESE,
                &["件数", "SQL"],
                50,
                "## ページング\n\n…\n\n### 検索\n\n…\n\n件数の取得には別のSQLを発行する。",
                true,
                true,
            ),
        ];
        for &(text, query, max, want, truncated, is_passage) in cases {
            assert_eq!(
                passage(text, query, max),
                (want.to_owned(), truncated, is_passage),
                "{query:?} within {max}"
            );
        }
    }

    #[test]
    fn long_paragraphs_are_split_into_lines_and_code_fences_kept_whole() {
        let table = "## T\n\n| a | b |\n|---|---|\n| x | 1 |\n| paging | 2 |\n| y | 3 |\n\n```\nfn main() {\n\n    paging();\n}\n```";
        // (max chars, passage)
        let cases: &[(usize, &str)] = &[
            // The table (54 characters) is longer than 30: its lines are units.
            (30, "## T\n\n…\n| paging | 2 |\n…"),
            // Everything fits (98 characters).
            (
                100,
                "## T\n\n| a | b |\n|---|---|\n| x | 1 |\n| paging | 2 |\n| y | 3 |\n\n```\nfn main() {\n\n    paging();\n}\n```",
            ),
            // The table and the fence (36 characters, its blank line
            // inside) are one unit each; the table comes first.
            (
                80,
                "## T\n\n| a | b |\n|---|---|\n| x | 1 |\n| paging | 2 |\n| y | 3 |\n\n…",
            ),
        ];
        for &(max, want) in cases {
            assert_eq!(passage(table, &["paging"], max).0, want, "within {max}");
        }
    }

    #[test]
    fn a_matching_unit_too_long_for_the_cap_is_cut() {
        let text =
            "## T\n\nintro\n\npaging is done with per and page, and the rest of this line is long.";
        let (got, truncated, is_passage) = passage(text, &["paging"], 40);
        assert_eq!(got, "## T\n\n…\n\npaging is done with per and\n…");
        assert!(truncated && is_passage);
    }

    proptest::proptest! {
        /// Whatever the text, words and cap: within the cap; a passage keeps
        /// the first (non-blank) line; every other line one of the text's, in
        /// order, or a gap marker; and `passage` only with `truncated`.
        #[test]
        fn passages_are_in_order_within_the_cap(
            text in "(#|[a-c ]{0,6}|```)(\n{1,2}([a-c ]{0,12}|```|# [a-c]{1,3})){0,12}",
            query in proptest::collection::vec("[a-c]{1,3}", 0..3),
            max_chars in 1usize..60,
        ) {
            let query: Vec<&str> = query.iter().map(String::as_str).collect();
            let Ok(p) = Paragraphs::new(&text, max_chars, usize::MAX) else {
                return Err(proptest::test_runner::TestCaseError::fail("tokenizer failed"));
            };
            let got = p.passage(&words(&query));
            proptest::prop_assert!(got.text.chars().count() <= max_chars);
            proptest::prop_assert!(!got.passage || got.truncated);
            if got.passage {
                let first = |t: &str| t.lines().find(|l| !l.trim().is_empty()).map(str::to_owned);
                proptest::prop_assert_eq!(first(&got.text), first(&text));
            }
            let mut rest = text.lines();
            for line in got.text.lines().filter(|l| *l != GAP) {
                // A cut line is a prefix of the text's line.
                proptest::prop_assert!(rest.any(|l| l.starts_with(line.trim_end())), "{line:?}");
            }
        }
    }

    #[test]
    fn l1_words_count_less_and_each_word_once() {
        let mut q = Query::default();
        q.push("データベース", Level::L1, 1.0);
        q.push("ページング", Level::L3, 1.0);
        q.push("ページング", Level::L2, 1.0);
        let words = QueryWords::of(&q).unwrap_or_default();
        assert_eq!(
            words,
            QueryWords(vec![
                ("データベース".to_owned(), 0.3),
                ("ページング".to_owned(), 1.0)
            ])
        );
    }
}
