//! `kbidx search` over a copy of the repository's own `knowledge/` and `index/index.toon`:
//! questions, levelled keywords, output formats, the full-text fallback, the cache and the
//! two-pass (hierarchical) mode.

use crate::common::{Run, Sandbox, folded_sections, transcripts};

/// The levelled keywords of `ja-build-01` in tests/fixtures/queries.jsonl.
const CHECK_KEYWORDS: [&str; 6] = [
    "--l1",
    "索引,index",
    "--l2",
    "kbidx build,--check",
    "--l3",
    "確認,check,鮮度,最新",
];

fn with_args<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(extra).copied().collect()
}

#[test]
fn search_japanese_question() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox
        .run(&[
            "search",
            "--top",
            "5",
            "索引が最新かどうかだけ確認して、ファイルは書き換えたくない",
        ])
        .success();
    insta::assert_snapshot!("japanese_question", run.transcript());
}

#[test]
fn search_english_question() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox
        .run(&[
            "search",
            "--top",
            "5",
            "will pre-commit's end-of-file-fixer fight with the generated index file?",
        ])
        .success();
    insta::assert_snapshot!("english_question", run.transcript());
}

#[test]
fn search_worked_example_explain() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox
        .run(&with_args(
            &["search", "--top", "5", "--explain"],
            &CHECK_KEYWORDS,
        ))
        .success();
    assert!(run.stdout.starts_with("  1."), "{}", run.stdout);
    assert!(
        run.stdout
            .lines()
            .next()
            .unwrap()
            .contains("guide/build.json#check"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("worked_example_explain", run.transcript());
}

#[test]
fn search_seed_scoring() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox
        .run(&with_args(
            &["search", "--top", "5", "--explain", "--scoring", "seed"],
            &CHECK_KEYWORDS,
        ))
        .success();
    insta::assert_snapshot!("seed_scoring_explain", run.transcript());
}

#[test]
fn search_json_document_schema() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox
        .run(&[
            "search",
            "--explain",
            "--format",
            "json",
            "--top",
            "3",
            "--l2",
            "kbidx search",
            "--l3",
            "json,output",
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let asked = sandbox
        .run(&[
            "search",
            "--explain",
            "--format",
            "json",
            "--top",
            "3",
            "JSON で結果がほしい",
        ])
        .success();
    let question: serde_json::Value = serde_json::from_str(&asked.stdout).unwrap();
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(
        keys(&doc),
        [
            "version",
            "query",
            "keywords",
            "scoring",
            "total",
            "fallback",
            "suggest",
            "confidence",
            "results"
        ]
    );
    assert_eq!(doc["query"], serde_json::Value::Null);
    assert_eq!(keys(&doc["keywords"])[..3], ["l1", "l2", "l3"]);
    assert_eq!(question["query"], "JSON で結果がほしい");
    assert!(
        question["keywords"]["q"]
            .as_array()
            .is_some_and(|q| !q.is_empty()),
        "question keywords under `q`"
    );
    assert_eq!(doc["scoring"], "default");
    for s in doc["suggest"].as_array().unwrap() {
        assert_eq!(keys(s), ["word", "level", "results"], "{s}");
        assert!(["l2", "l3"].contains(&s["level"].as_str().unwrap()), "{s}");
        assert!(s["results"].as_u64().unwrap() >= 1, "{s}");
    }
    assert!(["high", "medium", "low"].contains(&doc["confidence"]["level"].as_str().unwrap()));
    let confidence = &doc["confidence"];
    let matched = confidence["matched_concepts"].as_u64().unwrap();
    assert!(
        matched <= confidence["concepts"].as_u64().unwrap(),
        "{confidence}"
    );
    assert!(
        confidence["stage_rank"].as_u64().unwrap() >= 1,
        "{confidence}"
    );
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert!(doc["total"].as_u64().unwrap() >= 3);
    let mut last = f64::INFINITY;
    for (i, r) in results.iter().enumerate() {
        for key in [
            "rank",
            "reference",
            "file",
            "section",
            "score",
            "normalized_score",
            "stage",
            "matched",
        ] {
            assert!(r.get(key).is_some(), "result {i} lacks `{key}`: {r}");
        }
        assert!(
            ["index", "body"].contains(&r["stage"].as_str().unwrap()),
            "{r}"
        );
        assert_eq!(r["rank"].as_u64(), Some(i as u64 + 1));
        let reference = format!(
            "{}#{}",
            r["file"].as_str().unwrap(),
            r["section"].as_str().unwrap()
        );
        assert_eq!(r["reference"].as_str(), Some(reference.as_str()));
        let score = r["score"].as_f64().unwrap();
        assert!(score <= last, "scores not descending: {score} after {last}");
        last = score;
        let normalized = r["normalized_score"].as_f64().unwrap();
        assert!(
            (0.0..=1.0).contains(&normalized),
            "normalized_score {normalized}"
        );
        let matched = r["matched"].as_array().unwrap();
        assert!(!matched.is_empty());
        for m in matched {
            for key in ["keyword", "level", "field", "points"] {
                assert!(m.get(key).is_some(), "matched entry lacks `{key}`: {m}");
            }
            assert!(
                ["l1", "l2", "l3", "q"].contains(&m["level"].as_str().unwrap()),
                "{m}"
            );
            assert!(
                [
                    "title",
                    "hints",
                    "path",
                    "file_title",
                    "terms",
                    "body",
                    "file",
                    "text"
                ]
                .contains(&m["field"].as_str().unwrap()),
                "{m}"
            );
        }
        assert!(
            r.get("content").is_none() && r.get("truncated").is_none(),
            "content without --with-content"
        );
    }
    insta::assert_snapshot!("json_format", run.transcript());
}

/// The body stage (on by default) scores section text in every search: a
/// question whose words are only in a section's body finds it near the top,
/// and `matched` says the body matched.
#[test]
fn search_body_stage_finds_text_only_in_section_bodies() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let question = "Is unicode text turned lowercase?";
    let json = sandbox
        .run(&[
            "search",
            "--explain",
            "--format",
            "json",
            "--top",
            "5",
            question,
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        doc["fallback"], "off",
        "the fallback does not run with the body stage"
    );
    let results = doc["results"].as_array().unwrap();
    let answer = results
        .iter()
        .position(|r| r["reference"] == "reference/scoring.json#normalization")
        .unwrap_or_else(|| panic!("answer not in the top 5: {}", json.stdout));
    let matched = results[answer]["matched"].as_array().unwrap();
    assert!(
        matched
            .iter()
            .any(|m| m["field"] == "body" && m["keyword"] == "unicode"),
        "{}",
        json.stdout
    );
    // Scores fall with the rank, and no reference comes twice.
    let scores: Vec<f64> = results
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let japanese = sandbox
        .run(&[
            "search",
            "--explain",
            "--top",
            "5",
            "偶然一致した結果はどう扱う？",
        ])
        .success();
    assert!(
        japanese.stdout.contains("guide/agent-skill.json#judgement"),
        "{}",
        japanese.stdout
    );
}

/// A search checks the body index it maps ahead against the knowledge files
/// as they are now: section text edited after `kbidx build` (the index
/// itself unchanged) reaches the body stage of the next search, and an
/// unchanged file's text is still found from the build's cache entry.
#[test]
fn search_body_stage_sees_text_edited_after_the_build() {
    let sandbox = Sandbox::new().with_repo_knowledge().with_built_index();
    let before = sandbox.run(&["search", "--format", "json", "zyxwvut"]);
    assert_eq!(before.code, 1, "{}", before.stdout);
    let file = "knowledge/reference/scoring.json";
    let text = sandbox.read_to_string(file);
    assert!(
        text.contains("kbidx has two scoring modes"),
        "{file} changed"
    );
    sandbox.write(
        file,
        text.replacen(
            "kbidx has two scoring modes",
            "kbidx has two zyxwvut modes",
            1,
        ),
    );
    let after = sandbox
        .run(&["search", "--format", "json", "zyxwvut"])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&after.stdout).unwrap();
    assert_eq!(
        doc["results"][0]["reference"], "reference/scoring.json#overview",
        "{}",
        after.stdout
    );
    let unchanged = sandbox
        .run(&[
            "search",
            "--format",
            "json",
            "--top",
            "5",
            "Is unicode text turned lowercase?",
        ])
        .success();
    assert!(
        unchanged
            .stdout
            .contains("reference/scoring.json#normalization"),
        "{}",
        unchanged.stdout
    );
}

