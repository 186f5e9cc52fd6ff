//! The lean search document: what an agent reads by default.
//!
//! An agent pays for every character kbidx prints. Per result the judge needs
//! the reference (to cite and to `kbidx read`), the title, one score and the
//! text handed over; the per-keyword explanations, the confidence signals and
//! the suggestions are for people tuning a search, so they come only with
//! `--explain` (suggestions also with `--suggest`). The three formats carry the
//! same fields; text output prints each section's text as it is, unescaped,
//! so that a judge can quote it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde::ser::SerializeStruct as _;

use super::tokens::estimate;
use super::{BudgetRow, Report, ResultRow, read};
use crate::index::toon::quote;
use crate::search::suggest::Suggestion;

/// The lean document of `report` (`suggest`: with the suggestions).
pub(crate) struct Lean<'a> {
    pub(crate) report: &'a Report,
    pub(crate) suggest: bool,
}

/// One result as the lean document shows it ([`shown`]): a result with the
/// title it shows ([`titles`]), and the text handed over for it and for the
/// results below it from the same file, which are folded into it.
struct Shown<'a> {
    row: &'a ResultRow,
    title: &'a str,
    /// The result's twins and those of the results folded into it.
    also: Vec<&'a str>,
    /// The result's text, then each folded result's after a line `[#anchor]`.
    content: Option<Cow<'a, str>>,
    /// Whether any of that text was cut.
    truncated: bool,
    /// Whether the last section's text in `content` was cut.
    last_cut: bool,
    /// The sections' text in `content`, its `[#anchor]` lines aside, each
    /// with its estimated tokens when the hand-over measured them (measured
    /// only by [`shown_text_size`]).
    texts: Vec<(Cow<'a, str>, Option<usize>)>,
}

impl Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Result", 6)?;
        m.serialize_field("reference", &self.row.reference)?;
        if !self.title.is_empty() {
            m.serialize_field("title", self.title)?;
        }
        m.serialize_field("score", &two_places(self.row.normalized_score))?;
        if !self.also.is_empty() {
            m.serialize_field("also", &self.also)?;
        }
        if self.content.is_some() && self.truncated {
            m.serialize_field("truncated", &true)?;
        }
        if let Some(content) = &self.content {
            m.serialize_field("content", content)?;
        }
        m.end()
    }
}

/// The results as the lean document shows them. A result with text whose
/// file already has a result with text above it is folded into that one:
/// its text follows the first's after a line `[#anchor]` (with its title
/// when its text does not open with its heading), its twins join the
/// first's `also`. An agent reads a file's sections together, and a
/// reference, title and score printed once per file instead of once per
/// section leave the budget to the text (a class's javadoc members, a
/// guide's short steps). A result whose text mostly repeats paragraphs
/// shown above ([`TWIN_SHARE`]; the same setup step for each project type,
/// one release note in two files) is folded into the result that shows the
/// most of them, after a line `[reference]` marked
/// [`TWIN_MARK`], with only its paragraphs not shown above: a judge
/// reads each paragraph once and still gets every line that differs.
/// Results without text stay as they are.
fn shown(results: &[ResultRow]) -> Vec<Shown<'_>> {
    let mut out: Vec<Shown<'_>> = Vec::new();
    let mut first_of_file: HashMap<&str, usize> = HashMap::new();
    // Each paragraph shown so far and the result that shows it.
    let mut seen: Seen<'_> = HashMap::new();
    for (row, title) in results.iter().zip(titles(results)) {
        let Some(text) = &row.content else {
            out.push(Shown::of(row, title));
            continue;
        };
        let keys: Vec<Key<'_>> = paragraphs(text).into_iter().map(Key::of).collect();
        let twin = repeats(&keys, &seen);
        let into = first_of_file
            .get(row.file.as_str())
            .copied()
            .or(twin.as_ref().map(|t| t.0));
        let Some(at) = into else {
            first_of_file.insert(&row.file, out.len());
            remember(&keys, out.len(), &mut seen);
            out.push(Shown::of(row, title));
            continue;
        };
        let into = &mut out[at];
        let mut joined = into.content.take().unwrap_or_default().into_owned();
        let end = joined.trim_end().len();
        joined.truncate(end);
        if into.last_cut && !joined.ends_with(super::GAP) {
            // A cut before another section's text: said where it is.
            joined.push('\n');
            joined.push_str(super::GAP);
        }
        if row.file == into.row.file {
            let _ = write!(joined, "\n\n[#{}]", row.section);
            let heading = header_title(&row.title, Some(text));
            if twin.is_none()
                && heading != header_title(&into.row.title, into.row.content.as_deref())
            {
                let _ = write!(joined, " {heading}");
            }
        } else {
            let _ = write!(joined, "\n\n[{}]", row.reference);
        }
        let piece = match &twin {
            Some((_, kept)) => {
                let _ = write!(joined, " {TWIN_MARK}");
                Cow::Owned(kept.join("\n\n"))
            }
            None => Cow::Borrowed(text.as_str()),
        };
        if !piece.is_empty() {
            joined.push('\n');
            joined.push_str(&piece);
        }
        let tokens = if twin.is_some() { None } else { row.tokens };
        into.texts.push((piece, tokens));
        into.content = Some(Cow::Owned(joined));
        into.truncated |= row.truncated;
        into.last_cut = row.truncated;
        into.also.extend(row.also.iter().map(String::as_str));
        if twin.is_none() {
            remember(&keys, at, &mut seen);
        }
    }
    out
}

