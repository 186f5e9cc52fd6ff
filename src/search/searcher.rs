//! The one search path that `kbidx search` and `kbidx eval` share.
//!
//! A [`Searcher`] ranks with one of two backends. The index file's: the
//! index pass (`matcher`, with the two-pass file → section blend when
//! configured), fused with the body stage, or followed by the full-text
//! fallback when the index pass is unsure (`fallback`). PostgreSQL's
//! (or any other [`rank::Backend`]): one SQL ranking. Either way [`Searcher::search_with`]
//! returns a [`Ranking`], after the same result shaping (`--exclude`,
//! `--group-by`, `--collapse`); `output` renders a ranking, `eval` scores it:
//! both see the same results in the same order, so eval measures the
//! ranking search ships, whichever backend ranked it.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::body::{BodyHit, BodyIndex, Params};
use super::cache::Cache;
use super::fallback::{self, Corpus, Pass, Status};
use super::limit::Oversize;
use super::score::{Hit, SearchMode};
use super::{Diversity, Hierarchy, Matcher, Outcome, Query, Scoring};
use crate::error::{Error, Result};
use crate::index::model::split_reference;
use crate::knowledge::content::Library;
use crate::rank::{self, Ranked};

/// The body index of `matcher`'s rows: from the search cache when it holds
/// one for this index text and these knowledge files (whatever their size),
/// else built from the knowledge directory (and stored, best effort, like
/// the word index) unless the knowledge is over `limit` bytes.
fn load_body(
    matcher: &Matcher<'_>,
    cache: Option<&Cache>,
    knowledge: &Path,
    limit: u64,
) -> std::result::Result<BodyIndex, Oversize> {
    let hash = matcher.text_hash();
    let entry = cache.and_then(|c| c.body_entry(matcher.path()));
    if let Some(index) = entry
        .as_deref()
        .and_then(|e| super::cache::cached_body(e, hash, knowledge))
    {
        return Ok(index);
    }
    if let Some(over) = over_limit(matcher, knowledge, limit) {
        return Err(over);
    }
    let index = crate::timings::time("body build", || {
        BodyIndex::build(&matcher.entries(), knowledge, hash)
    });
    if let (Some(cache), Some(entry)) = (cache, entry) {
        let _ = crate::timings::time("body store", || cache.store(&entry, index.as_bytes()));
    }
    Ok(index)
}

/// Whether the knowledge `matcher`'s rows come from is over `limit` bytes.
fn over_limit(matcher: &Matcher<'_>, knowledge: &Path, limit: u64) -> Option<Oversize> {
    crate::timings::time("limit check", || {
        let bytes = super::limit::knowledge_bytes_by_runs(
            matcher.len(),
            |row| matcher.reference(row),
            knowledge,
        );
        (bytes > limit).then_some(Oversize { bytes, limit })
    })
}

/// How deep each stage ranks for `top` results: a row one stage ranks low
/// can still rise with the other's score.
fn stage_depth(top: usize) -> usize {
    // 3 × (at least 100): 6 and 10 measured alike on the dev split (docs/accuracy.md).
    top.saturating_mul(3).max(100)
}

/// How deep the index pass ranks for levelled keywords, at least, when
/// [concept coverage](Coverage) is on: it counts the keywords a row matches
/// in its own fields, and a row beyond the pass's depth keeps only its text
/// matches (the 40 members of a class whose name is a keyword can push the
/// guide section about the class out of 100 rows). 300 measured as 100 on
/// the dev split and one must section higher on test (docs/experiments.md).
const COVERAGE_INDEX_DEPTH: usize = 300;

/// [`Body::keyword_coverage`] unless `kbidx.toml` or `--keyword-coverage`
/// says otherwise. 0.4, chosen on dev (0.2–0.6) on top of L3 coverage, lifts
/// keyword-mode MRR on dev and test and pooled over the held-out splits; it
/// applies to levelled keywords only, as L3 coverage does (docs/experiments.md,
/// "Concept coverage in keyword mode").
pub const DEFAULT_KEYWORD_COVERAGE: f64 = 0.4;

/// [`Body::l3_coverage`] unless `kbidx.toml` or `--l3-coverage` says
/// otherwise. 0.5 (chosen on dev from 0.2–0.7) lifts keyword-mode MRR on dev,
/// test and the held-out splits pooled; the most a split loses is one question's
/// move (docs/experiments.md, "L3 coverage in keyword mode").
pub const DEFAULT_L3_COVERAGE: f64 = 0.5;

/// Search settings beyond the query and the scoring method, as flags and
/// `kbidx.toml` give them.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Two-pass file → section search, when on.
    pub hierarchy: Option<Hierarchy>,
    /// The full-text fallback (used only when the body stage is off).
    pub fallback: fallback::Settings,
    /// The body stage, when on.
    pub body: Option<Body>,
    /// Path weights (`[[weight]]`; none by default).
    pub weights: super::Weights,
    /// The most knowledge (bytes) for which a search builds a body index or
    /// runs the fallback (`body_limit`; see `limit`).
    pub body_limit: u64,
}

impl Default for Settings {
    /// What `kbidx search` ships: the body stage on, the two-pass search
    /// off, the fallback configured as by default (it runs only without the body stage).
    fn default() -> Self {
        Self {
            hierarchy: None,
            fallback: fallback::Settings::default(),
            body: Some(Body::default()),
            weights: super::Weights::default(),
            body_limit: super::DEFAULT_BODY_LIMIT,
        }
    }
}

/// How the body stage ranks and how its scores meet the index pass's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// BM25F parameters.
    pub(crate) params: Params,
    /// Weight of the index pass's normalised score in a question's fused
    /// score (the body stage's score, divided by the query's best, gets the
    /// rest). 0.2, chosen on the dev split (docs/accuracy.md).
    pub alpha: f64,
    /// The same weight for rows with curated hints, whose index-pass matches
    /// are worth more: 0.5 (0.35–0.5 measured alike on the dev split).
    pub alpha_hints: f64,
    /// Share of the body stage in a levelled-keyword search's score: each
    /// row scores `(1 − share) · its index-pass points (with its literal
    /// text matches) + share · the best row's points · its body score / the
    /// best body score`. The index pass alone ranks a javadoc member or a
    /// sibling section that names a keyword in its title above the section
    /// whose text is about all of them; the body stage's words tell them
    /// apart. 0.35, chosen on the dev split's keyword mode (docs/accuracy.md).
    pub keyword_body: f64,
    /// Weight of concept coverage in a levelled-keyword search's score (0–1):
    /// each row's score is multiplied by `1 − coverage + coverage · the share
    /// of the query's concepts it matches` in its own fields or its text (see
    /// [`Coverage`]), and the index pass ranks at least
    /// [`COVERAGE_INDEX_DEPTH`] rows. Summed points let one rare identifier,
    /// matched in a path, a title and the terms of every member of a class,
    /// outweigh a section that names most of what the agent asked for.
    /// [`DEFAULT_KEYWORD_COVERAGE`] unless configured.
    pub keyword_coverage: f64,
    /// Weight of L3 coverage (0–1): the same factor over the query's L3
    /// concepts only, what the user wants to do. A file's sections share its
    /// path, title and L2 words; the one that also names the task is the
    /// answer more often than a sibling with a louder component match.
    /// [`DEFAULT_L3_COVERAGE`] unless configured.
    pub l3_coverage: f64,
}

