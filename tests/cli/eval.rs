//! `kbidx eval`: accuracy over a query set, through the binary.

use crate::common::{Sandbox, folded_sections};

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

/// A knowledge base of long sections whose answers lie deep inside, and
/// its question set with answer phrases: there the hand-overs differ
/// (from the start, a 2,000-token budget ends inside the first section).
fn long_sections() -> Sandbox {
    let topics = [
        (
            "zebra",
            "rotate",
            "To rotate the zebra key, set zebraRotation to true in settings.",
        ),
        (
            "falcon",
            "retry",
            "A falcon job retries three times when falconRetry is set.",
        ),
        (
            "otter",
            "export",
            "Exports of otter tables go to the otterExport directory.",
        ),
        (
            "walrus",
            "lock",
            "A walrus record is locked by writing its walrusLock column.",
        ),
        (
            "heron",
            "cache",
            "Heron pages are cached for heronCacheSeconds after a read.",
        ),
        (
            "badger",
            "limit",
            "Badger uploads are limited by badgerMaxBytes in settings.",
        ),
    ];
    let mut sandbox = Sandbox::new();
    let mut set = String::new();
    for (i, (topic, verb, answer)) in topics.iter().enumerate() {
        let mut content = format!("Settings of the {topic} module.");
        for p in 0..60 {
            content.push_str("\n\n");
            if p == 40 + i {
                content.push_str(answer);
            } else {
                content.push_str(&format!(
                    "Paragraph {p} of the {topic} settings describes defaults, logging, naming \
                     and other matters of no interest to the question at hand."
                ));
            }
        }
        let file = serde_json::json!({
            "id": topic,
            "title": format!("{topic} settings"),
            "index": [{"id": "s1", "title": format!("{topic} settings"), "hints": [topic, "settings"]}],
            "sections": [{"id": "s1", "title": format!("{topic} settings"), "content": content}],
        });
        sandbox = sandbox.with_file(&format!("knowledge/{topic}.json"), file.to_string());
        let case = serde_json::json!({
            "id": topic,
            "query": format!("How do I {verb} the {topic} settings?"),
            "keywords": {"l1": ["settings"], "l2": [topic], "l3": [verb]},
            "expected": [{"file": format!("{topic}.json"), "section": "s1", "grade": "must", "answer": answer}],
        });
        set.push_str(&format!("{case}\n"));
    }
    sandbox
        .with_file("kbidx.toml", "knowledge = \"knowledge\"\n")
        .with_file("long.jsonl", set)
        .with_built_index()
}

/// Eval measures exactly what `search` hands over: for every question of a
/// set with answer phrases, in both modes and at every budget, a must
/// section's rank is its rank in `search --format json --top 30`, and
/// eval's `answered` says whether its answer phrase (white space ignored)
/// lies in the content `search --max-tokens B` hands over for it.
#[test]
fn eval_answer_recall_is_what_search_hands_over() {
    let knowledge = Sandbox::new()
        .with_repo_knowledge()
        .with_repo_dir("tests/fixtures/eval/dev", "dev");
    same_hand_over(&knowledge, "dev/knowledge.jsonl", "adaptive", "adaptive");
    let long = long_sections();
    for hand_over in ["adaptive", "start", "passages"] {
        same_hand_over(&long, "long.jsonl", hand_over, hand_over);
    }
}

/// The text a search document hands over for `reference`: its result's
/// content, or, when the section is folded into its file's first result
/// with text, what follows its line `[#section]` there up to the next
/// folded section ("" when neither).
fn handed_text<'d>(doc: &'d serde_json::Value, reference: &str) -> &'d str {
    let (file, section) = reference.split_once('#').unwrap();
    let results = doc["results"].as_array().unwrap();
    if let Some(own) = results.iter().find(|x| x["reference"] == reference) {
        return folded_sections(own["content"].as_str().unwrap_or("")).0;
    }
    results
        .iter()
        .filter(|x| x["reference"].as_str().unwrap().split_once('#').unwrap().0 == file)
        .filter_map(|x| x["content"].as_str())
        .find_map(|c| {
            folded_sections(c)
                .1
                .into_iter()
                .find_map(|(anchor, text)| (anchor == section).then_some(text))
        })
        .unwrap_or("")
}

