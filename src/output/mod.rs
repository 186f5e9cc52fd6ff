//! Rendering search results for people (text) and for the judgement step (JSON, TOON).
//!
//! [`Report`] is the documented result document (see docs/output.md);
//! [`Report::render`] writes it in the chosen [`Format`]. The JSON is always
//! a complete document, also when there are no results.

use std::io::Write;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::index::toon::quote;
use crate::search::body::BodyHit;
use crate::search::body_match::Bridge;
use crate::search::fallback;
use crate::search::suggest::Suggestion;
use crate::search::{
    Level, Matcher, Outcome, Placed, Query, Ranking, Scoring, Searcher, Source, Stages,
};

pub(crate) mod budget;
pub(crate) mod build;
pub(crate) mod confidence;
pub(crate) mod lean;
pub(crate) mod read;
pub(crate) mod tokens;

use budget::Budget;
pub(crate) use confidence::Confidence;

/// The line that stands where text was left out (a cut, a passage's gap).
pub(crate) const GAP: &str = "…";

/// Output format of `kbidx search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Format {
    /// One line per result (plus explanations and content when asked).
    #[default]
    Text,
    /// The JSON document described in docs/output.md.
    Json,
    /// The same document as TOON (results as a tabular array).
    Toon,
}

/// The layout version of the search document, which clients can check: 2
/// is the lean document (see [`lean`]) and the budget that bounds the whole
/// document; 3 folds a file's sections into its first result with text; 4
/// shows a twin's paragraphs once, after a line `[reference] (…)`.
pub(crate) const DOCUMENT_VERSION: u32 = 4;

/// How a report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    /// Text, JSON or TOON.
    pub(crate) format: Format,
    /// The whole document (`--explain`): every field, per-keyword explanations,
    /// confidence and suggestions; else the lean document.
    pub(crate) explain: bool,
    /// The suggestions in the lean document too (`--suggest`).
    pub(crate) suggest: bool,
    /// JSON indented (when stdout is a terminal); else one line.
    pub(crate) pretty: bool,
}

/// The search result document.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    /// [`DOCUMENT_VERSION`].
    pub version: u32,
    /// The plain question, if the keywords came from one.
    pub query: Option<String>,
    /// The keywords searched for, by level (`q`: extracted from the question).
    pub keywords: KeywordLists,
    /// What of the query was cut to keep the work bounded (a question over
    /// 4,000 characters, a keyword over 200, keywords past 256); absent when
    /// nothing was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub query_truncated: Vec<String>,
    /// `default` or `seed`.
    pub scoring: &'static str,
    /// Rows that scored, before the `--top` cut.
    pub total: usize,
    /// With the two-pass search on: the mode that ran (`hierarchical` or `flat`) and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_mode: Option<SearchModeRow>,
    /// What the full-text fallback did: `off`, `not needed`, `no knowledge
    /// directory`, `over body_limit` or `ran`.
    pub fallback: &'static str,
    /// What of the ranking did not run, for people (the knowledge over
    /// `body_limit`, see `search::limit`); absent when nothing was left out.
    /// `kbidx search` also prints each on stderr.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// For `--explain`: why the fallback ran or not.
    #[serde(skip)]
    pub fallback_note: String,
    /// Words for a second search: shared by the top results, rare in the
    /// index, absent from the query (see `search::suggest`).
    pub suggest: Vec<Suggestion>,
    /// How likely the top results answer the query (see [`Confidence`]).
    pub confidence: Confidence,
    /// The results, best first.
    pub results: Vec<ResultRow>,
    /// The content budget and what was used of it, when a budget was set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetRow>,
}

/// A budget (`--max-chars`, `--max-tokens`: the whole document; the
/// per-result caps: each result's content) and its use.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BudgetRow {
    /// The caps that were set.
    #[serde(flatten)]
    pub caps: Budget,
    /// Characters of the whole printed document (this object included).
    pub chars: usize,
    /// Estimated tokens of the whole printed document (see `tokens`).
    pub tokens: usize,
    /// Characters of content attached.
    pub content_chars: usize,
    /// Estimated tokens of content attached.
    pub content_tokens: usize,
    /// Whether content was handed over as query-focused passages (`--passages`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub passages: bool,
}

