//! Every `suggest` word is a whole word of the knowledge (`../shared`, `#[ignore]`d): the dev
//! questions of nabledge-6-large and -fulltext, in keywords and question mode, through the
//! library's eval (`--second-search` records each case's suggestions).
//!
//! The check is defined here, apart from the suggestion code (and as in
//! `scripts/suggest-words.py`, which measures the share): a word (normalised) is whole when it
//! is a hint (one white-space separated element of an `index[].hints` entry) or when it occurs
//! in a string or key of the knowledge files (normalised) with neither end glued to its
//! neighbour. An end is glued when the word's edge character and the neighbour are both
//! identifier characters (`a-z 0-9 _`), both katakana (with ー), or both hiragana in a word of
//! kana only; when the neighbour is `-` with identifier characters on both sides (`web-inf`;
//! a `.` separates: `java.util`, `index.jsp`); or, at the start, when an identifier follows `%` or `\` (a format
//! directive, an escape). Kanji edges never glue (kanji compounds are cut anywhere; a kanji
//! word with okurigana meets a particle: 後ろに).

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use kbidx::eval::{self, Limits, Method, Mode, Settings};
use kbidx::text::normalize::normalize;

use crate::common::repo;

fn ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn katakana(c: char) -> bool {
    matches!(c, '\u{30a1}'..='\u{30fa}' | '\u{30fc}')
}

fn hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309f}')
}

/// Whether `word` at byte `at` of `text` has both ends free.
fn bounded(text: &str, at: usize, word: &str) -> bool {
    let end = at + word.len();
    let mut before = text[..at].chars().rev();
    let mut after = text[end..].chars();
    let (b1, b2) = (before.next(), before.next());
    let (a1, a2) = (after.next(), after.next());
    let first = word.chars().next().unwrap();
    let last = word.chars().next_back().unwrap();
    let kana = word.chars().all(|c| katakana(c) || hiragana(c));
    let glued = |edge: char, n: char| {
        (ident(edge) && ident(n))
            || (katakana(edge) && katakana(n))
            || (kana && hiragana(edge) && hiragana(n))
    };
    let connector = |edge: char, n: Option<char>, beyond: Option<char>| {
        ident(edge) && n == Some('-') && beyond.is_some_and(ident)
    };
    !(b1.is_some_and(|b| glued(first, b))
        || a1.is_some_and(|a| glued(last, a))
        || (ident(first) && matches!(b1, Some('%' | '\\')))
        || connector(first, b1, b2)
        || connector(last, a1, a2))
}

/// Strings and keys of a JSON value, normalised, each on its own line.
fn strings(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::String(s) => {
            out.push_str(&normalize(s));
            out.push('\n');
        }
        serde_json::Value::Array(list) => list.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push_str(&normalize(k));
                out.push('\n');
                strings(v, out);
            }
        }
        _ => {}
    }
}

/// The knowledge's hints and text (see the module comment).
fn load(dir: &Path) -> (HashSet<String>, String) {
    let mut hints = HashSet::new();
    let mut text = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                let doc: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                for entry in doc["index"].as_array().into_iter().flatten() {
                    for h in entry["hints"].as_array().into_iter().flatten() {
                        let h = normalize(h.as_str().unwrap_or_default());
                        hints.extend(h.split_whitespace().map(str::to_owned));
                    }
                }
                strings(&doc, &mut text);
            }
        }
    }
    (hints, text)
}

fn whole(word: &str, hints: &HashSet<String>, text: &str) -> bool {
    let word = normalize(word);
    hints.contains(&word)
        || text
            .match_indices(word.as_str())
            .any(|(at, _)| bounded(text, at, &word))
}

/// The check itself, on the fragment cases agents reported.
#[test]
fn whole_word_check() {
    let text = "ウィンドウ データベース をもとに web-inf/view %rid \\tclient_ip\n\
                rid = [$requestid$] 後ろに バインド変数";
    for (word, want) in [
        ("インド", false),
        ("タバ", false),
        ("もと", false),
        ("inf", false),
        ("view", true),
        ("rid", true),
        ("tclient", false),
        ("client_ip", false),
        ("requestid", true),
        ("後ろ", true),
        ("バインド", true),
        ("ウィンドウ", true),
        ("ＵＲＬ", false),
    ] {
        assert_eq!(whole(word, &HashSet::new(), text), want, "{word}");
    }
}

#[test]
#[ignore = "needs ../shared (the nabledge-6 corpora); run with --release -- --ignored"]
fn suggestions_are_whole_words() {
    let shared = repo().join("../shared");
    if !shared.is_dir() {
        println!("skipped: {} not found", shared.display());
        return;
    }
    let mut failures = Vec::new();
    for corpus in ["large", "fulltext"] {
        let knowledge = shared.join(format!("corpora/nabledge-6-{corpus}"));
        let index = crate::common::build_default(&knowledge);
        let set = repo().join(format!("tests/fixtures/eval/dev/{corpus}.jsonl"));
        let cases = eval::load_cases(&set).unwrap();
        let runs = crate::common::evaluate_full(
            &index,
            Some(&knowledge),
            &cases,
            &[Mode::Keywords, Mode::Question],
            &[Method::Default],
            Limits {
                top: 30,
                chars: 20_000,
                chars_per_result: None,
                passages: false,
                hand_over: kbidx::config::HandOver::default(),
                expand: 0,
                second_search: 1,
                document: kbidx::eval::DocumentFormat::default(),
            },
            Settings::default(),
        )
        .unwrap();
        let (hints, text) = load(&knowledge);
        for run in &runs {
            let words: Vec<&String> = run.cases.iter().flat_map(|c| &c.suggested).collect();
            let bad: BTreeSet<&str> = words
                .iter()
                .filter(|w| !whole(w, &hints, &text))
                .map(|w| w.as_str())
                .collect();
            println!(
                "{corpus} {:?}: {} suggestions, not whole: {bad:?}",
                run.mode,
                words.len()
            );
            assert!(!words.is_empty(), "{corpus} {:?}: no suggestions", run.mode);
            if !bad.is_empty() {
                failures.push(format!("{corpus} {:?}: {bad:?}", run.mode));
            }
        }
    }
    assert!(failures.is_empty(), "not whole words: {failures:#?}");
}
