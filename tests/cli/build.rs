//! `kbidx build`: the fixture index, determinism, `--check`, and every way a build fails
//! (each leaves the existing `index/index.toon` untouched).

use std::path::Path;

use crate::common::{Sandbox, transcripts};

#[test]
fn build_writes_the_fixture_index() {
    let sandbox = Sandbox::new().with_fixture_knowledge();
    let legacy = sandbox.read("knowledge/index.toon");
    let run = sandbox.run(&["build"]).success();
    insta::assert_snapshot!("fixture", run.transcript());
    let text = sandbox.read_to_string("index/index.toon");
    insta::assert_snapshot!("fixture_index_toon", text);
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
    let sandbox = Sandbox::new().with_fixture_knowledge().with_built_index();
    let first = sandbox.read("index/index.toon");
    sandbox.run(&["build", "--quiet"]).success();
    assert_eq!(
        sandbox.read("index/index.toon"),
        first,
        "second build differs"
    );
    // The same tree at another path (and under another name) gives the same bytes.
    sandbox.copy_dir("knowledge", "elsewhere/kb");
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
    let sandbox = Sandbox::new().with_fixture_knowledge().with_built_index();
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
    let sandbox = Sandbox::new().with_fixture_knowledge().with_built_index();
    let run = sandbox.run(&["build", "--check"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!("check_up_to_date", run.transcript());
}

#[test]
fn build_check_stale_prints_a_diff_and_writes_nothing() {
    let sandbox = Sandbox::new().with_fixture_knowledge().with_built_index();
    let before = sandbox.read("index/index.toon");
    let setup = sandbox.read_to_string("knowledge/guide/setup.json");
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
    insta::assert_snapshot!("check_stale", run.transcript());
}

#[test]
fn build_check_missing_index() {
    let sandbox = Sandbox::new().with_fixture_knowledge();
    let run = sandbox.run(&["build", "--check", "--quiet"]);
    assert_eq!(run.code, 1);
    assert!(
        !sandbox.path("index/index.toon").exists(),
        "--check created the index"
    );
    insta::assert_snapshot!("check_missing_index", run.transcript());
}

/// The cache directory's entries with their modification times, sorted.
fn cache_entries(sandbox: &Sandbox) -> Vec<(String, std::time::SystemTime)> {
    let Ok(read) = std::fs::read_dir(sandbox.path(".cache")) else {
        return Vec::new();
    };
    let mut entries: Vec<_> = read
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, e.metadata().unwrap().modified().unwrap())
        })
        .collect();
    entries.sort();
    entries
}

/// `kbidx build` writes the search cache entries (word and body index) the
/// first search would build, so that search only maps them; a rebuild of an
/// unchanged index leaves valid entries alone.
#[test]
fn build_writes_the_search_cache_for_the_first_search() {
    let sandbox = Sandbox::new().with_fixture_knowledge().with_built_index();
    let built = cache_entries(&sandbox);
    let mut kinds: Vec<&str> = built
        .iter()
        .map(|(name, _)| name.rsplit('.').next().unwrap())
        .collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["kbidx-body", "kbidx-words"], "{built:?}");
    // Make any rewrite visible in the modification times.
    std::thread::sleep(std::time::Duration::from_millis(20));

    let args = ["search", "--format", "json", "辞書の設定"];
    let mut first = sandbox.command(&args);
    let first = first.env("KBIDX_TIMINGS", "1").output().unwrap();
    assert!(first.status.success());
    let timings = String::from_utf8_lossy(&first.stderr);
    assert!(
        timings.contains("body map") && !timings.contains("body build"),
        "the first search built the cache: {timings}"
    );
    assert_eq!(
        cache_entries(&sandbox),
        built,
        "the search rewrote an entry"
    );
    let uncached = sandbox.run(&with_no_cache(&args)).success();
    assert_eq!(String::from_utf8_lossy(&first.stdout), uncached.stdout);

    sandbox.run(&["build", "--quiet"]).success();
    assert_eq!(cache_entries(&sandbox), built, "a valid entry was rebuilt");
}

fn with_no_cache<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut args = args.to_vec();
    args.push("--no-cache");
    args
}

/// `build --check` writes nothing, the search cache included; nor does
/// `build --no-cache` or `cache = false` write it.
#[test]
fn build_check_and_no_cache_write_no_search_cache() {
    let sandbox = Sandbox::new().with_fixture_knowledge();
    sandbox.run(&["build", "--quiet", "--no-cache"]).success();
    assert!(sandbox.path("index/index.toon").exists());
    sandbox.run(&["build", "--check", "--quiet"]).success();
    assert_eq!(cache_entries(&sandbox), [], "a cache was written");
    sandbox.write("kbidx.toml", "cache = false\n");
    sandbox.run(&["build", "--quiet"]).success();
    assert_eq!(cache_entries(&sandbox), [], "a cache was written");
}