/// With `--no-body`, the full-text fallback scores section text when the index pass is unsure.
#[test]
fn search_fallback_finds_text_only_in_section_bodies() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    // "unicode" and "width" occur only in section bodies (the answer is
    // reference/scoring.json#normalization): in no title, hints or derived terms.
    let question = "Is unicode text width normalised?";
    let index = std::fs::read_to_string(sandbox.path("index/index.toon")).unwrap();
    for word in ["unicode", "width"] {
        assert!(
            !index.to_lowercase().contains(word),
            "{word} is in the index"
        );
    }
    let json = sandbox
        .run(&[
            "search",
            "--explain",
            "--no-body",
            "--format",
            "json",
            question,
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["fallback"], "ran");
    let results = doc["results"].as_array().unwrap();
    let answer = results
        .iter()
        .find(|r| r["reference"] == "reference/scoring.json#normalization")
        .unwrap_or_else(|| panic!("answer not found: {}", json.stdout));
    assert_eq!(answer["stage"], "fulltext");
    assert_eq!(answer["matched"][0]["field"], "body");
    let excerpt = answer["excerpt"].as_str().unwrap();
    assert!(excerpt.to_lowercase().contains("unicode"), "{excerpt}");
    assert!(excerpt.chars().count() <= 202, "{excerpt}");
    // Fallback results come after every index result, and no reference twice.
    let stages: Vec<&str> = results
        .iter()
        .map(|r| r["stage"].as_str().unwrap())
        .collect();
    assert!(
        stages.windows(2).all(|w| w != ["fulltext", "index"]),
        "{stages:?}"
    );
    let mut references: Vec<&str> = results
        .iter()
        .map(|r| r["reference"].as_str().unwrap())
        .collect();
    references.sort_unstable();
    references.dedup();
    assert_eq!(references.len(), results.len());

    // Without the fallback only the index pass's results remain.
    let off = sandbox
        .run(&[
            "search",
            "--explain",
            "--no-body",
            "--no-fallback",
            question,
        ])
        .success();
    assert!(!off.stdout.contains("[fulltext]"), "{}", off.transcript());

    // Japanese: 偶然一致 is only in the body of guide/agent-skill.json#judgement;
    // its fallback hit comes after the index pass's hits, marked in text and explained.
    let japanese = sandbox
        .run(&[
            "search",
            "--explain",
            "--no-body",
            "--top",
            "5",
            "偶然一致した結果はどう扱う？",
        ])
        .success();
    assert!(
        japanese
            .stdout
            .lines()
            .any(|l| l.contains("guide/agent-skill.json#judgement") && l.ends_with("[fulltext]")),
        "{}",
        japanese.stdout
    );
    let explain = sandbox
        .run(&[
            "search",
            "--explain",
            "--no-body",
            "--top",
            "5",
            "偶然一致した結果はどう扱う？",
        ])
        .success();
    assert!(
        explain.stdout.contains("stage: fulltext"),
        "{}",
        explain.stdout
    );
    assert!(explain.stdout.contains("excerpt: "), "{}", explain.stdout);

    // `fallback = false` in kbidx.toml turns it off; so does a missing knowledge directory.
    sandbox.write("off.toml", "fallback = false\n");
    let config_off = sandbox
        .run(&[
            "--config",
            "off.toml",
            "search",
            "--explain",
            "--no-body",
            "--format",
            "json",
            question,
        ])
        .success();
    assert!(
        config_off.stdout.contains("\"fallback\":\"off\""),
        "{}",
        config_off.transcript()
    );
    let no_knowledge = sandbox.run(&[
        "search",
        "--explain",
        "--no-body",
        "--knowledge",
        "missing",
        "--format",
        "json",
        question,
    ]);
    assert_eq!(no_knowledge.code, 0, "{}", no_knowledge.transcript());
    let doc: serde_json::Value = serde_json::from_str(&no_knowledge.stdout).unwrap();
    assert_eq!(doc["fallback"], "no knowledge directory");
    insta::assert_snapshot!(
        "fallback",
        transcripts(&[json, off, japanese, explain, config_off, no_knowledge])
    );
}

#[test]
fn search_toon_format() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox
        .run(&with_args(
            &["search", "--format", "toon", "--top", "3"],
            &CHECK_KEYWORDS,
        ))
        .success();
    insta::assert_snapshot!("toon_format", run.transcript());
}

