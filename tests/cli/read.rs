//! `kbidx read`: one section by reference.

use crate::common::{Sandbox, transcripts};

#[test]
fn read_section() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let run = sandbox.run(&["read", "guide/build.json#check"]).success();
    assert!(run.stdout.starts_with("## "), "{}", run.stdout);
    insta::assert_snapshot!("section", run.transcript());
}

#[test]
fn read_unknown_section_or_file() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let section = sandbox.run(&["read", "guide/build.json#no-such-section"]);
    let file = sandbox.run(&["read", "guide/no-such-file.json#overview"]);
    assert_eq!((section.code, file.code), (2, 2));
    insta::assert_snapshot!("unknown_section_or_file", transcripts(&[section, file]));
}

/// `read REF --format json`: the section with its titles, size and the file's links.
#[test]
fn read_section_json() {
    let sandbox = Sandbox::new().with_repo_knowledge().with_file(
        "knowledge/linked.json",
        r#"{"title": "Linked", "official_doc_urls": ["https://example.org/doc"], "sections": [{"id": "s1", "title": "First", "content": "本文です。\nSecond line."}]}"#,
    );
    // The copied index must not look older than the new file (file times
    // within one clock tick decided that before): the error below does not
    // blame the index.
    std::fs::File::options()
        .write(true)
        .open(sandbox.path("knowledge/linked.json"))
        .and_then(|f| {
            f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(86_400))
        })
        .expect("set the file's time");
    let run = sandbox
        .run(&["read", "--format", "json", "linked.json#s1"])
        .success();
    let missing = sandbox.run(&["read", "--format", "json", "linked.json#s2"]);
    assert_eq!(missing.code, 2);
    insta::assert_snapshot!("section_json", transcripts(&[run, missing]));
}

/// `read FILE.json` lists the file's sections with their size, in text and
/// JSON; text quotes references holding a space or a comma (as `search` does).
#[test]
fn read_file_lists_sections() {
    let sandbox = Sandbox::new()
        .with_repo_knowledge()
        .with_file(
            "knowledge/my notes.json",
            r#"{"title": "Notes", "index": [{"id": "a,b", "title": "Comma", "hints": ["comma"]}, {"id": "plain", "hints": ["plain"]}], "sections": {"a,b": "Text with a comma id.", "plain": "漢字とかな"}}"#,
        )
        .with_file("knowledge/empty.json", r#"{"title": "Empty", "sections": []}"#)
        .with_built_index();
    let text = sandbox.run(&["read", "guide/build.json"]).success();
    let json = sandbox
        .run(&["read", "--format", "json", "my notes.json"])
        .success();
    let quoted = sandbox.run(&["read", "my notes.json"]).success();
    let search = sandbox.run(&["search", "--l3", "comma"]).success();
    let empty = sandbox.run(&["read", "empty.json"]);
    assert_eq!(empty.code, 1);
    let missing = sandbox.run(&["read", "no-such.json"]);
    assert_eq!(missing.code, 2);
    insta::assert_snapshot!(
        "file_listing",
        transcripts(&[text, json, quoted, search, empty, missing])
    );
}

/// One anchor rule: `read` takes a section id, a heading's text or its slug,
/// as links write them, and the file's title or no anchor for its page text
/// (section `_page`); the answer names the section as the index does. A
/// missing section blames the index only when it is older than the file.
#[test]
fn read_takes_every_anchor_a_link_takes() {
    let sandbox = Sandbox::new()
        .with_file(
            "knowledge/page.json",
            r#"{"title": "Page Title", "content": "Intro text.", "sections": [{"id": "s1", "title": "排他制御 Rules", "content": "body"}]}"#,
        )
        .with_file(
            "knowledge/only.json",
            r#"{"title": "Only Page", "content": "Nothing but page text.", "sections": []}"#,
        )
        .with_built_index();
    let mut runs = vec![
        sandbox.run(&["read", "page.json"]).success(),
        sandbox.run(&["read", "only.json"]).success(),
    ];
    for reference in [
        "page.json#s1",
        "page.json#排他制御 Rules",
        "page.json#排他制御-rules",
        "page.json#_page",
        "page.json#page-title",
        "only.json#_page",
    ] {
        let run = sandbox
            .run(&["read", "--format", "json", reference])
            .success();
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        runs.push(sandbox.run(&["read", reference]).success());
        assert!(
            doc["reference"] == "page.json#s1"
                || doc["reference"] == "page.json#_page"
                || doc["reference"] == "only.json#_page",
            "{reference}: {doc}"
        );
    }
    // A reference as text output quotes it (it holds a space) is read as written.
    let quoted = sandbox
        .run(&["read", "\"page.json#排他制御 Rules\""])
        .success();
    // Read by its heading: the id to cite comes first.
    assert!(
        quoted
            .stdout
            .starts_with("== page.json#s1 (from \"page.json#排他制御 Rules\")")
            && quoted.stdout.contains("\n## 排他制御 Rules"),
        "{}",
        quoted.stdout
    );
    let missing = sandbox.run(&["read", "page.json#nowhere"]);
    assert_eq!(missing.code, 2);
    assert!(!missing.stderr.contains("older"), "{}", missing.stderr);
    runs.push(missing);
    // The file changed after the index was built: now the index is blamed.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(sandbox.path("knowledge/page.json"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    let stale = sandbox.run(&["read", "page.json#nowhere"]);
    assert_eq!(stale.code, 2);
    assert!(
        stale.stderr.contains("is older than this file"),
        "{}",
        stale.stderr
    );
    insta::assert_snapshot!("every_anchor", transcripts(&runs));
    // Page text is searchable.
    let found = sandbox.run(&["search", "--l3", "nothing"]).success();
    assert!(found.stdout.contains("only.json#_page"), "{}", found.stdout);
}

/// `kbidx read A B C` reads several sections into one document, says which
/// section an anchor resolved to, and shares one budget.
#[test]
fn read_several_references_within_one_budget() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let refs = [
        "troubleshooting.json#stale-index",
        "guide/build.json#check",
        "guide/build.json#options",
    ];
    let text = sandbox.run(&[&["read"][..], &refs[..]].concat()).success();
    for r in refs {
        assert!(text.stdout.contains(&format!("== {r}")), "{}", text.stdout);
    }
    let json = sandbox
        .run(&[&["read", "--format", "json"][..], &refs[..]].concat())
        .success();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["version"], 4);
    assert_eq!(doc["sections"].as_array().unwrap().len(), 3);
    let budgeted = sandbox
        .run(&[&["read", "--max-tokens", "200"][..], &refs[..]].concat())
        .success();
    assert!(budgeted.stdout.contains('…'), "{}", budgeted.stdout);
    let whole: usize = text.stdout.chars().count();
    assert!(budgeted.stdout.chars().count() < whole);
    // A heading's slug resolves to its section id, and the document says so.
    let by_heading = "guide/build.json#--check-で索引の鮮度を確認--check-mode";
    let run = sandbox
        .run(&["read", "--format", "json", by_heading, refs[0]])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["sections"][0]["reference"], "guide/build.json#check");
    assert_eq!(doc["sections"][0]["requested"], by_heading, "{doc}");
}

