//! Accuracy measurement: run query sets and report recall, MRR and nDCG.
//!
//! [`load_cases`] reads the JSON Lines format of `../shared/eval/*.jsonl`;
//! [`evaluate_with_links`] runs each case in each applicable [`Mode`] with
//! the given [`Method`]s and returns [`Run`]s with per-query ranks and the
//! aggregate metrics (defined in docs/accuracy.md); it takes the knowledge
//! directory, which the body stage and the BM25 reference method
//! ([`Method::Bm25`]) need.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::answer::passages::{Paragraphs, QueryWords};
use crate::answer::strategy::passage_caps_for;
use crate::error::{Error, Result};
use crate::index::model::Index;
use crate::query::LevelledKeywords;
pub use crate::search::Settings;
use crate::search::bm25::Bm25Index;
use crate::search::body_match::Bridge;
use crate::search::fallback;
use crate::search::{Diversity, Level, Matcher, Query, Scoring, Searcher};

/// One line of an eval file.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// Query id.
    pub id: String,
    /// The user's request in natural language.
    pub query: String,
    /// Levelled keywords an agent extracted, if any.
    #[serde(default)]
    pub keywords: Option<LevelledKeywords>,
    /// A flat keyword list, if any (searched as L3 keywords).
    #[serde(default)]
    pub terms: Option<Vec<String>>,
    /// Expected sections.
    pub expected: Vec<Expected>,
}

/// An expected section of a case.
#[derive(Debug, Clone, Deserialize)]
pub struct Expected {
    /// File path relative to the knowledge directory.
    pub file: String,
    /// Section id.
    pub section: String,
    /// `must` or `acceptable`.
    pub grade: Grade,
    /// The answer phrase: a verbatim one-line substring of the section
    /// that carries what it contributes to the answer (answer recall).
    #[serde(default)]
    pub answer: Option<String>,
}

/// How necessary an expected section is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grade {
    /// Required to answer.
    Must,
    /// Helpful.
    Acceptable,
}

/// How a case is turned into a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The case's `keywords` (L1/L2/L3), when present.
    Keywords,
    /// The case's `terms`, as L3 keywords, when present.
    Terms,
    /// The case's `query` through kbidx's own keyword extraction.
    Question,
}

/// A ranking method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// kbidx's default scoring.
    Default,
    /// The design's seed rule.
    Seed,
    /// Reference: plain BM25 over title + hints + section text (needs the knowledge directory).
    Bm25,
    /// Reference: the same BM25 run once per keyword, the rankings fused by reciprocal rank (k = 60).
    #[value(name = "bm25-rrf")]
    #[serde(rename = "bm25-rrf")]
    Bm25Rrf,
}

impl Method {
    /// The method's name, as `--scoring` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Seed => "seed",
            Self::Bm25 => "bm25",
            Self::Bm25Rrf => "bm25-rrf",
        }
    }
}

/// Reads an eval file (JSON Lines; blank lines skipped).
pub fn load_cases(path: &Path) -> Result<Vec<Case>> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::io(path, "cannot read eval file", e))?;
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(line).map_err(|e| {
            let mut err = Error::json(path, line, "invalid eval case", &e);
            if let Error::Syntax { line: l, .. } = &mut err {
                *l = i + 1;
            }
            err
        })?;
        cases.push(case);
    }
    Ok(cases)
}

/// The query a case gives in `mode`, if the case has that input.
pub fn case_query(case: &Case, mode: Mode) -> Result<Option<Query>> {
    Ok(match mode {
        Mode::Keywords => case.keywords.as_ref().map(Query::from_levels),
        Mode::Terms => case.terms.as_ref().map(|terms| {
            let mut q = Query::default();
            for t in terms {
                q.push(t, Level::L3, 1.0);
            }
            q
        }),
        Mode::Question => Some(Query::from_question(&case.query)?),
    })
}

/// Per-query result.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// Query id.
    pub id: String,
    /// Number of results returned.
    pub returned: usize,
    /// Rank (1-based) of each expected section, `None` when not returned.
    pub ranks: Vec<ExpectedRank>,
    /// With [`Limits::second_search`]: the first search's suggestions (the
    /// words `search` prints), of which the first N were added.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggested: Vec<String>,
    /// The search's `confidence` (default and seed methods): its level and
    /// the evidence, to re-fit the thresholds from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) confidence: Option<crate::output::confidence::Confidence>,
}

/// How often a confidence level occurs in a run, and how often its searches
/// hold a must section in the top 3 and the top 30.
#[derive(Debug, Clone, Serialize)]
pub struct Calibration {
    /// `high`, `medium` or `low`.
    pub level: &'static str,
    /// Queries at this level.
    pub queries: usize,
    /// Their share of the run's queries.
    pub share: f64,
    /// Share of them with a must section in the top 3 (a query without
    /// must sections counts as found).
    pub must_in_top_3: f64,
    /// … in the top 30.
    pub must_in_top_30: f64,
}

