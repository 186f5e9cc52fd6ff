//! The request path: a resolved search [`Request`] in, the answer document
//! ([`Report`]) out. `kbidx search`, the MCP `search` tool and `kbidx eval`'s
//! answer recall all go through [`answer`], so what eval measures is what
//! search hands over.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::config::HandOver;
use crate::error::{Error, Result};
use crate::output::budget::Budget;
use crate::output::{Report, Style};
use crate::search::{self, Hierarchy, Query, Scoring, Searcher, Texts, fallback};

pub(crate) mod adaptive;
pub(crate) mod passages;
pub(crate) mod strategy;

use strategy::Strategy;

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
    /// How the document is printed: its size is what a budget bounds.
    pub(crate) style: Style,
    /// Result count limit.
    pub(crate) top: usize,
    /// Minimum score.
    pub(crate) min_score: Option<f64>,
    /// Attach content.
    pub(crate) with_content: bool,
    /// The budget: characters and estimated tokens of the whole printed
    /// document, and of each result's content.
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
        crate::timings::time("deliver", || {
            deliver(&mut report, options, searcher, &mut texts)
        })?;
    }
    Ok(report)
}

/// The share of a document budget that results past the content may take,
/// listed by reference and title (the rest are left out): a handful of
/// further candidates for `kbidx read` without crowding out the text.
const LISTING_SHARE: f64 = 0.03;

/// How many times the content budget is fitted to the measured document
/// before whole results are dropped from its end.
const FITS: usize = 8;

/// A document that fits leaves at most `1 / GROW_AT` of its budget unspent
/// before its content budget grows by what is left.
const GROW_AT: usize = 50;

/// How many halvings look for a larger content budget that still fits,
/// after the overflow's cut found one.
const BISECTIONS: usize = 5;

/// The cap halfway between `lo` and `hi` (both set or both unset).
fn midpoint(lo: Option<usize>, hi: Option<usize>) -> Option<usize> {
    match (lo, hi) {
        (Some(lo), Some(hi)) => Some(lo + hi.saturating_sub(lo) / 2),
        (lo, _) => lo,
    }
}