/// The share of a section's text (white space aside) that paragraphs shown
/// above must hold for it to be shown as a twin of them.
const TWIN_SHARE: f64 = 0.5;

/// Paragraphs shorter than this (white space aside) are shown again, but for
/// headings: a short line between others carries its place, not knowledge.
const TWIN_MIN_PARAGRAPH: usize = 20;

/// What the line of a twin says after its reference.
pub(crate) const TWIN_MARK: &str = "(paragraphs shown above left out)";

/// `text`'s paragraphs: runs of lines between blank lines, a code fence
/// kept whole.
fn paragraphs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut at, mut fenced) = (None, 0, false);
    for line in text.split_inclusive('\n') {
        let body = line.trim();
        if body.starts_with("```") || body.starts_with("~~~") {
            fenced = !fenced;
        }
        if body.is_empty() && !fenced {
            if let Some(s) = start.take() {
                out.push(text[s..at].trim_end());
            }
        } else if start.is_none() {
            start = Some(at);
        }
        at += line.len();
    }
    if let Some(s) = start {
        out.push(text[s..].trim_end());
    }
    out
}

/// A paragraph as paragraphs are compared (ASCII white space aside): a hash
/// of its bytes and its character count, compared in full only when the
/// hashes meet (no string is built per paragraph: every measure of a
/// document renders it).
#[derive(Clone, Copy)]
struct Key<'t> {
    paragraph: &'t str,
    hash: u64,
    chars: usize,
}

/// `paragraph`'s bytes without ASCII white space.
fn squeezed(paragraph: &str) -> impl Iterator<Item = u8> + '_ {
    paragraph.bytes().filter(|b| !b.is_ascii_whitespace())
}

impl<'t> Key<'t> {
    fn of(paragraph: &'t str) -> Self {
        let (mut hash, mut chars) = (0u64, 0);
        for b in squeezed(paragraph) {
            hash = (hash.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
            // A character's first byte (not a UTF-8 continuation byte).
            chars += usize::from(b & 0xC0 != 0x80);
        }
        Self {
            paragraph,
            hash,
            chars,
        }
    }

    fn same(&self, other: &Key<'_>) -> bool {
        self.chars == other.chars && squeezed(self.paragraph).eq(squeezed(other.paragraph))
    }
}

/// The paragraphs shown so far, by hash, with the result that shows each
/// (the first showing wins).
type Seen<'t> = HashMap<u64, (Key<'t>, usize)>;

