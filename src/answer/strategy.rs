//! The hand-over strategies: how each result's section text is shaped
//! within a content budget. Every strategy takes the report's results best
//! first and the sections' text, and attaches to each result its content
//! (or marks it `truncated` when nothing fits), with the budget object's
//! content sizes; [`super::deliver`] gives them the content budget that the
//! measured envelope leaves.
//!
//! - [`Strategy::Start`]: each section from its start until the budget is
//!   spent ([`crate::output::budget`]).
//! - [`Strategy::Passages`]: each section's query-focused passage within the
//!   per-result caps ([`super::passages`]), then from its start.
//! - [`Strategy::Adaptive`]: every result's core first, then the best
//!   results widened ([`super::adaptive`]).

use super::adaptive;
use super::passages::{DEFAULT_PASSAGE_CHARS, Paragraphs, QueryWords};
use crate::error::Result;
use crate::output::budget::{Budget, Spender};
use crate::output::{BudgetRow, Report};

/// The fewest estimated tokens of a section's text the budget over all
/// results may cut it to and still hand it over (see [`Spender::with_min_cut`]).
const MIN_CUT_TOKENS: usize = 32;

/// One way of shaping the results' content, with the query's words where it
/// needs them.
pub(crate) enum Strategy<'w> {
    /// Each section from its start.
    Start,
    /// Each section's passage for `words`.
    Passages(&'w QueryWords),
    /// Cores, then widening, for `words`.
    Adaptive(&'w QueryWords),
}

impl Strategy<'_> {
    /// Attaches content to `report`'s results within `budget`, reading each
    /// section's text with `lookup` (only while something is left to hand).
    pub(crate) fn hand(
        &self,
        report: &mut Report,
        lookup: impl FnMut(&str) -> Result<String>,
        budget: Budget,
    ) -> Result<()> {
        match self {
            Self::Start => from_start(report, lookup, budget, None),
            Self::Passages(words) => from_start(report, lookup, budget, Some(words)),
            Self::Adaptive(words) => adaptive(report, lookup, budget, words),
        }
    }
}

/// Attaches section text to each result within `budget` (best first; a cut
/// or left-out text is marked `truncated`, see [`crate::output::budget`]).
/// With `passages` (the query's words), each result's text is first reduced
/// to its query-focused passage (see [`super::passages`]) within the
/// per-result caps, or [`DEFAULT_PASSAGE_CHARS`] when neither is set.
fn from_start(
    report: &mut Report,
    mut lookup: impl FnMut(&str) -> Result<String>,
    budget: Budget,
    passages: Option<&QueryWords>,
) -> Result<()> {
    let mut spender = Spender::new(budget).with_min_cut(MIN_CUT_TOKENS);
    for row in &mut report.results {
        if spender.is_spent() {
            // Nothing is left: the section is not even read.
            row.truncated = true;
            continue;
        }
        let text = lookup(&row.reference)?;
        let (text, cut, passage) = match passages {
            Some(words) => {
                let (chars, tokens) = passage_caps(budget);
                let paragraphs = Paragraphs::new(&text, chars, tokens)?;
                let p = paragraphs.passage(words);
                (p.text.into_owned(), p.truncated, p.passage)
            }
            None => (text, false, false),
        };
        let share = spender.take(&text);
        row.truncated = share.truncated || cut;
        if let Some(kept) = share.text {
            row.passage = passage;
            row.tokens = Some(share.tokens);
            row.content = Some(if kept.len() == text.len() {
                text
            } else {
                kept.to_owned()
            });
        }
    }
    if budget.is_set() || passages.is_some() {
        report.budget = Some(BudgetRow::of_content(
            budget,
            spender.used(),
            passages.is_some(),
        ));
    }
    Ok(())
}

/// Attaches section text to the results within `budget`, shaped to the
/// section (see [`super::adaptive`]): every result first gets its core (the
/// section whole when it is short, else its best blocks for `words`), best
/// first while the budget lasts; what is left then widens the best results'
/// cores, up to the whole section. The report's confidence, set before,
/// decides whether the first results lead. Without a budget over all results
/// each section is handed over whole, or as its best blocks within the
/// per-result caps.
fn adaptive(
    report: &mut Report,
    mut lookup: impl FnMut(&str) -> Result<String>,
    budget: Budget,
    words: &QueryWords,
) -> Result<()> {
    let params = if budget.max_chars.is_none() && budget.max_tokens.is_none() {
        // No budget over all results: each section whole, or its best
        // blocks within the per-result caps.
        adaptive::Params {
            core: usize::MAX,
            widen: usize::MAX,
            lead: 0,
            lead_share: 100,
        }
    } else {
        adaptive::Params::for_confidence(report.confidence.level)
    };
    let mut plan = adaptive::Plan::new(budget, params);
    let mut texts = Vec::new();
    for row in &report.results {
        if plan.is_full() {
            break;
        }
        let text = lookup(&row.reference)?;
        if !plan.add(&text, words)? {
            break;
        }
        texts.push(text);
    }
    plan.widen(&texts, words)?;
    let (mut chars, mut tokens) = (0, 0);
    for (i, row) in report.results.iter_mut().enumerate() {
        match plan.handed(i) {
            Some(handed) => {
                chars += handed.text.chars().count();
                tokens += handed.tokens;
                row.truncated = handed.truncated;
                row.passage = handed.passage;
                row.tokens = Some(handed.tokens);
                row.content = Some(handed.text);
            }
            None => row.truncated = true,
        }
    }
    // Whether any content is a passage (a selection of blocks).
    let passages = report.results.iter().any(|r| r.passage);
    report.budget = Some(BudgetRow::of_content(budget, (chars, tokens), passages));
    Ok(())
}

/// The caps of one passage: the per-result caps of `budget`, or
/// [`DEFAULT_PASSAGE_CHARS`] characters when neither is set.
fn passage_caps(budget: Budget) -> (usize, usize) {
    match (budget.max_chars_per_result, budget.max_tokens_per_result) {
        (None, None) => (DEFAULT_PASSAGE_CHARS, usize::MAX),
        (chars, tokens) => (chars.unwrap_or(usize::MAX), tokens.unwrap_or(usize::MAX)),
    }
}

/// [`passage_caps`] of a per-result character cap alone (`kbidx eval`).
pub(crate) fn passage_caps_for(max_chars_per_result: Option<usize>) -> (usize, usize) {
    passage_caps(Budget {
        max_chars_per_result,
        ..Budget::default()
    })
}