/// An expected section and where it ranked.
#[derive(Debug, Clone, Serialize)]
pub struct ExpectedRank {
    /// `file#section`.
    pub reference: String,
    /// Its grade.
    pub grade: Grade,
    /// 1-based rank, or `None` when not in the results.
    pub rank: Option<usize>,
    /// Characters of content handed over before it in rank order (`None`
    /// when not in the results or the knowledge directory is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starts_at: Option<usize>,
    /// Where its content ends in the hand-over, when it is handed over whole
    /// (`None` when a per-result cap or `--passages` cut it, or as `starts_at`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub whole_until: Option<usize>,
    /// Whether its answer phrase was in the content handed over for it,
    /// at each of [`ANSWER_BUDGETS`] (`None`: no answer phrase, or no
    /// content to judge).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered: Option<[bool; 3]>,
}

/// The token budgets (`search --max-tokens B`) answer recall is measured at.
pub const ANSWER_BUDGETS: [usize; 3] = [2_000, 5_000, 10_000];

/// Aggregate metrics of one mode × method run.
#[derive(Debug, Clone, Serialize)]
pub struct Metrics {
    /// Queries evaluated.
    pub queries: usize,
    /// Mean recall of `must` sections in the top 10.
    pub recall_at_10: f64,
    /// … top 20.
    pub recall_at_20: f64,
    /// … top 30.
    pub recall_at_30: f64,
    /// Mean recall of must + acceptable sections in the top 30.
    pub recall_all_at_30: f64,
    /// Mean reciprocal rank of the first `must` section (0 when none is returned).
    pub mrr: f64,
    /// Mean nDCG@10 (gain 2 for must, 1 for acceptable).
    pub ndcg_at_10: f64,
    /// Median number of results returned.
    pub median_returned: f64,
    /// Mean share of `must` sections whose content starts within the first
    /// [`Limits::chars`] characters that `search --with-content --max-chars`
    /// hands over in rank order: what the judge receives (`None` without the
    /// knowledge directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall_at_chars: Option<f64>,
    /// Mean share of `must` sections handed over whole within the budget:
    /// a lower bound of how often the judge receives the answer, which
    /// [`Metrics::recall_at_chars`] bounds from above (a cut section, a
    /// passage above all, may or may not hold it; only judging tells).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall_whole_at_chars: Option<f64>,
    /// The character budget of `recall_at_chars`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chars: Option<usize>,
    /// Answer recall at each of [`ANSWER_BUDGETS`]: the share of `must`
    /// sections with an answer phrase whose phrase (white space ignored)
    /// lies in the content `search --max-tokens B` hands over for that
    /// section, with the run's hand-over settings (`None` without answer
    /// phrases or content).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_recall: Option<[f64; 3]>,
    /// The share of the same sections that are in the results at all
    /// (within `--top`): what the hand-over can at best hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_ranked: Option<f64>,
    /// Must sections answer recall counts (those with an answer phrase).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_sections: Option<usize>,
    /// Per `confidence` level (high, medium, low): how often it occurs and
    /// how often a must section is near the top (empty when the method
    /// sets no confidence: BM25).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calibration: Vec<Calibration>,
}

/// How deep a run looks: results per query, and the character budget of the hand-over.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Results per query (ranks beyond count as not found).
    pub top: usize,
    /// The `--max-chars` budget [`Metrics::recall_at_chars`] measures.
    pub chars: usize,
    /// A per-result cap on the hand-over (`--max-chars-per-result`): each
    /// result spends at most this much of [`Limits::chars`].
    pub chars_per_result: Option<usize>,
    /// Query-focused passages (`search --passages`): each result spends
    /// the characters of its passage for the query, within
    /// [`Limits::chars_per_result`] or the default passage size.
    pub passages: bool,
    /// The hand-over answer recall measures (`search --hand-over`).
    pub hand_over: crate::config::HandOver,
    /// Linked neighbours appended after the ranked results, as `search
    /// --expand N` does (0: none; needs the links, see [`evaluate_with_links`]).
    pub expand: usize,
    /// Score, instead of each case's first search, a second search that adds
    /// the first search's top N suggestions (`suggest`, each at its level) to
    /// its keywords: an automatic proxy for an agent's refinement, no LLM
    /// involved (0: the first search).
    pub second_search: usize,
    /// The form of the search document whose size answer recall's budgets
    /// bound (`--document-format`).
    pub document: DocumentFormat,
}

/// The form of a search document an agent reads (`eval --document-format`):
/// a budget bounds the whole document, so the form decides how much of it is
/// content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DocumentFormat {
    /// The lean text (`kbidx search`'s default, what SKILL.md shows).
    #[default]
    Text,
    /// The lean JSON document (`--format json`, the MCP structured result).
    Json,
    /// The lean TOON document (`--format toon`).
    Toon,
}

