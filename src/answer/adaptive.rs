//! The adaptive hand-over: content shaped to each section within a budget
//! over all results, so that the judge gets the answering text of as many
//! of the best results as the budget allows.
//!
//! A budget spent on sections from their start runs out after a few long
//! sections: measured on the dev questions, nearly every must section whose
//! answer phrase did not reach the judge at 5,000 tokens was ranked but came
//! after the budget was spent. So the hand-over runs in two passes:
//!
//! 1. **Cores, best first.** Each result gets its core: the section whole
//!    when it fits [`Params::core`] tokens (the first [`Params::lead`]
//!    results: [`Params::widen`], but at most [`Params::lead_share`] of
//!    the budget each, so that long leading sections leave room for the
//!    results after them), else its passage for the query within
//!    that size ([`super::passages`]: its heading and the blocks that hold
//!    the query's words, chosen by their idf-weighted query words). Cores
//!    are handed out in rank order while the budget lasts; from the first
//!    that does not fit on, results get nothing (the content is a prefix of
//!    the ranking).
//! 2. **Widening, best first.** What is left widens the cores in rank order:
//!    a section is handed over whole when that fits [`Params::widen`] tokens
//!    (and the per-result caps, when given), else as a wider passage.
//!
//! The result is a function of the texts, the query's words and the budget:
//! deterministic.

use super::passages::{Paragraphs, QueryWords};
use crate::error::Result;
use crate::output::budget::{Budget, fit};
use crate::output::tokens::estimate;

/// The sizes the two passes work with, in estimated tokens: chosen on the
/// dev questions by answer recall at 2,000 / 5,000 / 10,000 tokens (a flat
/// optimum: docs/accuracy.md, "Hand-over").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    /// A result's core: whole sections up to this size, passages above it.
    pub core: usize,
    /// How far the second pass widens a result.
    pub widen: usize,
    /// How many of the best results get [`Params::widen`] as their core.
    pub lead: usize,
    /// The share of a budget over all results, in percent, that one
    /// leading result's core may take (never less than [`Params::core`]).
    pub lead_share: usize,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            core: 300,
            widen: 2500,
            lead: 3,
            lead_share: 30,
        }
    }
}

impl Params {
    /// The parameters for a search whose confidence level is `level`. With
    /// `low` confidence the first results are hardly likelier to answer than
    /// the rest (on the dev questions a must section was in a `low` search's
    /// top 3 about 2 times in 10, against 9 in a `high` one's), so no result
    /// leads: every result gets the same core, and the budget reaches further
    /// down the ranking. Chosen on dev by answer recall (docs/accuracy.md,
    /// "How the adaptive parameters were chosen").
    pub(crate) fn for_confidence(level: &str) -> Self {
        let params = Self::default();
        if level == "low" {
            Self { lead: 0, ..params }
        } else {
            params
        }
    }
}

/// What one result is handed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Handed {
    /// The text.
    pub text: String,
    /// Its estimated tokens.
    pub tokens: usize,
    /// Whether anything of the section was left out.
    pub truncated: bool,
    /// Whether the text is a passage (a selection of blocks).
    pub passage: bool,
}

/// One result's share while the plan is made.
#[derive(Debug, Clone)]
struct Piece {
    text: String,
    chars: usize,
    tokens: usize,
    whole: bool,
    passage: bool,
}

/// The shares of the results, made pass by pass (see the module comment).
#[derive(Debug)]
pub(crate) struct Plan {
    budget: Budget,
    params: Params,
    chars_left: usize,
    tokens_left: usize,
    pieces: Vec<Piece>,
    full: bool,
}

impl Plan {
    /// An empty plan for `budget`.
    pub(crate) fn new(budget: Budget, params: Params) -> Self {
        Self {
            budget,
            params,
            chars_left: budget.max_chars.unwrap_or(usize::MAX),
            tokens_left: budget.max_tokens.unwrap_or(usize::MAX),
            pieces: Vec::new(),
            full: false,
        }
    }

    /// Whether nothing is left for another result.
    pub(crate) fn is_full(&self) -> bool {
        self.full || self.chars_left == 0 || self.tokens_left == 0
    }

    /// The per-result caps, at most `tokens` estimated tokens.
    fn caps(&self, tokens: usize) -> (usize, usize) {
        (
            self.budget.max_chars_per_result.unwrap_or(usize::MAX),
            tokens.min(self.budget.max_tokens_per_result.unwrap_or(usize::MAX)),
        )
    }