impl Body {
    /// Whether either coverage factor is on (and the index pass ranks deeper).
    fn covers(&self) -> bool {
        self.keyword_coverage > 0.0 || self.l3_coverage > 0.0
    }
}

impl Default for Body {
    fn default() -> Self {
        Self {
            params: Params::default(),
            alpha: 0.2,
            alpha_hints: 0.5,
            keyword_body: 0.35,
            keyword_coverage: DEFAULT_KEYWORD_COVERAGE,
            l3_coverage: DEFAULT_L3_COVERAGE,
        }
    }
}

/// A prepared backend: the index file, or a [`rank::Backend`] (a PostgreSQL table).
#[derive(Debug)]
pub struct Searcher<'a> {
    backend: Backend<'a>,
    weights: super::Weights,
}

#[derive(Debug)]
enum Backend<'a> {
    Index(Box<IndexBackend<'a>>),
    /// A connection needs `&mut` to query; a searcher is used from one thread.
    Sections(RefCell<Box<dyn rank::Backend>>),
}

/// An index prepared for searching, with the knowledge directory the
/// fallback reads (its section text is loaded once, on first need).
#[derive(Debug)]
struct IndexBackend<'a> {
    matcher: Matcher<'a>,
    fallback: fallback::Settings,
    knowledge: Option<PathBuf>,
    corpus: OnceCell<Corpus>,
    body: Option<Body>,
    body_index: OnceCell<Option<BodyIndex>>,
    cache: Option<Cache>,
    /// See [`Settings::body_limit`].
    limit: u64,
    /// Whether the knowledge is over `limit` (checked once, when first needed).
    oversize: OnceCell<Option<Oversize>>,
    /// Run the stages one after the other on this thread (see [`Searcher::prepare_for_many`]).
    in_turn: std::cell::Cell<bool>,
}

/// One search's result: the results in final order, and what the
/// backend's stages found (which each result's [`Source`] points into).
#[derive(Debug)]
pub struct Ranking {
    /// The final order (at most `top`).
    pub(crate) results: Vec<Placed>,
    /// What the backend found.
    pub(crate) stages: Stages,
}

/// Where a result comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The index pass's hit at this position.
    Index(usize),
    /// The fallback's hit at this position.
    Fulltext(usize),
    /// The body stage's hit at this position (a row the index pass did not return).
    Body(usize),
    /// A row only a keyword's literal match in its section text found (levelled
    /// keywords; the body stage's own words did not rank it).
    Text(usize),
    /// A [`rank::Backend`]'s section at this position.
    Section(usize),
}

/// One result of a [`Ranking`].
#[derive(Debug, Clone)]
pub(crate) struct Placed {
    pub(crate) source: Source,
    /// The (score, normalised score) it is ranked by, when the body stage
    /// ran: a question's fused score (0–1, both); for levelled keywords the
    /// index pass's own (0 for rows only the body stage found, which come
    /// after).
    pub(crate) fused: Option<(f64, f64)>,
    /// The references `--group-by file` folded into it (empty when nothing
    /// was folded or diversity is off).
    pub(crate) more: Vec<String>,
    /// The near-duplicate sections `--collapse` folded into it.
    pub(crate) also: Vec<String>,
    /// When the body stage ran: how the points of what it matched add up to
    /// its score.
    pub(crate) parts: Option<Parts>,
    /// The path weight applied to it (`None` when none was; see `weight`).
    pub(crate) weight: Option<super::weight::Applied>,
}

impl Placed {
    /// A result as its stage ranked it (nothing fused or folded).
    fn at(source: Source) -> Self {
        Self {
            source,
            fused: None,
            more: Vec::new(),
            also: Vec::new(),
            parts: None,
            weight: None,
        }
    }
}

/// What a backend's stages found.
#[derive(Debug)]
pub(crate) enum Stages {
    /// The index file's: the index pass, the fallback (`None`: it did not
    /// run, the body stage did), the body stage's hits (empty when it is off).
    Index {
        outcome: Outcome,
        pass: Option<Pass>,
        body: Vec<BodyHit>,
    },
    /// A [`rank::Backend`]'s ranking.
    Sections(Ranked),
}

/// How one result's matches add up to its score (see docs/ranking.md).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Parts {
    /// Factor on the index pass's points: `1 − keyword_body` for levelled
    /// keywords (in the two-pass search, times its blend over the points);
    /// for a question, its share of the fused score (`alpha · normalised /
    /// points`).
    pub(crate) index: f64,
    /// Factor on the body stage's points, or `None` when they are not in the
    /// score.
    pub(crate) body: Option<f64>,
    /// Levelled L2/L3 keywords found literally in the section text, with
    /// their points (part of the score).
    pub(crate) text: Vec<(String, super::Level, f64)>,
}

/// What a literal match of an L2/L3 keyword in a section's text adds, times
/// the keyword's idf over the sections' text (a match in the hints counts
/// 1, see `score`), when the index pass did not match the keyword in the
/// row's own fields (then the text adds nothing: any weight for it, down to
/// 0.05, lost answer recall on the dev split). 0.3: chosen on the dev split
/// (docs/accuracy.md).
pub(crate) const TEXT_WEIGHT: f64 = 0.3;

