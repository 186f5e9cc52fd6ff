//! Content budgets: how much section text a search hands over, in characters
//! and in estimated tokens ([`super::tokens`]), over all results and per result.
//!
//! Agents budget their context in tokens; characters stay for callers that
//! already count them. Every limit is a cap and the tightest one wins. A text
//! that does not fit is cut at the end of the last whole line that fits (a
//! cut inside a line breaks a sentence, a code line or a table row). When
//! those whole lines would use less than half of what is allowed (the next
//! line is a long paragraph, as in most knowledge files), the cut goes on
//! into that line and stops after the last space or punctuation mark that
//! fits, at a character only when there is none. A cut text loses its
//! trailing white space.

use super::tokens::{Counter, estimate};
pub(crate) use crate::config::Budget;

/// A text cut to fit: the kept prefix and whether anything was left out.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Fitted<'a> {
    /// The kept text (without the trailing white space of a cut).
    pub text: &'a str,
    /// Whether the text was cut.
    pub truncated: bool,
}

/// What is left of the budget over all results while content is attached.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spender {
    budget: Budget,
    chars: usize,
    tokens: usize,
    used: (usize, usize),
    spent: bool,
    min_cut: usize,
}

/// One result's share: the text to attach and its size.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Share<'a> {
    /// The text to attach (`None`: the budget was spent before this result).
    pub text: Option<&'a str>,
    /// Whether `text` is cut (or absent).
    pub truncated: bool,
    /// Characters of `text`.
    pub chars: usize,
    /// Estimated tokens of `text`.
    pub tokens: usize,
}

impl Spender {
    /// A fresh budget.
    pub(crate) fn new(budget: Budget) -> Self {
        Self {
            budget,
            chars: budget.max_chars.unwrap_or(usize::MAX),
            tokens: budget.max_tokens.unwrap_or(usize::MAX),
            used: (0, 0),
            spent: false,
            min_cut: 0,
        }
    }

    /// The same, handing over nothing of a text after the first that the
    /// budget over all results would cut to fewer than `tokens` estimated
    /// tokens: a heading and a few words tell the judge less than the
    /// result's title, and cost more. The first text is cut to whatever fits.
    pub(crate) fn with_min_cut(self, tokens: usize) -> Self {
        Self {
            min_cut: tokens,
            ..self
        }
    }

    /// Characters and estimated tokens handed out so far.
    pub(crate) fn used(&self) -> (usize, usize) {
        self.used
    }

    /// Whether nothing is left for later results.
    pub(crate) fn is_spent(&self) -> bool {
        self.spent || self.chars == 0 || self.tokens == 0
    }

    /// The share of the next result (best first) whose section text is `text`.
    /// Once the budget over all results has cut a text, later results get
    /// nothing: the content handed over is always a prefix of the ranking's.
    pub(crate) fn take<'a>(&mut self, text: &'a str) -> Share<'a> {
        if self.is_spent() {
            self.spent = true;
            return Share {
                text: None,
                truncated: true,
                chars: 0,
                tokens: 0,
            };
        }
        let per_chars = self.budget.max_chars_per_result.unwrap_or(usize::MAX);
        let per_tokens = self.budget.max_tokens_per_result.unwrap_or(usize::MAX);
        let fitted = fit(text, self.chars.min(per_chars), self.tokens.min(per_tokens));
        if fitted.truncated && fit(text, per_chars, per_tokens).text.len() > fitted.text.len() {
            self.spent = true;
        }
        let (chars, tokens) = (fitted.text.chars().count(), estimate(fitted.text));
        if self.spent && tokens < self.min_cut && self.used != (0, 0) {
            return Share {
                text: None,
                truncated: true,
                chars: 0,
                tokens: 0,
            };
        }
        self.chars = self.chars.saturating_sub(chars);
        self.tokens = self.tokens.saturating_sub(tokens);
        self.used = (self.used.0 + chars, self.used.1 + tokens);
        Share {
            text: Some(fitted.text),
            truncated: fitted.truncated,
            chars,
            tokens,
        }
    }
}

/// Characters after which a line may be cut (besides white space).
const BREAKS: [char; 10] = ['。', '、', '，', '．', '.', ',', ';', ':', '!', '?'];