impl DocumentFormat {
    /// The style search prints this form with.
    fn style(self) -> crate::output::Style {
        crate::output::Style {
            format: match self {
                Self::Text => crate::output::Format::Text,
                Self::Json => crate::output::Format::Json,
                Self::Toon => crate::output::Format::Toon,
            },
            explain: false,
            suggest: false,
            pretty: false,
        }
    }
}

/// The document `kbidx eval --format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The query set, as given.
    pub eval: String,
    /// Queries in it.
    pub queries: usize,
    /// Results per query (`--top`).
    pub top: usize,
    /// One per mode × method, in the order of `--mode` and `--scoring`.
    pub runs: Vec<Run>,
}

/// One mode × method run.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// Mode.
    pub mode: Mode,
    /// Method.
    pub method: Method,
    /// Whether the full-text fallback could run (default scoring, fallback on, body stage off,
    /// knowledge given).
    pub fallback: bool,
    /// Whether the body stage ran (default scoring, body stage on, knowledge given).
    pub body: bool,
    /// Aggregates.
    pub metrics: Metrics,
    /// Per query.
    pub cases: Vec<CaseResult>,
}

/// Runs every case in every mode it supports, with every method, over
/// `index` (built from `knowledge`, which [`Method::Bm25`] and the body
/// stage need) with its `links`, which [`Limits::expand`] follows, and
/// `diversity` (`--exclude`, `--group-by`) applied as `kbidx search` applies
/// it (default and seed methods). The default and seed methods run through
/// the same [`Searcher`] as `kbidx search`. A section that
/// `--group-by file` folded into a result's `more` counts for Recall@k, MRR
/// and nDCG at that result's rank (its reference is handed over), but not
/// for R@chars (its content is not); a twin `--collapse` folded into a
/// result's `also` counts for all of them at that result's place (its text
/// is the result's, its own paragraphs handed over with it).
#[allow(clippy::too_many_arguments)]
pub fn evaluate_with_links(
    index: &Index,
    links: &[crate::links::Link],
    knowledge: Option<&Path>,
    cases: &[Case],
    modes: &[Mode],
    methods: &[Method],
    limits: Limits,
    diversity: &Diversity,
    settings: Settings,
) -> Result<Vec<Run>> {
    // Many queries over one index: the word index (as the search cache holds
    // it) pays for itself after a few, and answers exactly as the scan.
    let mut matcher = Matcher::new(index)?;
    matcher.build_words(0)?;
    let searcher = Searcher::new(matcher, settings, knowledge.map(Path::to_path_buf));
    let bm25 = if methods.contains(&Method::Bm25) || methods.contains(&Method::Bm25Rrf) {
        let dir = knowledge.ok_or_else(|| {
            Error::Usage("--scoring bm25 needs the knowledge directory (section text)".into())
        })?;
        Some(Bm25Index::build(index, dir)?)
    } else {
        None
    };
    evaluate_searcher(
        &searcher,
        Extras {
            index: Some(index),
            links,
            bm25: bm25.as_ref(),
        },
        cases,
        modes,
        methods,
        limits,
        diversity,
    )
}

/// What an eval over the index file has beyond its [`Searcher`]: the index
/// (BM25's rows, and the sections `--expand` may add), its links and the
/// BM25 reference method. None of them for PostgreSQL.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Extras<'i> {
    pub(crate) index: Option<&'i Index>,
    pub(crate) links: &'i [crate::links::Link],
    pub(crate) bm25: Option<&'i Bm25Index>,
}