/// `kbidx read` lists several files and reads sections in one call: each
/// file's listing first, then the sections under their `== reference`
/// lines, the whole output within the budget; JSON puts the listings in
/// `files`.
#[test]
fn read_lists_files_and_reads_sections_in_one_call() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let files = sandbox
        .run(&["read", "guide/build.json", "guide/search.json"])
        .success();
    for listed in ["guide/build.json#check", "guide/search.json#read"] {
        assert!(files.stdout.contains(listed), "{}", files.stdout);
    }
    let json = sandbox
        .run(&[
            "read",
            "--format",
            "json",
            "guide/build.json",
            "guide/search.json",
        ])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["files"].as_array().unwrap().len(), 2, "{doc}");
    assert_eq!(doc["files"][1]["file"], "guide/search.json");
    let reference = "troubleshooting.json#stale-index";
    let mixed = sandbox
        .run(&["read", "guide/build.json", reference])
        .success();
    let (listing, section) = mixed
        .stdout
        .split_once(&format!("\n== {reference}"))
        .expect("the section under its line, after the listing");
    assert!(listing.starts_with("guide/build.json"), "{}", mixed.stdout);
    assert!(section.contains("## "), "{}", mixed.stdout);
    for max in [900, 1200] {
        let budgeted = sandbox
            .run(&[
                "read",
                "--max-chars",
                &max.to_string(),
                "guide/build.json",
                reference,
            ])
            .success();
        assert!(
            budgeted.stdout.chars().count() <= max,
            "{max}: {}",
            budgeted.stdout
        );
        // The listing takes its share: at 900 characters the section is cut.
        assert_eq!(
            budgeted.stdout.contains('…'),
            max == 900,
            "{}",
            budgeted.stdout
        );
    }
    let json = sandbox
        .run(&["read", "--format", "json", "guide/build.json", reference])
        .success();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["reference"], reference, "{doc}");
    assert_eq!(doc["files"][0]["file"], "guide/build.json", "{doc}");
    let budgeted = sandbox
        .run(&[
            "read",
            "--format",
            "json",
            "--max-chars",
            "2200",
            "guide/build.json",
            reference,
        ])
        .success();
    assert!(
        budgeted.stdout.chars().count() <= 2200,
        "{}",
        budgeted.stdout
    );
    let doc: serde_json::Value = serde_json::from_str(&budgeted.stdout).unwrap();
    assert_eq!(doc["truncated"], true, "{doc}");
    let missing = sandbox.run(&["read", "guide/build.json", "no-such.json"]);
    assert_eq!(missing.code, 2, "{}", missing.transcript());
}