/// Keywords by level.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct KeywordLists {
    /// Domain keywords.
    pub l1: Vec<String>,
    /// Component keywords.
    pub l2: Vec<String>,
    /// Function keywords.
    pub l3: Vec<String>,
    /// Keywords extracted from the question.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub q: Vec<String>,
}

impl KeywordLists {
    /// The keywords of `query`, by level.
    pub(crate) fn of(query: &Query) -> Self {
        let mut keywords = Self::default();
        for k in &query.keywords {
            let list = match k.level {
                Level::L1 => &mut keywords.l1,
                Level::L2 => &mut keywords.l2,
                Level::L3 => &mut keywords.l3,
                Level::Question => &mut keywords.q,
            };
            list.push(k.text.clone());
        }
        keywords
    }
}

/// The stage that found a result, or the one a match of it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Stage {
    /// The index pass.
    Index,
    /// The full-text fallback.
    Fulltext,
    /// The body stage.
    Body,
    /// A linked neighbour (`--expand`).
    Linked,
    /// PostgreSQL's ranking.
    Pg,
}

impl Stage {
    /// The name reports write.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Index => "index",
            Self::Fulltext => "fulltext",
            Self::Body => "body",
            Self::Linked => "linked",
            Self::Pg => "pg",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One result.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ResultRow {
    /// 1-based rank.
    pub rank: usize,
    /// `path#section`.
    pub reference: String,
    /// The knowledge file (path relative to the knowledge directory).
    pub file: String,
    /// The section id.
    pub section: String,
    /// The row's title, when it has one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Score (rounded to 4 decimals).
    pub score: f64,
    /// Score relative to the query's ideal, 0–1 (rounded to 4 decimals).
    pub normalized_score: f64,
    /// Which stage found it: `index`, `fulltext` (the fallback) or `linked` (`--expand`).
    pub stage: Stage,
    /// What matched.
    pub matched: Vec<MatchedRow>,
    /// Fallback results: the section text around the first match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
    /// The section's text (`--with-content`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Whether `content` was cut by a budget, or left out because the
    /// budget was spent (absent when not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Whether `content` is a query-focused passage (`--passages`): the
    /// section's first line and the paragraphs holding the query's words,
    /// `…` where text was left out (absent when not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub passage: bool,
    /// Estimated tokens of `content` (see `tokens`), when it is attached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
    /// `stage: "linked"` (`--expand`): the result this section is linked
    /// with (it links here, or this section links to it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// References folded here, best first, all ranked above the last result
    /// shown: this file's other sections (`--group-by file`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<String>,
    /// Twins folded here, best first: sections whose text nearly repeats
    /// this one's (in another file or the same), ranked above the last
    /// result shown; this result's content stands for theirs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

impl ResultRow {
    /// A result for row `row` of `matcher`, found by `stage`, with `matched` (rank set later).
    fn new(
        matcher: &Matcher<'_>,
        row: usize,
        scores: (f64, f64),
        stage: Stage,
        matched: Vec<MatchedRow>,
    ) -> Self {
        let entry = matcher.entry(row);
        Self::of(&entry.reference, &entry.title, scores, stage, matched)
    }

    /// A result for the section `reference` titled `title` (scores rounded;
    /// rank, content and the rest set later): any backend's rows.
    pub(crate) fn of(
        reference: &str,
        title: &str,
        (score, normalized): (f64, f64),
        stage: Stage,
        matched: Vec<MatchedRow>,
    ) -> Self {
        let (file, section) = crate::index::model::split_reference(reference);
        Self {
            rank: 0,
            reference: reference.to_owned(),
            file: file.to_owned(),
            section: section.to_owned(),
            title: title.to_owned(),
            score: round(score),
            normalized_score: round(normalized),
            stage,
            matched,
            excerpt: None,
            content: None,
            truncated: false,
            passage: false,
            tokens: None,
            via: None,
            more: Vec::new(),
            also: Vec::new(),
        }
    }
}

/// The two-pass search's decision.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SearchModeRow {
    /// `hierarchical` (sections blended with their file's score) or `flat`.
    pub mode: &'static str,
    /// Why, with the numbers that decided it.
    pub reason: String,
}

/// One matched keyword of a result.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MatchedRow {
    /// The keyword as given.
    pub keyword: String,
    /// `l1`, `l2`, `l3` or `q`.
    pub level: &'static str,
    /// `title`, `hints`, `path` or `file_title`.
    pub field: &'static str,
    /// Points added (rounded to 4 decimals).
    pub points: f64,
    /// Compound parts that matched when the whole keyword did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Vec<String>>,
    /// `body` for a match of the body stage (a word of the section's title,
    /// hints, terms or text, as tokenised, or a keyword found literally in
    /// the text, field `text`); absent for the index pass's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    /// Whether `points` is part of `score` (absent when it is): the counted
    /// entries of a result sum to its score.
    #[serde(skip_serializing_if = "is_true")]
    pub counted: bool,
    /// Why an entry is not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<&'static str>,
    /// The factor of a path weight (field `weight`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub factor: Option<f64>,
    /// The body stage's bridge, when `keyword` is one bridged word (reports
    /// write it in `keyword`; passages and confidence read it here).
    #[serde(skip)]
    pub bridge: Option<Bridge>,
}