/// Whether the text of `keys` is a twin of paragraphs in `seen`: the result
/// showing the most of them, and its other paragraphs.
fn repeats<'t>(keys: &[Key<'t>], seen: &Seen<'_>) -> Option<(usize, Vec<&'t str>)> {
    let (mut total, mut repeated) = (0usize, 0usize);
    let mut by_result: HashMap<usize, usize> = HashMap::new();
    let mut kept = Vec::new();
    for key in keys {
        total += key.chars;
        match shown_at(key, seen) {
            Some(at) => {
                repeated += key.chars;
                *by_result.entry(at).or_default() += key.chars;
            }
            None => kept.push(key.paragraph),
        }
    }
    if total == 0 || (repeated as f64) < TWIN_SHARE * total as f64 {
        return None;
    }
    let at = by_result
        .into_iter()
        .max_by_key(|&(at, n)| (n, std::cmp::Reverse(at)))
        .map(|(at, _)| at)?;
    Some((at, kept))
}

/// The result that showed `key`'s paragraph already, when it counts as a
/// repeat: headings, and paragraphs of [`TWIN_MIN_PARAGRAPH`] characters or
/// more (a shorter line is shown again where it stands).
fn shown_at(key: &Key<'_>, seen: &Seen<'_>) -> Option<usize> {
    seen.get(&key.hash)
        .filter(|(other, _)| other.same(key))
        .map(|&(_, at)| at)
        .filter(|_| key.chars >= TWIN_MIN_PARAGRAPH || key.paragraph.starts_with('#'))
}

/// The paragraphs of `twin` that `shown` does not hold (ASCII white space
/// aside), in order, as a folded twin's own text: what `--collapse` hands
/// over after its representative's text, under a line `[reference]`
/// [`TWIN_MARK`] (a release note's one differing entry, the database-less
/// variant of a setup step); of a paragraph whose lines stand alone
/// ([`lines_stand_alone`]), the lines `shown` does not hold. Short
/// paragraphs but headings are kept, as in the lean document's twins; `None`
/// when nothing of 20 characters or more is left.
pub(crate) fn twin_text(shown: &str, twin: &str) -> Option<String> {
    let mut seen: Seen<'_> = HashMap::new();
    let keys: Vec<Key<'_>> = paragraphs(shown).into_iter().map(Key::of).collect();
    remember(&keys, 0, &mut seen);
    let mut lines: Seen<'_> = HashMap::new();
    let line_keys: Vec<Key<'_>> = shown
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(Key::of)
        .collect();
    remember(&line_keys, 0, &mut lines);
    let mut kept = Vec::new();
    let mut new = false;
    for key in paragraphs(twin).into_iter().map(Key::of) {
        if shown_at(&key, &seen).is_some() {
            continue;
        }
        let piece = if lines_stand_alone(key.paragraph) {
            // A paragraph of several lines (a release note's `No.: 19`,
            // `分類: 全般`, … entry): its lines shown above are left out too.
            let own: Vec<&str> = key
                .paragraph
                .lines()
                .filter(|line| {
                    let k = Key::of(line.trim());
                    k.chars > 0 && !lines.get(&k.hash).is_some_and(|(o, _)| o.same(&k))
                })
                .collect();
            Cow::Owned(own.join("\n"))
        } else {
            Cow::Borrowed(key.paragraph)
        };
        if piece.trim().is_empty() {
            continue;
        }
        // A long paragraph (or lines) not shown is new; a short line stays
        // in place.
        new |= Key::of(&piece).chars >= TWIN_MIN_PARAGRAPH;
        kept.push(piece);
    }
    new.then(|| kept.join("\n\n"))
}

/// Whether `paragraph`'s lines stand alone, so that a twin's can be compared
/// line by line: several lines (key-value lines, list items), and not a code
/// block or a table, where a line means nothing without the ones around it.
fn lines_stand_alone(paragraph: &str) -> bool {
    let first = paragraph.trim_start();
    paragraph.contains('\n')
        && !(first.starts_with("```")
            || first.starts_with("~~~")
            || first.starts_with('|')
            || first.starts_with('#'))
}

/// Records the paragraphs of `keys` as shown by result `at`.
fn remember<'t>(keys: &[Key<'t>], at: usize, seen: &mut Seen<'t>) {
    for &key in keys {
        seen.entry(key.hash).or_insert((key, at));
    }
}

impl<'a> Shown<'a> {
    /// A result shown on its own.
    fn of(row: &'a ResultRow, title: &'a str) -> Self {
        Self {
            row,
            title,
            also: row.also.iter().map(String::as_str).collect(),
            content: row.content.as_deref().map(Cow::Borrowed),
            truncated: row.truncated,
            last_cut: row.truncated,
            texts: row
                .content
                .as_deref()
                .map(|t| (Cow::Borrowed(t), row.tokens))
                .into_iter()
                .collect(),
        }
    }
}

