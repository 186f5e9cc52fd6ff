//! End-to-end tests of the `kbidx` binary.
//!
//! Every test runs the real binary in its own temporary directory (the
//! "sandbox"), with relative paths only, so that the snapshots in
//! `tests/snapshots/cli__*.snap` hold no machine-specific path. A snapshot is
//! a transcript: the command line, the exit code, stdout and stderr.
//!
//! Fixtures: `tests/fixtures/knowledge/` is a small hand-written knowledge
//! tree (Japanese and English files, nested directories, the three cell
//! shapes TOON must quote, a fulltext-schema file and a legacy `index.toon`
//! with a broken header that discovery must skip). Search tests run over a
//! copy of the repository's own `knowledge/` and `index/index.toon`.
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const KBIDX: &str = env!("CARGO_BIN_EXE_kbidx");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary working directory for one test.
struct Sandbox {
    dir: tempfile::TempDir,
}

/// What one run of the binary did.
struct Run {
    args: Vec<String>,
    code: i32,
    stdout: String,
    stderr: String,
}

impl Sandbox {
    fn new() -> Self {
        Self {
            dir: tempfile::Builder::new()
                .prefix("kbidx-cli-")
                .tempdir()
                .unwrap(),
        }
    }

    /// A sandbox with `tests/fixtures/knowledge/` copied to `knowledge/`.
    fn fixture() -> Self {
        let sandbox = Self::new();
        copy_dir(
            &repo().join("tests/fixtures/knowledge"),
            &sandbox.path("knowledge"),
        );
        sandbox
    }

    /// A sandbox with the fixture knowledge and a freshly built `index/index.toon`.
    fn fixture_built() -> Self {
        let sandbox = Self::fixture();
        sandbox.run(&["build", "--quiet"]).success();
        sandbox
    }

    /// A sandbox with the repository's `knowledge/` and `index/` copied in.
    fn repo_knowledge() -> Self {
        let sandbox = Self::new();
        copy_dir(&repo().join("knowledge"), &sandbox.path("knowledge"));
        copy_dir(&repo().join("index"), &sandbox.path("index"));
        sandbox
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn write(&self, relative: &str, contents: impl AsRef<[u8]>) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }

    fn read(&self, relative: &str) -> Vec<u8> {
        std::fs::read(self.path(relative)).unwrap()
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_with_stdin(args, None)
    }

    fn run_with_stdin(&self, args: &[&str], stdin: Option<&str>) -> Run {
        let mut child = Command::new(KBIDX)
            .args(args)
            .current_dir(self.dir.path())
            .env_remove("RUST_BACKTRACE")
            // The search cache stays in the sandbox.
            .env("KBIDX_CACHE_DIR", self.path(".cache"))
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(text) = stdin {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }
        let output = child.wait_with_output().unwrap();
        // Belt and braces: no snapshot may hold the sandbox's absolute path.
        let root = self.dir.path().to_string_lossy().into_owned();
        let clean = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&root, "[SANDBOX]");
        Run {
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            code: output.status.code().unwrap_or(-1),
            stdout: clean(&output.stdout),
            stderr: clean(&output.stderr),
        }
    }

    /// Runs `args` (expecting exit 2) and checks that `index/index.toon` kept its bytes.
    fn fails_leaving_index(&self, args: &[&str]) -> Run {
        let before = self.read("index/index.toon");
        let run = self.run(args);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stdout.is_empty(), "{}", run.transcript());
        assert_eq!(
            self.read("index/index.toon"),
            before,
            "index/index.toon changed:\n{}",
            run.transcript()
        );
        run
    }
}

impl Run {
    /// `$ kbidx ARGS`, `exit: N`, then stdout and stderr.
    fn transcript(&self) -> String {
        let quoted: Vec<String> = self
            .args
            .iter()
            .map(|a| {
                if a.is_empty() || a.contains([' ', '"', '\'', '#', '{', '}']) {
                    format!("'{a}'")
                } else {
                    a.clone()
                }
            })
            .collect();
        let mut s = String::new();
        let _ = writeln!(s, "$ kbidx {}", quoted.join(" "));
        let _ = writeln!(s, "exit: {}", self.code);
        let _ = writeln!(s, "--- stdout\n{}", self.stdout);
        let _ = write!(s, "--- stderr\n{}", self.stderr);
        s
    }