impl Ranking {
    /// The index row of `source` (`None` for a backend's section: no rows).
    fn row(&self, source: Source) -> Option<usize> {
        match (source, &self.stages) {
            (Source::Index(i), Stages::Index { outcome, .. }) => Some(outcome.hits[i].row),
            (
                Source::Fulltext(i),
                Stages::Index {
                    pass: Some(pass), ..
                },
            ) => Some(pass.hits[i].row),
            (Source::Body(i), Stages::Index { body, .. }) => Some(body[i].row),
            (Source::Text(row), _) => Some(row),
            _ => None,
        }
    }

    /// The index rows, in final order (the index backend's rankings; a
    /// backend's own sections have none).
    pub fn rows(&self) -> Vec<usize> {
        self.results
            .iter()
            .filter_map(|p| self.row(p.source))
            .collect()
    }

    /// How many sections scored (before the cut to `top`).
    pub(crate) fn total(&self) -> usize {
        match &self.stages {
            Stages::Index { outcome, .. } => outcome.total,
            Stages::Sections(ranked) => ranked.total,
        }
    }

    /// The search mode the index pass chose (`None` for a backend's own ranking).
    pub(crate) fn mode(&self) -> Option<&SearchMode> {
        match &self.stages {
            Stages::Index { outcome, .. } => outcome.mode.as_ref(),
            Stages::Sections(_) => None,
        }
    }

    /// The index pass's hits (none for a backend's own ranking).
    pub(crate) fn index_hits(&self) -> &[Hit] {
        match &self.stages {
            Stages::Index { outcome, .. } => &outcome.hits,
            Stages::Sections(_) => &[],
        }
    }

    /// The body stage's hits (none when it did not run).
    pub(crate) fn body_hits(&self) -> &[BodyHit] {
        match &self.stages {
            Stages::Index { body, .. } => body,
            Stages::Sections(_) => &[],
        }
    }
}

/// The text of sections, as `--with-content`, `--collapse` and eval's
/// R@chars read it: from the knowledge files, or from the table's `content`
/// (fetched by [`Searcher::load_texts`]).
#[derive(Debug)]
pub(crate) struct Texts {
    library: Option<Library>,
    table: HashMap<String, Option<String>>,
}

impl Texts {
    /// Text read from the knowledge directory `knowledge`.
    pub(crate) fn files(knowledge: &Path) -> Self {
        Self {
            library: Some(Library::new(knowledge)),
            table: HashMap::new(),
        }
    }

    /// The text of the section `reference`.
    pub(crate) fn section(&mut self, reference: &str) -> Result<String> {
        if let Some(library) = self.library.as_mut() {
            return library.section(reference);
        }
        match self.table.get(reference) {
            Some(Some(text)) => Ok(text.clone()),
            Some(None) => Err(Error::Database(format!(
                "section {reference} has no content in the table (its file could not be read at push time)"
            ))),
            None => Err(Error::Database(format!(
                "section {reference} is not in the table (pushed again meanwhile?)"
            ))),
        }
    }
}

impl<'a> Searcher<'a> {
    /// A searcher over `matcher` with `settings`; `knowledge` is the
    /// directory the fallback reads (`None`: the fallback never runs).
    pub fn new(matcher: Matcher<'a>, settings: Settings, knowledge: Option<PathBuf>) -> Self {
        Self {
            backend: Backend::Index(Box::new(IndexBackend {
                matcher: matcher.with_hierarchy(settings.hierarchy),
                fallback: settings.fallback,
                knowledge,
                corpus: OnceCell::new(),
                body: settings.body,
                body_index: OnceCell::new(),
                cache: None,
                limit: settings.body_limit,
                oversize: OnceCell::new(),
                in_turn: std::cell::Cell::new(false),
            })),
            weights: settings.weights,
        }
    }

    /// A searcher over a backend that ranks its own sections (PostgreSQL:
    /// `search --pg`, `eval --pg`): it ranks one way (no scoring methods,
    /// stages or fallback).
    pub(crate) fn sections(backend: Box<dyn rank::Backend>) -> Self {
        Self {
            backend: Backend::Sections(RefCell::new(backend)),
            weights: super::Weights::default(),
        }
    }

    /// Applies `weights` (a backend's own ranking; the index searcher takes
    /// them from its settings).
    pub(crate) fn with_weights(mut self, weights: super::Weights) -> Self {
        self.weights = weights;
        self
    }

    /// Keeps the body index in `cache` (next to the word index), so that a
    /// search after the first only maps it.
    pub(crate) fn with_cache(mut self, cache: Option<Cache>) -> Self {
        if let Backend::Index(index) = &mut self.backend {
            index.cache = cache;
        }
        self
    }

    /// Uses `body`, a body index mapped and checked ahead (see
    /// [`super::cache::prefetch_body`]), when it was built for this index's
    /// text; otherwise the first search loads one as usual.
    pub(crate) fn with_body_index(self, body: Option<BodyIndex>) -> Self {
        if let (Backend::Index(index), Some(body)) = (&self.backend, body)
            && body.built_for(index.matcher.text_hash())
            && index.body_possible(Scoring::Default)
        {
            let _ = index.body_index.set(Some(body));
        }
        self
    }