/// Runs every case in every mode it supports with every method through
/// `searcher`, whichever backend ranks (`kbidx eval` and `kbidx eval --pg`):
/// the same ranking `kbidx search` prints, scored per case by [`score_case`].
/// R@chars counts the content `searcher` hands over (the knowledge files, or
/// the table's `content`), and is left out when it has none.
///
/// Long on purpose: per case and method, the search, the second search,
/// the hand-over at each answer budget and the scoring share the case's
/// query, ranking and caches (texts, lengths, paragraphs); split apart, each
/// piece would take most of them as arguments.
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate_searcher(
    searcher: &Searcher<'_>,
    extras: Extras<'_>,
    cases: &[Case],
    modes: &[Mode],
    methods: &[Method],
    limits: Limits,
    diversity: &Diversity,
) -> Result<Vec<Run>> {
    let top = limits.top;
    let graph = crate::links::expand::Graph::new(extras.links);
    let known: HashSet<&str> = match extras.index {
        Some(index) if limits.expand > 0 => {
            index.entries.iter().map(|e| e.reference.as_str()).collect()
        }
        _ => HashSet::new(),
    };
    // Content length (characters) of each section, read on first need, for R@chars.
    let mut texts = searcher.texts();
    let mut lengths: HashMap<String, usize> = HashMap::new();
    // With passages: each section's text cut into units, on first need.
    let mut paragraphs: HashMap<String, Option<Paragraphs>> = HashMap::new();
    let mut runs = Vec::new();
    for &mode in modes {
        let mut queries = Vec::new();
        for case in cases {
            if let Some(q) = case_query(case, mode)? {
                queries.push((case, q));
            }
        }
        if queries.is_empty() {
            continue;
        }
        for &method in methods {
            let mut results = Vec::new();
            for (case, query) in &queries {
                // `bridged`: the body stage's `english→カタカナ` words, which
                // passages count as `search --passages` does.
                // The content `search --max-tokens B` hands over per result,
                // for each of ANSWER_BUDGETS, through the request path search
                // and MCP run (default and seed methods, with content).
                let mut handed: Option<[HashMap<String, String>; 3]> = None;
                let mut confidence = None;
                let mut suggested = Vec::new();
                let mut second: Option<Query> = None;
                // Per result: the sections folded into it, `more` and `also`.
                type Folded = Vec<(Vec<String>, Vec<String>)>;
                let (mut references, more, bridged): (Vec<String>, Folded, Vec<Bridge>) =
                    match method {
                        Method::Default | Method::Seed => {
                            let scoring = if method == Method::Seed {
                                Scoring::Seed
                            } else {
                                Scoring::Default
                            };
                            let mut ranking =
                                searcher.search_with(query, scoring, top, None, diversity)?;
                            confidence = Some(crate::answer::confidence(
                                searcher, query, scoring, &ranking, top,
                            ));
                            if limits.second_search > 0 {
                                let mut query = (*query).clone();
                                let words =
                                    searcher.suggest(&query, &ranking, crate::answer::SUGGESTIONS);
                                for s in words.iter().take(limits.second_search) {
                                    let level = if s.level == Level::L2.as_str() {
                                        Level::L2
                                    } else {
                                        Level::L3
                                    };
                                    query.push(&s.word, level, 1.0);
                                }
                                suggested = words.into_iter().map(|s| s.word).collect();
                                ranking =
                                    searcher.search_with(&query, scoring, top, None, diversity)?;
                                second = Some(query);
                            }
                            let query = second.as_ref().unwrap_or(query);
                            if let Some(texts) = texts.as_mut()
                                && case.expected.iter().any(|e| e.answer.is_some())
                            {
                                handed = Some(hand_overs(
                                    searcher,
                                    query,
                                    scoring,
                                    &ranking,
                                    extras.links,
                                    limits,
                                    diversity,
                                    texts,
                                )?);
                            }
                            let bridged = ranking
                                .body_hits()
                                .iter()
                                .flat_map(|hit| &hit.matched)
                                .filter_map(|m| m.bridge().cloned())
                                .collect();
                            let references = searcher.references(&ranking);
                            let more = ranking
                                .results
                                .into_iter()
                                .map(|p| (p.more, p.also))
                                .collect();
                            (references, more, bridged)
                        }
                        Method::Bm25 | Method::Bm25Rrf => {
                            let (Some(bm25), Some(index)) = (extras.bm25, extras.index) else {
                                return Err(Error::Usage(
                                "--scoring bm25 needs the index file and the knowledge directory"
                                    .into(),
                            ));
                            };
                            let rows = if method == Method::Bm25 {
                                bm25.search(query, top)?
                            } else {
                                bm25.search_rrf(query, top)?
                            };
                            let references = rows
                                .into_iter()
                                .map(|(row, _)| index.entries[row].reference.clone())
                                .collect();
                            (references, Vec::new(), Vec::new())
                        }
                    };
                let query = second.as_ref().unwrap_or(query);
                if limits.expand > 0 {
                    let ranked: Vec<&str> = references.iter().map(String::as_str).collect();
                    let found: Vec<String> = graph
                        .neighbours(&ranked, limits.expand)
                        .into_iter()
                        .filter(|(r, _)| known.contains(r))
                        .map(|(r, _)| r.to_owned())
                        .collect();
                    references.extend(found);
                }
                let mut starts = Vec::with_capacity(references.len());
                let mut wholes = Vec::with_capacity(references.len());
                if let Some(texts) = texts.as_mut() {
                    let missing: Vec<&str> = references
                        .iter()
                        .filter(|r| !lengths.contains_key(*r))
                        .map(String::as_str)
                        .collect();
                    searcher.load_texts(texts, &missing)?;
                    let cap = limits.chars_per_result.unwrap_or(usize::MAX);
                    let words = if limits.passages {
                        let mut words = QueryWords::of(query)?;
                        words.add_bridged(&bridged);
                        Some(words)
                    } else {
                        None
                    };
                    let mut offset = 0;
                    for reference in &references {
                        starts.push(offset);
                        let (handed, whole) = match &words {
                            None => {
                                let length =
                                    *lengths.entry(reference.clone()).or_insert_with(|| {
                                        texts
                                            .section(reference)
                                            .map_or(0, |text| text.chars().count())
                                    });
                                (length.min(cap), length <= cap)
                            }
                            Some(words) => {
                                // Each section analysed once per run, as
                                // `search --passages` would cut it.
                                let analysed =
                                    paragraphs.entry(reference.clone()).or_insert_with(|| {
                                        let (chars, tokens) =
                                            passage_caps_for(limits.chars_per_result);
                                        texts.section(reference).ok().and_then(|text| {
                                            Paragraphs::new(&text, chars, tokens).ok()
                                        })
                                    });
                                analysed.as_ref().map_or((0, true), |p| {
                                    let passage = p.passage(words);
                                    (passage.text.chars().count(), !passage.truncated)
                                })
                            }
                        };
                        offset += handed;
                        wholes.push(whole.then_some(offset));
                    }
                }
                let listed: Vec<&str> = references.iter().map(String::as_str).collect();
                // Folded sections: at their result's rank, unless they are
                // also listed (a linked neighbour). A file's other sections
                // (`more`) come with no content (see above); a twin (`also`)
                // comes with its result's, its own paragraphs added to it.
                let mut folded: HashMap<&str, (usize, bool)> = HashMap::new();
                for (i, (more, also)) in more.iter().enumerate() {
                    for reference in more {
                        folded.insert(reference.as_str(), (i + 1, false));
                    }
                    for reference in also {
                        folded.insert(reference.as_str(), (i + 1, true));
                    }
                }
                let mut result = score_case(case, &listed, &starts, &wholes, &folded);
                result.confidence = confidence;
                result.suggested = suggested;
                if let Some(handed) = &handed {
                    for (rank, expected) in result.ranks.iter_mut().zip(&case.expected) {
                        let Some(phrase) = &expected.answer else {
                            continue;
                        };
                        let phrase = crate::knowledge::content::squeeze(phrase);
                        rank.answered = Some(std::array::from_fn(|i| {
                            handed[i].get(&rank.reference).is_some_and(|text| {
                                crate::knowledge::content::squeeze(text).contains(&phrase)
                            })
                        }));
                    }
                }
                results.push(result);
            }
            runs.push(Run {
                mode,
                method,
                fallback: method == Method::Default && searcher.fallback_possible(Scoring::Default),
                body: method == Method::Default && searcher.body_possible(Scoring::Default),
                metrics: metrics_within(&results, texts.is_some().then_some(limits.chars)),
                cases: results,
            });
        }
    }
    Ok(runs)
}