impl MatchedRow {
    /// The entry of a path weight: its globs as the keyword, and the points
    /// it added to the score (negative when it demoted), so that the
    /// counted points still sum to the score.
    fn weight(applied: &crate::search::weight::Applied) -> Self {
        Self {
            keyword: applied.globs.join(", "),
            level: "-",
            field: "weight",
            points: round(applied.points),
            partial: None,
            stage: None,
            counted: true,
            why: None,
            factor: Some(applied.factor),
            bridge: None,
        }
    }
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Why the body stage's entries are not in a levelled-keyword search's score.
const TIE_BREAK_ONLY: &str = "levelled keywords: the body stage's words only break ties";

impl From<&crate::search::Match> for MatchedRow {
    fn from(m: &crate::search::Match) -> Self {
        Self {
            keyword: m.keyword.clone(),
            level: m.level.as_str(),
            field: m.field.as_str(),
            points: round(m.points),
            partial: m.partial.clone(),
            stage: None,
            counted: true,
            why: None,
            factor: None,
            bridge: None,
        }
    }
}

impl From<&fallback::TermMatch> for MatchedRow {
    fn from(m: &fallback::TermMatch) -> Self {
        Self {
            keyword: m.keyword.clone(),
            level: m.level.as_str(),
            field: m.field,
            points: round(m.points),
            partial: m.partial.clone(),
            stage: None,
            counted: true,
            why: None,
            factor: None,
            bridge: None,
        }
    }
}

impl Report {
    /// The report of `ranking`, which `searcher` ranked for `query` with
    /// `scoring` and `top` results: its results in the ranking's order, with
    /// what each matched (suggestions and confidence are set later).
    pub(crate) fn of(
        searcher: &Searcher<'_>,
        query: &Query,
        scoring: Scoring,
        ranking: &Ranking,
        top: usize,
    ) -> Self {
        let sections = match (&ranking.stages, searcher.matcher()) {
            (
                Stages::Index {
                    outcome,
                    pass,
                    body,
                },
                Some(matcher),
            ) => {
                let mut report = Self::new(matcher, query, scoring, ranking, outcome);
                report.apply_fallback(matcher, ranking, (outcome, pass.as_ref(), body), top);
                return report;
            }
            (Stages::Sections(ranked), _) => &ranked.sections,
            // An index ranking always comes with its matcher.
            (Stages::Index { .. }, None) => return Self::new_empty(query, scoring, ranking),
        };
        // A backend's own sections: one stage, scores normalised by the query's best.
        let mut report = Self::new_empty(query, scoring, ranking);
        let best = sections
            .first()
            .map_or(1.0, |h| h.score.max(f64::MIN_POSITIVE));
        for placed in &ranking.results {
            let Source::Section(k) = placed.source else {
                continue;
            };
            let hit = &sections[k];
            let matched = hit
                .matched
                .iter()
                .map(|(keyword, level, weight)| MatchedRow {
                    keyword: keyword.clone(),
                    level: level.as_str(),
                    field: "tsvector",
                    points: round(*weight),
                    partial: None,
                    stage: Some(Stage::Pg),
                    counted: true,
                    why: None,
                    factor: None,
                    bridge: None,
                })
                .chain(placed.weight.as_ref().map(MatchedRow::weight))
                .collect();
            // Weighted rankings: the score that put the row here.
            let scores = placed
                .fused
                .unwrap_or((hit.score, (hit.score / best).min(1.0)));
            report.results.push(ResultRow {
                rank: report.results.len() + 1,
                more: placed.more.clone(),
                also: placed.also.clone(),
                ..ResultRow::of(&hit.reference, &hit.title, scores, Stage::Pg, matched)
            });
        }
        report
    }