    /// The prepared index (`None` for PostgreSQL).
    pub fn matcher(&self) -> Option<&Matcher<'a>> {
        match &self.backend {
            Backend::Index(index) => Some(&index.matcher),
            Backend::Sections(_) => None,
        }
    }

    /// Sections searched.
    pub fn len(&self) -> usize {
        match &self.backend {
            Backend::Index(index) => index.matcher.len(),
            Backend::Sections(backend) => backend.borrow().len(),
        }
    }

    /// Whether there is no section to search.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the body stage runs for `scoring` (on, and a knowledge directory exists).
    pub fn body_possible(&self, scoring: Scoring) -> bool {
        match &self.backend {
            Backend::Index(index) => index.body_possible(scoring),
            Backend::Sections(_) => false,
        }
    }

    /// Whether the fallback can run at all for `scoring` (on, the body stage
    /// off, and a knowledge directory exists).
    pub fn fallback_possible(&self, scoring: Scoring) -> bool {
        match &self.backend {
            Backend::Index(index) => index.fallback_possible(scoring),
            Backend::Sections(_) => false,
        }
    }

    /// Why part of the ranking did not run, for people: the knowledge is
    /// over the cap (see `limit`), once known. Empty otherwise.
    pub(crate) fn notes(&self) -> Vec<String> {
        match &self.backend {
            Backend::Index(index) => index
                .oversize
                .get()
                .copied()
                .flatten()
                .map(|over| over.to_string())
                .into_iter()
                .collect(),
            Backend::Sections(_) => Vec::new(),
        }
    }

    /// Loads the body index now, when the body stage can run, instead of
    /// during the first search: a long-lived searcher (`kbidx mcp`) pays for
    /// it when it starts, not in its first answer.
    pub(crate) fn load_body_index(&self) {
        if let Backend::Index(index) = &self.backend {
            index.load_body_index();
        }
    }

    /// Readies the searcher for many searches: the index (see
    /// [`Matcher::prepare_for_many`]), and the stages of a search run on the
    /// caller's thread once the body index is loaded.
    pub(crate) fn prepare_for_many(&self) {
        if let Backend::Index(index) = &self.backend {
            index.matcher.prepare_for_many();
            index.in_turn.set(true);
        }
    }

    /// Where section text comes from (`None`: nowhere, an index backend
    /// without a knowledge directory).
    pub(crate) fn texts(&self) -> Option<Texts> {
        match &self.backend {
            Backend::Index(index) => index.knowledge.as_ref().map(|k| Texts {
                library: Some(Library::new(k)),
                table: HashMap::new(),
            }),
            Backend::Sections(_) => Some(Texts {
                library: None,
                table: HashMap::new(),
            }),
        }
    }

    /// Makes the text of `references` available in `texts`: one query for
    /// those PostgreSQL has not sent yet (the index backend reads files on
    /// demand instead).
    pub(crate) fn load_texts(&self, texts: &mut Texts, references: &[&str]) -> Result<()> {
        if let Backend::Sections(backend) = &self.backend {
            let missing: Vec<&str> = references
                .iter()
                .copied()
                .filter(|r| !texts.table.contains_key(*r))
                .collect();
            if !missing.is_empty() {
                texts.table.extend(backend.borrow_mut().contents(&missing)?);
            }
        }
        Ok(())
    }

    /// The references of `ranking`'s results, in order.
    pub(crate) fn references(&self, ranking: &Ranking) -> Vec<String> {
        ranking
            .results
            .iter()
            .map(
                |placed| match (placed.source, &ranking.stages, &self.backend) {
                    (Source::Section(i), Stages::Sections(ranked), _) => {
                        ranked.sections[i].reference.clone()
                    }
                    (source, _, Backend::Index(index)) => ranking
                        .row(source)
                        .map(|row| index.matcher.entry(row).reference.to_string())
                        .unwrap_or_default(),
                    _ => String::new(),
                },
            )
            .collect()
    }

    /// Ranks for `query`: at most `top` results, those scoring below
    /// `min_score` dropped (the index backend: its index hits).
    pub fn search(
        &self,
        query: &Query,
        scoring: Scoring,
        top: usize,
        min_score: Option<f64>,
    ) -> Result<Ranking> {
        self.search_deep(query, scoring, top, top, min_score)
    }

    /// [`Self::search`] for `top` (which sets how deep each stage looks),
    /// returning up to `cut` results: the first `top` are those `search`
    /// returns, in its order, so that diversity's refill does not reorder
    /// what it keeps. Path weights (default scoring) re-rank the backend's
    /// candidates as deep as its stages look before the cut.
    fn search_deep(
        &self,
        query: &Query,
        scoring: Scoring,
        top: usize,
        cut: usize,
        min_score: Option<f64>,
    ) -> Result<Ranking> {
        if self.weights.is_empty() || scoring != Scoring::Default {
            return self.rank(query, scoring, top, cut, min_score);
        }
        let deep = cut.max(stage_depth(top));
        let mut ranking = self.rank(query, scoring, top, deep, min_score)?;
        let references = self.references(&ranking);
        super::weight::apply(&self.weights, &mut ranking, &references, cut);
        Ok(ranking)
    }

    /// The backend's ranking for [`Self::search_deep`], unweighted.
    fn rank(
        &self,
        query: &Query,
        scoring: Scoring,
        top: usize,
        cut: usize,
        min_score: Option<f64>,
    ) -> Result<Ranking> {
        match &self.backend {
            Backend::Index(index) => Ok(index.search_deep(query, scoring, top, cut, min_score)),
            Backend::Sections(backend) => {
                let ranked = backend.borrow_mut().rank(query, cut, min_score)?;
                Ok(Ranking {
                    results: (0..ranked.sections.len())
                        .map(|i| Placed::at(Source::Section(i)))
                        .collect(),
                    stages: Stages::Sections(ranked),
                })
            }
        }
    }

    /// Whether `ranking` (of [`Self::search_deep`] for `depth` and `cut`)
    /// holds every result that scores: no stage stopped at its depth.
    fn complete(&self, ranking: &Ranking, depth: usize, cut: usize) -> bool {
        match &ranking.stages {
            Stages::Index { outcome, body, .. } => {
                let wide = stage_depth(depth);
                ranking.results.len() < cut && outcome.hits.len() < wide && body.len() < wide
            }
            Stages::Sections(ranked) => ranked.sections.len() < cut,
        }
    }

    /// [`Self::search`], then `diversity` (`--exclude`, `--group-by`,
    /// `--collapse`) before the `top` cut: the list is refilled from further
    /// down the same ranking (4 × `top` results, at least 100), and only when
    /// that is not enough does the backend rank deeper (4 × as deep each
    /// time), so the list stays `top` long when the sections allow.
    pub fn search_with(
        &self,
        query: &Query,
        scoring: Scoring,
        top: usize,
        min_score: Option<f64>,
        diversity: &Diversity,
    ) -> Result<Ranking> {
        if diversity.is_off() {
            return self.search(query, scoring, top, min_score);
        }
        let mut depth = top;
        loop {
            let cut = depth.saturating_mul(4).max(100);
            let mut ranking = self.search_deep(query, scoring, depth, cut, min_score)?;
            let references = self.references(&ranking);
            let files: Vec<&str> = references.iter().map(|r| split_reference(r).0).collect();
            // `--collapse`: signatures of the sections compared, read once.
            let mut texts = match diversity.collapse {
                true => self.texts(),
                false => None,
            };
            if let Some(texts) = texts.as_mut() {
                let all: Vec<&str> = references.iter().map(String::as_str).collect();
                self.load_texts(texts, &all)?;
            }
            let mut signatures: HashMap<usize, Vec<u64>> = HashMap::new();
            let mut signature = |at: usize| -> Vec<u64> {
                signatures
                    .entry(at)
                    .or_insert_with(|| {
                        // An unreadable section has no signature: never a duplicate.
                        texts
                            .as_mut()
                            .and_then(|t| t.section(&references[at]).ok())
                            .map_or_else(Vec::new, |text| super::diversity::signature(&text))
                    })
                    .clone()
            };
            let kept = diversity.apply(&files, top, |at, earlier| {
                let (a, b) = (signature(at), signature(earlier));
                super::diversity::near_duplicate(&a, &b)
            });
            if kept.len() < top && !self.complete(&ranking, depth, cut) && depth < self.len() {
                depth = depth.saturating_mul(4);
                continue;
            }
            ranking.results = kept
                .iter()
                .map(|k| Placed {
                    more: k.folded.iter().map(|&at| references[at].clone()).collect(),
                    also: k.twins.iter().map(|&at| references[at].clone()).collect(),
                    ..ranking.results[k.at].clone()
                })
                .collect();
            return Ok(ranking);
        }
    }

    /// Up to `limit` words for a second search: what the top rows of
    /// `ranking` share and `query` lacks (see [`super::suggest`]; the index
    /// backend only).
    pub(crate) fn suggest(
        &self,
        query: &Query,
        ranking: &Ranking,
        limit: usize,
    ) -> Vec<super::suggest::Suggestion> {
        match &self.backend {
            Backend::Index(index) => {
                let body = index.body_index.get().and_then(Option::as_ref);
                super::suggest::suggest(&index.matcher, body, query, &ranking.rows(), limit)
            }
            Backend::Sections(_) => Vec::new(),
        }
    }
}

