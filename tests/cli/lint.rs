//! `kbidx lint`, and the links it shares with `build` and `read --links`.

use crate::common::{Sandbox, transcripts};

/// Thresholds small enough for a corpus of a few sections.
const CONFIG: &str = r#"
[lint]
hint_share = 0.3
hint_min_rows = 1
repeated_hint_files = 3
repeated_hint_dirs = 2
"#;

/// A knowledge tree with exactly one problem per rule (and links that work).
fn seeded() -> Sandbox {
    Sandbox::new()
        .with_file("kbidx.toml", CONFIG)
        .with_file(
            "knowledge/lib/alpha.json",
            r#"{"title": "Alpha", "index": [
                {"id": "intro", "title": "Intro", "hints": ["alpha", "shared"]},
                {"id": "usage", "title": "Intro", "hints": ["alpha usage"]},
                {"id": "ghost", "title": "Ghost", "hints": ["ghost"]},
                {"id": "bare", "title": "Bare", "hints": []},
                {"id": "blank", "title": "Blank", "hints": ["blank"]}],
              "sections": {
                "intro": "See [usage](#usage), [the second part](../doc/beta.json#second-part) and [nothing](../doc/beta.json#no-such-heading).",
                "usage": "Usage text.",
                "bare": "Bare text.",
                "blank": "",
                "orphan": "Orphan text."}}"#,
        )
        .with_file(
            "knowledge/lib/gamma.json",
            r#"{"title": "Gamma", "index": [{"id": "g", "title": "G", "hints": ["shared"]}],
              "sections": {"g": "Gamma text, see [alpha](alpha.json)."}}"#,
        )
        .with_file(
            "knowledge/doc/beta.json",
            r#"{"title": "Beta", "sections": [
                {"id": "s1", "title": "First part", "content": "First. [top](#beta)"},
                {"id": "s2", "title": "Second part", "content": "Second, see [intro](../lib/alpha.json#intro)."}],
              "index": [{"id": "s1", "hints": ["shared"]}, {"id": "s2", "hints": ["intro", "other hint"]}]}"#,
        )
}

#[test]
fn lint_names_one_finding_per_rule() {
    let s = seeded();
    let text = s.run(&["lint"]);
    assert_eq!(text.code, 1);
    for rule in [
        "broken-link",
        "index-without-section",
        "section-without-index-entry",
        "no-hints",
        "non-discriminative-hint",
        "repeated-hint",
        "empty-section",
        "duplicate-section-title",
    ] {
        assert!(
            text.stdout.contains(&format!(": {rule}: ")),
            "{rule} missing:\n{}",
            text.stdout
        );
    }
    let json = s.run(&["lint", "--format", "json"]);
    assert_eq!(json.code, 1);
    let only = s.run(&["lint", "--rule", "broken-link,empty-section"]);
    let skip = s.run(&[
        "lint",
        "--skip",
        "broken-link",
        "--skip",
        "no-hints,repeated-hint",
    ]);
    insta::assert_snapshot!("seeded", transcripts(&[text, json, only, skip]));
}

#[test]
fn clean_knowledge_lints_clean() {
    let s = Sandbox::new()
        .with_file(
            "knowledge/a.json",
            r#"{"title": "A", "index": [{"id": "x", "title": "X", "hints": ["ex"]}, {"id": "y", "title": "Y", "hints": ["why"]}],
              "sections": {"x": "See [y](#y) and [b](sub/b.json#part-two).", "y": "Why."}}"#,
        )
        .with_file(
            "knowledge/sub/b.json",
            r#"{"title": "B", "sections": [{"id": "p1", "title": "Part one", "content": "One."},
              {"id": "p2", "title": "Part two", "content": "Two, back to [a](../a.json#x)."}],
              "index": [{"id": "p1", "hints": ["one"]}, {"id": "p2", "hints": ["two"]}]}"#,
        );
    let run = s.run(&["lint"]).exits(0, "");
    insta::assert_snapshot!("clean", run.transcript());
}

#[test]
fn lint_usage_errors() {
    let s = seeded();
    s.run(&["lint", "--rule", "nope"]).exits(
        2,
        "kbidx: unknown lint rule \"nope\" (rules: broken-link, index-without-section, section-without-index-entry, no-hints, non-discriminative-hint, repeated-hint, empty-section, duplicate-section-title)\n",
    );
    s.run(&["lint", "--rule", "no-hints", "--skip", "no-hints"])
        .exits(2, "kbidx: --rule and --skip leave no rule to run\n");
    s.write("kbidx.toml", "[lint]\nhint_share = 2\n");
    s.run(&["lint"]).exits(
        2,
        "kbidx: kbidx.toml:2:1: hint_share must be between 0 and 1, not 2\n",
    );
}