    fn success(self) -> Self {
        assert_eq!(self.code, 0, "{}", self.transcript());
        self
    }
}

/// Transcripts of several runs, one after the other.
fn transcripts(runs: &[Run]) -> String {
    runs.iter()
        .map(Run::transcript)
        .collect::<Vec<_>>()
        .join("\n")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

// ---------------------------------------------------------------------------
// build

#[test]
fn build_writes_the_fixture_index() {
    let sandbox = Sandbox::fixture();
    let legacy = sandbox.read("knowledge/index.toon");
    let run = sandbox.run(&["build"]).success();
    insta::assert_snapshot!("build__fixture", run.transcript());
    let text = String::from_utf8(sandbox.read("index/index.toon")).unwrap();
    insta::assert_snapshot!("build__fixture_index_toon", text);
    // The legacy index.toon inside the knowledge directory is neither read nor touched.
    assert_eq!(sandbox.read("knowledge/index.toon"), legacy);

    // The file decodes to exactly what the library builds from the same tree …
    let index = kbidx::index::toon::decode(Path::new("index/index.toon"), &text).unwrap();
    let options = kbidx::build::BuildOptions {
        knowledge: sandbox.path("knowledge"),
        filter: None,
        include: vec!["**/*.json".to_owned()],
        exclude: Vec::new(),
        strict: true,
        terms: kbidx::config::DEFAULT_TERMS,
    };
    assert_eq!(index, kbidx::build::build(&options).unwrap().index);
    // … and the cells TOON must quote come back as the strings the knowledge holds.
    let cell = |reference: &str| {
        let e = index
            .get(reference)
            .unwrap_or_else(|| panic!("no row {reference}"));
        (e.title.as_str(), e.hints.as_str())
    };
    assert_eq!(
        cell("reference/api/cells.json#dash"),
        ("-v flag", "-v --verbose")
    );
    assert_eq!(
        cell("reference/api/cells.json#hash"),
        ("#hash title", "#anchor x#y")
    );
    assert_eq!(cell("reference/api/cells.json#bool"), ("true", "true"));
    assert_eq!(cell("reference/api/cells.json#number"), ("42", "3.14"));
    assert_eq!(
        cell("reference/api/cells.json#comma"),
        ("a, b and c", "comma,separated colon: here")
    );
    assert_eq!(
        cell("reference/api/cells.json#quote"),
        ("say \"hi\"", "back\\slash [brackets] {braces}")
    );
    assert_eq!(
        cell("reference/api/cells.json#plain"),
        ("Plain text stays bare", "x-y a|b v1.2")
    );
    assert_eq!(cell("reference/api/cells.json#empty"), ("", ""));
    assert_eq!(
        cell("guide/setup.json#config"),
        (
            "セットアップ手順",
            "設定ファイル config key: value kbidx.toml"
        )
    );
    assert!(
        cell("notes/changelog.json#v2").0.contains("v2: 検索の改善"),
        "{:?}",
        cell("notes/changelog.json#v2")
    );
}

#[test]
fn build_is_deterministic() {
    let sandbox = Sandbox::fixture_built();
    let first = sandbox.read("index/index.toon");
    sandbox.run(&["build", "--quiet"]).success();
    assert_eq!(
        sandbox.read("index/index.toon"),
        first,
        "second build differs"
    );
    // The same tree at another path (and under another name) gives the same bytes.
    copy_dir(&sandbox.path("knowledge"), &sandbox.path("elsewhere/kb"));
    let run = sandbox
        .run(&[
            "build",
            "--quiet",
            "--knowledge",
            "elsewhere/kb",
            "--out",
            "elsewhere/i.toon",
        ])
        .success();
    assert!(run.stdout.is_empty(), "--quiet printed {:?}", run.stdout);
    assert_eq!(
        sandbox.read("elsewhere/i.toon"),
        first,
        "build from a copy differs"
    );
}

/// A rebuild that gives the same bytes leaves the index file alone (same
/// inode, same modification time, "(unchanged)"); a changed tree replaces it.
#[test]
fn build_leaves_an_up_to_date_index_untouched() {
    use std::os::unix::fs::MetadataExt as _;
    let sandbox = Sandbox::fixture_built();
    let stat = || std::fs::metadata(sandbox.path("index/index.toon")).unwrap();
    let before = stat();
    // Make any rewrite visible in the modification time.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let run = sandbox.run(&["build"]).success();
    assert!(
        run.stdout.ends_with("files (unchanged)\n"),
        "{:?}",
        run.stdout
    );
    let after = stat();
    assert_eq!(
        (after.ino(), after.modified().unwrap()),
        (before.ino(), before.modified().unwrap())
    );

    let old = sandbox.read("index/index.toon");
    sandbox.write(
        "knowledge/extra.json",
        r#"{"index":[{"id":"x","hints":["new"]}],"sections":{"x":""}}"#,
    );
    let run = sandbox.run(&["build"]).success();
    assert!(!run.stdout.contains("unchanged"), "{:?}", run.stdout);
    assert_ne!(sandbox.read("index/index.toon"), old);
    assert_ne!(stat().ino(), before.ino(), "not replaced by a rename");
}

#[test]
fn build_check_up_to_date() {
    let sandbox = Sandbox::fixture_built();
    let run = sandbox.run(&["build", "--check"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!("build__check_up_to_date", run.transcript());
}

#[test]
fn build_check_stale_prints_a_diff_and_writes_nothing() {
    let sandbox = Sandbox::fixture_built();
    let before = sandbox.read("index/index.toon");
    let setup = String::from_utf8(sandbox.read("knowledge/guide/setup.json")).unwrap();
    sandbox.write(
        "knowledge/guide/setup.json",
        setup.replace("\"辞書\"", "\"辞書\", \"dictionary\""),
    );
    let run = sandbox.run(&["build", "--check"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        sandbox.read("index/index.toon"),
        before,
        "--check wrote the index"
    );
    insta::assert_snapshot!("build__check_stale", run.transcript());
}

#[test]
fn build_check_missing_index() {
    let sandbox = Sandbox::fixture();
    let run = sandbox.run(&["build", "--check", "--quiet"]);
    assert_eq!(run.code, 1);
    assert!(
        !sandbox.path("index/index.toon").exists(),
        "--check created the index"
    );
    insta::assert_snapshot!("build__check_missing_index", run.transcript());
}

#[test]
fn build_check_with_bad_knowledge_is_an_error_not_stale() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write("knowledge/guide/broken.json", "{\"id\": }");
    let run = sandbox.fails_leaving_index(&["build", "--check"]);
    assert!(
        run.stderr
            .starts_with("kbidx: knowledge/guide/broken.json:1:8: invalid JSON"),
        "{}",
        run.stderr
    );
}

#[test]
fn build_invalid_json() {
    let sandbox = Sandbox::fixture_built();
    // The error column counts characters, not bytes (日本語 is 9 bytes).
    sandbox.write(
        "knowledge/guide/broken.json",
        "{\n  \"title\": \"日本語\" \"index\": []\n}\n",
    );
    let run = sandbox.fails_leaving_index(&["build"]);
    insta::assert_snapshot!("build__invalid_json", run.transcript());
}

#[test]
fn build_invalid_utf8() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write(
        "knowledge/guide/latin1.json",
        b"{\"id\": \"x\",\n \"title\": \"caf\xe9\"}\n",
    );
    let run = sandbox.fails_leaving_index(&["build"]);
    insta::assert_snapshot!("build__invalid_utf8", run.transcript());
}

#[test]
fn build_filter_syntax_error_points_into_the_program() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write(
        "extract.jq",
        "# our own extraction\n.index[]\n| { reference: \"\\($path)#\\(.id)\",\n    hints: (.hints | join(\" \")\n  }\n",
    );
    let run = sandbox.fails_leaving_index(&["build", "--filter", "extract.jq"]);
    insta::assert_snapshot!("build__filter_syntax_error", run.transcript());
}

#[test]
fn build_filter_runtime_error() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write("boom.jq", "error(\"boom\")\n");
    let run = sandbox.fails_leaving_index(&["build", "--filter", "boom.jq"]);
    insta::assert_snapshot!("build__filter_runtime_error", run.transcript());
}