/// For each of [`ANSWER_BUDGETS`], the content `kbidx search --max-tokens B`
/// (with `limits`' per-result cap and passages) hands over for `ranking`,
/// by reference: [`crate::answer`]'s report and hand-over, as search runs them.
#[allow(clippy::too_many_arguments)]
fn hand_overs(
    searcher: &Searcher<'_>,
    query: &Query,
    scoring: Scoring,
    ranking: &crate::search::Ranking,
    links: &[crate::links::Link],
    limits: Limits,
    diversity: &Diversity,
    texts: &mut crate::search::Texts,
) -> Result<[HashMap<String, String>; 3]> {
    let mut request = crate::answer::Request {
        query: query.clone(),
        knowledge: std::path::PathBuf::new(),
        scoring,
        style: limits.document.style(),
        top: limits.top,
        min_score: None,
        with_content: true,
        budget: crate::output::budget::Budget::default(),
        hand_over: limits.hand_over,
        hierarchy: None,
        fallback: fallback::Settings::default(),
        body: None,
        expand: limits.expand,
        links: std::path::PathBuf::new(),
        diversity: diversity.clone(),
    };
    let report = crate::answer::report(&request, searcher, ranking, links);
    let mut out: [HashMap<String, String>; 3] = Default::default();
    for (budget, handed) in ANSWER_BUDGETS.iter().zip(&mut out) {
        request.budget = crate::output::budget::Budget {
            max_tokens: Some(*budget),
            max_chars_per_result: limits.chars_per_result,
            ..Default::default()
        };
        let mut report = report.clone();
        crate::answer::deliver(&mut report, &request, searcher, texts)?;
        for row in report.results {
            if let Some(content) = row.content {
                // A twin's text is its representative's: delivered with it.
                for twin in row.also {
                    handed.insert(twin, content.clone());
                }
                handed.insert(row.reference, content);
            }
        }
    }
    Ok(out)
}

/// Where `case`'s expected sections are in `references` (ranked, best
/// first), with the characters handed over before each (`starts`, empty
/// when unknown) and where each ends when handed over whole (`wholes`).
fn score_case(
    case: &Case,
    references: &[&str],
    starts: &[usize],
    wholes: &[Option<usize>],
    folded: &HashMap<&str, (usize, bool)>,
) -> CaseResult {
    let position: HashMap<&str, usize> = references
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, i + 1))
        .collect();
    let ranks = case
        .expected
        .iter()
        .map(|e| {
            let reference = format!("{}#{}", e.file, e.section);
            let listed = position.get(reference.as_str()).copied();
            let fold = folded.get(reference.as_str()).copied();
            let rank = listed.or(fold.map(|f| f.0));
            // Where the text is: the section's own place, or its twin's
            // representative's (whose text now holds the twin's).
            let placed = listed.or(fold.filter(|f| f.1).map(|f| f.0));
            ExpectedRank {
                starts_at: placed.and_then(|r| starts.get(r - 1).copied()),
                whole_until: placed.and_then(|r| wholes.get(r - 1).copied().flatten()),
                reference,
                grade: e.grade,
                rank,
                answered: None,
            }
        })
        .collect();
    CaseResult {
        id: case.id.clone(),
        returned: references.len(),
        ranks,
        confidence: None,
        suggested: Vec::new(),
    }
}