/// Attaches the results' content so that the whole printed document
/// (`options.style`) stays within `options.budget`'s `max_tokens` and
/// `max_chars`, and records what it spent. The content gets what the
/// envelope (keys, references, titles, scores, notes) leaves: the document is
/// rendered, measured, and the content budget lowered by the overflow until it
/// fits. Results past the content are listed while they take at most
/// [`LISTING_SHARE`] of the budget; when even the envelope is too large (a
/// `--explain` document's explanations), results are dropped from the end.
/// Without a budget over the whole document each result's content is only
/// held to the per-result caps.
pub(crate) fn deliver(
    report: &mut Report,
    options: &Request,
    searcher: &Searcher<'_>,
    texts: &mut Texts,
) -> Result<()> {
    let limit = (
        options.budget.max_chars.unwrap_or(usize::MAX),
        options.budget.max_tokens.unwrap_or(usize::MAX),
    );
    let style = options.style;
    let fits = |r: &Report| {
        let (chars, tokens) = r.size(style);
        (chars <= limit.0 && tokens <= limit.1, chars, tokens)
    };
    if options.budget.max_chars.is_none() && options.budget.max_tokens.is_none() {
        hand_over(report, options, options.budget, searcher, texts)?;
        seal(report, style);
        return Ok(());
    }
    let base = report.clone();
    // The envelope with no results: what the content can never have.
    let mut empty = base.clone();
    empty.results.clear();
    empty.budget = Some(crate::output::BudgetRow::placeholder(options.budget));
    let (env_chars, env_tokens) = empty.size(style);
    let listing = (
        (limit.0 as f64 * LISTING_SHARE) as usize,
        (limit.1 as f64 * LISTING_SHARE) as usize,
    );
    let mut content = Budget {
        max_chars: options
            .budget
            .max_chars
            .map(|n| n.saturating_sub(env_chars)),
        max_tokens: options
            .budget
            .max_tokens
            .map(|n| n.saturating_sub(env_tokens)),
        ..options.budget
    };
    let attempt = |content: Budget, texts: &mut Texts| -> Result<(Report, bool, usize, usize)> {
        let mut fitted = base.clone();
        hand_over(&mut fitted, options, content, searcher, texts)?;
        finish(&mut fitted, options.budget);
        fitted.list_past_content(listing);
        seal(&mut fitted, style);
        let (ok, chars, tokens) = fits(&fitted);
        Ok((fitted, ok, chars, tokens))
    };
    // The last content budget whose document overflowed, and the best
    // document that fits with the content budget it was made with.
    let mut too_much: Option<Budget> = None;
    let mut fitting: Option<(Report, Budget)> = None;
    for _ in 0..FITS {
        let (fitted, ok, chars, tokens) = attempt(content, texts)?;
        if ok {
            // A document shorter than its content (a twin's paragraphs
            // shown once) leaves budget unspent: while nothing has
            // overflowed and text was cut, the content grows by the slack.
            let slack = (
                limit.0.saturating_sub(chars),
                limit.1.saturating_sub(tokens),
            );
            let grow = too_much.is_none()
                && fitted.results.iter().any(|r| r.truncated)
                && (slack.0 >= limit.0 / GROW_AT || slack.1 >= limit.1 / GROW_AT);
            fitting = Some((fitted, content));
            if !grow {
                break;
            }
            content.max_chars = content.max_chars.map(|c| c.saturating_add(slack.0));
            content.max_tokens = content.max_tokens.map(|c| c.saturating_add(slack.1));
            continue;
        }
        too_much = Some(content);
        if fitting.is_some() {
            break;
        }
        // Lower the content by the overflow (and a little more, for the keys
        // and escapes that come with it).
        let shrink = |cap: Option<usize>, size: usize, max: usize| {
            cap.map(|c| {
                c.saturating_sub(size.saturating_sub(max) + size.saturating_sub(max) / 8 + 1)
            })
        };
        content.max_chars = shrink(content.max_chars, chars, limit.0);
        content.max_tokens = shrink(content.max_tokens, tokens, limit.1);
        if content.max_chars == Some(0) || content.max_tokens == Some(0) {
            break;
        }
    }
    if let Some((mut best, mut lo)) = fitting {
        // The overflow's cut may have taken more than it had to: what lies
        // between the content budget that fits and the last that overflowed
        // is tried by halves, and the largest that fits is kept.
        if let Some(mut hi) = too_much {
            for _ in 0..BISECTIONS {
                let mid = Budget {
                    max_chars: midpoint(lo.max_chars, hi.max_chars),
                    max_tokens: midpoint(lo.max_tokens, hi.max_tokens),
                    ..lo
                };
                if (mid.max_chars, mid.max_tokens) == (lo.max_chars, lo.max_tokens) {
                    break;
                }
                let (fitted, ok, ..) = attempt(mid, texts)?;
                if ok {
                    best = fitted;
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
        if !style.explain {
            keep_content_share(&mut best, style);
        }
        *report = best;
        return Ok(());
    }
    // No content fits beside the envelope: whole results go from the end,
    // but the first result's line stays (a budget smaller than the envelope
    // and one result is not met).
    let (mut fitted, ..) = attempt(content, texts)?;
    while !fits(&fitted).0 && fitted.results.len() > 1 {
        fitted.results.pop();
        seal(&mut fitted, style);
    }
    *report = fitted;
    Ok(())
}

/// The share of a lean document's estimated tokens that its content keeps
/// when the budget binds: the lines of results past the content give way
/// below it.
const CONTENT_SHARE: f64 = 0.8;

/// Drops the lines of results past the content from the end of a lean
/// document whose content is under [`CONTENT_SHARE`] of it: where a budget
/// binds, the reader paid for text, and a listed reference is worth less
/// than the share of text it displaces.
fn keep_content_share(report: &mut Report, style: Style) {
    let Some(content) = report.budget.as_ref().map(|b| b.content_tokens) else {
        return;
    };
    while report.results.last().is_some_and(|r| r.content.is_none())
        && report.results.iter().any(|r| r.content.is_some())
        && report
            .budget
            .as_ref()
            .is_some_and(|b| (content as f64) < CONTENT_SHARE * b.tokens as f64)
    {
        report.results.pop();
        seal(report, style);
    }
}

/// Sets the budget object's caps to the request's (the content's were lower).
fn finish(report: &mut Report, caps: Budget) {
    if let Some(budget) = report.budget.as_mut() {
        budget.caps = caps;
    }
}

/// Measures the document as `style` prints it and writes its size into the
/// budget object, which is part of the document: repeated until the numbers
/// it states are those of the document that states them (two or three
/// rounds; the last is kept, which is at most a digit off).
pub(crate) fn seal(report: &mut Report, style: Style) {
    if report.budget.is_none() {
        return;
    }
    if !style.explain {
        // The lean document shows a twin's repeated paragraphs once.
        let (chars, tokens) = crate::output::lean::shown_text_size(&report.results);
        if let Some(budget) = report.budget.as_mut() {
            budget.content_chars = chars;
            budget.content_tokens = tokens;
        }
    }
    for _ in 0..4 {
        let (chars, tokens) = report.size(style);
        let Some(budget) = report.budget.as_mut() else {
            return;
        };
        if (budget.chars, budget.tokens) == (chars, tokens) {
            return;
        }
        budget.chars = chars;
        budget.tokens = tokens;
    }
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
    report.notes = options
        .query
        .notes
        .iter()
        .cloned()
        .chain(searcher.notes())
        .collect();
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

/// Attaches the results' content to `report` within the content budget
/// `budget`, shaped by `options.hand_over`, reading the text from `texts`
/// (kept by the caller across requests).
fn hand_over(
    report: &mut Report,
    options: &Request,
    budget: Budget,
    searcher: &Searcher<'_>,
    texts: &mut Texts,
) -> Result<()> {
    // `--collapse`: a result's twins (`also`) are handed over with it, each
    // as the paragraphs its text adds (`output::lean::twin_text`), so that a
    // twin whose few differing lines are the answer still delivers them.
    let twins: HashMap<String, Vec<String>> = report
        .results
        .iter()
        .filter(|r| !r.also.is_empty())
        .map(|r| (r.reference.clone(), r.also.clone()))
        .collect();
    let references: Vec<&str> = report
        .results
        .iter()
        .map(|r| r.reference.as_str())
        .chain(twins.values().flatten().map(String::as_str))
        .collect();
    searcher.load_texts(texts, &references)?;
    let mut lookup = |reference: &str| -> Result<String> {
        let mut text = texts.section(reference)?;
        for twin in twins.get(reference).into_iter().flatten() {
            if let Some(own) = crate::output::lean::twin_text(&text, &texts.section(twin)?) {
                let mark = crate::output::lean::TWIN_MARK;
                text = format!("{}\n\n[{twin}] {mark}\n{own}", text.trim_end());
            }
        }
        Ok(text)
    };
    if options.hand_over == HandOver::Start {
        return Strategy::Start.hand(report, lookup, budget);
    }
    // Passages count the words the body stage bridged English query
    // words to (`retry→リトライ`), as the search matched them.
    let mut words = passages::QueryWords::of(&options.query)?;
    words.add_bridged(
        report
            .results
            .iter()
            .flat_map(|r| &r.matched)
            .filter_map(|m| m.bridge.as_ref()),
    );
    let strategy = match options.hand_over {
        HandOver::Adaptive => Strategy::Adaptive(&words),
        _ => Strategy::Passages(&words),
    };
    strategy.hand(report, &mut lookup, budget)
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::LazyLock;

    use proptest::prelude::*;

    use super::*;
    use crate::output::{Format, tokens::estimate};
    use crate::search::{Matcher, Settings};

    /// The repository's own knowledge, built once.
    static BUILT: LazyLock<crate::build::Built> = LazyLock::new(|| {
        let config = crate::config::Config::default();
        let options = crate::build::BuildOptions {
            knowledge: Path::new(env!("CARGO_MANIFEST_DIR")).join("knowledge"),
            filter: None,
            include: config.include.clone(),
            exclude: config.exclude.clone(),
            strict: false,
            terms: config.terms,
        };
        crate::build::build_within(&options, config.build_timeout).expect("knowledge/ builds")
    });

    const QUESTIONS: [&str; 4] = [
        "索引が古いと言われたらどうする？",
        "how do I check that the index is up to date",
        "MCP サーバの設定",
        "jq フィルタ extraction debugging",
    ];

    fn request(question: &str, style: Style, hand_over: HandOver, max_tokens: usize) -> Request {
        let mut query = Query::default();
        query.add_question(question).expect("a question");
        Request {
            query,
            knowledge: Path::new(env!("CARGO_MANIFEST_DIR")).join("knowledge"),
            scoring: crate::search::Scoring::Default,
            style,
            top: 30,
            min_score: None,
            with_content: true,
            budget: Budget {
                max_tokens: Some(max_tokens),
                ..Budget::default()
            },
            hand_over,
            hierarchy: None,
            fallback: fallback::Settings::default(),
            body: None,
            expand: 0,
            links: PathBuf::new(),
            // As `kbidx search` runs without flags: twins folded.
            diversity: search::Diversity::new(&[], None, search::DEFAULT_COLLAPSE)
                .expect("no globs to check"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// `--max-tokens N` (N ≥ 500; N ≥ 2,000 for the whole `--explain`
        /// document) bounds the whole printed document in every format and
        /// hand-over; the document states its own
        /// size; when the budget binds, the lean document is at least 80%
        /// content from N = 2,000 on in every format (the least measured on
        /// every budget from 2,000 to 2,600 tokens is 0.800, JSON with
        /// passages, whose keys and escapes cost the most).
        #[test]
        fn the_document_stays_within_its_budget(
            max_tokens in 500usize..12_000,
            format in 0usize..3,
            hand_over in 0usize..3,
            question in 0usize..QUESTIONS.len(),
            explain in any::<bool>(),
        ) {
            let built = &*BUILT;
            let matcher = Matcher::new(&built.index).expect("the index decodes");
            let knowledge = Path::new(env!("CARGO_MANIFEST_DIR")).join("knowledge");
            let searcher = Searcher::new(matcher, Settings::default(), Some(knowledge));
            let style = Style {
                format: [Format::Text, Format::Json, Format::Toon][format],
                explain,
                suggest: false,
                pretty: false,
            };
            let hand_over = [HandOver::Adaptive, HandOver::Start, HandOver::Passages][hand_over];
            // The whole document's envelope (suggestions, confidence, a
            // result's explanations) alone can pass 500 tokens: its budget
            // starts where one result fits.
            let max_tokens = if explain { max_tokens.max(2_000) } else { max_tokens };
            let options = request(QUESTIONS[question], style, hand_over, max_tokens);
            let report = answer(&options, &searcher).expect("a search");
            let document = report.document(style);
            let tokens = estimate(&document);
            prop_assert!(tokens <= max_tokens, "{tokens} > {max_tokens}: {document}");
            let budget = report.budget.as_ref().expect("a budget object");
            prop_assert_eq!(budget.tokens, tokens);
            prop_assert_eq!(budget.chars, document.chars().count());
            let binds = report.results.iter().any(|r| r.truncated);
            if max_tokens >= 2_000 && !explain && binds {
                let share = budget.content_tokens as f64 / tokens as f64;
                prop_assert!(share >= 0.8, "content {share:.3} of {tokens}: {document}");
            }
        }
    }
}
