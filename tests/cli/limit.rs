//! `body_limit`: over it no command builds a body index or runs the full-text
//! fallback, and searches rank as `--no-body` does, saying so once; within it
//! nothing changes; a body index already in the search cache is used
//! whatever the size.

use crate::common::{Run, Sandbox};

/// Its words are only in section bodies: under the cap `--no-body` runs the
/// fallback for it (`search_fallback_finds_text_only_in_section_bodies`).
const QUESTION: &str = "Is unicode text width normalised?";

/// Searches for each kind of query: a question, levelled keywords.
const QUERIES: [&[&str]; 2] = [&[QUESTION], &["--l2", "索引", "--l3", "古い,stale"]];

/// The kinds of the sandbox's search cache entries, sorted.
fn cache_kinds(sandbox: &Sandbox) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(sandbox.path(".cache")) else {
        return Vec::new();
    };
    let mut kinds: Vec<String> = read
        .map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.rsplit('.').next().unwrap().to_owned()
        })
        .collect();
    kinds.sort();
    kinds
}

fn search(sandbox: &Sandbox, flags: &[&str], query: &[&str]) -> Run {
    // The whole document: these tests read `fallback` and the stages.
    let mut args = vec!["search", "--explain"];
    args.extend_from_slice(flags);
    args.extend_from_slice(query);
    sandbox.run(&args)
}

fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.transcript()))
}

/// The note a search prints over the cap, for `body_limit = 0`.
fn is_note(line: &str) -> bool {
    line.starts_with("note: the knowledge is ")
        && line.contains(", over body_limit = 0 (MiB): ranking on titles, hints and terms only")
        && line.contains("raise body_limit in kbidx.toml")
}

#[test]
fn over_the_limit_searches_rank_on_the_index_alone_and_say_so_once() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("kbidx.toml", "body_limit = 0\n");
    sandbox.run(&["build", "--quiet"]).success();
    assert_eq!(
        cache_kinds(&sandbox),
        ["kbidx-words"],
        "build wrote a body entry"
    );
    for query in QUERIES {
        for format in ["json", "text"] {
            let over = search(&sandbox, &["--format", format], query);
            let no_body = search(&sandbox, &["--format", format, "--no-body"], query);
            assert_eq!(over.code, 0, "{}", over.transcript());
            let lines: Vec<&str> = over.stderr.lines().collect();
            assert!(
                lines.len() == 1 && is_note(lines[0]),
                "{}",
                over.transcript()
            );
            if format == "json" {
                let (doc, plain) = (json(&over), json(&no_body));
                assert_eq!(doc["results"], plain["results"], "{}", over.transcript());
                assert_eq!(doc["notes"].as_array().map(Vec::len), Some(1));
                assert!(is_note(&format!(
                    "note: {}",
                    doc["notes"][0].as_str().unwrap()
                )));
            } else {
                assert_eq!(over.stdout, no_body.stdout);
            }
        }
    }
    // The fallback would have run for the question: it does not, and says why.
    let doc = json(&search(&sandbox, &["--format", "json"], &[QUESTION]));
    assert_eq!(doc["fallback"], "over body_limit");
    let stages: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["stage"].as_str().unwrap())
        .collect();
    assert!(stages.iter().all(|s| *s == "index"), "{stages:?}");
    // Without the cache the same results, and still no body entry built.
    let cached = search(&sandbox, &[], &[QUESTION]);
    let uncached = search(&sandbox, &["--no-cache"], &[QUESTION]);
    assert_eq!(cached.stdout, uncached.stdout);
    assert_eq!(uncached.stderr, cached.stderr);
    assert_eq!(
        cache_kinds(&sandbox),
        ["kbidx-words"],
        "a search built a body entry"
    );
}

/// `kbidx eval` says it once too.
#[test]
fn over_the_limit_eval_says_so_once() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_repo_dir("tests/fixtures", "fixtures")
        .with_file("kbidx.toml", "body_limit = 0\n");
    let run = sandbox
        .run(&["eval", "--eval", "fixtures/queries.jsonl", "--summary"])
        .success();
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert!(
        lines.len() == 1 && is_note(lines[0]),
        "{}",
        run.transcript()
    );
}