/// A search cache directory that cannot be written costs a warning, not the build.
#[test]
fn build_with_an_unwritable_search_cache_still_succeeds() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_file("blocker", "not a directory");
    let output = sandbox
        .command(&["build"])
        .env("KBIDX_CACHE_DIR", sandbox.path("blocker/cache"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("warning: ") && stderr.contains("cannot write the search cache"),
        "{stderr}"
    );
    assert!(sandbox.path("index/index.toon").exists());
}

#[test]
fn build_check_with_bad_knowledge_is_an_error_not_stale() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file("knowledge/guide/broken.json", "{\"id\": }");
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
    let sandbox = Sandbox::new().with_fixture_knowledge().with_built_index();
    // The error column counts characters, not bytes (日本語 is 9 bytes).
    sandbox.write(
        "knowledge/guide/broken.json",
        "{\n  \"title\": \"日本語\" \"index\": []\n}\n",
    );
    let run = sandbox.fails_leaving_index(&["build"]);
    insta::assert_snapshot!("invalid_json", run.transcript());
}

#[test]
fn build_invalid_utf8() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file(
            "knowledge/guide/latin1.json",
            b"{\"id\": \"x\",\n \"title\": \"caf\xe9\"}\n",
        );
    let run = sandbox.fails_leaving_index(&["build"]);
    insta::assert_snapshot!("invalid_utf8", run.transcript());
}

#[test]
fn build_filter_syntax_error_points_into_the_program() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file(
            "extract.jq",
            "# our own extraction\n.index[]\n| { reference: \"\\($path)#\\(.id)\",\n    hints: (.hints | join(\" \")\n  }\n",
        );
    let run = sandbox.fails_leaving_index(&["build", "--filter", "extract.jq"]);
    insta::assert_snapshot!("filter_syntax_error", run.transcript());
}

#[test]
fn build_filter_runtime_error() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file("boom.jq", "error(\"boom\")\n");
    let run = sandbox.fails_leaving_index(&["build", "--filter", "boom.jq"]);
    insta::assert_snapshot!("filter_runtime_error", run.transcript());
}

#[test]
fn build_hints_not_an_array() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file(
            "knowledge/guide/wrong.json",
            r#"{"id": "wrong", "index": [{"id": "a", "hints": "one string"}], "sections": {"a": "text"}}"#,
        );
    let run = sandbox.fails_leaving_index(&["build"]);
    insta::assert_snapshot!("hints_not_an_array", run.transcript());
}

#[test]
fn build_numeric_id() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file(
            "knowledge/guide/wrong.json",
            r#"{"id": "wrong", "index": [{"id": "a", "hints": []}, {"id": 2, "hints": []}], "sections": {"a": ""}}"#,
        );
    let run = sandbox.fails_leaving_index(&["build"]);
    insta::assert_snapshot!("numeric_id", run.transcript());
}

#[test]
fn build_duplicate_reference_names_both_files() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file(
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
    insta::assert_snapshot!("duplicate_reference", run.transcript());
}

#[test]
fn build_orphan_section_warns_and_strict_fails() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file(
            "knowledge/guide/orphan.json",
            r#"{"id": "orphan", "title": "孤立", "index": [{"id": "a", "hints": ["h"]}], "sections": {"a": "A", "lost": "B"}}"#,
        );
    let strict = sandbox.fails_leaving_index(&["build", "--strict"]);
    let lenient = sandbox.run(&["build"]);
    assert_eq!(lenient.code, 0, "{}", lenient.transcript());
    let text = sandbox.read_to_string("index/index.toon");
    assert!(text.contains("guide/orphan.json#a,孤立,h,\"\"\n"), "{text}");
    insta::assert_snapshot!("orphan_section", transcripts(&[strict, lenient]));
}

#[test]
fn build_empty_knowledge_directory() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_dir("empty");
    let empty = sandbox.fails_leaving_index(&["build", "--knowledge", "empty"]);
    let missing = sandbox.fails_leaving_index(&["build", "--knowledge", "no-such-dir"]);
    insta::assert_snapshot!("empty_or_missing_knowledge", transcripts(&[empty, missing]));
}

#[test]
fn build_unwritable_output() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file("blocker", "a regular file, not a directory\n");
    let run = sandbox.fails_leaving_index(&["build", "--out", "blocker/index.toon"]);
    assert_eq!(
        sandbox.read("blocker"),
        b"a regular file, not a directory\n"
    );
    insta::assert_snapshot!("unwritable_output", run.transcript());
}

