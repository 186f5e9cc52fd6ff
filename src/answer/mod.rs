//! The request path: a resolved search [`Request`] in, the answer document
//! ([`Report`]) out. `kbidx search`, the MCP `search` tool and `kbidx eval`'s
//! answer recall all go through [`answer`], so what eval measures is what
//! search hands over.

use std::path::PathBuf;

use crate::config::HandOver;
use crate::error::{Error, Result};
use crate::output::budget::Budget;
use crate::output::{Format, Report};
use crate::search::{self, Hierarchy, Query, Scoring, Searcher, Texts, fallback};

/// A search request, resolved: everything typed, nothing left to parse
/// (from `kbidx search`'s flags and `kbidx.toml`, or from an MCP call).
#[derive(Debug)]
pub(crate) struct Request {
    /// The query.
    pub(crate) query: Query,
    /// The knowledge directory (content lookup).
    pub(crate) knowledge: PathBuf,
    /// Scoring method.
    pub(crate) scoring: Scoring,
    /// Output format.
    pub(crate) format: Format,
    /// Result count limit.
    pub(crate) top: usize,
    /// Minimum score.
    pub(crate) min_score: Option<f64>,
    /// Per-keyword explanations in text output.
    pub(crate) explain: bool,
    /// Attach content.
    pub(crate) with_content: bool,
    /// Content budget: characters and estimated tokens, in all and per result.
    pub(crate) budget: Budget,
    /// How each result's content is shaped.
    pub(crate) hand_over: HandOver,
    /// Two-pass file → section search, when on.
    pub(crate) hierarchy: Option<Hierarchy>,
    /// Full-text fallback.
    pub(crate) fallback: fallback::Settings,
    /// The body stage, when on.
    pub(crate) body: Option<search::Body>,
    /// Linked neighbours to append (`--expand`; 0: none) and the links file they come from.
    pub(crate) expand: usize,
    /// The links file (next to the index), read only when `expand` > 0.
    pub(crate) links: PathBuf,
    /// `--exclude` and `--group-by`.
    pub(crate) diversity: search::Diversity,
}

impl Request {
    /// What the PostgreSQL backend cannot do, refused before connecting
    /// rather than silently ignored: another scoring method (it ranks one
    /// way) and `--expand` (the links file goes with an index file, not with
    /// the table).
    pub(crate) fn refuse_with_pg(&self) -> Result<()> {
        if self.scoring != Scoring::Default {
            return Err(Error::Usage(
                "--scoring seed works with the index file, not with --pg".into(),
            ));
        }
        if self.expand > 0 {
            return Err(Error::Usage(
                "--expand works with the index file (its links file), not with --pg".into(),
            ));
        }
        Ok(())
    }
}

/// How many refinement words a search answer carries.
pub(crate) const SUGGESTIONS: usize = 15;

/// Runs `options`' query on `searcher` and builds the result document (with
/// content when asked): what `kbidx search` prints and the MCP `search` tool returns.
pub(crate) fn answer(options: &Request, searcher: &Searcher<'_>) -> Result<Report> {
    let ranking = crate::timings::time("rank", || {
        searcher.search_with(
            &options.query,
            options.scoring,
            options.top,
            options.min_score,
            &options.diversity,
        )
    })?;
    let links = if options.expand > 0 {
        crate::links::load(&options.links)?
    } else {
        Vec::new()
    };
    let mut report = report(options, searcher, &ranking, &links);
    if options.with_content {
        // The index backend reads the knowledge files; PostgreSQL sends the
        // results' stored text in one query.
        let mut texts = searcher
            .texts()
            .unwrap_or_else(|| Texts::files(&options.knowledge));
        hand_over(&mut report, options, searcher, &mut texts)?;
    }
    Ok(report)
}

/// The result document of `ranking` (`options`' query on `searcher`),
/// without content: results, suggestions, confidence, and the linked
/// neighbours of `--expand` from `links`.
pub(crate) fn report(
    options: &Request,
    searcher: &Searcher<'_>,
    ranking: &search::Ranking,
    links: &[crate::links::Link],
) -> Report {
    let mut report = crate::timings::time("report", || {
        Report::of(
            searcher,
            &options.query,
            options.scoring,
            ranking,
            options.top,
        )
    });
    report.suggest = crate::timings::time("suggest", || {
        searcher.suggest(&options.query, ranking, SUGGESTIONS)
    });
    report.notes = searcher.notes();
    report.confidence = crate::timings::time("confidence", || {
        crate::output::Confidence::of(&options.query, &report, ranking)
    });
    if let Some(matcher) = searcher.matcher()
        && options.expand > 0
        && !report.results.is_empty()
    {
        report.expand(matcher, links, options.expand);
        // Linked neighbours obey --exclude as the ranked results do.
        let before = report.results.len();
        report.results.retain(|r| {
            r.stage != crate::output::Stage::Linked || !options.diversity.excludes(&r.file)
        });
        if report.results.len() < before {
            for (i, r) in report.results.iter_mut().enumerate() {
                r.rank = i + 1;
            }
        }
    }
    report
}

/// The confidence of `ranking` (`query` on `searcher` with `scoring`, at
/// most `top` results), as [`report`] sets it: what eval calibrates.
pub(crate) fn confidence(
    searcher: &Searcher<'_>,
    query: &Query,
    scoring: Scoring,
    ranking: &search::Ranking,
    top: usize,
) -> crate::output::Confidence {
    let report = Report::of(searcher, query, scoring, ranking, top);
    crate::output::Confidence::of(query, &report, ranking)
}

/// Attaches the results' content to `report` within `options`' budget,
/// shaped by `options.hand_over`, reading the text from `texts` (kept by the
/// caller across requests).
pub(crate) fn hand_over(
    report: &mut Report,
    options: &Request,
    searcher: &Searcher<'_>,
    texts: &mut Texts,
) -> Result<()> {
    let references: Vec<&str> = report
        .results
        .iter()
        .map(|r| r.reference.as_str())
        .collect();
    searcher.load_texts(texts, &references)?;
    if options.hand_over == HandOver::Start {
        return report.attach_content(|r| texts.section(r), options.budget, None);
    }
    // Passages count the words the body stage bridged English query
    // words to (`retry→リトライ`), as the search matched them.
    let mut words = crate::output::passages::QueryWords::of(&options.query)?;
    words.add_bridged(
        report
            .results
            .iter()
            .flat_map(|r| &r.matched)
            .filter_map(|m| m.bridge.as_ref()),
    );
    match options.hand_over {
        HandOver::Adaptive => report.attach_adaptive(|r| texts.section(r), options.budget, &words),
        _ => report.attach_content(|r| texts.section(r), options.budget, Some(&words)),
    }
}
