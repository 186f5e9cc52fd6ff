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