/// Characters and estimated tokens of the sections' text the lean document
/// of `results` shows (a twin's paragraphs shown above counted once).
pub(crate) fn shown_text_size(results: &[ResultRow]) -> (usize, usize) {
    shown(results)
        .iter()
        .flat_map(|x| &x.texts)
        .fold((0, 0), |(c, t), (text, tokens)| {
            (
                c + text.chars().count(),
                t + tokens.unwrap_or_else(|| estimate(text)),
            )
        })
}

impl Serialize for Lean<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.report;
        let mut m = s.serialize_struct("Document", 7)?;
        m.serialize_field("version", &r.version)?;
        if !r.query_truncated.is_empty() {
            m.serialize_field("query_truncated", &r.query_truncated)?;
        }
        if !r.notes.is_empty() {
            m.serialize_field("notes", &r.notes)?;
        }
        m.serialize_field("total", &r.total)?;
        if self.suggest {
            m.serialize_field("suggest", &r.suggest)?;
        }
        m.serialize_field("results", &shown(&r.results))?;
        if let Some(budget) = &r.budget {
            m.serialize_field("budget", budget)?;
        }
        m.end()
    }
}

impl Lean<'_> {
    /// The document as TOON: a fixed set of columns per result
    /// (`reference,title,score,also`, then `truncated,content` when content
    /// was asked for), whatever the results hold.
    pub(crate) fn to_toon(&self) -> String {
        let r = self.report;
        let mut s = format!("version: {}\n", r.version);
        for note in &r.query_truncated {
            let _ = writeln!(s, "query_truncated: {}", quote(note, ','));
        }
        if !r.notes.is_empty() {
            let notes: Vec<String> = r.notes.iter().map(|n| quote(n, ',')).collect();
            let _ = writeln!(s, "notes[{}]: {}", notes.len(), notes.join(","));
        }
        let _ = writeln!(s, "total: {}", r.total);
        if self.suggest {
            push_suggest_table(&mut s, &r.suggest);
        }
        let with_content = r.budget.is_some() || r.results.iter().any(|x| x.content.is_some());
        let mut fields = vec!["reference", "title", "score", "also"];
        if with_content {
            fields.extend(["truncated", "content"]);
        }
        let rows: Vec<Vec<String>> = shown(&r.results)
            .iter()
            .map(|x| {
                let mut cells = vec![
                    quote(&x.row.reference, ','),
                    quote(x.title, ','),
                    two_places(x.row.normalized_score).to_string(),
                    quote(&x.also.join(" "), ','),
                ];
                if with_content {
                    cells.push((x.truncated && x.content.is_some()).to_string());
                    cells.push(quote(x.content.as_deref().unwrap_or_default(), ','));
                }
                cells
            })
            .collect();
        if rows.is_empty() {
            s.push_str("results[0]:\n");
        } else {
            crate::index::toon::push_table(&mut s, "results", &fields, &rows);
        }
        if let Some(budget) = &r.budget {
            push_toon_budget(&mut s, budget);
        }
        s
    }

    /// The document as text: a line per result (`[n] reference  title
    /// (score)`, `n` its place in the document, the title without the
    /// section heading its text opens with), its twins, and its text as the
    /// knowledge writes it, `…` on a line of its own where the budget cut
    /// it; a blank line between results.
    pub(crate) fn to_text(&self) -> String {
        let r = self.report;
        let mut s = String::new();
        for note in &r.query_truncated {
            let _ = writeln!(s, "note: query truncated: {note}");
        }
        if r.results.is_empty() {
            s.push_str("no results\n");
        }
        let shown = shown(&r.results);
        for (i, x) in shown.iter().enumerate() {
            if i > 0 && (x.content.is_some() || shown[i - 1].content.is_some()) {
                s.push('\n');
            }
            // The result's place in the document: a section folded into
            // its file's result or a twin's does not leave a gap.
            let _ = write!(s, "[{}] {}", i + 1, read::quote_reference(&x.row.reference));
            if !x.title.is_empty() {
                let _ = write!(s, "  {}", x.title);
            }
            let _ = writeln!(s, "  ({:.2})", x.row.normalized_score);
            if !x.also.is_empty() {
                let also: Vec<_> = x.also.iter().map(|a| read::quote_reference(a)).collect();
                let _ = writeln!(s, "also: {}", also.join(" "));
            }
            if let Some(content) = &x.content {
                s.push_str(content.trim_end());
                s.push('\n');
                if x.last_cut && !content.trim_end().ends_with(super::GAP) {
                    s.push_str(super::GAP);
                    s.push('\n');
                }
            }
        }
        if self.suggest && !r.suggest.is_empty() {
            let words: Vec<String> = r
                .suggest
                .iter()
                .map(|w| format!("{} ({}, {})", w.word, w.level, w.results))
                .collect();
            let _ = writeln!(s, "suggest: {}", words.join(", "));
        }
        if let Some(budget) = &r.budget {
            if r.results.iter().any(|x| x.content.is_some()) {
                s.push('\n');
            }
            s.push_str(&budget.describe());
        }
        s
    }
}