#[test]
fn build_bad_config_key() {
    let sandbox = Sandbox::new()
        .with_fixture_knowledge()
        .with_built_index()
        .with_file(
            "kbidx.toml",
            "# settings\nknowledge = \"knowledge\"\nindx = \"out.toon\"\n",
        );
    let run = sandbox.fails_leaving_index(&["build"]);
    assert!(
        run.stderr.starts_with("kbidx: kbidx.toml:3:1: "),
        "{}",
        run.stderr
    );
    insta::assert_snapshot!("bad_config_key", run.transcript());
}

/// `"seconds": 0.123` → `"seconds": "[seconds]"`: the one field of the build
/// document that differs between runs.
fn redact_seconds(mut run: crate::common::Run) -> crate::common::Run {
    let mut doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(doc["seconds"].as_f64().is_some_and(|s| s >= 0.0), "{run:?}");
    doc["seconds"] = "[seconds]".into();
    run.stdout = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    run
}

/// `build --format json`: written, unchanged, `--check` up to date and stale
/// (exit 1, the diff in the document), warnings in the document, not on stderr.
#[test]
fn build_json() {
    let sandbox = Sandbox::new().with_fixture_knowledge();
    let written = redact_seconds(sandbox.run(&["build", "--format", "json"]).success());
    let unchanged = redact_seconds(sandbox.run(&["build", "--format", "json"]).success());
    let up_to_date = redact_seconds(
        sandbox
            .run(&["build", "--check", "--format", "json"])
            .success(),
    );
    sandbox.write(
        "knowledge/notes/extra.json",
        r#"{"title": "Extra", "index": [{"id": "a", "hints": ["extra"]}], "sections": {"a": "text", "orphan": "no index entry"}}"#,
    );
    let stale = redact_seconds(sandbox.run(&["build", "--check", "--format", "json"]));
    assert_eq!(stale.code, 1);
    assert!(stale.stderr.is_empty(), "{stale:?}");
    let quiet = sandbox.run(&["build", "--format", "json", "--quiet"]);
    assert_eq!(quiet.code, 2);
    insta::assert_snapshot!(
        "json",
        transcripts(&[written, unchanged, up_to_date, stale, quiet])
    );
}

/// Long work shows its progress on a terminal's stderr (`build: 3/11 files`,
/// rewritten in place, cleared at the end) and never through a pipe.
#[test]
fn build_progress_only_on_a_terminal() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let piped = sandbox.run(&["build", "--out", "piped.toon"]).success();
    assert!(!piped.stderr.contains(" files"), "{}", piped.stderr);
    // `script` runs the build on a pseudo-terminal (util-linux; skipped without it).
    let Ok(script) = std::process::Command::new("script")
        .arg("-qec")
        .arg(format!(
            "{} --config /dev/null build --knowledge knowledge --out tty.toon",
            env!("CARGO_BIN_EXE_kbidx")
        ))
        .arg("/dev/null")
        .current_dir(sandbox.path("."))
        .output()
    else {
        return;
    };
    let shown = String::from_utf8_lossy(&script.stdout);
    assert!(
        shown.contains("\rbuild: ") && shown.contains(" files") && shown.contains("\x1b[2K"),
        "{shown:?}"
    );
    assert!(shown.contains("tty.toon: "), "{shown:?}");
}

/// A spreadsheet page as nabledge-6-fulltext's converter writes it: the
/// page's text in `content`, and again in `p2_headings` and `p2_raw_lines`
/// (one line there only), with `sheet_type` and a number beside them.
const SHEET_PAGE: &str = r#"{"id": "sheet", "title": "1.Overview", "no_knowledge_content": false,
  "content": "1.Overview\n1.1. Purpose\nThe checklist shows what the framework covers.",
  "sections": [], "sheet_type": "P2",
  "p2_headings": [{"text": "1.Overview", "level": 3}, {"text": "1.1. Purpose", "level": 4}],
  "p2_raw_lines": [[[1, "1.Overview"]], [[2, "1.1. Purpose"]],
                   [[3, "The checklist shows what the framework covers."]], [[3, "A line only here."]]],
  "p2_base_col": 1}"#;