/// Computes the aggregates over per-query results.
pub fn metrics(results: &[CaseResult]) -> Metrics {
    metrics_within(results, None)
}

/// [`metrics`], with `recall_at_chars` for the budget `chars` when given.
///
/// Long on purpose: one aggregate per metric (recall at each depth, MRR,
/// nDCG, R@chars, answer recall), each a short closure over the same cases.
fn metrics_within(results: &[CaseResult], chars: Option<usize>) -> Metrics {
    let n = results.len().max(1) as f64;
    let recall = |k: usize, all: bool| {
        results
            .iter()
            .map(|r| {
                let wanted: Vec<&ExpectedRank> = r
                    .ranks
                    .iter()
                    .filter(|e| all || e.grade == Grade::Must)
                    .collect();
                if wanted.is_empty() {
                    return 1.0;
                }
                wanted
                    .iter()
                    .filter(|e| e.rank.is_some_and(|x| x <= k))
                    .count() as f64
                    / wanted.len() as f64
            })
            .sum::<f64>()
            / n
    };
    let mrr = results
        .iter()
        .map(|r| {
            r.ranks
                .iter()
                .filter(|e| e.grade == Grade::Must)
                .filter_map(|e| e.rank)
                .min()
                .map_or(0.0, |x| 1.0 / x as f64)
        })
        .sum::<f64>()
        / n;
    let ndcg = results
        .iter()
        .map(|r| {
            let gain = |g: Grade| if g == Grade::Must { 2.0 } else { 1.0 };
            let dcg: f64 = r
                .ranks
                .iter()
                .filter_map(|e| {
                    e.rank
                        .filter(|&x| x <= 10)
                        .map(|x| gain(e.grade) / ((x + 1) as f64).log2())
                })
                .sum();
            let mut gains: Vec<f64> = r.ranks.iter().map(|e| gain(e.grade)).collect();
            gains.sort_by(|a, b| b.total_cmp(a));
            let ideal: f64 = gains
                .iter()
                .take(10)
                .enumerate()
                .map(|(i, g)| g / ((i + 2) as f64).log2())
                .sum();
            if ideal > 0.0 { dcg / ideal } else { 0.0 }
        })
        .sum::<f64>()
        / n;
    let mut returned: Vec<usize> = results.iter().map(|r| r.returned).collect();
    returned.sort_unstable();
    let median = match returned.len() {
        0 => 0.0,
        l if l % 2 == 1 => returned[l / 2] as f64,
        l => (returned[l / 2 - 1] + returned[l / 2]) as f64 / 2.0,
    };
    let r4 = |x: f64| (x * 10_000.0).round() / 10_000.0;
    // Answer recall, pooled over the must sections that have a phrase.
    let judged: Vec<&ExpectedRank> = results
        .iter()
        .flat_map(|r| &r.ranks)
        .filter(|e| e.grade == Grade::Must && e.answered.is_some())
        .collect();
    let answer = (!judged.is_empty()).then(|| {
        let mut hits = [0; 3];
        for e in &judged {
            for (hit, &answered) in hits.iter_mut().zip(e.answered.iter().flatten()) {
                *hit += usize::from(answered);
            }
        }
        let ranked = judged.iter().filter(|e| e.rank.is_some()).count();
        (hits, ranked, judged.len())
    });
    Metrics {
        queries: results.len(),
        recall_at_10: r4(recall(10, false)),
        recall_at_20: r4(recall(20, false)),
        recall_at_30: r4(recall(30, false)),
        recall_all_at_30: r4(recall(30, true)),
        mrr: r4(mrr),
        ndcg_at_10: r4(ndcg),
        median_returned: median,
        recall_at_chars: chars.map(|budget| {
            let share = |r: &CaseResult| {
                let must: Vec<&ExpectedRank> =
                    r.ranks.iter().filter(|e| e.grade == Grade::Must).collect();
                if must.is_empty() {
                    return 1.0;
                }
                let within = must
                    .iter()
                    .filter(|e| e.starts_at.is_some_and(|s| s < budget))
                    .count();
                within as f64 / must.len() as f64
            };
            r4(results.iter().map(share).sum::<f64>() / n)
        }),
        recall_whole_at_chars: chars.map(|budget| {
            let share = |r: &CaseResult| {
                let must: Vec<&ExpectedRank> =
                    r.ranks.iter().filter(|e| e.grade == Grade::Must).collect();
                if must.is_empty() {
                    return 1.0;
                }
                let whole = must
                    .iter()
                    .filter(|e| e.whole_until.is_some_and(|end| end <= budget))
                    .count();
                whole as f64 / must.len() as f64
            };
            r4(results.iter().map(share).sum::<f64>() / n)
        }),
        chars,
        answer_recall: answer.as_ref().map(|(hits, _, total)| {
            let share = |h: usize| r4(h as f64 / (*total).max(1) as f64);
            [share(hits[0]), share(hits[1]), share(hits[2])]
        }),
        answer_ranked: answer
            .as_ref()
            .map(|(_, ranked, total)| r4(*ranked as f64 / (*total).max(1) as f64)),
        answer_sections: answer.as_ref().map(|(_, _, total)| *total),
        calibration: calibration(results),
    }
}