#[test]
fn build_hints_not_an_array() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write(
        "knowledge/guide/wrong.json",
        r#"{"id": "wrong", "index": [{"id": "a", "hints": "one string"}], "sections": {"a": "text"}}"#,
    );
    let run = sandbox.fails_leaving_index(&["build"]);
    insta::assert_snapshot!("build__hints_not_an_array", run.transcript());
}

#[test]
fn build_numeric_id() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write(
        "knowledge/guide/wrong.json",
        r#"{"id": "wrong", "index": [{"id": "a", "hints": []}, {"id": 2, "hints": []}], "sections": {"a": ""}}"#,
    );
    let run = sandbox.fails_leaving_index(&["build"]);
    insta::assert_snapshot!("build__numeric_id", run.transcript());
}

#[test]
fn build_duplicate_reference_names_both_files() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write(
        "same.jq",
        "{reference: \"shared.json#intro\", hints: $path}\n",
    );
    let run = sandbox.fails_leaving_index(&["build", "--filter", "same.jq"]);
    assert!(
        run.stderr.contains("knowledge/guide/setup.json"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("knowledge/notes/changelog.json"),
        "{}",
        run.stderr
    );
    insta::assert_snapshot!("build__duplicate_reference", run.transcript());
}

#[test]
fn build_orphan_section_warns_and_strict_fails() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write(
        "knowledge/guide/orphan.json",
        r#"{"id": "orphan", "title": "孤立", "index": [{"id": "a", "hints": ["h"]}], "sections": {"a": "A", "lost": "B"}}"#,
    );
    let strict = sandbox.fails_leaving_index(&["build", "--strict"]);
    let lenient = sandbox.run(&["build"]);
    assert_eq!(lenient.code, 0, "{}", lenient.transcript());
    let text = String::from_utf8(sandbox.read("index/index.toon")).unwrap();
    assert!(text.contains("guide/orphan.json#a,孤立,h,\"\"\n"), "{text}");
    insta::assert_snapshot!("build__orphan_section", transcripts(&[strict, lenient]));
}