impl IndexBackend<'_> {
    fn body_possible(&self, scoring: Scoring) -> bool {
        scoring == Scoring::Default
            && self.body.is_some()
            && self.knowledge.as_ref().is_some_and(|k| k.is_dir())
    }

    fn fallback_possible(&self, scoring: Scoring) -> bool {
        scoring == Scoring::Default
            && self.fallback.enabled
            && !self.body_possible(scoring)
            && self.knowledge.as_ref().is_some_and(|k| k.is_dir())
    }

    fn load_body_index(&self) {
        if self.body_possible(Scoring::Default) && self.body_index.get().is_none() {
            let loaded = self.knowledge.as_deref().and_then(|k| {
                self.keep(load_body(&self.matcher, self.cache.as_ref(), k, self.limit))
            });
            let _ = self.body_index.set(loaded);
        }
    }

    /// The body index `load_body` loaded, or `None` after recording that
    /// the knowledge is over the cap.
    fn keep(&self, loaded: std::result::Result<BodyIndex, Oversize>) -> Option<BodyIndex> {
        match loaded {
            Ok(index) => Some(index),
            Err(over) => {
                let _ = self.oversize.set(Some(over));
                None
            }
        }
    }

    /// Whether the knowledge is over the cap (one status read per file, the first time).
    fn oversize(&self) -> Option<Oversize> {
        *self
            .oversize
            .get_or_init(|| over_limit(&self.matcher, self.knowledge.as_deref()?, self.limit))
    }

    /// Whether the body stage may run: its index is loaded, or may be (a
    /// cache entry exists: the body stage's thread maps and checks it), or
    /// may be built (the knowledge is within the cap); `None` while the
    /// knowledge has not been measured against the cap.
    fn body_allowed(&self) -> Option<bool> {
        if let Some(loaded) = self.body_index.get() {
            return Some(loaded.is_some());
        }
        let entry = self
            .cache
            .as_ref()
            .and_then(|c| c.body_entry(self.matcher.path()));
        if entry.is_some_and(|e| e.is_file()) {
            return Some(true);
        }
        let over = self.oversize.get()?;
        if over.is_some() {
            let _ = self.body_index.set(None);
        }
        Some(over.is_none())
    }

    /// The index pass alone at depth `cut`, with the knowledge measured
    /// against the cap on a second thread meanwhile (a status read and a few
    /// references per file: at a million rows about as long as the pass):
    /// the outcome when the knowledge is over the cap, else `None` (the body
    /// index is built next, and the pass run at the body stage's depth).
    fn measure_alongside(
        &self,
        query: &Query,
        scoring: Scoring,
        cut: usize,
        min_score: Option<f64>,
    ) -> Option<Outcome> {
        let (matcher, knowledge, limit) = (&self.matcher, self.knowledge.as_deref(), self.limit);
        let (over, outcome) = std::thread::scope(|scope| {
            let worker = scope.spawn(move || knowledge.and_then(|k| over_limit(matcher, k, limit)));
            let outcome = crate::timings::time("index pass", || {
                self.matcher.search(query, scoring, cut, min_score)
            });
            // Measuring does not panic; if it did, re-raise it here.
            let over = worker
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (over, outcome)
        });
        let _ = self.oversize.set(over);
        over.map(|_| {
            let _ = self.body_index.set(None);
            outcome
        })
    }

    /// See [`Searcher::search_deep`].
    fn search_deep(
        &self,
        query: &Query,
        scoring: Scoring,
        top: usize,
        cut: usize,
        min_score: Option<f64>,
    ) -> Ranking {
        let mut alone = None;
        let mut allowed = || match self.body_allowed() {
            Some(allowed) => allowed,
            None => {
                alone = self.measure_alongside(query, scoring, cut, min_score);
                alone.is_none()
            }
        };
        if let Some(body) = self.body
            && self.body_possible(scoring)
            && allowed()
        {
            let wide = stage_depth(top);
            let index_wide = match query.question {
                None if body.covers() => wide.max(COVERAGE_INDEX_DEPTH),
                _ => wide,
            };
            let index_pass = || {
                crate::timings::time("index pass", || {
                    self.matcher
                        .search(query, Scoring::Default, index_wide, min_score)
                })
            };
            let body_pass = |index: &BodyIndex| {
                crate::timings::time("body stage", || index.search(query, &body.params, wide))
            };
            // The two stages read different indexes: the body stage runs on a
            // second thread while the index pass runs here. On the first
            // search of this searcher that thread also maps the body index
            // and checks its files (one status read each) before searching it.
            // A searcher readied for many searches (`kbidx mcp`) has its body
            // index loaded and runs both here, one after the other: a thread
            // per search (its start, its allocator heap, a wait for a core)
            // cost more than running the stages side by side saved
            // (docs/benchmarks.md, MCP server).
            let (matcher, cache, limit) = (&self.matcher, self.cache.as_ref(), self.limit);
            let knowledge = self.knowledge.as_deref();
            let loaded = self.body_index.get();
            let body_work = move || match loaded {
                Some(index) => (None, index.as_ref().map(body_pass)),
                None => {
                    let index = knowledge.map(|k| load_body(matcher, cache, k, limit));
                    let hits = index.as_ref().and_then(|i| i.as_ref().ok()).map(body_pass);
                    (Some(index), hits)
                }
            };
            let (outcome, hits, fresh) = if self.in_turn.get() && loaded.is_some() {
                let outcome = index_pass();
                let (fresh, hits) = body_work();
                (outcome, hits, fresh)
            } else {
                std::thread::scope(|scope| {
                    let worker = scope.spawn(body_work);
                    let outcome = index_pass();
                    // Neither stage panics on any input; if one did, re-raise it here.
                    let (fresh, hits) = worker
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p));
                    (outcome, hits, fresh)
                })
            };
            if let Some(index) = fresh {
                let _ = self.body_index.set(index.and_then(|i| self.keep(i)));
            }
            if let (Some(hits), Some(Some(index))) = (hits, self.body_index.get()) {
                // Levelled L2/L3 keywords are also looked for literally in
                // the section text the body index keeps.
                let text = query
                    .question
                    .is_none()
                    .then(|| crate::timings::time("literal scan", || literal(query, index)));
                return crate::timings::time("fuse", || {
                    self.fused(query, cut, outcome, body, hits, text)
                });
            }
        }
        let outcome = alone.unwrap_or_else(|| {
            crate::timings::time("index pass", || {
                self.matcher.search(query, scoring, cut, min_score)
            })
        });
        let pass = self.fallback(scoring, &outcome, query, top);
        let index_rows: Vec<usize> = outcome.hits.iter().map(|h| h.row).collect();
        let fulltext_rows: Vec<usize> = pass.hits.iter().map(|h| h.row).collect();
        let results = fallback::merge(&index_rows, &fulltext_rows, cut)
            .into_iter()
            .map(Placed::at)
            .collect();
        Ranking {
            results,
            stages: Stages::Index {
                outcome,
                pass: Some(pass),
                body: Vec::new(),
            },
        }
    }

    /// The index pass's `outcome` and the body stage, fused. A question's
    /// rows score `alpha · index + (1 − alpha) · body / best body`
    /// (`alpha_hints` for rows with hints), where `index` is the index pass's
    /// normalised score (0–1). Levelled keywords keep the index pass's score
    /// plus what their literal matches in the section text (`text`) add, with
    /// the body stage's share, times the row's [`Coverage`] factor; the
    /// body stage appends the rows only it found. Both stages
    /// look further than `top` (the outcome too) so that a row one of them
    /// ranks low can still rise; `cut` rows at most are kept.
    ///
    /// Long on purpose: the fusion of the two stages' rows, the literal text
    /// matches and each row's parts share one table of rows (source, index
    /// score, body share) that is built, scored and cut in one place.
    fn fused(
        &self,
        query: &Query,
        cut: usize,
        mut outcome: Outcome,
        body: Body,
        hits: Vec<BodyHit>,
        text: Option<RowMap<Vec<TextMatch>>>,
    ) -> Ranking {
        let best = hits.first().map_or(1.0, |h| h.score.max(f64::MIN_POSITIVE));
        // Levelled keywords are the agent's deliberate vocabulary, aimed at
        // titles and hints, and at identifiers and phrases of the text: the
        // index pass and the literal text matches score most of them, and
        // the body stage adds its share (`keyword_body`) and appends what
        // only its words find. A question's words are the user's own: both
        // stages are fused by `alpha`.
        let question = query.question.is_some();
        let alpha = if question { body.alpha } else { 1.0 };
        let mut text = text.unwrap_or_default();
        // Per row: where it came from, the index pass's (normalised, raw)
        // score and the body score over the best; the weight is decided once per row.
        let mut rows: RowMap<(Source, f64, f64, f64)> = RowMap::default();
        for (i, hit) in outcome.hits.iter().enumerate() {
            rows.insert(hit.row, (Source::Index(i), hit.normalized, hit.score, 0.0));
        }
        for (i, hit) in hits.iter().enumerate() {
            let share = hit.score / best;
            // Keywords: a row the index pass did not find joins only for words
            // of its own, not for its file's.
            let own = question
                || hit
                    .matched
                    .iter()
                    .any(|m| m.field != super::body_match::MatchField::File);
            match rows.entry(hit.row) {
                std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().3 = share,
                std::collections::hash_map::Entry::Vacant(e) => {
                    if own || text.contains_key(&hit.row) {
                        e.insert((Source::Body(i), 0.0, 0.0, share));
                    }
                }
            }
        }
        let mut sorted_text: Vec<usize> = text.keys().copied().collect();
        sorted_text.sort_unstable();
        for row in sorted_text {
            rows.entry(row)
                .or_insert((Source::Text(row), 0.0, 0.0, 0.0));
        }
        // Literal text matches count for keywords the index pass did not
        // match in the row's own fields.
        for (&row, matches) in &mut text {
            let index_matched: &[crate::search::Match] = match rows.get(&row) {
                Some((Source::Index(i), ..)) => &outcome.hits[*i].matched,
                _ => &[],
            };
            matches.retain(|m| {
                !index_matched
                    .iter()
                    .any(|h| h.keyword == m.0 && h.level == m.1)
            });
            for m in matches.iter_mut() {
                m.2 *= TEXT_WEIGHT;
            }
        }
        let index_total = outcome.total;
        // The index pass's matched points of a row sum to its score, except
        // in the two-pass search, whose score is a blend: `matched` scales them.
        let matched_sum = |source: Source| match source {
            Source::Index(i) => outcome.hits[i].matched.iter().map(|m| m.points).sum(),
            _ => 0.0,
        };
        // Levelled keywords: the body stage's share is scaled to the best
        // row's index-pass points (with its text matches), so that the
        // score stays on the index pass's scale.
        let share = body.keyword_body;
        let top_points = if question {
            0.0
        } else {
            rows.iter()
                .map(|(row, &(_, _, raw, _))| {
                    raw + text
                        .get(row)
                        .map_or(0.0, |m| m.iter().map(|m| m.2).sum::<f64>())
                })
                .fold(0.0, f64::max)
        };
        let coverage = Coverage::levelled(query, None);
        let task = Coverage::levelled(query, Some(super::Level::L3));
        let mut ranked: Vec<(usize, Source, f64, f64, Parts)> = rows
            .into_iter()
            .map(|(row, (source, normalized, raw, body_score))| {
                if !question {
                    let mut matches = text.remove(&row).unwrap_or_default();
                    let index_matched: &[crate::search::Match] = match source {
                        Source::Index(i) => &outcome.hits[i].matched,
                        _ => &[],
                    };
                    // The keywords this row names in its own fields or text.
                    let named = || {
                        index_matched
                            .iter()
                            .map(|m| (m.keyword.as_str(), m.level))
                            .chain(matches.iter().map(|m| (m.0.as_str(), m.1)))
                    };
                    let weigh = |weight: f64, coverage: &Coverage| {
                        // Off: no row's matches are counted.
                        if weight > 0.0 {
                            1.0 - weight + weight * coverage.share(named())
                        } else {
                            1.0
                        }
                    };
                    let factor =
                        weigh(body.keyword_coverage, &coverage) * weigh(body.l3_coverage, &task);
                    let points = raw + matches.iter().map(|m| m.2).sum::<f64>();
                    let score = factor * ((1.0 - share) * points + share * top_points * body_score);
                    for m in &mut matches {
                        m.2 *= factor * (1.0 - share);
                    }
                    let sum: f64 = matched_sum(source);
                    let parts = Parts {
                        index: factor
                            * if sum > 0.0 {
                                (1.0 - share) * raw / sum
                            } else {
                                1.0 - share
                            },
                        body: Some(factor * share * top_points / best),
                        text: matches,
                    };
                    return (row, source, score, body_score, parts);
                }
                let alpha = if !self.matcher.entry(row).hints.is_empty() {
                    body.alpha_hints
                } else {
                    alpha
                };
                let score = alpha * normalized + (1.0 - alpha) * body_score;
                let parts = Parts {
                    index: match matched_sum(source) {
                        sum if sum > 0.0 => alpha * normalized / sum,
                        _ => 0.0,
                    },
                    body: Some((1.0 - alpha) / best),
                    text: Vec::new(),
                };
                (row, source, score, body_score, parts)
            })
            .filter(|(_, _, score, tie, _)| *score > 0.0 || *tie > 0.0)
            .collect();
        ranked.sort_by(|a, b| {
            b.2.total_cmp(&a.2)
                .then(b.3.total_cmp(&a.3))
                .then(a.0.cmp(&b.0))
        });
        if !question {
            // `total`: every row that scored in the index pass, and those only
            // the text found (exact while the index pass's rows fit in its
            // depth; beyond, a row of both may count twice).
            let added = ranked
                .iter()
                .filter(|r| !matches!(r.1, Source::Index(_)))
                .count();
            outcome.total = index_total + added;
        }
        ranked.truncate(cut);
        let ideal = outcome.ideal;
        let results = ranked
            .into_iter()
            .map(|(_, source, score, _, parts)| Placed {
                source,
                fused: Some(match (question, source) {
                    (true, _) => (score, score.min(1.0)),
                    (false, Source::Index(i)) if score == outcome.hits[i].score => {
                        (score, outcome.hits[i].normalized)
                    }
                    (false, _) if ideal > 0.0 => (score, (score / ideal).min(1.0)),
                    (false, _) => (score, 0.0),
                }),
                more: Vec::new(),
                also: Vec::new(),
                parts: Some(parts),
                weight: None,
            })
            .collect();
        Ranking {
            results,
            stages: Stages::Index {
                outcome,
                pass: None,
                body: hits,
            },
        }
    }

    /// Runs the fallback if the settings and the index pass's `outcome` call
    /// for it and the knowledge directory exists (else it is skipped, and the
    /// [`Status`] says why).
    fn fallback(&self, scoring: Scoring, outcome: &Outcome, query: &Query, top: usize) -> Pass {
        let mut pass = Pass {
            status: Status::Off,
            confident: fallback::confident(outcome),
            min: self.fallback.min,
            hits: Vec::new(),
            unreadable: 0,
        };
        if scoring != Scoring::Default || !self.fallback.enabled {
            return pass;
        }
        if !self.fallback.needed(outcome, top) {
            pass.status = Status::NotNeeded;
            return pass;
        }
        let Some(knowledge) = self.knowledge.as_ref().filter(|k| k.is_dir()) else {
            pass.status = Status::NoKnowledge;
            return pass;
        };
        if self.corpus.get().is_none() && self.oversize().is_some() {
            pass.status = Status::TooLarge;
            return pass;
        }
        let corpus = self
            .corpus
            .get_or_init(|| Corpus::load(&self.matcher.entries(), knowledge));
        pass.status = Status::Ran;
        pass.hits = corpus.search(query, top);
        pass.unreadable = corpus.unreadable;
        pass
    }
}

