//! A deterministic estimate of how many LLM tokens a text costs, for token budgets.
//!
//! Agents budget their context in tokens, but a real BPE tokenizer would add a
//! multi-megabyte vocabulary to the binary and tie kbidx to one model. Token
//! cost depends mostly on the script: a kanji is about one token, kana merge
//! into words, an English word is about one token whatever its length, digits
//! go in groups of three. So [`estimate`] counts characters by class and
//! weighs each class with a rate fitted on the sections of the three
//! nabledge-6 corpora against OpenAI's o200k_base counts (least squares on
//! estimate / true per section, each corpus weighing the same:
//! `scripts/fit-token-rates.py`; the check is the ignored test below, the
//! accuracy in docs/tokens.md). The rates, per unit:
//!
//! | class | rate | per |
//! |---|--:|---|
//! | Han ideographs (CJK) | 1.00 | character |
//! | kana (hiragana, katakana) | 0.65 | character |
//! | Latin words (runs of ASCII letters) | 0.55 | word |
//! | ASCII letters | 0.15 | letter (so `paging` is 1.45: identifiers split) |
//! | digits | 2.00 | group of up to three (numbers sit among symbols) |
//! | ASCII punctuation and symbols | 0.35 | character (runs like `---` merge) |
//! | line breaks | 0.85 | run of newlines |
//! | anything else that is not white space | 0.80 | character (`、` `。` `「` …) |
//!
//! The sum is rounded up, so a non-empty text costs at least one token.

/// Rates in thousandths of a token, in the order of [`Counts::classes`].
const RATES: [u64; CLASSES] = [1000, 650, 550, 150, 2000, 350, 850, 800];

const CLASSES: usize = 8;

/// How many of each character class a text has (see the module table).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    han: u64,
    kana: u64,
    words: u64,
    letters: u64,
    digit_groups: u64,
    symbols: u64,
    breaks: u64,
    other: u64,
}

impl Counts {
    /// Counts the classes of `text` in one pass.
    pub(crate) fn of(text: &str) -> Self {
        let mut counter = Counter::default();
        counter.push_str(text);
        counter.counts
    }

    /// The counts in the order of [`RATES`].
    pub(crate) fn classes(&self) -> [u64; CLASSES] {
        [
            self.han,
            self.kana,
            self.words,
            self.letters,
            self.digit_groups,
            self.symbols,
            self.breaks,
            self.other,
        ]
    }

    /// The estimated tokens for these counts (rounded up).
    pub(crate) fn tokens(&self) -> usize {
        let milli: u64 = self.classes().iter().zip(RATES).map(|(n, r)| n * r).sum();
        usize::try_from(milli.div_ceil(1000)).unwrap_or(usize::MAX)
    }
}

/// [`Counts`] of a text fed piece by piece: the counts of a prefix, for
/// cutting a text to a token budget without recounting it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Counter {
    counts: Counts,
    in_word: bool,
    digits: u32,
    in_break: bool,
}

impl Counter {
    /// Adds `text` to what was counted.
    pub(crate) fn push_str(&mut self, text: &str) {
        for ch in text.chars() {
            self.push(ch);
        }
    }

    /// Adds one character.
    pub(crate) fn push(&mut self, ch: char) {
        let c = &mut self.counts;
        let letter = ch.is_ascii_alphabetic();
        if letter && !self.in_word {
            c.words += 1;
        }
        self.in_word = letter;
        if ch.is_ascii_digit() {
            if self.digits.is_multiple_of(3) {
                c.digit_groups += 1;
            }
            self.digits += 1;
        } else {
            self.digits = 0;
        }
        let newline = ch == '\n';
        if newline && !self.in_break {
            c.breaks += 1;
        }
        self.in_break = newline || (self.in_break && ch.is_whitespace());
        match ch {
            _ if letter => c.letters += 1,
            '0'..='9' => {}
            _ if ch.is_ascii_punctuation() => c.symbols += 1,
            _ if ch.is_whitespace() => {}
            _ if is_han(ch) => c.han += 1,
            _ if is_kana(ch) => c.kana += 1,
            _ => c.other += 1,
        }
    }

    /// The estimated tokens of everything counted so far.
    pub(crate) fn tokens(&self) -> usize {
        self.counts.tokens()
    }
}

/// The estimated number of LLM tokens in `text` (see the module comment).
pub(crate) fn estimate(text: &str) -> usize {
    Counts::of(text).tokens()
}

fn is_han(ch: char) -> bool {
    matches!(ch,
        '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{3FFFF}' | '々' | '〆')
}