#[test]
fn build_empty_knowledge_directory() {
    let sandbox = Sandbox::fixture_built();
    std::fs::create_dir(sandbox.path("empty")).unwrap();
    let empty = sandbox.fails_leaving_index(&["build", "--knowledge", "empty"]);
    let missing = sandbox.fails_leaving_index(&["build", "--knowledge", "no-such-dir"]);
    insta::assert_snapshot!(
        "build__empty_or_missing_knowledge",
        transcripts(&[empty, missing])
    );
}

#[test]
fn build_unwritable_output() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write("blocker", "a regular file, not a directory\n");
    let run = sandbox.fails_leaving_index(&["build", "--out", "blocker/index.toon"]);
    assert_eq!(
        sandbox.read("blocker"),
        b"a regular file, not a directory\n"
    );
    insta::assert_snapshot!("build__unwritable_output", run.transcript());
}

#[test]
fn build_bad_config_key() {
    let sandbox = Sandbox::fixture_built();
    sandbox.write(
        "kbidx.toml",
        "# settings\nknowledge = \"knowledge\"\nindx = \"out.toon\"\n",
    );
    let run = sandbox.fails_leaving_index(&["build"]);
    assert!(
        run.stderr.starts_with("kbidx: kbidx.toml:3:1: "),
        "{}",
        run.stderr
    );
    insta::assert_snapshot!("build__bad_config_key", run.transcript());
}