#[test]
fn search_with_content_and_budget() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let text = sandbox
        .run(&[
            "search",
            "--hand-over",
            "start",
            "--with-content",
            "--max-chars",
            "400",
            "--top",
            "2",
            "--l2=--with-content,--max-chars",
        ])
        .success();
    let json = sandbox
        .run(&[
            "search",
            "--hand-over",
            "start",
            "--format",
            "json",
            "--max-chars",
            "400",
            "--top",
            "2",
            "--l2=--with-content,--max-chars",
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let results = doc["results"].as_array().unwrap();
    let chars: usize = results
        .iter()
        .filter_map(|r| r["content"].as_str())
        .map(|c| c.chars().count())
        .sum();
    // --max-chars bounds the whole printed document, which says what it spent.
    let printed = json.stdout.chars().count();
    assert!(printed <= 400, "{printed}: {}", json.stdout);
    assert_eq!(doc["budget"]["chars"], printed);
    assert_eq!(doc["budget"]["content_chars"], chars);
    assert!(text.stdout.chars().count() <= 400, "{}", text.stdout);
    assert_eq!(results[0]["truncated"], true);
    assert_clean_cuts(&sandbox, results);
    insta::assert_snapshot!("with_content_max_chars", transcripts(&[text, json]));
}

/// Each result's content is its section's text, whole or cut at the end of a
/// line or after a space or punctuation mark (see `output::budget`).
fn assert_clean_cuts(sandbox: &Sandbox, results: &[serde_json::Value]) {
    for r in results {
        let Some(content) = r["content"].as_str() else {
            continue;
        };
        let reference = r["reference"].as_str().unwrap();
        let full = sandbox.run(&["read", reference]).success().stdout;
        let full = full.strip_suffix('\n').unwrap();
        let rest = full.strip_prefix(content).unwrap();
        assert!(
            rest.is_empty()
                || rest.starts_with(char::is_whitespace)
                || content.ends_with(['。', '、', '.', ',', ';', ':', '!', '?']),
            "{reference}: cut inside a word before {rest:?}"
        );
        assert_eq!(r["truncated"].as_bool().unwrap_or(false), !rest.is_empty());
    }
}

/// `--max-tokens` and the per-result caps: budgets in estimated tokens, the
/// tighter of two budgets wins, per-result caps let every result in.
#[test]
fn search_token_budgets() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let search = |budget: &[&str]| {
        // Cuts from the start: the budgets' arithmetic (the default
        // adaptive hand-over is tested in `answer::adaptive`).
        let mut args = vec![
            "search",
            "--explain",
            "--hand-over",
            "start",
            "--format",
            "json",
            "--top",
            "5",
        ];
        args.extend_from_slice(budget);
        args.push("索引を作り直すには");
        let run = sandbox.run(&args).success();
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        (run, doc)
    };
    let tokens = |doc: &serde_json::Value| -> Vec<u64> {
        doc["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["tokens"].as_u64().unwrap_or(0))
            .collect()
    };
    let (total, doc) = search(&["--max-tokens", "1500"]);
    let used: u64 = tokens(&doc).iter().sum();
    assert!(
        used > 0 && used == doc["budget"]["content_tokens"],
        "{used}"
    );
    // The whole document (explanations included) is within the budget.
    assert!(doc["budget"]["tokens"].as_u64().unwrap() <= 1500, "{doc}");
    assert_clean_cuts(&sandbox, doc["results"].as_array().unwrap());

    // Both budgets: the tighter one decides.
    let (_, chars_only) = search(&["--max-chars", "100000"]);
    let (_, both) = search(&["--max-chars", "100000", "--max-tokens", "1500"]);
    assert!(both["budget"]["tokens"].as_u64().unwrap() <= 1500, "{both}");
    assert_eq!(both["results"][0]["content"], doc["results"][0]["content"]);
    assert_ne!(chars_only["results"], doc["results"]);

    let (per_result, doc) = search(&["--max-tokens-per-result", "40"]);
    let each = tokens(&doc);
    assert!(
        each.len() == 5 && each.iter().all(|&t| 0 < t && t <= 40),
        "{each:?}"
    );
    assert_clean_cuts(&sandbox, doc["results"].as_array().unwrap());
    let (_, doc) = search(&["--max-chars-per-result", "60", "--max-tokens", "1500"]);
    assert!(
        doc["results"][0]["content"]
            .as_str()
            .unwrap()
            .chars()
            .count()
            <= 60
    );

    let text = sandbox
        .run(&[
            "search",
            "--top",
            "2",
            "--max-tokens-per-result",
            "20",
            "索引を作り直すには",
        ])
        .success();
    let toon = sandbox
        .run(&[
            "search",
            "--format",
            "toon",
            "--top",
            "2",
            "--max-tokens",
            "50",
            "索引を作り直すには",
        ])
        .success();
    // kbidx.toml defaults apply whenever content is attached; a flag overrides its own key.
    let configured = Sandbox::new().with_repo_knowledge().with_file(
        "kbidx.toml",
        "max_tokens_per_result = 20\nmax_tokens = 1500\n",
    );
    let each = |args: &[&str]| -> Vec<u64> {
        let run = configured.run(args).success();
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        doc["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["tokens"].as_u64())
            .collect()
    };
    let question = ["search", "--explain", "--format", "json", "--top", "5"];
    assert_eq!(
        each(&[&question[..], &["索引を作り直すには"]].concat()),
        Vec::<u64>::new()
    );
    let defaults = each(&[&question[..], &["--with-content", "索引を作り直すには"]].concat());
    assert!(
        defaults.iter().all(|&t| t <= 20) && defaults.iter().sum::<u64>() <= 1500,
        "{defaults:?}"
    );
    let wider = each(
        &[
            &question[..],
            &["--max-tokens-per-result", "30", "索引を作り直すには"],
        ]
        .concat(),
    );
    assert!(
        wider[0] > 20 && wider.iter().sum::<u64>() <= 1500,
        "{wider:?}"
    );

    let zero = sandbox.run(&["search", "--max-tokens", "0", "索引"]);
    assert_eq!(zero.code, 2);
    insta::assert_snapshot!(
        "token_budgets",
        transcripts(&[total, per_result, text, toon, zero])
    );
}

#[test]
fn search_keywords_from_stdin() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let stdin = r#"{"l1": ["search", "検索"], "l2": ["--keywords", "stdin"], "l3": ["json", "pipe", "標準入力"]}"#;
    let run = sandbox
        .run_with_stdin(&["search", "--keywords", "-", "--top", "3"], stdin)
        .success();
    assert!(
        run.stdout
            .lines()
            .next()
            .unwrap()
            .contains("guide/search.json#keyword-options"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("keywords_from_stdin", run.transcript());
}

#[test]
fn search_keywords_file_bad_json() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file(
            "syntax.json",
            "{\"l2\": [\"kbidx search\",\n  \"l3\": [\"json\"]}\n",
        )
        .with_file("unknown.json", "{\"l2\": [\"kbidx search\"], \"l4\": []}\n")
        .with_file("types.json", "{\"l2\": \"kbidx search\"}\n");
    let runs: Vec<Run> = ["syntax.json", "unknown.json", "types.json"]
        .iter()
        .map(|file| {
            let run = sandbox.run(&["search", "--keywords", file]);
            assert_eq!(run.code, 2, "{}", run.transcript());
            run
        })
        .collect();
    insta::assert_snapshot!("keywords_file_bad_json", transcripts(&runs));
}

#[test]
fn search_no_results_exits_1_with_a_complete_document() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let runs: Vec<Run> = ["text", "json", "toon"]
        .iter()
        .map(|format| {
            let run = sandbox.run(&["search", "--format", format, "--l3", "zzzz-no-such-keyword"]);
            assert_eq!(run.code, 1, "{}", run.transcript());
            assert!(run.stderr.is_empty(), "{}", run.transcript());
            run
        })
        .collect();
    let doc: serde_json::Value = serde_json::from_str(&runs[1].stdout).unwrap();
    assert_eq!(doc["results"], serde_json::json!([]));
    assert_eq!(doc["total"], 0);
    insta::assert_snapshot!("no_results", transcripts(&runs));
}

#[test]
fn search_nothing_to_search_for() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox.run(&["search", "  "]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("nothing_to_search_for", run.transcript());
}

#[test]
fn search_unknown_index_path() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox.run(&["search", "--index", "no/such/index.toon", "--l3", "check"]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("unknown_index", run.transcript());
}

#[test]
fn search_hand_edited_index_with_wrong_row_count() {
    let sandbox = Sandbox::new()
        .with_file(
            "index/index.toon",
            "sections[3]{reference,title,hints}:\n  a.json#x,X,check\n  a.json#y,Y,\"check, again\"\n",
        )
        .with_file(
            "extra.toon",
            "sections[1]{reference,title,hints}:\n  a.json#x,X,check\n  a.json#y,Y,check\n",
        );
    let short = sandbox.run(&["search", "--l3", "check"]);
    let long = sandbox.run(&["search", "--index", "extra.toon", "--l3", "check"]);
    assert_eq!((short.code, long.code), (2, 2));
    insta::assert_snapshot!("index_wrong_row_count", transcripts(&[short, long]));
}

#[test]
fn search_cache_gives_the_same_results_and_follows_the_index() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let args = ["search", "--format", "json", "インデックスを作り直したい"];
    let uncached = sandbox.run(&with_args(&args, &["--no-cache"])).success();
    assert!(
        !sandbox.path(".cache").exists(),
        "--no-cache writes no cache"
    );
    let first = sandbox.run(&args).success();
    let entries = std::fs::read_dir(sandbox.path(".cache")).unwrap().count();
    assert_eq!(entries, 2, "a word index and a body index per index");
    let second = sandbox.run(&args).success();
    assert_eq!(first.stdout, uncached.stdout, "building the entry");
    assert_eq!(second.stdout, uncached.stdout, "answering from the entry");

    // A replaced index is never answered from the old entry ...
    sandbox.write(
        "index/index.toon",
        "sections[1]{reference,title,hints}:\n  x.json#only,Only,インデックス 作り直し\n",
    );
    let run = sandbox
        .run(&with_args(&args, &["--no-fallback", "--top", "1"]))
        .success();
    assert!(run.stdout.contains("x.json#only"), "{}", run.stdout);
    // ... and a broken one is reported as without a cache.
    sandbox.write(
        "index/index.toon",
        "sections[2]{reference,title,hints}:\n  x.json#only,Only,インデックス\n",
    );
    let broken = sandbox.run(&args);
    let broken_uncached = sandbox.run(&with_args(&args, &["--no-cache"]));
    assert_eq!(broken.code, 2);
    assert_eq!(broken.stderr, broken_uncached.stderr);
}

#[test]
fn search_cache_off_in_config() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("kbidx.toml", "cache = false\n");
    sandbox.run(&["search", "--l3", "check"]).success();
    assert!(!sandbox.path(".cache").exists());
}

#[test]
fn search_two_pass_reports_its_mode() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let runs = [
        // A confident file: its sections are blended with the file score.
        sandbox
            .run(&[
                "search",
                "--explain",
                "--hierarchy",
                "--top",
                "3",
                "how to rebuild the index",
            ])
            .success(),
        // No file stands out: the flat ranking stands, and --explain says why.
        sandbox
            .run(&[
                "search",
                "--explain",
                "--hierarchy",
                "--top",
                "3",
                "バッチ処理のリラン",
            ])
            .success(),
        // --no-hierarchy wins over an earlier --hierarchy: no search_mode in the JSON.
        sandbox
            .run(&[
                "search",
                "--explain",
                "--hierarchy",
                "--no-hierarchy",
                "--format",
                "json",
                "--top",
                "1",
                "how to rebuild the index",
            ])
            .success(),
    ];
    assert!(runs[0].stdout.starts_with("search mode: hierarchical ("));
    assert!(
        runs[1]
            .stdout
            .starts_with("search mode: flat (no confident file")
    );
    assert!(!runs[2].stdout.contains("search_mode"));
    insta::assert_snapshot!("two_pass_modes", transcripts(&runs));
}