/// The concepts of a levelled-keyword query (a keyword, or the synonyms an
/// agent grouped with `|`; L1 keywords too, whose domain is part of what was
/// asked), and which of them a row's matches name. A row that matches few of
/// them is about something else than the query, however rare the words it
/// matches: a dependency section of another component, the members of a
/// class whose name is one of many keywords.
struct Coverage<'q> {
    /// Each levelled keyword: its text as given, level and concepts.
    keywords: Vec<(&'q str, super::Level, &'q [usize])>,
    /// The number of distinct concepts.
    total: usize,
}

impl<'q> Coverage<'q> {
    /// The query's levelled concepts, or those of one level.
    fn of(query: &'q Query, level: Option<super::Level>) -> Self {
        let keywords: Vec<(&str, super::Level, &[usize])> = query
            .keywords
            .iter()
            .filter(|k| k.level != super::Level::Question && level.is_none_or(|l| k.level == l))
            .map(|k| (k.text.as_str(), k.level, k.concepts.as_slice()))
            .collect();
        let mut concepts: Vec<usize> = keywords.iter().flat_map(|k| k.2).copied().collect();
        concepts.sort_unstable();
        concepts.dedup();
        Self {
            keywords,
            total: concepts.len(),
        }
    }

    /// The query's concepts (`level` None) or its L3 concepts, what the
    /// user wants to do, when L1 or L2 keywords are given; else none (every
    /// share 1). A flat list given as L3 (eval's terms) names the component
    /// among its words, and both factors lost there (docs/experiments.md).
    fn levelled(query: &'q Query, level: Option<super::Level>) -> Self {
        let levelled = query
            .keywords
            .iter()
            .any(|k| matches!(k.level, super::Level::L1 | super::Level::L2));
        if levelled {
            Self::of(query, level)
        } else {
            Self {
                keywords: Vec::new(),
                total: 0,
            }
        }
    }