/// Page text is the page's `content` only; the other top-level fields are
/// not indexed and `build` names them in `left_out` (the JSON document's
/// `left_out.fields`, a note on stderr), with the characters of their text
/// that no row holds (here the line only `p2_raw_lines` has, and `P2`).
#[test]
fn page_text_is_content_and_other_fields_are_named_in_left_out() {
    let s = Sandbox::new().with_file("knowledge/sheet.json", SHEET_PAGE);
    let json = s
        .run(&["build", "--format", "json", "--no-cache"])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let left_out = &doc["left_out"];
    let only_here = "Alineonlyhere.".chars().count();
    assert_eq!(left_out["chars"], 2 + only_here, "{left_out}");
    assert_eq!(left_out["by_reason"]["fields"], 2 + only_here, "{left_out}");
    assert_eq!(left_out["files"], serde_json::json!(["sheet.json"]));
    let fields: Vec<(&str, u64, u64)> = left_out["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(f["files"], 1, "{f}");
            (
                f["name"].as_str().unwrap(),
                f["chars"].as_u64().unwrap(),
                f["in_no_row"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("p2_headings", 10 + 11, 0),
            ("p2_raw_lines", 10 + 11 + 40 + 14, 14),
            ("sheet_type", 2, 2),
        ]
    );

    let text = s.run(&["build", "--no-cache"]).success();
    assert!(
        text.stderr.contains(
            "note: top-level fields that are not indexed (neither page text nor structure): \
             p2_headings (1 files), p2_raw_lines (1 files), sheet_type (1 files)"
        ),
        "{}",
        text.stderr
    );
    let page = s.run(&["read", "sheet.json#_page"]).success();
    assert_eq!(
        page.stdout.trim_end(),
        "1.Overview\n1.1. Purpose\nThe checklist shows what the framework covers."
    );
    let lint = s.run(&["lint", "--rule", "content-not-indexed"]);
    assert_eq!(lint.code, 1, "{}", lint.transcript());
    assert!(
        lint.stdout
            .contains("16 in fields that are not indexed (sheet_type 2, p2_raw_lines 14)"),
        "{}",
        lint.stdout
    );
}

/// On the shared corpora (ignored: needs `../shared`), the `_page` text of
/// the spreadsheet pages whose page text carried their metadata arrays
/// (`p2_headings`, `p2_raw_lines`) twice is their `content` alone, no
/// `_page` text of the three corpora renders any other top-level field, and
/// `build --format json` names those fields under `left_out`.
#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn shared_page_text_holds_no_metadata_fields() {
    let shared = crate::common::repo().join("../shared/corpora");
    if !shared.is_dir() {
        println!("skipped: {} not found", shared.display());
        return;
    }
    let not_other = [
        "id",
        "title",
        "index",
        "sections",
        "official_doc_urls",
        "no_knowledge_content",
        "version",
        "content",
    ];
    let named = [
        "releases/releases/releases-nablarch6u3-releasenote-マルチパートリクエストのサポート対応.json",
        "check/security-check/security-check-1.概要.json",
    ];
    let mut checked_named = 0;
    for corpus in ["small", "large", "fulltext"] {
        let dir = shared.join(format!("nabledge-6-{corpus}"));
        let s = Sandbox::new().with_symlink(dir.to_str().unwrap(), "k");
        let run = s
            .run(&[
                "--config",
                "/dev/null",
                "build",
                "--knowledge",
                "k",
                "--out",
                "index/index.toon",
                "--terms",
                "0",
                "--no-cache",
                "--format",
                "json",
            ])
            .success();
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let reported: std::collections::BTreeMap<String, u64> = doc["left_out"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_owned(),
                    f["files"].as_u64().unwrap(),
                )
            })
            .collect();
        // Every file with a top-level field other than its structure,
        // metadata and page text: the field is named, and no page text
        // renders it.
        let mut expected: std::collections::BTreeMap<String, u64> = Default::default();
        let index = s.read_to_string("index/index.toon");
        for entry in walk(&dir) {
            let relative = entry
                .strip_prefix(&dir)
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            let file: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&entry).unwrap()).unwrap();
            let others: Vec<&String> = file
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, v)| !not_other.contains(&k.as_str()) && has_text(v))
                .map(|(k, _)| k)
                .collect();
            for field in &others {
                *expected.entry((*field).clone()).or_default() += 1;
            }
            let reference = format!("{relative}#_page");
            if others.is_empty() || !index.contains(&reference) {
                continue;
            }
            let page = s
                .run(&[
                    "--config",
                    "/dev/null",
                    "read",
                    "--knowledge",
                    "k",
                    &reference,
                ])
                .success();
            for field in &others {
                assert!(
                    !page.stdout.starts_with(&format!("{field}:"))
                        && !page.stdout.contains(&format!("\n{field}:")),
                    "{corpus}: {reference} renders {field}:\n{}",
                    page.stdout
                );
            }
            if named.contains(&relative.as_str()) {
                checked_named += 1;
                assert_eq!(
                    page.stdout.trim_end(),
                    file["content"].as_str().unwrap().trim(),
                    "{reference}"
                );
                for field in ["p2_headings", "p2_raw_lines"] {
                    assert!(others.iter().any(|f| *f == field), "{relative}: {field}");
                }
            }
        }
        assert_eq!(reported, expected, "{corpus}: left_out.fields");
    }
    assert_eq!(checked_named, named.len());
}

/// The JSON files under `dir`, recursively.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    files
}

/// Whether `value` holds a string with something other than white space.
fn has_text(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(s) => !s.trim().is_empty(),
        serde_json::Value::Array(items) => items.iter().any(has_text),
        serde_json::Value::Object(map) => map.values().any(has_text),
        _ => false,
    }
}