    /// A report with no results yet.
    fn new_empty(query: &Query, scoring: Scoring, ranking: &Ranking) -> Self {
        Self {
            version: DOCUMENT_VERSION,
            query: query.question.clone(),
            keywords: KeywordLists::of(query),
            query_truncated: query.truncated.clone(),
            scoring: scoring.as_str(),
            total: ranking.total(),
            search_mode: ranking.mode().map(|m| SearchModeRow {
                mode: m.as_str(),
                reason: m.reason.clone(),
            }),
            fallback: fallback::Status::Off.as_str(),
            notes: Vec::new(),
            fallback_note: String::new(),
            suggest: Vec::new(),
            confidence: Confidence::default(),
            results: Vec::new(),
            budget: None,
        }
    }

    /// Builds the report for `outcome` (the index pass of `ranking`) of
    /// `query` over `entries` (the matcher's rows).
    fn new(
        entries: &Matcher<'_>,
        query: &Query,
        scoring: Scoring,
        ranking: &Ranking,
        outcome: &Outcome,
    ) -> Self {
        let results = outcome
            .hits
            .iter()
            .enumerate()
            .map(|(i, hit)| {
                let matched = hit.matched.iter().map(MatchedRow::from).collect();
                ResultRow {
                    rank: i + 1,
                    ..ResultRow::new(
                        entries,
                        hit.row,
                        (hit.score, hit.normalized),
                        Stage::Index,
                        matched,
                    )
                }
            })
            .collect();
        Self {
            results,
            ..Self::new_empty(query, scoring, ranking)
        }
    }

    /// Merges the fallback's hits into the index pass's results in the
    /// ranking's final order (see [`fallback::merge`]) and renumbers the ranks.
    fn apply_fallback(
        &mut self,
        entries: &Matcher<'_>,
        ranking: &Ranking,
        (outcome, pass, body): (&Outcome, Option<&fallback::Pass>, &[BodyHit]),
        top: usize,
    ) {
        self.fallback = pass.map_or(fallback::Status::Off, |p| p.status).as_str();
        self.fallback_note = match pass {
            None => String::new(),
            Some(pass) if pass.status == fallback::Status::Off => String::new(),
            Some(pass) if pass.status == fallback::Status::Ran && pass.unreadable > 0 => format!(
                " ({} of {} index results confident; {} sections could not be read)",
                pass.confident,
                outcome.hits.len(),
                pass.unreadable
            ),
            Some(pass) => format!(
                " ({} of {} index results confident; runs when fewer than {} are and fewer than --top {} were found)",
                pass.confident,
                outcome.hits.len(),
                pass.min,
                top
            ),
        };
        // The index pass's results in their own order are already in place.
        let as_is =
            ranking.results.len() == self.results.len()
                && ranking.results.iter().enumerate().all(|(i, p)| {
                    matches!(p.source, Source::Index(k) if k == i) && p.fused.is_none()
                });
        let fulltext = pass.map_or(&[][..], |p| &p.hits);
        if fulltext.is_empty() && as_is {
            return;
        }
        let mut index_results: Vec<Option<ResultRow>> = std::mem::take(&mut self.results)
            .into_iter()
            .map(Some)
            .collect();
        let rows = ranking.rows();
        for (i, placed) in ranking.results.iter().enumerate() {
            let row = match placed.source {
                Source::Index(k) => index_results[k].take(),
                Source::Fulltext(k) => {
                    let hit = &fulltext[k];
                    let matched = hit.matched.iter().map(MatchedRow::from).collect();
                    Some(ResultRow {
                        excerpt: Some(hit.excerpt.clone()),
                        ..ResultRow::new(
                            entries,
                            hit.row,
                            (hit.score, hit.normalized),
                            Stage::Fulltext,
                            matched,
                        )
                    })
                }
                Source::Body(k) => {
                    let hit = &body[k];
                    Some(ResultRow::new(
                        entries,
                        hit.row,
                        (hit.score, 0.0),
                        Stage::Body,
                        Vec::new(),
                    ))
                }
                Source::Text(row) => Some(ResultRow::new(
                    entries,
                    row,
                    (0.0, 0.0),
                    Stage::Body,
                    Vec::new(),
                )),
                // Not in an index ranking.
                Source::Section(_) => None,
            };
            if let Some(mut row) = row {
                row.rank = i + 1;
                let body_hit = body.iter().find(|h| h.row == rows[i]);
                placed_matches(&mut row, placed, body_hit);
                self.results.push(row);
            }
        }
    }

