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