/// A normalized score as the lean document prints it: two decimals tell a
/// judge how far apart two results are; more are noise it pays for.
fn two_places(score: f64) -> f64 {
    (score * 100.0).round() / 100.0
}

/// The title each result shows: its [`header_title`], left out when an
/// earlier result of the same file showed the same (a file's title, said
/// once, is not said again for its other sections).
fn titles(results: &[ResultRow]) -> Vec<&str> {
    let mut shown: std::collections::HashSet<(&str, &str)> = std::collections::HashSet::new();
    results
        .iter()
        .map(|x| {
            let title = header_title(&x.title, x.content.as_deref());
            if shown.insert((x.file.as_str(), title)) {
                title
            } else {
                ""
            }
        })
        .collect()
}

/// The title a result shows: without its section's heading when the content
/// opens with that heading (`## heading`), which says it anyway.
fn header_title<'t>(title: &'t str, content: Option<&str>) -> &'t str {
    let heading = content
        .and_then(|c| c.lines().next())
        .and_then(|line| line.strip_prefix("## "))
        .map(str::trim);
    match heading {
        Some(h) if !h.is_empty() => title
            .strip_suffix(h)
            .and_then(|rest| rest.strip_suffix(" / "))
            .unwrap_or(title),
        _ => title,
    }
}

/// The `suggest` table in TOON.
pub(super) fn push_suggest_table(s: &mut String, suggest: &[Suggestion]) {
    if suggest.is_empty() {
        s.push_str("suggest[0]:\n");
        return;
    }
    let rows: Vec<Vec<String>> = suggest
        .iter()
        .map(|w| {
            vec![
                quote(&w.word, ','),
                w.level.to_string(),
                w.results.to_string(),
            ]
        })
        .collect();
    crate::index::toon::push_table(s, "suggest", &["word", "level", "results"], &rows);
}

/// The `budget` object in TOON.
pub(super) fn push_toon_budget(s: &mut String, budget: &BudgetRow) {
    s.push_str("budget:\n");
    for (key, cap) in [
        ("max_chars", budget.caps.max_chars),
        ("max_tokens", budget.caps.max_tokens),
        ("max_chars_per_result", budget.caps.max_chars_per_result),
        ("max_tokens_per_result", budget.caps.max_tokens_per_result),
    ] {
        if let Some(cap) = cap {
            let _ = writeln!(s, "  {key}: {cap}");
        }
    }
    let _ = writeln!(
        s,
        "  chars: {}\n  tokens: {}\n  content_chars: {}\n  content_tokens: {}",
        budget.chars, budget.tokens, budget.content_chars, budget.content_tokens
    );
    if budget.passages {
        s.push_str("  passages: true\n");
    }
}