// ---------------------------------------------------------------------------
// search, over the repository's own knowledge/ and index/index.toon

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
    let sandbox = Sandbox::repo_knowledge();
    let run = sandbox
        .run(&[
            "search",
            "--top",
            "5",
            "索引が最新かどうかだけ確認して、ファイルは書き換えたくない",
        ])
        .success();
    insta::assert_snapshot!("search__japanese_question", run.transcript());
}

#[test]
fn search_english_question() {
    let sandbox = Sandbox::repo_knowledge();
    let run = sandbox
        .run(&[
            "search",
            "--top",
            "5",
            "will pre-commit's end-of-file-fixer fight with the generated index file?",
        ])
        .success();
    insta::assert_snapshot!("search__english_question", run.transcript());
}

#[test]
fn search_worked_example_explain() {
    let sandbox = Sandbox::repo_knowledge();
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
    insta::assert_snapshot!("search__worked_example_explain", run.transcript());
}

#[test]
fn search_seed_scoring() {
    let sandbox = Sandbox::repo_knowledge();
    let run = sandbox
        .run(&with_args(
            &["search", "--top", "5", "--explain", "--scoring", "seed"],
            &CHECK_KEYWORDS,
        ))
        .success();
    insta::assert_snapshot!("search__seed_scoring_explain", run.transcript());
}

#[test]
fn search_json_document_schema() {
    let sandbox = Sandbox::repo_knowledge();
    let run = sandbox
        .run(&[
            "search",
            "--format",
            "json",
            "--top",
            "3",
            "--l2",
            "kbidx search",
            "--l3",
            "json,output",
            "JSON で結果がほしい",
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(
        keys(&doc),
        [
            "query", "keywords", "scoring", "total", "fallback", "results"
        ]
    );
    assert_eq!(doc["query"], "JSON で結果がほしい");
    assert_eq!(keys(&doc["keywords"])[..3], ["l1", "l2", "l3"]);
    assert!(
        doc["keywords"]["q"]
            .as_array()
            .is_some_and(|q| !q.is_empty()),
        "question keywords under `q`"
    );
    assert_eq!(doc["scoring"], "default");
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
        assert_eq!(r["stage"], "index", "{r}");
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
                ["title", "hints", "path", "file_title"].contains(&m["field"].as_str().unwrap()),
                "{m}"
            );
        }
        assert!(
            r.get("content").is_none() && r.get("truncated").is_none(),
            "content without --with-content"
        );
    }
    insta::assert_snapshot!("search__json_format", run.transcript());
}

#[test]
fn search_fallback_finds_text_only_in_section_bodies() {
    let sandbox = Sandbox::repo_knowledge();
    // "unicode" and "lowercase" occur only in section bodies (the answer is
    // reference/scoring.json#normalization): in no title, hints or derived terms.
    let question = "Is unicode text turned lowercase?";
    let index = std::fs::read_to_string(sandbox.path("index/index.toon")).unwrap();
    for word in ["unicode", "lowercase"] {
        assert!(
            !index.to_lowercase().contains(word),
            "{word} is in the index"
        );
    }
    let json = sandbox
        .run(&["search", "--format", "json", question])
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
        .run(&["search", "--no-fallback", question])
        .success();
    assert!(!off.stdout.contains("[fulltext]"), "{}", off.transcript());

    // Japanese: 偶然一致 is only in the body of guide/agent-skill.json#judgement;
    // its fallback hit comes after the index pass's hits, marked in text and explained.
    let japanese = sandbox
        .run(&["search", "--top", "5", "偶然一致した結果はどう扱う？"])
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
            "--top",
            "5",
            "--explain",
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
            "--config", "off.toml", "search", "--format", "json", question,
        ])
        .success();
    assert!(
        config_off.stdout.contains("\"fallback\": \"off\""),
        "{}",
        config_off.transcript()
    );
    let no_knowledge = sandbox.run(&[
        "search",
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
        "search__fallback",
        transcripts(&[json, off, japanese, explain, config_off, no_knowledge])
    );
}