/// The longest prefix of `text` within `max_chars` characters and
/// `max_tokens` estimated tokens, cut as the module comment says.
pub(crate) fn fit(text: &str, max_chars: usize, max_tokens: usize) -> Fitted<'_> {
    if text.chars().count() <= max_chars && estimate(text) <= max_tokens {
        return Fitted {
            text,
            truncated: false,
        };
    }
    // The counts of `text[..end]`, which ends a line (without its newline);
    // `gap` is the newline between it and the next line.
    let (mut counter, mut chars, mut end, mut gap) = (Counter::default(), 0, 0, "");
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let mut next = counter;
        next.push_str(gap);
        next.push_str(body);
        let next_chars = chars + gap.chars().count() + body.chars().count();
        if next_chars > max_chars || next.tokens() > max_tokens {
            break;
        }
        (counter, chars, end) = (next, next_chars, end + gap.len() + body.len());
        gap = &line[body.len()..];
    }
    if chars * 2 < max_chars && counter.tokens() * 2 < max_tokens {
        // The whole lines use less than half of what is allowed (the next line
        // is a long paragraph): go on into it, up to the last space or
        // punctuation mark that fits (a character, when there is none).
        let (start, mut cut, mut boundary) = (end, end, None);
        for (at, ch) in text[start..].char_indices() {
            let mut next = counter;
            next.push(ch);
            if chars + 1 > max_chars || next.tokens() > max_tokens {
                break;
            }
            (counter, chars, cut) = (next, chars + 1, start + at + ch.len_utf8());
            if ch.is_whitespace() || BREAKS.contains(&ch) {
                boundary = Some(cut);
            }
        }
        end = boundary.unwrap_or(cut);
    }
    let truncated = !text[end..].trim().is_empty();
    let mut kept = text[..end].trim_end();
    if truncated {
        // A folded twin's line with none of its paragraphs after it names a
        // twin the result's `also` already lists, and reads as a cut section.
        if let Some((before, last)) = kept.rsplit_once('\n')
            && last.starts_with('[')
            && last.ends_with(super::lean::TWIN_MARK)
        {
            kept = before.trim_end();
        }
    }
    Fitted {
        text: kept,
        // Only white space left out is no cut.
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_keeps_whole_lines() {
        let text = "## Title\n\nfirst line\nsecond line\n";
        let cases: &[(usize, usize, &str, bool)] = &[
            (usize::MAX, usize::MAX, text, false),
            (text.len(), usize::MAX, text, false),
            (30, usize::MAX, "## Title\n\nfirst line", true),
            (20, usize::MAX, "## Title\n\nfirst line", true),
            (15, usize::MAX, "## Title", true),
            (5, usize::MAX, "##", true),
            (0, usize::MAX, "", true),
            (usize::MAX, 3, "## Title", true),
            (usize::MAX, 1, "##", true),
            (usize::MAX, 0, "", true),
            (usize::MAX, estimate(text), text, false),
            (32, usize::MAX, "## Title\n\nfirst line\nsecond line", false),
        ];
        for &(chars, tokens, want, truncated) in cases {
            let got = fit(text, chars, tokens);
            assert_eq!(
                (got.text, got.truncated),
                (want, truncated),
                "{chars} chars, {tokens} tokens"
            );
        }
    }

    #[test]
    fn a_cut_does_not_end_on_a_twin_line() {
        let mark = super::super::lean::TWIN_MARK;
        let text = format!(
            "## Steps\n\nRun the build.\n\n[setup-web.json#s3] {mark}\nUse the web archetype."
        );
        let twin_line = text.find("\n\n[").expect("a twin line");
        // Room for the twin's line but not for its paragraph: the cut
        // ends before the line.
        let got = fit(&text, twin_line + 2 + 20 + mark.chars().count(), usize::MAX);
        assert_eq!(
            (got.text, got.truncated),
            ("## Steps\n\nRun the build.", true)
        );
        // Whole, or cut after the twin's first line: the twin line stays.
        assert_eq!(fit(&text, usize::MAX, usize::MAX).text, text);
        let longer = format!("{text}\nThen run it.");
        let got = fit(&longer, text.chars().count(), usize::MAX);
        assert_eq!((got.text, got.truncated), (text.as_str(), true));
    }

    #[test]
    fn fit_goes_into_a_long_line_up_to_a_word_or_punctuation() {
        let words = format!("## T\n{}", "word ".repeat(50));
        let cases: &[(&str, usize, &str)] = &[
            (&words, 40, "## T\nword word word word word word word"),
            (&words, 12, "## T\nword"),
            (&words, 8, "## T"),
            (
                "## 見出し\n一文目です。二文目です。",
                18,
                "## 見出し\n一文目です。",
            ),
            ("abcdefghij", 4, "abcd"),
        ];
        for &(text, chars, want) in cases {
            assert_eq!(fit(text, chars, usize::MAX).text, want, "{chars} chars");
        }
    }

    proptest::proptest! {
        /// Whatever the text and caps: a prefix, within both caps, and
        /// `truncated` exactly when something but white space was left out.
        #[test]
        fn fit_is_a_prefix_within_the_caps(
            text in "[a-z0-9あア漢 .,。、#\n]{0,120}",
            max_chars in 0usize..150,
            max_tokens in 0usize..80,
        ) {
            let got = fit(&text, max_chars, max_tokens);
            proptest::prop_assert!(text.starts_with(got.text));
            proptest::prop_assert!(got.text.chars().count() <= max_chars);
            proptest::prop_assert!(estimate(got.text) <= max_tokens);
            let rest = &text[got.text.len()..];
            proptest::prop_assert_eq!(got.truncated, !rest.trim().is_empty());
        }
    }

    #[test]
    fn fit_counts_characters_not_bytes() {
        let got = fit("漢字かな\n次の行", 4, usize::MAX);
        assert_eq!((got.text, got.truncated), ("漢字かな", true));
        assert_eq!(fit("漢字かな", 2, usize::MAX).text, "漢字");
    }

    /// Each text's share (kept text, truncated) and the characters used in all.
    fn spend(budget: Budget, texts: &[&'static str]) -> (Vec<(Option<&'static str>, bool)>, usize) {
        let mut spender = Spender::new(budget);
        let shares = texts
            .iter()
            .map(|t| {
                let s = spender.take(t);
                (s.text, s.truncated)
            })
            .collect();
        (shares, spender.used().0)
    }

    #[test]
    fn spender_shares_best_first_and_stops_after_a_cut() {
        let budget = Budget {
            max_chars: Some(12),
            ..Budget::default()
        };
        assert_eq!(
            spend(budget, &["aaaa\nbb", "cc\ndd\nee", "ff"]),
            (
                vec![
                    (Some("aaaa\nbb"), false),
                    (Some("cc\ndd"), true),
                    (None, true)
                ],
                12
            )
        );
    }

    #[test]
    fn a_cut_too_short_is_not_handed_over_after_the_first_text() {
        // (texts, character budget, min cut in tokens) → shares
        type Case = (
            &'static [&'static str],
            usize,
            usize,
            &'static [(Option<&'static str>, bool)],
        );
        let cases: &[Case] = &[
            // The second text would keep "cc" (1 token): left out.
            (
                &["aaaa\nbb", "cc\ndd\nee"],
                10,
                2,
                &[(Some("aaaa\nbb"), false), (None, true)],
            ),
            // Without a minimum it keeps what fits.
            (
                &["aaaa\nbb", "cc\ndd\nee"],
                10,
                0,
                &[(Some("aaaa\nbb"), false), (Some("cc"), true)],
            ),
            // The first text is cut to whatever fits.
            (&["aaaa\nbb\ncc"], 4, 50, &[(Some("aaaa"), true)]),
            // A text that fits whole is handed over however short.
            (
                &["aaaa\nbb", "cc"],
                10,
                50,
                &[(Some("aaaa\nbb"), false), (Some("cc"), false)],
            ),
        ];
        for &(texts, chars, min_cut, want) in cases {
            let budget = Budget {
                max_chars: Some(chars),
                ..Budget::default()
            };
            let mut spender = Spender::new(budget).with_min_cut(min_cut);
            let got: Vec<_> = texts
                .iter()
                .map(|t| {
                    let s = spender.take(t);
                    (s.text, s.truncated)
                })
                .collect();
            assert_eq!(got, want, "{texts:?} {chars} {min_cut}");
        }
    }

    #[test]
    fn per_result_caps_leave_the_rest_to_later_results() {
        let budget = Budget {
            max_chars: Some(100),
            max_chars_per_result: Some(5),
            ..Budget::default()
        };
        assert_eq!(
            spend(budget, &["aa\nbb\ncc", "dd", "eeeeeeee"]),
            (
                vec![
                    (Some("aa\nbb"), true),
                    (Some("dd"), false),
                    (Some("eeeee"), true)
                ],
                12
            )
        );
    }
}
