//! `kbidx eval`: accuracy over a query set, through the binary.

use crate::common::Sandbox;

#[test]
fn eval_summary_runs() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_repo_dir("tests/fixtures", "fixtures");
    let run = sandbox
        .run(&["eval", "--eval", "fixtures/queries.jsonl", "--summary"])
        .success();
    assert!(run.stderr.is_empty(), "{}", run.transcript());
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].starts_with("mode ") && lines[0].contains("MRR"),
        "{}",
        run.stdout
    );
    // keywords, terms and question, each with default and seed, the
    // calibration of their confidence levels, and the note that default ran
    // with the body stage; no per-query details. The knowledge directory is
    // known, so R@chars is reported.
    assert_eq!(lines.len(), 15, "{}", run.stdout);
    assert!(lines[7].starts_with("confidence"), "{}", run.stdout);
    assert!(
        lines[8..14]
            .iter()
            .all(|l| l.contains(" high ") && l.contains(" medium ") && l.contains(" low ")),
        "{}",
        run.stdout
    );
    assert!(lines[14].contains("body stage"), "{}", run.stdout);
    assert!(lines[0].ends_with("R@20000chars"), "{}", run.stdout);
    for mode in ["keywords", "terms", "question"] {
        for method in ["default", "seed"] {
            assert!(
                lines
                    .iter()
                    .any(|l| l.split_whitespace().take(2).eq([mode, method])),
                "no {mode}/{method} row in\n{}",
                run.stdout
            );
        }
    }
}

#[test]
fn eval_bad_case_line() {
    let sandbox = Sandbox::new().with_repo_knowledge().with_file(
        "cases.jsonl",
        "{\"id\": \"a\", \"query\": \"q\", \"expected\": []}\n\n{\"id\": \"b\", \"query\": 3}\n",
    );
    let run = sandbox.run(&["eval", "--eval", "cases.jsonl"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with("kbidx: cases.jsonl:3:"),
        "{}",
        run.stderr
    );
    insta::assert_snapshot!("bad_case_line", run.transcript());
}

/// `eval --format json`: one document (query set, count, `--top`, the runs).
#[test]
fn eval_json() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_repo_dir("tests/fixtures", "fixtures");
    let run = sandbox
        .run(&[
            "eval",
            "--eval",
            "fixtures/queries.jsonl",
            "--format",
            "json",
            "--mode",
            "keywords",
            "--scoring",
            "default",
            "--top",
            "5",
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["runs"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["queries"], 36);
    insta::assert_snapshot!("json", run.transcript());
}

/// The first run of `kbidx eval` over the fixture questions (question mode,
/// default scoring) with `extra` flags.
fn question_run(sandbox: &Sandbox, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "eval",
        "--eval",
        "fixtures/queries.jsonl",
        "--format",
        "json",
        "--mode",
        "question",
        "--scoring",
        "default",
    ];
    args.extend_from_slice(extra);
    let run = sandbox.run(&args).success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    doc["runs"][0].clone()
}

/// The metrics of [`question_run`] with a 3,000-character budget.
fn question_metrics(sandbox: &Sandbox, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--chars", "3000"];
    args.extend_from_slice(extra);
    question_run(sandbox, &args)["metrics"].clone()
}

/// `--chars-per-result N` measures the hand-over of `search
/// --max-chars-per-result N`: a small cap lets more results start inside
/// the budget (never fewer), and a cap of 0 is refused.
#[test]
fn eval_chars_per_result() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_repo_dir("tests/fixtures", "fixtures");
    let within = |extra: &[&str]| {
        let metrics = question_metrics(&sandbox, extra);
        (
            metrics["recall_at_chars"].as_f64().unwrap(),
            metrics["recall_at_30"].as_f64().unwrap(),
        )
    };
    let (whole, recall) = within(&[]);
    let (capped, _) = within(&["--chars-per-result", "100"]);
    assert!(whole < capped, "{whole} !< {capped}");
    // 30 results of at most 100 characters all start inside 3,000.
    assert_eq!(capped, recall);
    let run = sandbox.run(&[
        "eval",
        "--eval",
        "fixtures/queries.jsonl",
        "--chars-per-result",
        "0",
    ]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("must be at least 1"),
        "{}",
        run.transcript()
    );
}

/// `eval --group-by file`: folded sections count for Recall@k at their
/// result's rank, never for R@chars; a bad glob stops it before any work.
#[test]
fn eval_group_by_file_and_exclude() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_repo_dir("tests/fixtures", "fixtures");
    let eval = |extra: &[&str]| question_run(&sandbox, extra);
    let plain = eval(&[]);
    let grouped = eval(&["--group-by", "file"]);
    let metric = |run: &serde_json::Value, name: &str| run["metrics"][name].as_f64().unwrap();
    assert!(metric(&grouped, "recall_at_30") >= metric(&plain, "recall_at_30"));
    assert!(metric(&grouped, "recall_at_chars") <= metric(&plain, "recall_at_chars"));
    // A found section without a start offset is a folded one.
    let folded = grouped["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["ranks"].as_array().unwrap().clone())
        .filter(|r| r["rank"].is_u64() && r["starts_at"].is_null())
        .count();
    assert!(folded > 0);
    let excluded = eval(&["--exclude", "**"]);
    assert_eq!(metric(&excluded, "recall_at_30"), 0.0);
    let run = sandbox.run(&["eval", "--eval", "fixtures/queries.jsonl", "--exclude", "["]);
    assert_eq!(run.code, 2, "{}", run.transcript());
}

/// `--passages` measures the hand-over of `search --passages`: a passage is
/// never longer than the capped text, so R@chars never falls against the
/// same cap; the sections handed over whole (`recall_whole_at_chars`, the
/// lower bound) never exceed those that start within the budget.
#[test]
fn eval_passages() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_repo_dir("tests/fixtures", "fixtures");
    let metrics = |extra: &[&str]| {
        let m = question_metrics(&sandbox, extra);
        (
            m["recall_at_chars"].as_f64().unwrap(),
            m["recall_whole_at_chars"].as_f64().unwrap(),
            m["recall_at_30"].as_f64().unwrap(),
        )
    };
    for cap in ["100", "300", "1000"] {
        let (capped, capped_whole, _) = metrics(&["--chars-per-result", cap]);
        let (passages, passages_whole, recall) =
            metrics(&["--passages", "--chars-per-result", cap]);
        assert!(capped <= passages && passages <= recall, "cap {cap}");
        assert!(
            passages_whole <= passages && capped_whole <= capped,
            "cap {cap}"
        );
    }
    let (default, _, _) = metrics(&["--passages"]);
    let (thousand, _, _) = metrics(&["--passages", "--chars-per-result", "1000"]);
    assert_eq!(default, thousand, "the default passage is 1000 characters");
}