#[test]
fn search_toon_format() {
    let sandbox = Sandbox::repo_knowledge();
    let run = sandbox
        .run(&with_args(
            &["search", "--format", "toon", "--top", "3"],
            &CHECK_KEYWORDS,
        ))
        .success();
    insta::assert_snapshot!("search__toon_format", run.transcript());
}

#[test]
fn search_with_content_and_budget() {
    let sandbox = Sandbox::repo_knowledge();
    let text = sandbox
        .run(&[
            "search",
            "--with-content",
            "--max-chars",
            "200",
            "--top",
            "2",
            "--l2=--with-content,--max-chars",
        ])
        .success();
    let json = sandbox
        .run(&[
            "search",
            "--format",
            "json",
            "--max-chars",
            "200",
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
    assert_eq!(chars, 200, "--max-chars is a budget over all results");
    assert_eq!(results[0]["truncated"], true);
    insta::assert_snapshot!("search__with_content_max_chars", transcripts(&[text, json]));
}

#[test]
fn search_keywords_from_stdin() {
    let sandbox = Sandbox::repo_knowledge();
    let stdin = r#"{"l1": ["search", "検索"], "l2": ["--keywords", "stdin"], "l3": ["json", "pipe", "標準入力"]}"#;
    let run = sandbox
        .run_with_stdin(&["search", "--keywords", "-", "--top", "3"], Some(stdin))
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
    insta::assert_snapshot!("search__keywords_from_stdin", run.transcript());
}

#[test]
fn search_keywords_file_bad_json() {
    let sandbox = Sandbox::repo_knowledge();
    sandbox.write(
        "syntax.json",
        "{\"l2\": [\"kbidx search\",\n  \"l3\": [\"json\"]}\n",
    );
    sandbox.write("unknown.json", "{\"l2\": [\"kbidx search\"], \"l4\": []}\n");
    sandbox.write("types.json", "{\"l2\": \"kbidx search\"}\n");
    let runs: Vec<Run> = ["syntax.json", "unknown.json", "types.json"]
        .iter()
        .map(|file| {
            let run = sandbox.run(&["search", "--keywords", file]);
            assert_eq!(run.code, 2, "{}", run.transcript());
            run
        })
        .collect();
    insta::assert_snapshot!("search__keywords_file_bad_json", transcripts(&runs));
}

#[test]
fn search_no_results_exits_1_with_a_complete_document() {
    let sandbox = Sandbox::repo_knowledge();
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
    insta::assert_snapshot!("search__no_results", transcripts(&runs));
}

#[test]
fn search_nothing_to_search_for() {
    let sandbox = Sandbox::repo_knowledge();
    let run = sandbox.run(&["search", "  "]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("search__nothing_to_search_for", run.transcript());
}

#[test]
fn search_unknown_index_path() {
    let sandbox = Sandbox::repo_knowledge();
    let run = sandbox.run(&["search", "--index", "no/such/index.toon", "--l3", "check"]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("search__unknown_index", run.transcript());
}

#[test]
fn search_hand_edited_index_with_wrong_row_count() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "index/index.toon",
        "sections[3]{reference,title,hints}:\n  a.json#x,X,check\n  a.json#y,Y,\"check, again\"\n",
    );
    sandbox.write(
        "extra.toon",
        "sections[1]{reference,title,hints}:\n  a.json#x,X,check\n  a.json#y,Y,check\n",
    );
    let short = sandbox.run(&["search", "--l3", "check"]);
    let long = sandbox.run(&["search", "--index", "extra.toon", "--l3", "check"]);
    assert_eq!((short.code, long.code), (2, 2));
    insta::assert_snapshot!("search__index_wrong_row_count", transcripts(&[short, long]));
}

#[test]
fn search_cache_gives_the_same_results_and_follows_the_index() {
    let sandbox = Sandbox::repo_knowledge();
    let args = ["search", "--format", "json", "インデックスを作り直したい"];
    let uncached = sandbox.run(&with_args(&args, &["--no-cache"])).success();
    assert!(
        !sandbox.path(".cache").exists(),
        "--no-cache writes no cache"
    );
    let first = sandbox.run(&args).success();
    let entries = std::fs::read_dir(sandbox.path(".cache")).unwrap().count();
    assert_eq!(entries, 1, "one cache entry per index");
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
    let sandbox = Sandbox::repo_knowledge();
    sandbox.write("kbidx.toml", "cache = false\n");
    sandbox.run(&["search", "--l3", "check"]).success();
    assert!(!sandbox.path(".cache").exists());
}

// ---------------------------------------------------------------------------
// read, eval, the command line itself

#[test]
fn read_section() {
    let sandbox = Sandbox::repo_knowledge();
    let run = sandbox.run(&["read", "guide/build.json#check"]).success();
    assert!(run.stdout.starts_with("## "), "{}", run.stdout);
    insta::assert_snapshot!("read__section", run.transcript());
}

#[test]
fn read_unknown_section_or_file() {
    let sandbox = Sandbox::repo_knowledge();
    let section = sandbox.run(&["read", "guide/build.json#no-such-section"]);
    let file = sandbox.run(&["read", "guide/no-such-file.json#overview"]);
    assert_eq!((section.code, file.code), (2, 2));
    insta::assert_snapshot!(
        "read__unknown_section_or_file",
        transcripts(&[section, file])
    );
}

#[test]
fn eval_summary_runs() {
    let sandbox = Sandbox::repo_knowledge();
    copy_dir(&repo().join("tests/fixtures"), &sandbox.path("fixtures"));
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
    // keywords, terms and question, each with default and seed, and the note that
    // default ran with the full-text fallback; no per-query details.
    assert_eq!(lines.len(), 8, "{}", run.stdout);
    assert!(lines[7].contains("full-text fallback"), "{}", run.stdout);
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
    let sandbox = Sandbox::repo_knowledge();
    sandbox.write(
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
    insta::assert_snapshot!("eval__bad_case_line", run.transcript());
}

#[test]
fn help_lists_exit_codes() {
    let run = Sandbox::new().run(&["--help"]).success();
    let help = run.stdout.to_lowercase();
    assert!(
        help.contains("exit code"),
        "`kbidx --help` does not mention exit codes:\n{}",
        run.stdout
    );
    for code in ["0", "1", "2"] {
        assert!(
            help.contains(code),
            "`kbidx --help` does not mention exit code {code}:\n{}",
            run.stdout
        );
    }
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let sandbox = Sandbox::new();
    let top = sandbox.run(&["--no-such-flag"]);
    let sub = sandbox.run(&["search", "--no-such-flag", "x"]);
    let command = sandbox.run(&["frobnicate"]);
    assert_eq!((top.code, sub.code, command.code), (2, 2, 2));
    insta::assert_snapshot!("usage__unknown_flag", transcripts(&[top, sub, command]));
}

#[test]
fn search_two_pass_reports_its_mode() {
    let sandbox = Sandbox::repo_knowledge();
    let runs = [
        // A confident file: its sections are blended with the file score.
        sandbox
            .run(&[
                "search",
                "--hierarchy",
                "--explain",
                "--top",
                "3",
                "how to rebuild the index",
            ])
            .success(),
        // No file stands out: the flat ranking stands, and --explain says why.
        sandbox
            .run(&[
                "search",
                "--hierarchy",
                "--explain",
                "--top",
                "3",
                "バッチ処理のリラン",
            ])
            .success(),
        // --no-hierarchy wins over an earlier --hierarchy: no search_mode in the JSON.
        sandbox
            .run(&[
                "search",
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
    insta::assert_snapshot!("search__two_pass_modes", transcripts(&runs));
}

#[test]
fn search_two_pass_alpha_out_of_range() {
    let sandbox = Sandbox::repo_knowledge();
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