    /// The share (0–1) of the query's concepts that `matched` (keyword as
    /// given, level) names; 1 when the query has none.
    fn share<'m>(&self, matched: impl Iterator<Item = (&'m str, super::Level)>) -> f64 {
        if self.total == 0 {
            return 1.0;
        }
        let mut hit: Vec<usize> = matched
            .flat_map(|(text, level)| {
                self.keywords
                    .iter()
                    .filter(move |k| k.0 == text && k.1 == level)
                    .flat_map(|k| k.2.iter().copied())
            })
            .collect();
        hit.sort_unstable();
        hit.dedup();
        hit.len() as f64 / self.total as f64
    }
}

/// Per index row, during one search: hashed quickly (foldhash, not SipHash);
/// nothing depends on its order (rows are sorted before they are shown).
type RowMap<T> = foldhash::HashMap<usize, T>;

/// A keyword's literal match in a section's text: (keyword as given, level, points).
pub(crate) type TextMatch = (String, super::Level, f64);

/// The query's keywords that are looked for literally in the section text:
/// levelled L2 and L3 keywords (L1 names the domain; a question's words are
/// the body stage's).
fn literal_keywords(query: &Query) -> Vec<&super::Keyword> {
    query
        .keywords
        .iter()
        .filter(|k| matches!(k.level, super::Level::L2 | super::Level::L3) && !k.norm.is_empty())
        .collect()
}