#[cfg(test)]
mod tests {
    /// A twin's own text: its paragraphs the shown text lacks, short lines
    /// kept between them, nothing when every longer paragraph repeats.
    #[test]
    fn twin_text_keeps_the_paragraphs_the_shown_text_lacks() {
        let shown =
            "## Steps\n\nRun the build with the default profile.\n\nThen check the index is fresh.";
        // Lines of a paragraph shown above are left out of it too, in prose
        // and lists; a code block or a table differing in one line stays whole.
        let entry =
            "## Entry\n\nNo.: 15\nKind: change of the default profile\nModule: the build plugin";
        let cases: [(&str, &str, Option<&str>); 8] = [
            (shown, shown, None),
            // White space aside, the same paragraph.
            (
                shown,
                "## Steps\n\nRun the build   with the default profile.",
                None,
            ),
            (
                shown,
                "## Steps\n\nRun the build with the default profile.\n\nUse the database-less archetype.",
                Some("Use the database-less archetype."),
            ),
            (
                shown,
                "## Steps (batch)\n\nNo.: 43\n\nThen check the index is fresh.\n\nA paragraph only the twin has.",
                Some("## Steps (batch)\n\nNo.: 43\n\nA paragraph only the twin has."),
            ),
            (
                entry,
                "No.: 19\nKind: change of the default profile\nModule: the build plugin",
                None,
            ),
            (
                entry,
                "No.: 19\nKind: change of the default profile\nModule: the archetype of the batch",
                Some("No.: 19\nModule: the archetype of the batch"),
            ),
            (
                entry,
                "```\nNo.: 19\nKind: change of the default profile\n```",
                Some("```\nNo.: 19\nKind: change of the default profile\n```"),
            ),
            (
                entry,
                "| No. | Kind |\n|---|---|\n| 19 | change of the default profile |",
                Some("| No. | Kind |\n|---|---|\n| 19 | change of the default profile |"),
            ),
        ];
        for (above, twin, want) in cases {
            assert_eq!(twin_text(above, twin).as_deref(), want, "{twin}");
        }
    }
    use super::{TWIN_MARK, header_title, paragraphs, shown, titles, twin_text};
    use crate::output::{ResultRow, Stage};

    #[test]
    fn a_file_title_is_shown_once() {
        // (reference, title, content) → the title shown
        let cases: &[(&str, &str, Option<&str>, &str)] = &[
            ("a.json#s1", "A / One", Some("## One\ntext"), "A"),
            ("a.json#s2", "A / Two", Some("## Two\ntext"), ""),
            ("b.json#s1", "B / One", Some("## One\ntext"), "B"),
            // A result with no content shows its section's heading too.
            ("a.json#s3", "A / Three", None, "A / Three"),
            (
                "a.json#s4",
                "A / Four",
                Some("text without a heading"),
                "A / Four",
            ),
            // Another file with the same title says it again.
            ("c.json#s1", "A / One", Some("## One\ntext"), "A"),
            ("b.json#s2", "B / Two", Some("## Two\ntext"), ""),
        ];
        let rows: Vec<ResultRow> = cases
            .iter()
            .map(|&(reference, title, content, _)| {
                let mut row = ResultRow::of(reference, title, (1.0, 1.0), Stage::Index, Vec::new());
                row.content = content.map(str::to_owned);
                row
            })
            .collect();
        let want: Vec<&str> = cases.iter().map(|c| c.3).collect();
        assert_eq!(titles(&rows), want);
    }

    #[test]
    fn a_result_line_leaves_out_the_heading_its_text_opens_with() {
        let cases = [
            ("File / Sec / A", Some("## Sec / A\ntext"), "File"),
            ("File / Sec", Some("## Other\ntext"), "File / Sec"),
            ("File / Sec", None, "File / Sec"),
            ("File", Some("## File\ntext"), "File"),
            ("File / Sec", Some("text first"), "File / Sec"),
        ];
        for (title, content, shown) in cases {
            assert_eq!(header_title(title, content), shown, "{title:?} {content:?}");
        }
    }