    /// Appends up to `n` linked neighbours of the results (see
    /// `crate::links::expand`) as `stage: "linked"` rows with `via`, after
    /// everything ranked: they take only the budget the ranked results leave.
    pub(crate) fn expand(&mut self, matcher: &Matcher<'_>, links: &[crate::links::Link], n: usize) {
        let graph = crate::links::expand::Graph::new(links);
        let ranked: Vec<&str> = self.results.iter().map(|r| r.reference.as_str()).collect();
        let found = graph.neighbours(&ranked, n);
        if found.is_empty() {
            return;
        }
        let mut rows: std::collections::HashMap<&str, usize> =
            found.iter().map(|(r, _)| (*r, usize::MAX)).collect();
        for row in 0..matcher.len() {
            let entry = matcher.entry(row);
            if let Some(slot) = rows.get_mut(entry.reference.as_ref()) {
                *slot = row;
            }
        }
        let mut added = Vec::new();
        for (reference, via) in found {
            // A link names a section the index has no row for only when the
            // links file is older than the index: skip it.
            let Some(&row) = rows.get(reference).filter(|&&row| row != usize::MAX) else {
                continue;
            };
            let mut result = ResultRow::new(matcher, row, (0.0, 0.0), Stage::Linked, Vec::new());
            result.via = Some(via);
            added.push(result);
        }
        for mut result in added {
            result.rank = self.results.len() + 1;
            self.results.push(result);
        }
    }

    /// The report as `style` prints it.
    pub(crate) fn document(&self, style: Style) -> String {
        let lean = lean::Lean {
            report: self,
            suggest: style.suggest,
        };
        match (style.format, style.explain) {
            (Format::Json, false) => json_line(&lean, style.pretty),
            (Format::Json, true) => json_line(self, style.pretty),
            (Format::Toon, false) => lean.to_toon(),
            (Format::Toon, true) => self.to_toon(),
            (Format::Text, false) => lean.to_text(),
            (Format::Text, true) => self.to_text(),
        }
    }

    /// Keeps the results after the last one with content while their
    /// reference and title take at most `(chars, tokens)` (estimated), and
    /// drops the rest: the agent sees further candidates to read without
    /// the budget going to a long list.
    pub(crate) fn list_past_content(&mut self, (chars, tokens): (usize, usize)) {
        // The first result stays, with or without content.
        let first = self
            .results
            .iter()
            .rposition(|r| r.content.is_some())
            .map_or(1, |i| i + 1);
        let (mut used_chars, mut used_tokens) = (0, 0);
        let mut keep = first.min(self.results.len());
        for r in self.results.iter().skip(keep) {
            // The line's fixed part: rank or keys, score, separators.
            used_chars += r.reference.chars().count() + r.title.chars().count() + 24;
            used_tokens += tokens::estimate(&r.reference) + tokens::estimate(&r.title) + 10;
            if used_chars > chars || used_tokens > tokens {
                break;
            }
            keep += 1;
        }
        self.results.truncate(keep);
    }

    /// Writes the report as `style` prints it.
    pub(crate) fn render(&self, style: Style, out: &mut dyn Write) -> Result<()> {
        out.write_all(self.document(style).as_bytes())
            .map_err(|e| Error::io("<stdout>", "cannot write", e))
    }