    /// Adds the core of the next result, whose section text is `text`;
    /// `false` when nothing of it fits (the plan is then full).
    pub(crate) fn add(&mut self, text: &str, words: &QueryWords) -> Result<bool> {
        let core = if self.pieces.len() < self.params.lead {
            let share = self.budget.max_tokens.map_or(usize::MAX, |b| {
                b.saturating_mul(self.params.lead_share) / 100
            });
            self.params.widen.min(share).max(self.params.core)
        } else {
            self.params.core
        };
        let (chars, tokens) = self.caps(core);
        let mut piece = shape(text, chars, tokens, words)?;
        if piece.chars > self.chars_left || piece.tokens > self.tokens_left {
            if self.pieces.len() >= self.params.lead.max(1) {
                // No core fits any more: what is left widens the results
                // above (a core cut short would waste it).
                return Ok(false);
            }
            // A leading result that does not fit: what is left of it.
            self.full = true;
            piece = shape(
                text,
                chars.min(self.chars_left),
                tokens.min(self.tokens_left),
                words,
            )?;
            if piece.text.is_empty()
                || piece.chars > self.chars_left
                || piece.tokens > self.tokens_left
            {
                return Ok(false);
            }
        }
        self.chars_left -= piece.chars;
        self.tokens_left -= piece.tokens;
        self.pieces.push(piece);
        Ok(true)
    }

    /// Widens the cores best first with what is left (`texts`: the
    /// sections of the results added, in order).
    pub(crate) fn widen(&mut self, texts: &[String], words: &QueryWords) -> Result<()> {
        let (max_chars, max_tokens) = self.caps(self.params.widen);
        for (piece, text) in self.pieces.iter_mut().zip(texts) {
            if piece.whole || self.tokens_left == 0 || self.chars_left == 0 {
                continue;
            }
            let chars = max_chars.min(piece.chars.saturating_add(self.chars_left));
            let tokens = max_tokens.min(piece.tokens.saturating_add(self.tokens_left));
            if tokens <= piece.tokens || chars <= piece.chars {
                continue;
            }
            let wider = shape(text, chars, tokens, words)?;
            let (more_chars, more_tokens) = (
                wider.chars.saturating_sub(piece.chars),
                wider.tokens.saturating_sub(piece.tokens),
            );
            if wider.tokens <= piece.tokens
                || more_chars > self.chars_left
                || more_tokens > self.tokens_left
            {
                continue;
            }
            self.chars_left -= more_chars;
            self.tokens_left -= more_tokens;
            *piece = wider;
        }
        Ok(())
    }

    /// What result `i` (in rank order) is handed, if anything.
    pub(crate) fn handed(&self, i: usize) -> Option<Handed> {
        self.pieces.get(i).map(|p| Handed {
            text: p.text.clone(),
            tokens: p.tokens,
            truncated: !p.whole,
            passage: p.passage,
        })
    }
}