    #[test]
    fn a_files_sections_are_folded_into_its_first_result_with_text() {
        // (reference, title, content, truncated, twins)
        type Row = (
            &'static str,
            &'static str,
            Option<&'static str>,
            bool,
            &'static [&'static str],
        );
        let rows: &[Row] = &[
            ("a.json#s1", "A / One", Some("## One\none"), true, &[]),
            ("b.json#s1", "B / One", Some("## One\nb"), false, &[]),
            (
                "a.json#s2",
                "A / Two",
                Some("## Two\ntwo"),
                false,
                &["c.json#s9"],
            ),
            (
                "a.json#s3",
                "A / Three",
                Some("three, no heading"),
                true,
                &[],
            ),
            ("a.json#s4", "A / Four", None, true, &[]),
        ];
        let rows: Vec<ResultRow> = rows
            .iter()
            .map(|&(reference, title, content, truncated, twins)| {
                let mut row = ResultRow::of(reference, title, (1.0, 1.0), Stage::Index, Vec::new());
                row.content = content.map(str::to_owned);
                row.truncated = truncated;
                row.also = twins.iter().map(|t| (*t).to_owned()).collect();
                row
            })
            .collect();
        let got: Vec<(&str, Option<String>, bool, Vec<&str>)> = shown(&rows)
            .into_iter()
            .map(|x| {
                let content = x.content.map(std::borrow::Cow::into_owned);
                (x.row.reference.as_str(), content, x.truncated, x.also)
            })
            .collect();
        let want: Vec<(&str, Option<String>, bool, Vec<&str>)> = vec![
            (
                "a.json#s1",
                // The cut first text is marked before the next section's;
                // s3's title is said as its text has no heading.
                Some(
                    "## One\none\n…\n\n[#s2]\n## Two\ntwo\n\n[#s3] A / Three\nthree, no heading"
                        .to_owned(),
                ),
                true,
                vec!["c.json#s9"],
            ),
            ("b.json#s1", Some("## One\nb".to_owned()), false, vec![]),
            // Without text: its own line.
            ("a.json#s4", None, true, vec![]),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn a_twins_paragraphs_shown_above_are_left_out() {
        let setup = "## Setup\n\nRun the generator with the archetype of your choice.\n\n```sh\nmvn archetype:generate\n```";
        let other = "## Setup\n\nRun the generator with the archetype of your choice.\n\n```sh\nmvn archetype:generate -Ddbless\n```";
        let half = "## Notes\n\nRun the generator with the archetype of your choice.\n\nA paragraph of its own, long enough to count.\n\nAnother paragraph of its own, long enough too.";
        // (reference, content) → (reference, content shown)
        let rows: &[(&str, Option<&str>)] = &[
            ("web.json#s1", Some(setup)),
            ("batch.json#s1", Some(setup)),
            ("dbless.json#s1", Some(other)),
            ("notes.json#s1", Some(half)),
            ("web.json#s2", Some(setup)),
            ("none.json#s1", None),
        ];
        let rows: Vec<ResultRow> = rows
            .iter()
            .map(|&(reference, content)| {
                let mut row = ResultRow::of(reference, "T", (1.0, 1.0), Stage::Index, Vec::new());
                row.content = content.map(str::to_owned);
                row
            })
            .collect();
        let got: Vec<(&str, Option<String>)> = shown(&rows)
            .into_iter()
            .map(|x| {
                (
                    x.row.reference.as_str(),
                    x.content.map(std::borrow::Cow::into_owned),
                )
            })
            .collect();
        let mark = TWIN_MARK;
        let want: Vec<(&str, Option<String>)> = vec![
            (
                "web.json#s1",
                // A whole twin: its line alone. A twin with a differing code
                // block: that block (a fence is one paragraph). A section of
                // the same file folds as a file's section does, its repeats
                // left out too.
                Some(format!(
                    "{setup}\n\n[batch.json#s1] {mark}\n\n[dbless.json#s1] {mark}\n```sh\nmvn archetype:generate -Ddbless\n```\n\n[#s2] {mark}"
                )),
            ),
            // Under half of it repeated: shown whole, on its own line.
            ("notes.json#s1", Some(half.to_owned())),
            ("none.json#s1", None),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn paragraphs_split_at_blank_lines_outside_code_fences() {
        let cases: &[(&str, &[&str])] = &[
            ("a\n\nb", &["a", "b"]),
            ("a\n\n\n\nb\n", &["a", "b"]),
            ("a\n```\nx\n\ny\n```\n\nb", &["a\n```\nx\n\ny\n```", "b"]),
            ("  \n\n", &[]),
        ];
        for &(text, want) in cases {
            assert_eq!(paragraphs(text), want, "{text:?}");
        }
    }
}