fn is_kana(ch: char) -> bool {
    matches!(ch, '\u{3041}'..='\u{309F}' | '\u{30A0}'..='\u{30FF}' | '\u{FF66}'..='\u{FF9F}' | '\u{31F0}'..='\u{31FF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_class() {
        let cases: &[(&str, [u64; CLASSES])] = &[
            ("", [0; CLASSES]),
            ("漢字", [2, 0, 0, 0, 0, 0, 0, 0]),
            ("ページング", [0, 5, 0, 0, 0, 0, 0, 0]),
            ("UniversalDao paging", [0, 0, 2, 18, 0, 0, 0, 0]),
            ("1234567", [0, 0, 0, 0, 3, 0, 0, 0]),
            ("a.b()", [0, 0, 2, 2, 0, 3, 0, 0]),
            ("x\n\n  \ny\n", [0, 0, 2, 2, 0, 0, 2, 0]),
            ("「です」。", [0, 2, 0, 0, 0, 0, 0, 3]),
        ];
        for (text, want) in cases {
            assert_eq!(Counts::of(text).classes(), *want, "{text:?}");
        }
    }

    #[test]
    fn estimate_rounds_up() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate(" "), 0);
        assert_eq!(estimate("a"), 1);
        assert_eq!(estimate("漢字"), 2);
        assert_eq!(estimate("paging paging"), 3);
    }

    /// The check behind the rates: every section of the three nabledge-6
    /// corpora (as `kbidx read` renders it), estimated and counted with
    /// o200k_base. Prints the whole-corpus ratio and the per-section
    /// percentiles of estimate / true, and fails when a corpus is off by more
    /// than 15%. `KBIDX_TOKENS_TSV=FILE` also writes each section's class
    /// counts and true count (the data the rates were fitted on).
    #[test]
    #[ignore = "needs ../shared; run with `cargo test --lib tokens -- --ignored --nocapture`"]
    fn estimate_matches_o200k_on_the_corpora() {
        use std::fmt::Write as _;
        let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
        if !shared.exists() {
            eprintln!("../shared is missing: skipped");
            return;
        }
        let bpe = tiktoken_rs::o200k_base().expect("the vocabulary is embedded");
        let mut tsv = String::from(
            "corpus\treference\than\tkana\twords\tletters\tdigit_groups\tsymbols\tbreaks\tother\ttrue\n",
        );
        let mut failures = Vec::new();
        for corpus in ["small", "large", "fulltext"] {
            let dir = shared.join(format!("nabledge-6-{corpus}"));
            let built = crate::build::build(&crate::build::BuildOptions {
                knowledge: dir.clone(),
                filter: None,
                include: vec!["**/*.json".to_owned()],
                exclude: Vec::new(),
                strict: false,
                terms: 0,
            })
            .expect("the corpus builds");
            let mut library = crate::knowledge::content::Library::new(&dir);
            let (mut total_true, mut total_estimate) = (0usize, 0usize);
            let mut ratios = Vec::new();
            for entry in &built.index.entries {
                let Ok(text) = library.section(&entry.reference) else {
                    continue;
                };
                let truth = bpe.encode_ordinary(&text).len();
                let counts = Counts::of(&text);
                let estimate = counts.tokens();
                total_true += truth;
                total_estimate += estimate;
                if truth > 0 {
                    ratios.push(estimate as f64 / truth as f64);
                }
                let classes: Vec<String> =
                    counts.classes().iter().map(ToString::to_string).collect();
                let _ = writeln!(
                    tsv,
                    "{corpus}\t{}\t{}\t{truth}",
                    entry.reference,
                    classes.join("\t")
                );
            }
            ratios.sort_by(f64::total_cmp);
            let pct = |p: f64| ratios[((ratios.len() - 1) as f64 * p).round() as usize];
            let ratio = total_estimate as f64 / total_true as f64;
            println!(
                "{corpus}: {} sections, o200k {total_true}, estimate {total_estimate}, ratio {ratio:.3}; per section p5 {:.3} p50 {:.3} p95 {:.3}",
                ratios.len(),
                pct(0.05),
                pct(0.5),
                pct(0.95)
            );
            if !(0.85..=1.15).contains(&ratio) {
                failures.push(format!("{corpus}: ratio {ratio:.3}"));
            }
        }
        if let Some(path) = std::env::var_os("KBIDX_TOKENS_TSV") {
            std::fs::write(path, tsv).expect("the TSV file can be written");
        }
        assert!(failures.is_empty(), "{failures:?}");
    }
}