/// [`eval_answer_recall_is_what_search_hands_over`] for one set and `--hand-over`.
fn same_hand_over(sandbox: &Sandbox, set_file: &str, hand_over: &str, searched: &str) {
    let set = sandbox.read_to_string(set_file);
    let cases: Vec<serde_json::Value> = set
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let run = sandbox
        .run(&[
            "eval",
            "--eval",
            set_file,
            "--format",
            "json",
            "--mode",
            "question,keywords",
            "--scoring",
            "default",
            "--hand-over",
            hand_over,
            // The budget bounds the document the searches below print.
            "--document-format",
            "json",
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    let mut compared = 0;
    for r in doc["runs"].as_array().unwrap() {
        let mode = r["mode"].as_str().unwrap();
        for (case, measured) in cases.iter().zip(r["cases"].as_array().unwrap()) {
            assert_eq!(case["id"], measured["id"]);
            let keywords = case["keywords"].to_string();
            let search = |budget: Option<&str>| -> serde_json::Value {
                let mut args = vec!["search", "--format", "json", "--top", "30"];
                if let Some(b) = budget {
                    args.extend(["--max-tokens", b, "--hand-over", searched]);
                }
                let run = match mode {
                    "question" => {
                        args.push(case["query"].as_str().unwrap());
                        sandbox.run(&args)
                    }
                    _ => {
                        args.extend(["--keywords", "-"]);
                        sandbox.run_with_stdin(&args, &keywords)
                    }
                };
                assert!(run.code <= 1, "{}", run.transcript());
                serde_json::from_str(&run.stdout).unwrap()
            };
            let ranked = search(None);
            let handed: Vec<serde_json::Value> = ["2000", "5000", "10000"]
                .iter()
                .map(|b| search(Some(b)))
                .collect();
            for e in measured["ranks"].as_array().unwrap() {
                let Some(answered) = e["answered"].as_array() else {
                    continue;
                };
                let reference = e["reference"].as_str().unwrap();
                let rank = ranked["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .position(|x| x["reference"] == reference)
                    .map(|at| serde_json::Value::from(at + 1))
                    .unwrap_or(serde_json::Value::Null);
                assert_eq!(e["rank"], rank, "{mode} {}: {reference}", case["id"]);
                let (file, section) = reference.split_once('#').unwrap();
                let phrase = case["expected"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["file"] == file && x["section"] == section)
                    .and_then(|x| x["answer"].as_str())
                    .unwrap();
                for (doc, was) in handed.iter().zip(answered) {
                    let content = handed_text(doc, reference);
                    let holds = squeeze(content).contains(&squeeze(phrase));
                    assert_eq!(
                        was.as_bool(),
                        Some(holds),
                        "{mode} {}: {reference}",
                        case["id"]
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 30, "{compared} comparisons");
}

/// `eval --config FILE` measures the file's path weights: the expected
/// sections of a demoted file rank lower (or drop out), never higher, and
/// some do move.
#[test]
fn eval_measures_path_weights() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_repo_dir("tests/fixtures", "fixtures")
        .with_file(
            "weights.toml",
            "[[weight]]\nglob = \"troubleshooting.json\"\nfactor = 0.05\n",
        );
    let ranks = |run: &serde_json::Value| -> Vec<usize> {
        run["cases"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["ranks"].as_array().unwrap().clone())
            .filter(|r| {
                r["reference"]
                    .as_str()
                    .unwrap()
                    .starts_with("troubleshooting.json")
            })
            .map(|r| r["rank"].as_u64().map_or(usize::MAX, |n| n as usize))
            .collect()
    };
    let plain = ranks(&question_run(&sandbox, &[]));
    let weighted = ranks(&question_run(&sandbox, &["--config", "weights.toml"]));
    assert!(!plain.is_empty());
    assert_eq!(plain.len(), weighted.len());
    assert!(
        plain.iter().zip(&weighted).all(|(p, w)| w >= p),
        "{plain:?} {weighted:?}"
    );
    assert!(
        plain.iter().zip(&weighted).any(|(p, w)| w > p),
        "{plain:?} {weighted:?}"
    );
}