/// Per row whose section text holds an L2/L3 keyword of `query` literally
/// (NFKC + case folding both sides, Latin ends on word boundaries), each such
/// keyword with its weight times its idf over the sections' text (the
/// caller applies [`TEXT_WEIGHT`]).
fn literal(query: &Query, index: &BodyIndex) -> RowMap<Vec<TextMatch>> {
    let keywords = literal_keywords(query);
    let patterns: Vec<String> = keywords.iter().map(|k| k.norm.clone()).collect();
    let n = index.rows() as f64;
    let mut out: RowMap<Vec<TextMatch>> = RowMap::default();
    for (k, rows) in keywords.iter().zip(index.literal(&patterns)) {
        let idf = super::bm25::idf(n, rows.len() as f64);
        for row in rows {
            out.entry(row)
                .or_default()
                .push((k.text.clone(), k.level, k.weight * idf));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Coverage;
    use crate::query::LevelledKeywords;
    use crate::search::{Level, Query};

    fn query(l1: &[&str], l2: &[&str], l3: &[&str]) -> Query {
        let list = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect();
        Query::from_levels(&LevelledKeywords {
            l1: list(l1),
            l2: list(l2),
            l3: list(l3),
        })
    }

    /// Concepts, not keywords, are counted: synonyms an agent grouped count
    /// once, L1 keywords count, and a match counts only at its own level.
    #[test]
    fn coverage_counts_the_concepts_a_row_matches() {
        let q = query(
            &["Bean|JavaBeans"],
            &["BeanUtil|nablarch.core.beans.BeanUtil"],
            &["getProperty", "プロパティ|property", "取得|get"],
        );
        let coverage = Coverage::of(&q, None);
        let cases: [(&[(&str, Level)], f64); 7] = [
            (&[], 0.0),
            (&[("BeanUtil", Level::L2)], 0.2),
            // Both synonyms of one concept: still one concept.
            (
                &[
                    ("BeanUtil", Level::L2),
                    ("nablarch.core.beans.BeanUtil", Level::L2),
                ],
                0.2,
            ),
            (&[("JavaBeans", Level::L1), ("BeanUtil", Level::L2)], 0.4),
            // A keyword at a level it was not given at names nothing.
            (&[("BeanUtil", Level::L3)], 0.0),
            (&[("unknown", Level::L3)], 0.0),
            (
                &[
                    ("Bean", Level::L1),
                    ("BeanUtil", Level::L2),
                    ("getProperty", Level::L3),
                    ("property", Level::L3),
                    ("get", Level::L3),
                ],
                1.0,
            ),
        ];
        for (matched, want) in cases {
            let got = coverage.share(matched.iter().copied());
            assert!((got - want).abs() < 1e-9, "{matched:?}: {got} != {want}");
        }
        // Over L3 only: three concepts, and the L1 and L2 matches name none.
        let task = Coverage::of(&q, Some(Level::L3));
        let cases: [(&[(&str, Level)], f64); 4] = [
            (&[("Bean", Level::L1), ("BeanUtil", Level::L2)], 0.0),
            (&[("getProperty", Level::L3)], 1.0 / 3.0),
            (
                &[("プロパティ", Level::L3), ("property", Level::L3)],
                1.0 / 3.0,
            ),
            (
                &[
                    ("getProperty", Level::L3),
                    ("property", Level::L3),
                    ("get", Level::L3),
                ],
                1.0,
            ),
        ];
        for (matched, want) in cases {
            let got = task.share(matched.iter().copied());
            assert!((got - want).abs() < 1e-9, "L3 {matched:?}: {got} != {want}");
        }
    }

    /// A query without levelled keywords (a question's words) leaves every
    /// score as it is.
    #[test]
    fn coverage_of_a_question_is_whole() {
        let mut q = Query::default();
        q.question = Some("索引が古い".into());
        q.push("索引", Level::Question, 1.0);
        assert_eq!(Coverage::of(&q, None).share(std::iter::empty()), 1.0);
        assert_eq!(
            Coverage::of(&Query::default(), None).share(std::iter::empty()),
            1.0
        );
    }

    /// A flat keyword list (L3 alone, eval's terms) has no levels to weigh:
    /// neither factor changes its scores; one L1 or L2 keyword beside it
    /// turns both on.
    #[test]
    fn coverage_needs_levelled_keywords() {
        let flat = query(&[], &[], &["BeanUtil", "getProperty"]);
        for level in [None, Some(Level::L3)] {
            assert_eq!(
                Coverage::levelled(&flat, level).share(std::iter::empty()),
                1.0
            );
        }
        let levelled = query(&[], &["BeanUtil"], &["getProperty"]);
        assert_eq!(
            Coverage::levelled(&levelled, None).share([("BeanUtil", Level::L2)].into_iter()),
            0.5
        );
        assert_eq!(
            Coverage::levelled(&levelled, Some(Level::L3))
                .share([("BeanUtil", Level::L2)].into_iter()),
            0.0
        );
    }
}
