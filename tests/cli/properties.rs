//! Property tests (proptest) of the TOON codec and the build pipeline.
//!
//! * Any index (cells drawn from TOON's awkward cases — delimiters, quotes, colons, `#`, `-`,
//!   number-like text, `true`/`null`, emoji, full-width text, control characters, very long
//!   strings — mixed with arbitrary Unicode) survives `toon::encode` → `toon::decode` unchanged.
//! * Any knowledge tree builds (with the real binary, default options) to the same text twice,
//!   that text decodes, and every row carries its input: `path#id`, the file title and the
//!   hints joined by spaces, in path order then index order. (The binary rather than
//!   `build::build`, so that the test does not depend on `BuildOptions`' fields.)
// `..Entry::default()` keeps the tests independent of optional fields added to `Entry`.
#![allow(clippy::needless_update)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kbidx::index::model::{Entry, Index};
use kbidx::index::toon;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

use crate::common::Sandbox;

/// Strings TOON must quote or escape, plus text that must stay bare.
const NASTY: &[&str] = &[
    "",
    " ",
    " lead",
    "trail ",
    "a,b",
    ",",
    "a:b",
    ":",
    "\"",
    "say \"hi\"",
    "\\",
    "C:\\path",
    "#",
    "#tag",
    "a#b",
    "-",
    "-x",
    "- item",
    "x-y",
    "--check",
    "true",
    "false",
    "null",
    "True",
    "0",
    "42",
    "-3.14",
    "1e-6",
    "1E+9",
    "05",
    "+1",
    "1.",
    ".5",
    "[5]",
    "{key}",
    "a|b",
    "a\tb",
    "\t",
    "line\nbreak",
    "\r\n",
    "\u{0}",
    "\u{1}\u{1f}",
    "\u{7f}",
    "\u{85}\u{2028}",
    "\u{feff}bom",
    "🎉 絵文字 👨‍👩‍👧",
    "ＵｎｉｖｅｒｓａｌＤａｏ",
    "ﾍﾟｰｼﾞﾝｸﾞ",
    "楽観的ロック",
    "\\u0041",
    "\\n",
];

/// One cell: a nasty string, arbitrary Unicode, a concatenation, or a long string (up to ~4 KB).
fn cell() -> impl Strategy<Value = String> {
    let nasty = proptest::sample::select(NASTY).prop_map(str::to_owned);
    let unicode = any::<String>();
    let parts = proptest::collection::vec(
        prop_oneof![
            3 => proptest::sample::select(NASTY).prop_map(str::to_owned),
            1 => any::<String>(),
            1 => "[ -~]{0,12}",
        ],
        0..8,
    )
    .prop_map(|v| v.concat());
    let long = (proptest::sample::select(NASTY), 100..600usize)
        .prop_map(|(s, n)| format!("x{}", s.repeat(n.min(4000 / s.len().max(1)))));
    prop_oneof![3 => nasty, 3 => unicode, 3 => parts, 1 => long]
}

fn entry() -> impl Strategy<Value = Entry> {
    (cell(), cell(), cell()).prop_map(|(reference, title, hints)| Entry {
        reference,
        title,
        hints,
        terms: String::new(),
    })
}

proptest! {
    #![proptest_config(Config { cases: 256, ..Config::default() })]

    #[test]
    fn any_index_round_trips(entries in proptest::collection::vec(entry(), 0..12)) {
        let index = Index { entries };
        let text = toon::encode(&index);
        prop_assert!(text.ends_with('\n') && !text.ends_with("\n\n") || index.is_empty());
        prop_assert!(!text.lines().any(|l| l.ends_with(' ')), "trailing space in {text:?}");
        prop_assert_eq!(text.lines().count(), index.len() + 1);
        let back = toon::decode(Path::new("index.toon"), &text).map_err(|e| e.to_string());
        prop_assert_eq!(back, Ok(index));
    }

    #[test]
    fn quoting_is_what_the_decoder_needs(s in cell()) {
        // A bare cell must read back as itself; a quoted one must be exactly one token.
        let quoted = toon::quote(&s, ',');
        prop_assert_eq!(quoted != s, toon::needs_quotes(&s, ','));
        let text = format!("sections[1]{{reference,hints}}:\n  {quoted},{quoted}\n");
        let back = toon::decode(Path::new("i.toon"), &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back.entries[0].reference, &s);
        prop_assert_eq!(&back.entries[0].hints, &s);
    }
}

/// A knowledge file: its title and its index entries (id, hints).
#[derive(Debug, Clone)]
struct File {
    title: String,
    entries: Vec<(String, Vec<String>)>,
}

const NAMES: &[&str] = &[
    "a.json",
    "b.json",
    "B.json",
    "dir/c.json",
    "dir/sub/d.json",
    "dir-x/e.json",
    "日本語/ページング.json",
    "with space.json",
    "z/a.json",
];

fn file() -> impl Strategy<Value = File> {
    let id = prop_oneof![
        2 => "[a-z][a-z0-9-]{0,10}",
        1 => cell().prop_filter("ids must not be empty", |s| !s.is_empty()),
    ];
    (
        prop_oneof![1 => Just(String::new()), 3 => cell()],
        proptest::collection::vec((id, proptest::collection::vec(cell(), 0..6)), 0..6),
    )
        .prop_map(|(title, mut entries)| {
            let mut seen = BTreeSet::new();
            entries.retain(|(id, _)| seen.insert(id.clone()));
            File { title, entries }
        })
}

fn tree() -> impl Strategy<Value = BTreeMap<&'static str, File>> {
    proptest::collection::btree_map(proptest::sample::select(NAMES), file(), 1..5)
}