/// `text` within `max_chars` characters and `max_tokens` estimated tokens:
/// whole when it fits, else its passage for `words`.
fn shape(text: &str, max_chars: usize, max_tokens: usize, words: &QueryWords) -> Result<Piece> {
    let whole = fit(text, max_chars, max_tokens);
    let (text, whole, passage) = if whole.truncated {
        let paragraphs = Paragraphs::new(text, max_chars, max_tokens)?;
        let p = paragraphs.passage(words);
        (p.text.into_owned(), !p.truncated, p.passage)
    } else {
        (whole.text.to_owned(), true, false)
    };
    Ok(Piece {
        chars: text.chars().count(),
        tokens: estimate(&text),
        text,
        whole,
        passage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::passages::tests::words;

    /// The plan for `texts` within `tokens` over all results.
    fn plan(texts: &[String], tokens: usize, params: Params) -> Vec<Option<Handed>> {
        let budget = Budget {
            max_tokens: Some(tokens),
            ..Budget::default()
        };
        let query = words(&["answer"]);
        let mut plan = Plan::new(budget, params);
        let mut added = Vec::new();
        for text in texts {
            if plan.is_full() || !plan.add(text, &query).unwrap_or(false) {
                break;
            }
            added.push(text.clone());
        }
        plan.widen(&added, &query).unwrap_or_default();
        (0..texts.len()).map(|i| plan.handed(i)).collect()
    }

    fn long_section(paragraphs: usize, answer_at: usize) -> String {
        let mut s = String::from("## Long");
        for i in 0..paragraphs {
            s.push_str("\n\n");
            if i == answer_at {
                s.push_str("The answer is here.");
            } else {
                s.push_str(&"filler words of no interest ".repeat(8));
            }
        }
        s
    }

    #[test]
    fn short_sections_are_handed_over_whole() {
        let texts: Vec<String> = (0..5)
            .map(|i| format!("## S{i}\n\nshort text {i}"))
            .collect();
        let handed = plan(&texts, 1000, Params::default());
        for (text, h) in texts.iter().zip(&handed) {
            let h = h.as_ref().expect("every short section fits");
            assert_eq!((&h.text, h.truncated, h.passage), (text, false, false));
        }
    }

    #[test]
    fn a_long_section_gives_its_answer_and_leaves_room_for_the_next() {
        // A long section first, whose answer is deep inside, then short ones:
        // the long one is a passage holding the answer, the short ones whole.
        let params = Params {
            core: 60,
            widen: 120,
            lead: 1,
            lead_share: 100,
        };
        let mut texts = vec![long_section(40, 30)];
        texts.extend((0..3).map(|i| format!("## S{i}\n\nshort text {i}")));
        let handed = plan(&texts, 400, params);
        let first = handed[0].as_ref().expect("the first result gets content");
        assert!(first.passage && first.truncated, "{first:?}");
        assert!(first.text.contains("The answer is here."), "{}", first.text);
        assert!(first.tokens <= 120);
        for h in &handed[1..] {
            assert!(h.as_ref().is_some_and(|h| !h.truncated), "{h:?}");
        }
        let spent: usize = handed.iter().flatten().map(|h| h.tokens).sum();
        assert!(spent <= 400, "{spent}");
    }

    #[test]
    fn long_leading_sections_leave_room_for_the_results_after_them() {
        // Every section far longer than the budget: the leading cores take
        // their share each, and the results after them still get a core.
        let texts: Vec<String> = (0..8).map(|i| long_section(400, i * 40)).collect();
        let params = Params::default();
        let handed = plan(&texts, 5000, params);
        let given = handed.iter().filter(|h| h.is_some()).count();
        assert!(given > params.lead, "{given} results got content");
        for h in handed.iter().take(params.lead).flatten() {
            assert!(h.tokens <= 5000 * params.lead_share / 100, "{}", h.tokens);
        }
    }

    #[test]
    fn with_low_confidence_no_result_leads_and_the_budget_reaches_further() {
        // Long sections: with a lead, the first three take most of the
        // budget; without one (`low`), every result gets the same core and
        // more of them get content.
        let paragraph = "the answer among filler words of no interest ".repeat(4);
        let texts: Vec<String> = (0..30)
            .map(|i| format!("## S{i}") + &format!("\n\n{paragraph}").repeat(400))
            .collect();
        let count = |level: &str| {
            let handed = plan(&texts, 5000, Params::for_confidence(level));
            let cores: Vec<usize> = handed.iter().flatten().map(|h| h.tokens).collect();
            (cores.len(), cores[0])
        };
        for level in ["high", "medium", ""] {
            assert_eq!(Params::for_confidence(level), Params::default(), "{level}");
        }
        let (lead, lead_first) = count("high");
        let (flat, flat_first) = count("low");
        assert!(
            flat > lead,
            "{flat} results with low confidence, {lead} with high"
        );
        assert!(flat_first < lead_first, "{flat_first} >= {lead_first}");
    }

    #[test]
    fn content_is_a_prefix_of_the_ranking_and_within_the_budget() {
        let texts: Vec<String> = (0..30).map(|i| long_section(10, i % 10)).collect();
        for budget in [50, 300, 2000] {
            let handed = plan(&texts, budget, Params::default());
            let given = handed.iter().take_while(|h| h.is_some()).count();
            assert!(handed[given..].iter().all(Option::is_none), "{budget}");
            let spent: usize = handed.iter().flatten().map(|h| h.tokens).sum();
            assert!(spent <= budget, "{budget}: {spent}");
            assert!(given > 0, "{budget}");
        }
    }
}