    /// Characters and estimated tokens of the report as `style` prints it.
    pub(crate) fn size(&self, style: Style) -> (usize, usize) {
        let doc = self.document(style);
        (doc.chars().count(), tokens::estimate(&doc))
    }

    /// The whole document as text: per result its stage, excerpt and
    /// matched keywords with their points.
    fn to_text(&self) -> String {
        let mut s = String::new();
        for note in &self.query_truncated {
            s.push_str(&format!("note: query truncated: {note}\n"));
        }
        if let Some(mode) = &self.search_mode {
            s.push_str(&format!("search mode: {} ({})\n", mode.mode, mode.reason));
        }
        if self.results.is_empty() {
            s.push_str("no results\n");
        }
        for r in &self.results {
            s.push_str(&format!(
                "{:>3}. {:>8.3}  {}",
                r.rank,
                r.score,
                read::quote_reference(&r.reference)
            ));
            if !r.title.is_empty() {
                s.push_str(&format!("  {}", r.title));
            }
            match (&r.via, r.stage) {
                (Some(via), stage) => {
                    s.push_str(&format!("  [{stage} via {}]", read::quote_reference(via)));
                }
                (None, Stage::Index) => {}
                (None, stage) => s.push_str(&format!("  [{stage}]")),
            }
            if !r.more.is_empty() {
                s.push_str(&format!("  (+{} more in this file)", r.more.len()));
            }
            s.push('\n');
            if !r.also.is_empty() {
                let also: Vec<_> = r.also.iter().map(|a| read::quote_reference(a)).collect();
                s.push_str(&format!("       also: {}\n", also.join(" ")));
            }
            s.push_str(&format!("       stage: {}\n", r.stage));
            if let Some(excerpt) = &r.excerpt {
                s.push_str(&format!("       excerpt: {excerpt}\n"));
            }
            for m in &r.matched {
                let partial = m
                    .partial
                    .as_ref()
                    .map(|p| format!(" (parts: {})", p.join(", ")))
                    .unwrap_or_default();
                let stage = m
                    .stage
                    .map(|stage| format!(" ({stage} stage)"))
                    .unwrap_or_default();
                let counted = if m.counted { "" } else { " [not in score]" };
                let factor = m.factor.map(|f| format!(" (×{f})")).unwrap_or_default();
                s.push_str(&format!(
                    "       {:<2} {:<10} {:>+8.3}  {}{factor}{partial}{stage}{counted}\n",
                    m.level, m.field, m.points, m.keyword
                ));
            }
            if let Some(content) = &r.content {
                for line in content.lines() {
                    if line.is_empty() {
                        s.push('\n');
                    } else {
                        s.push_str(&format!("     | {line}\n"));
                    }
                }
                if r.truncated && !content.ends_with(GAP) {
                    s.push_str("     | …\n");
                }
            }
        }
        if !self.suggest.is_empty() {
            let words: Vec<String> = self
                .suggest
                .iter()
                .map(|w| format!("{} ({}, {})", w.word, w.level, w.results))
                .collect();
            s.push_str(&format!("suggest: {}\n", words.join(", ")));
        }
        if !self.results.is_empty() {
            s.push_str(&self.confidence.describe());
        }
        s.push_str(&format!(
            "full-text fallback: {}{}\n",
            self.fallback, self.fallback_note
        ));
        if let Some(budget) = &self.budget {
            s.push_str(&budget.describe());
        }
        s
    }

    /// The report as TOON (`--format toon`): the query and its keywords,
    /// the suggestions, the confidence, the budget and the results table,
    /// written with [`crate::index::toon`]'s quoting and table writer.
    fn to_toon(&self) -> String {
        let mut s = String::new();
        self.push_toon_head(&mut s);
        lean::push_suggest_table(&mut s, &self.suggest);
        self.push_toon_confidence(&mut s);
        if let Some(budget) = &self.budget {
            lean::push_toon_budget(&mut s, budget);
        }
        self.push_toon_results(&mut s);
        s
    }