/// The build says it too, once, where the maintainer who can raise the cap
/// sees it: on stderr (not with `--quiet`) and in its JSON `notes`; within
/// the cap a build has no note and its JSON no `notes`.
#[test]
fn over_the_limit_build_says_so_once() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("kbidx.toml", "body_limit = 0\n");
    let text = sandbox.run(&["build"]).success();
    let lines: Vec<&str> = text.stderr.lines().collect();
    assert!(
        lines.len() == 1 && is_note(lines[0]),
        "{}",
        text.transcript()
    );
    assert_eq!(sandbox.run(&["build", "--quiet"]).success().stderr, "");
    let doc = json(&sandbox.run(&["build", "--format", "json"]).success());
    let notes = doc["notes"].as_array().expect("notes");
    assert!(
        notes.len() == 1 && is_note(&format!("note: {}", notes[0].as_str().unwrap())),
        "{doc}"
    );
    sandbox.write("kbidx.toml", "body_limit = 1\n");
    let within = sandbox.run(&["build", "--format", "json"]).success();
    assert!(json(&within).get("notes").is_none(), "{}", within.stdout);
    assert_eq!(within.stderr, "");
}

/// Within the cap a configured `body_limit` changes nothing: the build
/// writes both entries, searches print what they print without it.
#[test]
fn within_the_limit_nothing_changes() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("kbidx.toml", "body_limit = 1\n")
        .with_file("default.toml", "");
    sandbox.run(&["build", "--quiet"]).success();
    assert_eq!(cache_kinds(&sandbox), ["kbidx-body", "kbidx-words"]);
    for query in QUERIES {
        for flags in [
            &["--format", "json"][..],
            &["--format", "json", "--no-body"],
        ] {
            let limited = search(&sandbox, flags, query).success();
            let mut default = vec!["--config", "default.toml"];
            default.extend_from_slice(flags);
            let default = search(&sandbox, &default, query).success();
            assert_eq!(limited.stdout, default.stdout);
            assert_eq!(limited.stderr, "");
            assert!(json(&limited).get("notes").is_none());
        }
    }
    let doc = json(&search(
        &sandbox,
        &["--format", "json", "--no-body"],
        &[QUESTION],
    ));
    assert_eq!(doc["fallback"], "ran");
}

/// A body index already in the cache (written by a build with a larger
/// cap) is used whatever the size.
#[test]
fn a_cached_body_index_is_used_over_the_limit() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("default.toml", "");
    sandbox.run(&["build", "--quiet"]).success();
    sandbox.write("kbidx.toml", "body_limit = 0\n");
    for query in QUERIES {
        let over = search(&sandbox, &["--format", "json"], query).success();
        let default = search(
            &sandbox,
            &["--config", "default.toml", "--format", "json"],
            query,
        )
        .success();
        assert_eq!(over.stdout, default.stdout);
        assert_eq!(over.stderr, "");
    }
}

/// A bad `body_limit` is an error naming the key (exit 2), in every command.
#[test]
fn a_bad_body_limit_exits_2_naming_the_key() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    for (value, shown) in [("-1", "-1"), ("\"64MiB\"", "\"64MiB\""), ("1.5", "1.5")] {
        sandbox.write("kbidx.toml", format!("body_limit = {value}\n"));
        let want = format!(
            "kbidx: kbidx.toml:1:1: body_limit must be a whole number of MiB, 0 or more, not {shown}\n"
        );
        for command in [&["build", "--quiet"][..], &["search", QUESTION]] {
            sandbox.run(command).exits(2, &want);
        }
    }
}

/// `kbidx mcp` says it once, in its log, and each search result carries the note.
#[test]
fn over_the_limit_mcp_says_so_once_in_its_log() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file("kbidx.toml", "body_limit = 0\n");
    let call = |id: u32| {
        serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "search", "arguments": { "question": QUESTION, "explain": true } },
        })
        .to_string()
    };
    let input = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        call(1),
        call(2),
    ]
    .join("\n");
    let run = sandbox.run_with_stdin(&["mcp"], &format!("{input}\n"));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("over body_limit"))
        .collect();
    assert!(
        notes.len() == 1 && is_note(&notes[0].replacen("kbidx mcp: ", "note: ", 1)),
        "{}",
        run.transcript()
    );
    let answers: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["id"] == 1 || v["id"] == 2)
        .collect();
    assert_eq!(answers.len(), 2, "{}", run.transcript());
    for answer in answers {
        let doc = &answer["result"]["structuredContent"];
        assert_eq!(doc["notes"].as_array().map(Vec::len), Some(1), "{answer}");
        assert_eq!(doc["fallback"], "over body_limit");
    }
    assert!(!sandbox.path(".cache").read_dir().is_ok_and(|mut d| {
        d.any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".kbidx-body")
        })
    }));
}