/// The calibration of `results`' confidence levels (see [`Calibration`]).
fn calibration(results: &[CaseResult]) -> Vec<Calibration> {
    if results.iter().all(|r| r.confidence.is_none()) {
        return Vec::new();
    }
    let r4 = |x: f64| (x * 10_000.0).round() / 10_000.0;
    // The best rank of a must section (0 when the case has none: found).
    let best = |r: &CaseResult| {
        let mut must = r.ranks.iter().filter(|e| e.grade == Grade::Must).peekable();
        must.peek()?;
        Some(must.filter_map(|e| e.rank).min().unwrap_or(usize::MAX))
    };
    ["high", "medium", "low"]
        .into_iter()
        .map(|level| {
            let at: Vec<&CaseResult> = results
                .iter()
                .filter(|r| r.confidence.as_ref().is_some_and(|c| c.level == level))
                .collect();
            let within = |k: usize| {
                let n = at.iter().filter(|r| best(r).is_none_or(|b| b <= k)).count();
                r4(n as f64 / at.len().max(1) as f64)
            };
            Calibration {
                level,
                queries: at.len(),
                share: r4(at.len() as f64 / results.len().max(1) as f64),
                must_in_top_3: within(3),
                must_in_top_30: within(30),
            }
        })
        .collect()
}