    /// `query`, `keywords`, `scoring`, `total`, `fallback` and `search_mode`.
    fn push_toon_head(&self, s: &mut String) {
        s.push_str(&format!(
            "query: {}\n",
            self.query
                .as_deref()
                .map_or("null".to_owned(), |q| quote(q, ','))
        ));
        s.push_str("keywords:\n");
        for (name, list) in [
            ("l1", &self.keywords.l1),
            ("l2", &self.keywords.l2),
            ("l3", &self.keywords.l3),
            ("q", &self.keywords.q),
        ] {
            if name == "q" && list.is_empty() {
                continue;
            }
            let items: Vec<String> = list.iter().map(|k| quote(k, ',')).collect();
            if items.is_empty() {
                s.push_str(&format!("  {name}[0]:\n"));
            } else {
                s.push_str(&format!("  {name}[{}]: {}\n", items.len(), items.join(",")));
            }
        }
        s.push_str(&format!(
            "scoring: {}\ntotal: {}\nfallback: {}\n",
            self.scoring,
            self.total,
            quote(self.fallback, ',')
        ));
        if let Some(mode) = &self.search_mode {
            s.push_str(&format!(
                "search_mode:\n  mode: {}\n  reason: {}\n",
                mode.mode,
                quote(&mode.reason, ',')
            ));
        }
    }

    /// The `confidence` object.
    fn push_toon_confidence(&self, s: &mut String) {
        let c = &self.confidence;
        s.push_str(&format!("confidence:\n  level: {}\n", c.level));
        if let Some(ratio) = c.tail_ratio {
            s.push_str(&format!("  tail_ratio: {ratio}\n"));
        }
        if let Some(rank) = c.stage_rank {
            s.push_str(&format!("  stage_rank: {rank}\n"));
        }
        s.push_str(&format!(
            "  concepts: {}\n  matched_concepts: {}\n",
            c.concepts, c.matched_concepts
        ));
    }