/// `build` writes the resolved links next to the index; `read --links` shows
/// them both ways with titles; `build --check` notices a stale links file.
#[test]
fn links_are_built_and_read() {
    let s = seeded().with_built_index();
    let links = s.read_to_string("index/links.toon");
    let text = s.run(&["read", "--links", "doc/beta.json#s2"]).success();
    let json = s
        .run(&[
            "read",
            "--links",
            "--format",
            "json",
            "lib/alpha.json#intro",
        ])
        .success();
    let file = s.run(&["read", "--links", "lib/alpha.json"]);
    s.write("index/links.toon", "links[0]{from,to}:\n");
    let check = s.run(&["build", "--check"]);
    assert_eq!(check.code, 1);
    std::fs::remove_file(s.path("index/links.toon")).unwrap();
    let missing = s.run(&["read", "--links", "doc/beta.json#s2"]);
    insta::assert_snapshot!(
        "links",
        format!(
            "{links}\n{}",
            transcripts(&[text, json, file, check, missing])
        )
    );
}

/// `kbidx lint` on the three nabledge corpora in `../shared` (ignored: see
/// `shared`): the counts per rule and the link resolution that docs/lint.md
/// reports, and the done-when of the links: every anchored link of
/// nabledge-6-fulltext resolves.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn lint_shared_corpora() {
    let shared = crate::common::repo().join("../shared/corpora");
    if !shared.is_dir() {
        println!("skipped: {} not found", shared.display());
        return;
    }
    let mut summary = String::new();
    for corpus in ["small", "large", "fulltext"] {
        let s = Sandbox::new().with_symlink(
            shared
                .join(format!("nabledge-6-{corpus}"))
                .to_str()
                .unwrap(),
            "k",
        );
        let run = s.run(&["lint", "--knowledge", "k", "--format", "json"]);
        assert_eq!(run.code, 1, "{corpus}: {}", run.stderr);
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        summary.push_str(&format!(
            "{corpus}: counts {}\n  links {}\n",
            doc["counts"], doc["links"]
        ));
        let findings = doc["findings"].as_array().unwrap();
        let broken = findings.iter().filter(|f| f["rule"] == "broken-link");
        match corpus {
            "fulltext" => {
                let links = &doc["links"];
                assert_eq!(links["broken"], 0, "{links}");
                assert!(links["anchored"].as_u64().unwrap() > 2_900, "{links}");
            }
            "large" => {
                for f in broken {
                    let evidence = f["evidence"].as_str().unwrap();
                    assert!(evidence.ends_with("(#): empty link target"), "{f}");
                }
            }
            _ => assert!(
                findings
                    .iter()
                    .any(|f| f["rule"] == "section-without-index-entry"
                        && f["file"] == "features/adapters/slf4j-adapter.json"
                        && f["section"] == "configuration")
            ),
        }
    }
    insta::assert_snapshot!("shared_counts", summary);
}

/// An extraction program may name each row's links itself (`links`: targets as
/// written in Markdown); they replace the links found in the section's text.
#[test]
fn extraction_program_may_name_links() {
    let s = Sandbox::new()
        .with_file(
            "knowledge/a.json",
            r#"{"items": [{"id": "x", "see": ["b.json#y", "missing.json"]}, {"id": "z", "see": []}]}"#,
        )
        .with_file(
            "knowledge/b.json",
            r#"{"items": [{"id": "y", "see": ["a.json#z"]}]}"#,
        )
        .with_file(
            "extract.jq",
            r#".items[] | {reference: "\($path)#\(.id)", hints: [.id], links: .see}"#,
        )
        .with_file("kbidx.toml", "filter = \"extract.jq\"\n");
    s.run(&["build", "-q"]).exits(0, "");
    assert_eq!(
        s.read_to_string("index/links.toon"),
        "links[2]{from,to}:\n  a.json#x,b.json#y\n  b.json#y,a.json#z\n"
    );
}

/// `search --expand N` appends linked neighbours of the results (stage
/// `linked`, `via`) after the ranked ones, inside the same content budget.
#[test]
fn search_expands_to_linked_sections() {
    let s = seeded().with_built_index();
    let text = s.run(&["search", "--l3", "gamma", "--expand", "2", "--no-body"]);
    let json = s.run(&[
        "search",
        "--l3",
        "gamma",
        "--expand",
        "2",
        "--no-body",
        "--max-chars",
        "60",
        "--format",
        "json",
    ]);
    let toon = s.run(&[
        "search",
        "--l3",
        "gamma",
        "--expand",
        "1",
        "--no-body",
        "--format",
        "toon",
    ]);
    std::fs::remove_file(s.path("index/links.toon")).unwrap();
    let missing = s.run(&["search", "--l3", "gamma", "--expand", "1"]);
    assert_eq!(missing.code, 2);
    insta::assert_snapshot!("expand", transcripts(&[text, json, toon, missing]));
}