#[test]
fn search_two_pass_alpha_out_of_range() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox.run(&["search", "--hierarchy-alpha", "1.5", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert_eq!(
        run.stderr,
        "kbidx: --hierarchy-alpha must be between 0 and 1, not 1.5\n"
    );
    sandbox.write("kbidx.toml", "hierarchy = true\nhierarchy_alpha = -1\n");
    let run = sandbox.run(&["search", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .starts_with("kbidx: kbidx.toml:2:1: hierarchy_alpha must be between 0 and 1, not -1"),
        "{}",
        run.stderr
    );
}

/// `--keyword-coverage W` (or `keyword_coverage` in kbidx.toml) multiplies each
/// keyword result's score by 1 − W + W × the share of the query's concepts it
/// matches, and `--l3-coverage W` (`l3_coverage`, 0.5 by default) by the share
/// of its L3 concepts: a section that names one of two L3 concepts (`output`, in
/// its title) falls below sections whose text names both. The matched points
/// still sum to the score; questions, and L3 keywords given without L1 or L2
/// (a flat list), are not affected.
#[test]
fn search_coverage_ranks_sections_naming_more_concepts_higher() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let keywords = ["--top", "3", "--l2", "kbidx search", "--l3", "json,output"];
    let references = |results: &[serde_json::Value]| -> Vec<String> {
        results
            .iter()
            .map(|r| r["reference"].as_str().unwrap().to_owned())
            .collect()
    };
    let determinism = "guide/build.json#determinism".to_owned();
    let off = json_results(
        &sandbox,
        &with_args(
            &["--l3-coverage", "0", "--keyword-coverage", "0"],
            &keywords,
        ),
    );
    assert_eq!(off[1]["reference"], determinism.as_str(), "{off:#?}");
    let default = json_results(&sandbox, &keywords);
    let concepts = json_results(
        &sandbox,
        &with_args(
            &["--keyword-coverage", "0.6", "--l3-coverage", "0"],
            &keywords,
        ),
    );
    for on in [&default, &concepts] {
        assert_eq!(on[0]["reference"], off[0]["reference"], "{on:#?}");
        assert!(!references(on).contains(&determinism), "{on:#?}");
        for r in on {
            let points: f64 = r["matched"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["points"].as_f64().unwrap())
                .sum();
            let score = r["score"].as_f64().unwrap();
            assert!((points - score).abs() < 0.01, "{r}");
        }
    }
    assert_eq!(
        references(&json_results(
            &sandbox,
            &with_args(&["--l3-coverage", "0.5"], &keywords)
        )),
        references(&default)
    );
    sandbox.write("kbidx.toml", "keyword_coverage = 0.6\nl3_coverage = 0\n");
    assert_eq!(
        references(&json_results(&sandbox, &keywords)),
        references(&concepts)
    );
    assert_eq!(
        references(&json_results(
            &sandbox,
            &with_args(&["--keyword-coverage", "0"], &keywords)
        )),
        references(&off)
    );
    sandbox.write("kbidx.toml", "");
    let run = |args: &[&str]| sandbox.run(&with_args(&["search"], args)).success().stdout;
    let question = ["--top", "5", "索引が古いと言われたらどうする？"];
    assert_eq!(
        run(&question),
        run(&with_args(&["--l3-coverage", "0"], &question))
    );
    let flat = ["--top", "5", "--l3", "kbidx search,json,output"];
    assert_eq!(run(&flat), run(&with_args(&["--l3-coverage", "0"], &flat)));
}

#[test]
fn search_keyword_coverage_out_of_range() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox.run(&["search", "--keyword-coverage", "1.5", "--l3", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert_eq!(
        run.stderr,
        "kbidx: --keyword-coverage must be between 0 and 1, not 1.5\n"
    );
    sandbox.write("kbidx.toml", "body = true\nkeyword_coverage = -0.5\n");
    let run = sandbox.run(&["search", "--l3", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.starts_with(
            "kbidx: kbidx.toml:2:1: keyword_coverage must be between 0 and 1, not -0.5"
        ),
        "{}",
        run.stderr
    );
    // Without the body stage the weight would do nothing: refused, not ignored.
    sandbox.write("kbidx.toml", "");
    let run = sandbox.run(&[
        "search",
        "--no-body",
        "--keyword-coverage",
        "0.6",
        "--l3",
        "index",
    ]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert_eq!(
        run.stderr,
        "kbidx: --keyword-coverage works with the body stage: drop --no-body (or `body = false` in kbidx.toml)\n"
    );
    // The same for --l3-coverage; its default has nothing to weigh there.
    let run = sandbox.run(&["search", "--l3-coverage", "1.5", "--l3", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert_eq!(
        run.stderr,
        "kbidx: --l3-coverage must be between 0 and 1, not 1.5\n"
    );
    let run = sandbox.run(&[
        "search",
        "--no-body",
        "--l3-coverage",
        "0.5",
        "--l3",
        "index",
    ]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert_eq!(
        run.stderr,
        "kbidx: --l3-coverage works with the body stage: drop --no-body (or `body = false` in kbidx.toml)\n"
    );
    sandbox
        .run(&["search", "--no-body", "--l1", "索引", "--l3", "index"])
        .success();
    sandbox.write("kbidx.toml", "l3_coverage = 2\n");
    let run = sandbox.run(&["search", "--l3", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .starts_with("kbidx: kbidx.toml:1:1: l3_coverage must be between 0 and 1, not 2"),
        "{}",
        run.stderr
    );
}

/// SKILL.md, read by every agent in every session, stays short, and its
/// search command runs as written and prints what it says: a `[rank]
/// reference  title  (score)` line per result, the text, the cost line.
#[test]
fn skill_md_is_short_and_its_command_runs() {
    let skill = std::fs::read_to_string(crate::common::repo().join("SKILL.md")).unwrap();
    assert!(skill.chars().count() <= 4_000, "{}", skill.chars().count());
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox
        .run(&[
            "search",
            "--l2",
            "kbidx build",
            "--l3",
            "check|鮮度,stale",
            "--max-tokens",
            "1500",
        ])
        .success();
    let first = run.stdout.lines().next().unwrap();
    assert!(first.starts_with("[1] guide/build.json#"), "{first}");
    assert!(run.stdout.lines().last().unwrap().starts_with("budget: "));
    for name in ["also:", "…", "kbidx read REF", "--max-tokens"] {
        assert!(skill.contains(name), "SKILL.md does not name {name}");
    }
}

/// The JSON results of `kbidx search --format json` with `args`.
fn json_results(sandbox: &Sandbox, args: &[&str]) -> Vec<serde_json::Value> {
    let run = sandbox
        .run(&with_args(
            &["search", "--explain", "--format", "json"],
            args,
        ))
        .success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    doc["results"].as_array().unwrap().clone()
}

#[test]
fn search_exclude_drops_files_and_refills_to_top() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let question = ["--top", "8", "how do I build and check the index"];
    let plain = json_results(&sandbox, &question);
    assert!(
        plain
            .iter()
            .any(|r| r["file"].as_str().unwrap().starts_with("guide/"))
    );
    let excluded = json_results(
        &sandbox,
        &with_args(
            &["--exclude", "guide/**", "--exclude", "troubleshooting.json"],
            &question,
        ),
    );
    assert_eq!(excluded.len(), 8, "refilled to --top");
    for r in &excluded {
        let file = r["file"].as_str().unwrap();
        assert!(
            !file.starts_with("guide/") && file != "troubleshooting.json",
            "{file}"
        );
    }
    // Ranks are renumbered and the kept rows keep their relative order.
    let ranks: Vec<u64> = excluded
        .iter()
        .map(|r| r["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, (1..=8).collect::<Vec<u64>>());
    let kept: Vec<&str> = plain
        .iter()
        .map(|r| r["reference"].as_str().unwrap())
        .filter(|r| excluded.iter().any(|e| e["reference"] == *r))
        .collect();
    let order: Vec<&str> = excluded
        .iter()
        .map(|r| r["reference"].as_str().unwrap())
        .filter(|r| kept.contains(r))
        .collect();
    assert_eq!(kept, order);
}

#[test]
fn search_group_by_file_folds_sections_into_more() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let question = ["--top", "6", "how do I build and check the index"];
    let plain = json_results(&sandbox, &question);
    let grouped = json_results(&sandbox, &with_args(&["--group-by", "file"], &question));
    assert_eq!(grouped.len(), 6, "refilled to --top");
    let files: Vec<&str> = grouped
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    let mut unique = files.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), files.len(), "one result per file: {files:?}");
    // The first result is the plain ranking's first, and every folded
    // section belongs to its result's file.
    assert_eq!(grouped[0]["reference"], plain[0]["reference"]);
    let mut folded = 0;
    for r in &grouped {
        for more in r["more"].as_array().into_iter().flatten() {
            let more = more.as_str().unwrap();
            assert!(
                more.starts_with(&format!("{}#", r["file"].as_str().unwrap())),
                "{more}"
            );
            folded += 1;
        }
    }
    assert!(
        folded > 0,
        "this question ranks several sections of one file high"
    );
    // Two per file: more results per file, fewer folded.
    let two = json_results(
        &sandbox,
        &with_args(&["--group-by", "file", "--per-file", "2"], &question),
    );
    let most = two
        .iter()
        .map(|r| two.iter().filter(|s| s["file"] == r["file"]).count())
        .max();
    assert_eq!(most, Some(2));
    // Text output says how many were folded.
    let text = sandbox
        .run(&with_args(
            &["search", "--explain", "--group-by", "file"],
            &question,
        ))
        .success();
    assert!(
        text.stdout.contains("more in this file)"),
        "{}",
        text.stdout
    );
}

#[test]
fn search_diversity_flags_are_checked_before_work() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox.run(&["search", "--exclude", "guide/[", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("invalid glob \"guide/[\""),
        "{}",
        run.transcript()
    );
    let run = sandbox.run(&["search", "--per-file", "2", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    let run = sandbox.run(&["search", "--group-by", "section", "index"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
}

/// The repository's knowledge with a copy of `guide/build.json` beside it
/// (`guide/build-copy.json`): every section of it has a twin.
fn with_copied_build_file() -> Sandbox {
    let copy = std::fs::read(crate::common::repo().join("knowledge/guide/build.json")).unwrap();
    Sandbox::new()
        .with_repo_knowledge()
        .with_file("knowledge/guide/build-copy.json", copy)
        .with_built_index()
}

#[test]
fn search_collapse_folds_a_copied_file_into_the_original() {
    let sandbox = with_copied_build_file();
    let question = ["--top", "6", "how do I check that the index is up to date"];
    let plain = json_results(&sandbox, &with_args(&["--no-collapse"], &question));
    let file = |r: &serde_json::Value| r["file"].as_str().unwrap().to_owned();
    assert!(plain.iter().any(|r| file(r) == "guide/build-copy.json"));
    assert!(plain.iter().all(|r| r.get("also").is_none()), "{plain:#?}");
    let collapsed = json_results(&sandbox, &with_args(&["--collapse"], &question));
    assert_eq!(collapsed.len(), 6, "refilled to --top");
    // Each pair of identical sections shows once; the other is in its `also`.
    let sections = |r: &serde_json::Value| r["section"].as_str().unwrap().to_owned();
    let mut shown: Vec<String> = collapsed
        .iter()
        .filter(|r| file(r).starts_with("guide/build"))
        .map(sections)
        .collect();
    let before = shown.len();
    shown.sort();
    shown.dedup();
    assert_eq!(shown.len(), before, "{collapsed:#?}");
    let folded: Vec<&str> = collapsed
        .iter()
        .flat_map(|r| r["also"].as_array().into_iter().flatten())
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(!folded.is_empty(), "{collapsed:#?}");
    for r in &collapsed {
        for m in r["also"].as_array().into_iter().flatten() {
            let (_, section) = m.as_str().unwrap().split_once('#').unwrap();
            assert_eq!(section, sections(r), "a copy folds into its original: {m}");
        }
    }
}

/// A folded twin's own paragraphs are handed over with the result it is
/// folded into (the default `--collapse`): a copy of a section with one
/// paragraph added delivers that paragraph after a line naming the copy.
#[test]
fn search_collapse_hands_over_a_twins_own_paragraphs() {
    let mut copy: serde_json::Value = serde_json::from_slice(
        &std::fs::read(crate::common::repo().join("knowledge/guide/build.json")).unwrap(),
    )
    .unwrap();
    // Short, so that the copy stays a near-duplicate (5-gram Jaccard ≥ 0.9).
    let added = "Copy only: tag it after CI.";
    let check = copy["sections"]["check"].as_str().unwrap().to_owned();
    copy["sections"]["check"] = format!("{check}\n\n{added}").into();
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file(
            "knowledge/guide/build-copy.json",
            serde_json::to_vec(&copy).unwrap(),
        )
        .with_built_index();
    let args = [
        "search",
        "--max-tokens",
        "20000",
        "--top",
        "6",
        "how do I check that the index is up to date",
    ];
    let out = sandbox.run(&args).success().stdout;
    let twin = "[guide/build-copy.json#check] (paragraphs shown above left out)";
    let at = out.find(twin).unwrap_or_else(|| panic!("{out}"));
    assert!(out[at..].contains(added), "{out}");
    assert_eq!(out.matches(added).count(), 1, "{out}");
    assert!(out.contains("also: guide/build-copy.json#check"), "{out}");
    // Off, the copy is a result of its own, its paragraph still shown once.
    let off = sandbox
        .run(&with_args(&["search", "--no-collapse"], &args[1..]))
        .success()
        .stdout;
    assert!(!off.contains("also:"), "{off}");
    assert_eq!(off.matches(added).count(), 1, "{off}");
}

/// The lean document shows a twin's paragraphs once: a copied file's
/// sections come after a line `[reference] (paragraphs shown above left
/// out)` with only what their original did not show, every paragraph of
/// theirs is still in the document, the stated content is the text shown,
/// and the budget the twins leave goes to more text. (`--no-collapse`: by
/// default the ranking folds the copies into `also` first.)
#[test]
fn search_shows_a_twins_paragraphs_once() {
    let sandbox = with_copied_build_file();
    let question = ["--top", "8", "how do I check that the index is up to date"];
    let args = with_args(
        &[
            "search",
            "--format",
            "json",
            "--max-tokens",
            "20000",
            "--no-collapse",
        ],
        &question,
    );
    let doc: serde_json::Value =
        serde_json::from_str(&sandbox.run(&args).success().stdout).unwrap();
    let results = doc["results"].as_array().unwrap();
    let text: String = results
        .iter()
        .filter_map(|r| r["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let squeezed: String = text.split_whitespace().collect();
    let mark = " (paragraphs shown above left out)";
    // The copy ranks with its original, either first: the second of each
    // pair is the twin.
    let twins: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix('[')?.strip_suffix(&format!("]{mark}")))
        .filter(|r| r.starts_with("guide/build"))
        .collect();
    assert!(!twins.is_empty(), "{text}");
    for reference in &twins {
        let read = sandbox
            .run(&["read", "--format", "json", reference])
            .success();
        let whole: serde_json::Value = serde_json::from_str(&read.stdout).unwrap();
        for paragraph in whole["content"].as_str().unwrap().split("\n\n") {
            let paragraph: String = paragraph.split_whitespace().collect();
            assert!(squeezed.contains(&paragraph), "{reference}: {paragraph}");
        }
        let (_, section) = reference.split_once('#').unwrap();
        let lines = results
            .iter()
            .filter(|r| {
                r["reference"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("#{section}"))
            })
            .filter(|r| r["reference"].as_str().unwrap().starts_with("guide/build"))
            .count();
        assert!(
            lines <= 1,
            "{reference}: a twin has no result line of its own"
        );
    }
    // The budget states the text shown (its `[reference]` lines aside),
    // twins' repeats counted once.
    let marker =
        |l: &str| l.starts_with('[') && l.split(']').next().is_some_and(|r| r.contains('#'));
    let shown: usize = text
        .lines()
        .filter(|l| !marker(l))
        .map(|l| l.chars().count())
        .sum();
    let stated = doc["budget"]["content_chars"].as_u64().unwrap() as usize;
    assert!(shown.abs_diff(stated) * 20 < stated, "{stated} vs {shown}");
}

/// Refilling searches deeper than `--top`, but what it keeps is in the plain
/// ranking's order with its scores: an exclude that matches nothing changes nothing.
#[test]
fn search_exclude_matching_nothing_keeps_the_ranking() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    for question in ["how do I build and check the index", "索引が古いと言われた"] {
        let args = ["--top", "7", question];
        let plain = json_results(&sandbox, &args);
        let noop = json_results(
            &sandbox,
            &with_args(&["--exclude", "no-such-dir/**"], &args),
        );
        assert_eq!(plain, noop, "{question}");
    }
}

/// What the PostgreSQL backend cannot do (another scoring method, `--expand`)
/// is refused before any connection is tried.
#[test]
fn file_only_flags_are_refused_with_pg() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    for flag in [&["--scoring", "seed"][..], &["--expand", "2"]] {
        let mut args = vec!["search", "--pg", "postgresql://127.0.0.1:1/none"];
        args.extend_from_slice(flag);
        args.push("索引");
        let run = sandbox.run(&args);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stderr.contains("not with --pg"), "{}", run.transcript());
    }
    let run = sandbox.run(&[
        "eval",
        "--pg",
        "postgresql://127.0.0.1:1/none",
        "--eval",
        "q.jsonl",
        "--expand",
        "2",
    ]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("not with --pg"), "{}", run.transcript());
}

/// `--passages`: each result's first line and the paragraphs holding the
/// query's words, in document order, `…` for what is left out, within the
/// per-result cap (1000 characters without one); `kbidx.toml` `passages`.
#[test]
fn search_passages() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let question = "索引を作り直すには";
    let json = |extra: &[&str]| {
        let mut args = vec!["search", "--explain", "--format", "json", "--top", "3"];
        args.extend_from_slice(extra);
        args.push(question);
        let run = sandbox.run(&args).success();
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        (run, doc)
    };
    let (capped, doc) = json(&["--passages", "--max-chars-per-result", "300"]);
    assert_eq!(doc["budget"]["passages"], true);
    let results = doc["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["passage"] == true), "{doc:#}");
    for r in results {
        let content = r["content"].as_str().unwrap();
        assert!(content.chars().count() <= 300, "{content}");
        let reference = r["reference"].as_str().unwrap();
        let full = sandbox.run(&["read", reference]).success().stdout;
        // The section's first line stays; every other kept line is one of
        // the section's, in the section's order.
        assert_eq!(content.lines().next(), full.lines().next(), "{reference}");
        let mut rest = full.lines();
        for line in content.lines().filter(|l| *l != "…") {
            assert!(
                rest.any(|l| l == line),
                "{reference}: {line:?} out of place"
            );
        }
        if r["passage"] == true {
            assert_eq!(r["truncated"], true);
            assert!(content.contains('…'), "{content}");
        }
    }
    // Without a per-result cap: passages of at most 1000 characters.
    let (_, uncapped) = json(&["--passages"]);
    for r in uncapped["results"].as_array().unwrap() {
        assert!(r["content"].as_str().unwrap().chars().count() <= 1000);
    }
    // kbidx.toml `passages = true` shapes content when it is asked for;
    // `--no-passages` overrides it.
    let configured = Sandbox::new()
        .with_repo_knowledge()
        .with_file("kbidx.toml", "passages = true\n");
    let run = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["search", "--explain", "--format", "json", "--top", "3"];
        all.extend_from_slice(args);
        all.push(question);
        serde_json::from_str(&configured.run(&all).success().stdout).unwrap()
    };
    assert_eq!(
        run(&["--max-chars-per-result", "300"])["results"],
        doc["results"]
    );
    assert!(run(&[])["results"][0]["content"].is_null());
    let whole = run(&["--no-passages", "--max-chars-per-result", "300"]);
    assert!(
        whole["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["passage"].is_null())
    );
    let text = sandbox
        .run(&[
            "search",
            "--top",
            "2",
            "--passages",
            "--max-chars-per-result",
            "300",
            question,
        ])
        .success();
    let toon = sandbox
        .run(&[
            "search",
            "--format",
            "toon",
            "--top",
            "2",
            "--passages",
            "--max-tokens-per-result",
            "100",
            question,
        ])
        .success();
    insta::assert_snapshot!("passages", transcripts(&[capped, text, toon]));
}

/// A pasted log as a keyword or a question is cut to a documented size,
/// with a notice in the answer (`query_truncated`), not refused: the work per
/// query stays bounded (see docs/reliability.md for its cost).
#[test]
fn search_cuts_a_huge_query_with_a_notice() {
    let sandbox = Sandbox::new().with_repo_knowledge().with_built_index();
    let keyword = "ビルド".repeat(70_000);
    let keywords = serde_json::json!({"l3": [keyword, "index"]}).to_string();
    let run = sandbox.run_with_stdin(
        &["search", "--keywords", "-", "--format", "json"],
        &keywords,
    );
    assert!(run.code <= 1, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        doc["query_truncated"],
        serde_json::json!(["keywords were cut to their first 200 characters"]),
        "{doc}"
    );
    let question = "index build failed: ".repeat(5_000);
    let run = sandbox.run(&["search", &question]);
    assert!(run.code <= 1, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(
            "note: query truncated: the question was cut to its first 4000 characters\n"
        ),
        "{}",
        &run.stdout[..run.stdout.len().min(300)]
    );
}

/// Keywords and a plain question at once is refused (exit 2), not a silent
/// switch to question mode: an unquoted space in a keyword list makes the
/// shell pass the rest as a question.
#[test]
fn search_refuses_keywords_mixed_with_a_question() {
    let sandbox = Sandbox::new().with_repo_knowledge().with_built_index();
    let run = sandbox.run(&[
        "search",
        "--explain",
        "--l3",
        "double",
        "submission,二重サブミット",
    ]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("\"submission,二重サブミット\"") && run.stderr.contains("quote"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    // Several words after the keywords: named together.
    let run = sandbox.run(&["search", "--explain", "--l3", "handler", "queue", "order"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("\"queue order\""), "{}", run.stderr);
    // Several words alone are one question.
    let run = sandbox.run(&[
        "search",
        "--explain",
        "--format",
        "json",
        "索引を",
        "作り直すには",
    ]);
    assert!(run.code <= 1, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["query"], "索引を 作り直すには");
}

/// A small knowledge base for the literal text matches of levelled keywords:
/// a BeanUtil file whose format sections carry BeanUtil in title and hints
/// while only `#usage`'s text holds `BeanUtil.getProperty(user, "id")`, and
/// a batch file where only `#s1`'s title and `#s2`'s text say リラン.
fn literal_sandbox() -> Sandbox {
    let bean = serde_json::json!({
        "id": "bean",
        "title": "BeanUtil",
        "index": [
            {"id": "modules", "title": "BeanUtilのモジュール一覧", "hints": ["BeanUtil", "モジュール"]},
            {"id": "usage", "title": "使用方法", "hints": ["BeanUtil", "使用方法"]},
            {"id": "format", "title": "BeanUtilのフォーマット指定", "hints": ["BeanUtil", "フォーマット"]},
            {"id": "date", "title": "BeanUtilの日付フォーマット", "hints": ["BeanUtil", "日付"]}
        ],
        "sections": {
            "modules": "依存ライブラリを追加する。",
            "usage": "プロパティ値を取得する。\n\n```java\nfinal Long id = (Long) BeanUtil.getProperty(user, \"id\");\n```",
            "format": "コピー時に許容するフォーマットを設定する。",
            "date": "日付の書式を指定する。"
        }
    });
    let batch = serde_json::json!({
        "id": "batch",
        "title": "バッチのエラー処理",
        "index": [
            {"id": "s1", "title": "バッチ処理をリランできるようにする", "hints": ["再実行"]},
            {"id": "s2", "title": "エラー発生時に処理を継続する", "hints": ["継続"]},
            {"id": "s3", "title": "処理を異常終了させる", "hints": ["異常終了"]}
        ],
        "sections": {
            "s1": "処理状態を保存する。",
            "s2": "処理を継続した後、失敗したデータだけをリランする運用とする。",
            "s3": "例外を送出して処理を終了する。"
        }
    });
    let other = serde_json::json!({
        "id": "other",
        "title": "その他",
        "index": [
            {"id": "a", "title": "ログ出力", "hints": ["ログ"]},
            {"id": "b", "title": "メール送信", "hints": ["メール"]},
            {"id": "c", "title": "ファイル入出力", "hints": ["ファイル"]}
        ],
        "sections": {"a": "ログを出力する。", "b": "メールを送る。", "c": "ファイルを読む。"}
    });
    let sandbox = Sandbox::new()
        .with_file("knowledge/bean.json", bean.to_string())
        .with_file("knowledge/batch.json", batch.to_string())
        .with_file("knowledge/other.json", other.to_string());
    sandbox.run(&["build"]).success();
    sandbox
}

/// A levelled keyword found literally in a section's text counts in the
/// score, and every section whose text holds it is returned and counted.
#[test]
fn search_keywords_count_literal_text_matches() {
    let sandbox = literal_sandbox();
    sandbox.write(
        "getproperty.json",
        r#"{"l2": ["BeanUtil"], "l3": ["BeanUtil.getProperty(user, \"id\")"]}"#,
    );
    let results = json_results(&sandbox, &["--keywords", "getproperty.json"]);
    assert_eq!(results[0]["reference"], "bean.json#usage", "{results:#?}");
    let text = results[0]["matched"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["field"] == "text" && m["keyword"] == "BeanUtil.getProperty(user, \"id\")")
        .unwrap_or_else(|| panic!("no text match: {:#?}", results[0]));
    assert!(text["points"].as_f64().unwrap() > 0.0, "{text}");

    // リラン: lindera splits it, so the body stage's words never hold it; the
    // text does. The title match ranks first, the text match is returned.
    let run = sandbox
        .run(&["search", "--explain", "--format", "json", "--l3", "リラン"])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let references: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reference"].as_str().unwrap())
        .collect();
    assert_eq!(
        references,
        ["batch.json#s1", "batch.json#s2"],
        "{}",
        run.stdout
    );
    assert_eq!(doc["total"], 2, "{}", run.stdout);
    assert!(
        doc["results"][1]["score"].as_f64().unwrap() > 0.0,
        "{}",
        run.stdout
    );
}

/// The points of every counted `matched` entry sum to the result's score, in
/// both modes; entries outside the score say so.
#[test]
fn search_matched_points_sum_to_the_score() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("weights.toml", WEIGHTS);
    let queries: [&[&str]; 9] = [
        &["索引が古いと言われたらどうする？"],
        &["Is unicode text turned lowercase?"],
        &["--top", "30", "終了コードの意味"],
        &CHECK_KEYWORDS,
        &["--l2", "normalize,NFKC", "--l3", "lowercase,全角"],
        &["--top", "30", "--l3", "index,検索"],
        // A path weight's entry is one of the counted points.
        &[
            "--config",
            "weights.toml",
            "--top",
            "30",
            "索引が古いと言われたらどうする？",
        ],
        &[
            "--config",
            "weights.toml",
            "--top",
            "30",
            "--l3",
            "索引,古い",
        ],
        &["--config", "weights.toml", "--no-body", "--l3", "索引,古い"],
    ];
    for query in queries {
        let results = json_results(&sandbox, query);
        assert!(!results.is_empty(), "{query:?}");
        for r in &results {
            let matched = r["matched"].as_array().unwrap();
            let mut sum = 0.0;
            for m in matched {
                if m.get("counted") == Some(&serde_json::Value::Bool(false)) {
                    assert!(m["why"].is_string(), "{m}");
                } else {
                    sum += m["points"].as_f64().unwrap();
                }
            }
            let score = r["score"].as_f64().unwrap();
            let tolerance = 1e-4 * (matched.len() + 1) as f64;
            assert!(
                (sum - score).abs() <= tolerance,
                "{query:?}: {} scores {score}, its counted points sum to {sum}: {matched:#?}",
                r["reference"]
            );
        }
    }
}

/// Path weights for the repository's knowledge: its troubleshooting page
/// demoted, its reference pages promoted a little.
const WEIGHTS: &str = "[[weight]]\nglob = \"troubleshooting.json\"\nfactor = 0.3\n\n\
                       [[weight]]\nglob = \"reference/**\"\nfactor = 1.2\n";

/// A `[[weight]]` that demotes a file moves its section below unweighted
/// ones, in question and keyword mode, with and without the body stage: the
/// weighted score is the factor times the plain one, `--explain` shows the
/// weight as a counted entry, and `normalized_score` stays within 0–1.
#[test]
fn search_path_weight_demotes_a_file() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("weights.toml", WEIGHTS);
    let target = "troubleshooting.json#stale-index";
    let queries: [&[&str]; 3] = [
        &["索引が古いと言われたらどうする？"],
        &["--l3", "索引,古い"],
        &["--no-body", "--l3", "索引,古い"],
    ];
    for query in queries {
        let plain = json_results(&sandbox, &with_args(&["--top", "30"], query));
        let weighted = json_results(
            &sandbox,
            &with_args(&["--config", "weights.toml", "--top", "30"], query),
        );
        let at = |results: &[serde_json::Value]| {
            results
                .iter()
                .position(|r| r["reference"] == target)
                .unwrap_or_else(|| panic!("{query:?}: {target} not found: {results:#?}"))
        };
        let (before, after) = (at(&plain), at(&weighted));
        assert_eq!(before, 0, "{query:?}: {plain:#?}");
        assert!(
            after > before,
            "{query:?}: {target} at {after}: {weighted:#?}"
        );
        assert!(
            weighted[0]["reference"] != target && weighted[0]["matched"].is_array(),
            "{query:?}"
        );
        let score = |r: &serde_json::Value| r["score"].as_f64().unwrap();
        assert!(
            (score(&weighted[after]) - 0.3 * score(&plain[before])).abs() < 1e-3,
            "{query:?}: {} against {}",
            weighted[after],
            plain[before]
        );
        let weight = weighted[after]["matched"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["field"] == "weight")
            .unwrap_or_else(|| panic!("{query:?}: no weight entry: {}", weighted[after]));
        assert_eq!(weight["keyword"], "troubleshooting.json", "{weight}");
        assert_eq!(weight["factor"], 0.3, "{weight}");
        assert!(weight["points"].as_f64().unwrap() < 0.0, "{weight}");
        for r in &weighted {
            let n = r["normalized_score"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&n), "{query:?}: {r}");
        }
    }
    // Demoted below the first 5, it leaves a `--top 5` list, which is
    // refilled from further down.
    let top5 = json_results(
        &sandbox,
        &[
            "--config",
            "weights.toml",
            "--top",
            "5",
            "索引が古いと言われたらどうする？",
        ],
    );
    assert_eq!(top5.len(), 5);
    assert!(top5.iter().all(|r| r["reference"] != target), "{top5:#?}");
    // The text rendering shows the weight under the result, with its factor.
    let run = sandbox
        .run(&[
            "--config",
            "weights.toml",
            "search",
            "--explain",
            "--top",
            "30",
            "--l3",
            "索引,古い",
        ])
        .success();
    assert!(
        run.stdout.contains("weight ") && run.stdout.contains("troubleshooting.json (×0.3)"),
        "{}",
        run.stdout
    );
}

/// No `[[weight]]`: byte-identical output to a configuration without the
/// key (the same search, the same document).
#[test]
fn search_without_weights_is_unchanged() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("plain.toml", "terms = 12\n")
        .with_file(
            "unmatched.toml",
            "[[weight]]\nglob = \"nothing/**\"\nfactor = 0.1\n",
        );
    for query in [
        &[
            "--explain",
            "--top",
            "12",
            "索引が古いと言われたらどうする？",
        ][..],
        &["--format", "json", "--l3", "索引,古い"],
        &["--format", "json", "--no-body", "--l3", "索引,古い"],
    ] {
        let run = |config: &str| {
            let args = with_args(&["--config", config, "search"], query);
            sandbox.run(&args).success().stdout
        };
        let plain = run("plain.toml");
        assert_eq!(plain, run("unmatched.toml"), "{query:?}");
        assert_eq!(
            plain,
            sandbox.run(&with_args(&["search"], query)).success().stdout
        );
    }
}

/// A bad `[[weight]]` entry is an error naming kbidx.toml, the entry and
/// what is wrong, before any search (exit 2).
#[test]
fn search_bad_weight_exits_2() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let cases = [
        (
            "[[weight]]\nglob = \"javadoc/**\"\nfactor = 0.5\n\n[[weight]]\nglob = \"releases/**\"\nfactor = 0\n",
            "kbidx: kbidx.toml:5:1: [[weight]] entry 2 (glob = \"releases/**\"): factor must be a finite number above 0, not 0\n",
        ),
        (
            "[[weight]]\nglob = \"javadoc/[\"\nfactor = 0.5\n",
            "kbidx: kbidx.toml:1:1: [[weight]] entry 1 (glob = \"javadoc/[\"): invalid glob \"javadoc/[\": unclosed character class; missing ']'\n",
        ),
        (
            "[[weight]]\nglob = \"javadoc/**\"\nfactor = inf\n",
            "kbidx: kbidx.toml:1:1: [[weight]] entry 1 (glob = \"javadoc/**\"): factor must be a finite number above 0, not inf\n",
        ),
    ];
    for (config, message) in cases {
        sandbox.write("kbidx.toml", config);
        for args in [
            &["search", "索引"][..],
            &["search", "--l3", "索引"],
            &["eval", "--eval", "none.jsonl"],
        ] {
            sandbox.run(args).exits(2, message);
        }
    }
}

/// A keyword may start with `-`, as identifiers are written (`-requestPath`):
/// right after `--l1/--l2/--l3`, or joined with `=`; a value that starts
/// with `--` stays a flag. The keyword is searched, not refused.
#[test]
fn search_keywords_may_start_with_a_hyphen() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    for args in [
        &[
            "search",
            "--explain",
            "--format",
            "json",
            "--l3",
            "-requestPath,check",
        ][..],
        &[
            "search",
            "--explain",
            "--format",
            "json",
            "--l2=-x",
            "--l3",
            "check",
        ][..],
        &[
            "search",
            "--explain",
            "--format",
            "json",
            "--l1",
            "-d",
            "--l2",
            "-x",
            "--l3",
            "-y",
        ][..],
    ] {
        let run = sandbox.run(args);
        assert!(run.code <= 1, "{}", run.transcript());
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let keywords: Vec<&str> = ["l1", "l2", "l3"]
            .iter()
            .flat_map(|l| doc["keywords"][l].as_array().unwrap())
            .map(|k| k.as_str().unwrap())
            .collect();
        assert!(
            keywords.iter().any(|k| k.starts_with('-')),
            "{args:?}: {keywords:?}"
        );
    }
    // `--l2 --format json`: a forgotten keyword, not the keyword `--format`.
    let run = sandbox.run(&["search", "--l2", "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
}

/// A keyword given at two levels is searched once, at the level that weighs
/// more (the first of L2 and L3), and the document says so in `notes` (text
/// output: on stderr), so that nothing is dropped silently.
#[test]
fn search_notes_a_keyword_given_at_two_levels() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox
        .run(&[
            "search",
            "--format",
            "json",
            "--l2",
            "kbidx|Build",
            "--l3",
            "check,build",
            "--l1",
            "CHECK",
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let notes: Vec<&str> = doc["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes.contains(&"keyword \"Build\" is given at l2 and l3: searched once, at l2"),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"keyword \"CHECK\" is given at l1 and l3: searched once, at l3"),
        "{notes:?}"
    );
    let text = sandbox
        .run(&["search", "--l2", "build", "--l3", "Build"])
        .success();
    assert!(
        text.stderr
            .contains("note: keyword \"build\" is given at l2 and l3: searched once, at l2"),
        "{}",
        text.transcript()
    );
}

/// The lean document by default: per result reference, title, one score and
/// content; no explanations, confidence or suggestions unless asked for.
#[test]
fn search_lean_document_by_default() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let question = "索引が古いと言われたらどうする？";
    let run = sandbox
        .run(&[
            "search",
            "--format",
            "json",
            "--max-tokens",
            "2000",
            question,
        ])
        .success();
    assert_eq!(run.stdout.lines().count(), 1, "compact when not a terminal");
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&doc), ["version", "total", "results", "budget"]);
    for r in doc["results"].as_array().unwrap() {
        for key in keys(r) {
            assert!(
                [
                    "reference",
                    "title",
                    "score",
                    "also",
                    "truncated",
                    "content"
                ]
                .contains(&key.as_str()),
                "{key}: {r}"
            );
        }
    }
    let suggested = sandbox
        .run(&["search", "--format", "json", "--suggest", question])
        .success();
    let suggested: serde_json::Value = serde_json::from_str(&suggested.stdout).unwrap();
    assert!(suggested["suggest"].is_array(), "{suggested}");
    let toon = sandbox
        .run(&[
            "search",
            "--format",
            "toon",
            "--max-tokens",
            "2000",
            question,
        ])
        .success();
    assert!(
        toon.stdout
            .contains("]{reference,title,score,also,truncated,content}:"),
        "{}",
        toon.stdout
    );
}

/// A section whose file already has a result with text above it is folded
/// into that result: its text follows after a line `[#section]`, so the
/// reference, title and score are printed once per file. The text handed
/// over for a folded section is its own (a prefix of what `kbidx read` prints).
#[test]
fn search_folds_a_files_sections_into_its_first_result() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let args = [
        "search",
        "--max-tokens",
        "800",
        "--top",
        "5",
        "--l2",
        "kbidx search",
        "--l3",
        "budget,max-tokens,format",
    ];
    let text = sandbox.run(&args).success();
    insta::assert_snapshot!("folded_sections", text.transcript());
    let json = sandbox
        .run(&[&args[..], &["--format", "json"]].concat())
        .success();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let mut files = std::collections::HashSet::new();
    let mut folded = 0;
    for r in doc["results"].as_array().unwrap() {
        let Some(content) = r["content"].as_str() else {
            continue;
        };
        let (file, _) = r["reference"].as_str().unwrap().split_once('#').unwrap();
        assert!(files.insert(file), "{file} has two results with text");
        for (section, text) in folded_sections(content).1 {
            let read = sandbox
                .run(&["read", "--format", "json", &format!("{file}#{section}")])
                .success();
            let whole: serde_json::Value = serde_json::from_str(&read.stdout).unwrap();
            let whole = whole["content"].as_str().unwrap();
            assert!(whole.starts_with(text.trim_end()), "{section}: {text}");
            folded += 1;
        }
    }
    assert!(folded > 0, "{}", json.stdout);
}

/// The text document numbers its results by their place in it: sections
/// folded into their file's result (or a twin's) leave no gap, so a reader
/// does not look for results that are not there.
#[test]
fn search_numbers_results_by_their_place_in_the_document() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    for question in ["MCP サーバの設定", "jq フィルタ extraction debugging"] {
        let run = sandbox
            .run(&["search", question, "--max-tokens", "3000"])
            .success();
        let numbers: Vec<usize> = run
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix('[')?.split_once(']')?.0.parse().ok())
            .collect();
        assert!(numbers.len() > 2, "{}", run.stdout);
        assert_eq!(
            numbers,
            (1..=numbers.len()).collect::<Vec<_>>(),
            "{}",
            run.stdout
        );
    }
}
