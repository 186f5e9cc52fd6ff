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

/// A knowledge tree with exactly one problem per link, index, hint and shape
/// rule (and links that work); its short sections with links are also
/// `pointer-section` findings.
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
              "sections": {"x": "See [y](#y) and [b](sub/b.json#part-two). Each section says what it is about in its own words, long enough that it is more than a pointer to another section, and its links lead to sections that exist and whose headings match the link text.", "y": "Why."}}"#,
        )
        .with_file(
            "knowledge/sub/b.json",
            r#"{"title": "B", "sections": [{"id": "p1", "title": "Part one", "content": "One."},
              {"id": "p2", "title": "Part two", "content": "Two, back to [a](../a.json#x). The second part repeats what the first part said, and adds the details a reader needs once the first part is understood, with an example of each and a note on what to read next."}],
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
        "kbidx: unknown lint rule \"nope\" (rules: broken-link, link-target-mismatch, index-without-section, section-without-index-entry, content-not-indexed, no-hints, non-discriminative-hint, repeated-hint, empty-section, pointer-section, oversized-section, duplicate-section-title, title-not-in-text)\n",
    );
    s.run(&["lint", "--rule", "no-hints", "--skip", "no-hints"])
        .exits(2, "kbidx: --rule and --skip leave no rule to run\n");
    s.write("kbidx.toml", "[lint]\nhint_share = 2\n");
    s.run(&["lint"]).exits(
        2,
        "kbidx: kbidx.toml:2:1: hint_share must be between 0 and 1, not 2\n",
    );
    s.write("kbidx.toml", "[lint]\nsection_tokens = 0\n");
    s.run(&["lint"]).exits(
        2,
        "kbidx: kbidx.toml:2:1: section_tokens must be at least 1\n",
    );
}

/// Prose that says nothing of e-mail: long enough for `title-not-in-text`.
const PROSE: &str = "入力欄の属性を一覧にまとめる。必須の属性は名前だけであり、ほかの属性は画面の要件に応じて指定する。\
    値を表示するときは書式を指定でき、エラーがあれば入力欄を強調して表示する。属性の既定値は設定ファイルで変更できるため、\
    画面ごとに同じ指定を繰り返す必要はない。詳しい指定方法は各属性の説明を参照すること。属性名の大文字と小文字は区別される。\
    入力欄を無効にした場合、その値はサーバに送信されない。読み取り専用の入力欄は値を送信するが、利用者は値を変更できない。";

/// A knowledge tree with one problem for each rule on what a section hands
/// the judge, and a link that leads to the wrong section.
fn text_problems() -> Sandbox {
    let big = "| 行 | 表の値 |\n".repeat(60);
    Sandbox::new()
        .with_file(
            "kbidx.toml",
            "[lint]\nsection_tokens = 300\npointer_chars = 120\n",
        )
        .with_file(
            "knowledge/lib/validation.json",
            serde_json::json!({"title": "Bean Validation", "sections": [
                {"id": "s1", "title": "相関バリデーションを行う",
                 "content": "フィールド間の相関バリデーションは、アノテーションを付けたメソッドで実装する。"},
                {"id": "s2", "title": "データベースとの相関バリデーションを行う",
                 "content": "データベースとの相関バリデーションは業務アクションで行う。バリデータからデータベースにはアクセスしない。"},
                {"id": "s3", "title": "emailタグ", "content": PROSE},
                {"id": "s4", "title": "大きな表", "content": big}]})
            .to_string(),
        )
        .with_file(
            "knowledge/guide/check.json",
            serde_json::json!({"title": "入力チェック", "sections": [
                {"id": "s1", "title": "データベースとの相関チェック",
                 "content": "[Bean Validationのデータベースとの相関バリデーション](../lib/validation.json#s1) を参照。"}]})
            .to_string(),
        )
}

#[test]
fn lint_finds_what_sections_hand_the_judge() {
    let s = text_problems();
    let text = s.run(&["lint"]);
    assert_eq!(text.code, 1);
    for rule in [
        "link-target-mismatch",
        "pointer-section",
        "oversized-section",
        "title-not-in-text",
    ] {
        assert!(
            text.stdout.contains(&format!(": {rule}: ")),
            "{rule} missing:\n{}",
            text.stdout
        );
    }
    let json = s.run(&["lint", "--format", "json", "--rule", "link-target-mismatch"]);
    let only = s.run(&["lint", "--rule", "pointer-section,oversized-section"]);
    let skip = s.run(&[
        "lint",
        "--skip",
        "pointer-section,oversized-section,title-not-in-text,link-target-mismatch",
    ]);
    insta::assert_snapshot!("text_rules", transcripts(&[text, json, only, skip]));
}

/// `content-not-indexed`: the built-in extraction holds every string of a
/// file; a `--filter` (or `filter =`) program that drops the page-text row
/// leaves the page text out, and lint says how much, by place.
#[test]
fn content_not_indexed_names_what_a_filter_drops() {
    let s = Sandbox::new()
        .with_file(
            "knowledge/page.json",
            r#"{"title": "Page", "content": "The introduction of the page.",
              "sections": [{"id": "s1", "title": "Part", "content": "The part's own text."}]}"#,
        )
        .with_file(
            "sections-only.jq",
            r#".sections[] | {reference: "\($path)#\(.id)", title: .title, hints: []}"#,
        );
    let builtin = s
        .run(&["lint", "--rule", "content-not-indexed"])
        .exits(0, "");
    let flag = s.run(&[
        "lint",
        "--rule",
        "content-not-indexed",
        "--filter",
        "sections-only.jq",
    ]);
    assert_eq!(flag.code, 1);
    s.write("kbidx.toml", "filter = \"sections-only.jq\"\n");
    let config = s.run(&["lint", "--rule", "content-not-indexed", "--format", "json"]);
    assert_eq!(config.code, 1);
    insta::assert_snapshot!("content_not_indexed", transcripts(&[builtin, flag, config]));
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
    let text = s.run(&[
        "search",
        "--explain",
        "--l3",
        "gamma",
        "--expand",
        "2",
        "--no-body",
    ]);
    let json = s.run(&[
        "search",
        "--explain",
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
        "--explain",
        "--l3",
        "gamma",
        "--expand",
        "1",
        "--no-body",
        "--format",
        "toon",
    ]);
    std::fs::remove_file(s.path("index/links.toon")).unwrap();
    let missing = s.run(&["search", "--explain", "--l3", "gamma", "--expand", "1"]);
    assert_eq!(missing.code, 2);
    insta::assert_snapshot!("expand", transcripts(&[text, json, toon, missing]));
}