fn write_tree(root: &Path, tree: &BTreeMap<&str, File>) {
    for (name, file) in tree {
        let index: Vec<_> = file
            .entries
            .iter()
            .map(|(id, hints)| serde_json::json!({"id": id, "hints": hints}))
            .collect();
        let sections: serde_json::Map<String, serde_json::Value> = file
            .entries
            .iter()
            .map(|(id, _)| {
                (
                    id.clone(),
                    serde_json::Value::String(format!("text of {id}")),
                )
            })
            .collect();
        let doc = serde_json::json!({"title": file.title, "index": index, "sections": sections});
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    }
}

proptest! {
    #![proptest_config(Config { cases: 64, ..Config::default() })]

    #[test]
    fn any_knowledge_tree_builds_the_same_index_twice(tree in tree()) {
        let sandbox = Sandbox::new();
        write_tree(&sandbox.path("knowledge"), &tree);
        let build = |out: &str| -> Result<String, TestCaseError> {
            let args = ["build", "--strict", "--quiet", "--knowledge", "knowledge", "--out", out];
            let run = sandbox.run(&args);
            prop_assert!(run.code == 0 && run.stderr.is_empty(), "{}", run.stderr);
            Ok(sandbox.read_to_string(out))
        };
        let first = build("one.toon")?;
        let second = build("two.toon")?;
        prop_assert_eq!(&first, &second);
        let decoded = toon::decode(Path::new("one.toon"), &first)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;

        // Rows: files in byte order of their relative path, entries in index order.
        let expected: Vec<(String, String, String)> = tree
            .iter()
            .flat_map(|(name, file)| {
                file.entries.iter().map(move |(id, hints)| {
                    (format!("{name}#{id}"), file.title.clone(), hints.join(" "))
                })
            })
            .collect();
        let got: Vec<(String, String, String)> = decoded
            .entries
            .into_iter()
            .map(|e| (e.reference, e.title, e.hints))
            .collect();
        prop_assert_eq!(got, expected);
    }
}

proptest! {
    #![proptest_config(Config { cases: 2000, ..Config::default() })]

    /// The search's fast check: a cell it accepts as folded is unchanged by
    /// normalisation up to ASCII case, so it can be matched in place.
    #[test]
    fn folded_cells_need_no_normalisation(s in cell()) {
        if kbidx::text::normalize::is_folded(&s) {
            prop_assert_eq!(kbidx::text::normalize::normalize(&s), s.to_ascii_lowercase());
        }
    }

    /// The same over plain ASCII with runs of spaces (the 8-byte fast path).
    #[test]
    fn folded_ascii_cells_need_no_normalisation(s in "[a-zA-Z0-9 ./#_-]{0,40}") {
        let folded = kbidx::text::normalize::is_folded(&s);
        let normal = kbidx::text::normalize::normalize(&s) == s.to_ascii_lowercase();
        prop_assert_eq!(folded, normal, "{:?}", s);
    }
}

/// Words and separators the matcher property mixes into rows and keywords.
const VOCAB: &[&str] = &[
    "paging",
    "page",
    "per",
    "Paging",
    "ページング",
    "楽観的ロック",
    "ロック",
    "dao",
    "UniversalDao",
    "ＤＡＯ",
    "ﾍﾟｰｼﾞ",
    "データ",
    "json",
    "x-y",
    "ab12",
    "v2",
    "#",
    " ",
    "  ",
    ",",
    "\"",
    "/",
    " / ",
    "\\",
    "Ａ",
    "\t",
    "\n",
    "\u{3000}",
    "ＵｎｉｖｅｒｓａｌＤａｏ",
    "Ä",
];

fn vocab_text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(VOCAB), 0..max).prop_map(|v| v.concat())
}

fn vocab_entry() -> impl Strategy<Value = Entry> {
    (
        proptest::sample::select(&["a/paging.json", "b.json", "dao/x-y.json"][..]),
        vocab_text(3),
        vocab_text(5),
        vocab_text(6),
        vocab_text(4),
    )
        .prop_map(|(path, id, title, hints, terms)| Entry {
            reference: format!("{path}#{id}"),
            title,
            hints,
            terms,
        })
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    /// The word index (the search cache) answers exactly as the scan of every row.
    #[test]
    fn word_index_search_equals_the_scan(
        mut entries in proptest::collection::vec(vocab_entry(), 1..14),
        keywords in proptest::collection::vec((vocab_text(3), 0..3u8), 1..5),
    ) {
        use kbidx::search::{Level, Matcher, Query, Scoring, text_hash};
        // Rows of one file are consecutive, as the build writes them.
        entries.sort_by(|a, b| a.reference.split('#').next().cmp(&b.reference.split('#').next()));
        let index = Index { entries };
        let mut query = Query::default();
        for (text, level) in &keywords {
            let level = [Level::L1, Level::L2, Level::L3][usize::from(*level)];
            query.push(text, level, 1.0);
        }
        if query.is_empty() {
            return Ok(()); // only blanks: nothing to compare
        }
        let scan = Matcher::new(&index).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut words = Matcher::new(&index).map_err(|e| TestCaseError::fail(e.to_string()))?;
        words.build_words(text_hash("")).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let expected = scan.search(&query, Scoring::Default, 50, None);
        prop_assert_eq!(&expected, &words.search(&query, Scoring::Default, 50, None));
        // Readied for many searches (`kbidx mcp`): the rows a scan reads folded once.
        words.prepare_for_many();
        prop_assert_eq!(&expected, &words.search(&query, Scoring::Default, 50, None));
    }
}