/// A plain-text report: one table row per run, then per-query ranks (when `details`).
pub fn render_text(runs: &[Run], details: bool) -> String {
    let chars = runs.iter().find_map(|r| r.metrics.chars);
    let mut s = String::from(
        "mode      method   queries  R@10    R@20    R@30    R@30all MRR     nDCG@10 median",
    );
    if let Some(budget) = chars {
        s.push_str(&format!("  R@{budget}chars"));
    }
    s.push('\n');
    for r in runs {
        let m = &r.metrics;
        s.push_str(&format!(
            "{:<9} {:<8} {:>7}  {:.4}  {:.4}  {:.4}  {:.4}  {:.4}  {:.4}  {}",
            format!("{:?}", r.mode).to_lowercase(),
            r.method.as_str(),
            m.queries,
            m.recall_at_10,
            m.recall_at_20,
            m.recall_at_30,
            m.recall_all_at_30,
            m.mrr,
            m.ndcg_at_10,
            m.median_returned
        ));
        if let Some(within) = m.recall_at_chars {
            s.push_str(&format!("  {within:.4}"));
        }
        s.push('\n');
    }
    if runs.iter().any(|r| r.metrics.answer_recall.is_some()) {
        s.push_str(&format!(
            "answer recall (must sections whose answer phrase is handed over, at --max-tokens {}):\n",
            ANSWER_BUDGETS.map(|b| b.to_string()).join(" / ")
        ));
        for r in runs {
            let m = &r.metrics;
            if let (Some(a), Some(ranked), Some(n)) =
                (m.answer_recall, m.answer_ranked, m.answer_sections)
            {
                s.push_str(&format!(
                    "{:<9} {:<8} {n:>7}  {:.4}  {:.4}  {:.4}  (ranked {ranked:.4})\n",
                    format!("{:?}", r.mode).to_lowercase(),
                    r.method.as_str(),
                    a[0],
                    a[1],
                    a[2],
                ));
            }
        }
    }
    if runs.iter().any(|r| !r.metrics.calibration.is_empty()) {
        s.push_str(
            "confidence (queries, share; of them with a must section in the top 3 / top 30):\n",
        );
        for r in runs {
            let cells: Vec<String> = r
                .metrics
                .calibration
                .iter()
                .map(|c| {
                    format!(
                        "{} {:>3} {:.2} {:.2}/{:.2}",
                        c.level, c.queries, c.share, c.must_in_top_3, c.must_in_top_30
                    )
                })
                .collect();
            if !cells.is_empty() {
                s.push_str(&format!(
                    "{:<9} {:<8}  {}\n",
                    format!("{:?}", r.mode).to_lowercase(),
                    format!("{:?}", r.method).to_lowercase(),
                    cells.join("  ")
                ));
            }
        }
    }
    if runs.iter().any(|r| r.body) {
        s.push_str("(default: with the body stage; --no-body measures without)\n");
    }
    if runs.iter().any(|r| r.fallback) {
        s.push_str("(default: with the full-text fallback; --no-fallback measures without)\n");
    }
    if details {
        for r in runs {
            s.push_str(&format!(
                "\n# {} / {}\n",
                format!("{:?}", r.mode).to_lowercase(),
                r.method.as_str()
            ));
            for c in &r.cases {
                let ranks: Vec<String> = c
                    .ranks
                    .iter()
                    .map(|e| {
                        let g = if e.grade == Grade::Must { "" } else { "~" };
                        format!(
                            "{g}{}={}",
                            e.reference,
                            e.rank.map_or("-".to_owned(), |x| x.to_string())
                        )
                    })
                    .collect();
                s.push_str(&format!("{} ({}): {}\n", c.id, c.returned, ranks.join(" ")));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(ranks: &[(Grade, Option<usize>)], returned: usize) -> CaseResult {
        CaseResult {
            id: "q".into(),
            returned,
            confidence: None,
            ranks: ranks
                .iter()
                .map(|&(grade, rank)| ExpectedRank {
                    reference: "a#b".into(),
                    grade,
                    rank,
                    // Each result before this one handed over 1,000 characters.
                    starts_at: rank.map(|r| (r - 1) * 1000),
                    whole_until: rank.map(|r| r * 1000),
                    answered: None,
                })
                .collect(),
            suggested: Vec::new(),
        }
    }

    /// A section folded into a result takes its rank; only a twin (`also`)
    /// takes its place in the text too, since its text is the result's.
    #[test]
    fn folded_sections_take_their_results_rank_and_twins_its_place() {
        let expected = |section: &str| Expected {
            file: "f.json".into(),
            section: section.into(),
            grade: Grade::Must,
            answer: None,
        };
        let case = Case {
            id: "q".into(),
            query: "x".into(),
            keywords: None,
            terms: None,
            expected: vec![expected("listed"), expected("more"), expected("twin")],
        };
        let folded = HashMap::from([("f.json#more", (1, false)), ("f.json#twin", (2, true))]);
        let result = score_case(
            &case,
            &["f.json#first", "f.json#listed"],
            &[0, 500],
            &[Some(500), Some(900)],
            &folded,
        );
        let got: Vec<_> = result
            .ranks
            .iter()
            .map(|r| (r.rank, r.starts_at, r.whole_until))
            .collect();
        assert_eq!(
            got,
            [
                (Some(2), Some(500), Some(900)),
                (Some(1), None, None),
                (Some(2), Some(500), Some(900)),
            ]
        );
    }

    #[test]
    fn metrics_follow_their_definitions() {
        let results = [
            case(&[(Grade::Must, Some(1)), (Grade::Acceptable, Some(2))], 30),
            case(&[(Grade::Must, Some(15)), (Grade::Must, None)], 10),
        ];
        let m = metrics(&results);
        assert_eq!(
            (m.recall_at_10, m.recall_at_20, m.recall_at_30),
            (0.5, 0.75, 0.75)
        );
        assert_eq!(m.recall_all_at_30, 0.75);
        assert_eq!(m.mrr, 0.5333);
        assert_eq!(m.median_returned, 20.0);
        assert_eq!(m.ndcg_at_10, 0.5);
        assert_eq!((m.recall_at_chars, m.chars), (None, None));
    }

    /// R@chars counts a must section when its content starts inside the
    /// budget: ranks 1 and 15 start at 0 and 14,000 characters.
    #[test]
    fn recall_at_chars_counts_sections_starting_within_the_budget() {
        let results = [
            case(&[(Grade::Must, Some(1)), (Grade::Acceptable, Some(2))], 30),
            case(&[(Grade::Must, Some(15)), (Grade::Must, None)], 10),
        ];
        // (budget, mean share): 1/1 and 0/2; 1/1 and 1/2; the start must be before the budget.
        for (budget, want) in [(1, 0.5), (14_000, 0.5), (14_001, 0.75), (100_000, 0.75)] {
            let m = metrics_within(&results, Some(budget));
            assert_eq!(m.recall_at_chars, Some(want), "budget {budget}");
        }
    }

    #[test]
    fn answer_recall_pools_must_sections_with_a_phrase() {
        let mut one = case(&[(Grade::Must, Some(1)), (Grade::Must, Some(3))], 30);
        one.ranks[0].answered = Some([false, true, true]);
        one.ranks[1].answered = Some([false, false, true]);
        let mut two = case(&[(Grade::Must, None), (Grade::Acceptable, Some(2))], 30);
        two.ranks[0].answered = Some([false, false, false]);
        // An acceptable section never counts, answered or not.
        two.ranks[1].answered = Some([true, true, true]);
        let m = metrics(&[one, two]);
        assert_eq!(m.answer_recall, Some([0.0, 0.3333, 0.6667]));
        assert_eq!(m.answer_ranked, Some(0.6667));
        assert_eq!(m.answer_sections, Some(3));
        // Without phrases there is no answer recall.
        let m = metrics(&[case(&[(Grade::Must, Some(1))], 30)]);
        assert_eq!(m.answer_recall, None);
    }
}