    /// The `results` table: its columns are those some result has.
    fn push_toon_results(&self, s: &mut String) {
        if self.results.is_empty() {
            s.push_str("results[0]:\n");
            return;
        }
        let with_content = self.results.iter().any(|r| r.content.is_some());
        let with_excerpt = self.results.iter().any(|r| r.excerpt.is_some());
        let mut fields = vec![
            "rank",
            "reference",
            "title",
            "score",
            "normalized_score",
            "stage",
            "matched",
        ];
        if with_excerpt {
            fields.push("excerpt");
        }
        let with_via = self.results.iter().any(|r| r.via.is_some());
        if with_via {
            fields.push("via");
        }
        let with_more = self.results.iter().any(|r| !r.more.is_empty());
        if with_more {
            fields.push("more");
        }
        let with_also = self.results.iter().any(|r| !r.also.is_empty());
        if with_also {
            fields.push("also");
        }
        if with_content {
            fields.extend(["content", "truncated", "tokens"]);
        }
        let with_passage = self.results.iter().any(|r| r.passage);
        if with_passage {
            fields.push("passage");
        }
        let mut rows = Vec::with_capacity(self.results.len());
        for r in &self.results {
            let matched: Vec<String> = r
                .matched
                .iter()
                .map(|m| {
                    let field = match m.stage {
                        Some(stage) => format!("{stage}/{}", m.field),
                        None => m.field.to_owned(),
                    };
                    format!("{}:{field}:{}:{}", m.level, m.points, m.keyword)
                })
                .collect();
            let mut cells = vec![
                r.rank.to_string(),
                quote(&r.reference, ','),
                quote(&r.title, ','),
                r.score.to_string(),
                r.normalized_score.to_string(),
                r.stage.as_str().to_owned(),
                quote(&matched.join(" "), ','),
            ];
            if with_excerpt {
                cells.push(quote(r.excerpt.as_deref().unwrap_or_default(), ','));
            }
            if with_via {
                cells.push(quote(r.via.as_deref().unwrap_or_default(), ','));
            }
            if with_more {
                cells.push(quote(&r.more.join(" "), ','));
            }
            if with_also {
                cells.push(quote(&r.also.join(" "), ','));
            }
            if with_content {
                cells.push(quote(r.content.as_deref().unwrap_or_default(), ','));
                cells.push(r.truncated.to_string());
                cells.push(r.tokens.unwrap_or(0).to_string());
            }
            if with_passage {
                cells.push(r.passage.to_string());
            }
            rows.push(cells);
        }
        crate::index::toon::push_table(s, "results", &fields, &rows);
    }
}

/// Sets what `placed` adds to its result `row`: the references folded
/// into it, the fused score, the index pass's points on the score's scale,
/// the literal text matches, and the body stage's matches (`body_hit`).
fn placed_matches(row: &mut ResultRow, placed: &Placed, body_hit: Option<&BodyHit>) {
    row.more.clone_from(&placed.more);
    row.also.clone_from(&placed.also);
    // Fused rankings: the score that put the row here.
    if let Some((score, normalized)) = placed.fused {
        row.score = round(score);
        row.normalized_score = round(normalized);
    }
    let parts = placed.parts.as_ref();
    if let Some(parts) = parts {
        // The index pass's points, on the score's scale.
        if parts.index != 1.0 {
            for m in row.matched.iter_mut().filter(|m| m.stage.is_none()) {
                m.points = round(m.points * parts.index);
            }
        }
        row.matched.extend(
            parts
                .text
                .iter()
                .map(|(keyword, level, points)| MatchedRow {
                    keyword: keyword.clone(),
                    level: level.as_str(),
                    field: "text",
                    points: round(*points),
                    partial: None,
                    stage: Some(Stage::Body),
                    counted: true,
                    why: None,
                    factor: None,
                    bridge: None,
                }),
        );
    }
    if let Some(hit) = body_hit {
        let factor = parts.map_or(Some(1.0), |p| p.body);
        row.matched.extend(hit.matched.iter().map(|m| MatchedRow {
            keyword: m.shown(),
            level: m.level.as_str(),
            field: m.field.as_str(),
            points: round(m.points * factor.unwrap_or(1.0)),
            partial: None,
            stage: Some(Stage::Body),
            counted: factor.is_some(),
            why: factor.is_none().then_some(TIE_BREAK_ONLY),
            factor: None,
            bridge: m.bridge().cloned(),
        }));
    }
    if let Some(applied) = &placed.weight {
        row.matched.push(MatchedRow::weight(applied));
    }
}

/// Rounds a score to 4 decimals, as the documents show it.
pub(crate) fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl BudgetRow {
    /// The object of a hand-over within `caps` that attached `(chars,
    /// tokens)` of content (`passages`: some of it as passages); the whole
    /// document's size is measured later (`answer::seal`).
    pub(crate) fn of_content(
        caps: Budget,
        (chars, tokens): (usize, usize),
        passages: bool,
    ) -> Self {
        Self {
            caps,
            chars: 0,
            tokens: 0,
            content_chars: chars,
            content_tokens: tokens,
            passages,
        }
    }

    /// The object for `caps` with sizes as wide as the caps, to measure an
    /// envelope by.
    pub(crate) fn placeholder(caps: Budget) -> Self {
        let widest = caps
            .max_chars
            .unwrap_or(0)
            .max(caps.max_tokens.unwrap_or(0));
        Self {
            caps,
            chars: widest,
            tokens: widest,
            content_chars: widest,
            content_tokens: widest,
            passages: false,
        }
    }

    /// The text output's last line: what the document and its content cost.
    pub(crate) fn describe(&self) -> String {
        let caps: Vec<String> = [
            (self.caps.max_tokens, "tokens"),
            (self.caps.max_chars, "characters"),
        ]
        .iter()
        .filter_map(|(cap, unit)| cap.map(|n| format!("{n} {unit}")))
        .collect();
        let of = if caps.is_empty() {
            String::new()
        } else {
            format!(" (budget {})", caps.join(", "))
        };
        format!(
            "budget: {} tokens, {} characters printed{of}; content {} tokens\n",
            self.tokens, self.chars, self.content_tokens
        )
    }
}

/// `doc` as JSON, indented or on one line, with a final newline.
fn json_line<T: Serialize>(doc: &T, pretty: bool) -> String {
    // Serialising plain structs with string keys cannot fail.
    let mut s = if pretty {
        serde_json::to_string_pretty(doc)
    } else {
        serde_json::to_string(doc)
    }
    .unwrap_or_default();
    s.push('\n');
    s
}
