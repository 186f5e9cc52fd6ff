//! `kbidx init`: the four files (and kbidx.toml) on a fresh repository, the build and search
//! it runs, a second run with nothing to do, `--dry-run`, merging into files the repository
//! already has, `--force`, and each bad input (exit 2 naming the file, nothing written).
//!
//! Each test sets up `repo/` inside the sandbox and runs `kbidx init repo`, so the skill's name
//! (the directory's) is the same on every run.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{Sandbox, repo};

/// The files init writes, relative to the repository.
const WRITTEN: [&str; 5] = [
    "kbidx.toml",
    ".pre-commit-config.yaml",
    ".claude/skills/repo/SKILL.md",
    ".mcp.json",
    ".vscode/mcp.json",
];

/// Every file under `dir` with its bytes (the search cache left out).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in walk(dir) {
        let relative = entry
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if !relative.starts_with(".cache") {
            files.insert(relative, std::fs::read(&entry).unwrap());
        }
    }
    files
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn fixture_repo() -> Sandbox {
    Sandbox::new().with_repo_dir("tests/fixtures/knowledge", "repo/knowledge")
}

#[test]
fn init_writes_the_files_builds_and_searches_then_has_nothing_to_do() {
    let sandbox = fixture_repo();
    let first = sandbox.run(&["init", "repo"]).success();
    insta::assert_snapshot!("first_run", first.transcript());
    for file in WRITTEN {
        assert!(sandbox.path("repo").join(file).is_file(), "{file} missing");
    }
    assert!(sandbox.path("repo/index/index.toon").is_file());
    let skill = sandbox.read_to_string("repo/.claude/skills/repo/SKILL.md");
    assert!(
        skill.chars().count() <= 4000,
        "SKILL.md has {} characters",
        skill.chars().count()
    );
    insta::assert_snapshot!("skill_md", skill);
    insta::assert_snapshot!(
        "pre_commit",
        sandbox.read_to_string("repo/.pre-commit-config.yaml")
    );
    insta::assert_snapshot!("kbidx_toml", sandbox.read_to_string("repo/kbidx.toml"));
    let mcp: serde_json::Value =
        serde_json::from_str(&sandbox.read_to_string("repo/.mcp.json")).unwrap();
    assert_eq!(
        mcp,
        serde_json::json!({"mcpServers": {"kbidx": {"command": "kbidx", "args": ["mcp", "--config", "kbidx.toml"]}}})
    );
    let vscode: serde_json::Value =
        serde_json::from_str(&sandbox.read_to_string("repo/.vscode/mcp.json")).unwrap();
    assert_eq!(vscode["servers"]["kbidx"]["type"], "stdio");
    // The index init built is the one `kbidx build` makes.
    let before = tree(&sandbox.path("repo"));
    sandbox
        .run(&["--config", "repo/kbidx.toml", "build", "--check"])
        .success();

    let second = sandbox.run(&["init", "repo"]).success();
    insta::assert_snapshot!("second_run", second.transcript());
    assert!(second.stdout.contains("nothing to do"), "{second:?}");
    assert_eq!(
        tree(&sandbox.path("repo")),
        before,
        "the second run changed a file"
    );
}

#[test]
fn dry_run_prints_diffs_and_writes_nothing() {
    let sandbox = fixture_repo();
    let before = tree(sandbox.path("").as_path());
    let run = sandbox.run(&["init", "repo", "--dry-run"]).success();
    assert_eq!(
        tree(sandbox.path("").as_path()),
        before,
        "--dry-run wrote:\n{run:?}"
    );
    for file in WRITTEN {
        assert!(
            run.stdout.contains(&format!("+++ b/{file}")),
            "no diff of {file}:\n{run:?}"
        );
    }
    assert!(run.stdout.contains("--- /dev/null"), "{run:?}");
    assert!(run.stdout.ends_with(
        "dry run: nothing written; then `kbidx build` and `kbidx search \"セットアップ手順 / インストール / Install\"`\n"
    ), "{run:?}");
}

#[test]
fn json_report_holds_summary_files_build_and_search() {
    let sandbox = fixture_repo();
    let run = sandbox.run(&["init", "repo", "--format", "json"]).success();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["knowledge"]["path"], "knowledge");
    assert_eq!(doc["knowledge"]["files"], 3);
    let actions: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["create"; 5]);
    assert_eq!(doc["build"]["status"], "written");
    assert!(
        !doc["search"]["results"].as_array().unwrap().is_empty(),
        "{run:?}"
    );
    let again = sandbox.run(&["init", "repo", "--format", "json"]).success();
    let doc: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(doc["nothing_to_do"], true);
    assert!(doc["build"].is_null());
}

#[test]
fn existing_files_are_merged_and_kept() {
    let sandbox = fixture_repo()
        .with_file(
            "repo/.pre-commit-config.yaml",
            "# ours\nrepos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v5.0.0\n    hooks:\n      - id: end-of-file-fixer\n\nci:\n  autofix_prs: false\n",
        )
        .with_file(
            "repo/.mcp.json",
            "{\"mcpServers\": {\"other\": {\"command\": \"other\"}}}\n",
        )
        .with_file("repo/.claude/skills/repo/SKILL.md", "# our own skill\n");
    let run = sandbox.run(&["init", "repo"]).success();
    assert!(
        run.stdout.contains(
            ".claude/skills/repo/SKILL.md  kept (exists and differs; --force replaces it)"
        ),
        "{run:?}"
    );
    assert_eq!(
        sandbox.read_to_string("repo/.claude/skills/repo/SKILL.md"),
        "# our own skill\n"
    );
    let pre_commit = sandbox.read_to_string("repo/.pre-commit-config.yaml");
    assert!(
        pre_commit.starts_with("# ours\nrepos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v5.0.0\n    hooks:\n      - id: end-of-file-fixer\n  - repo: local\n"),
        "{pre_commit}"
    );
    assert!(
        pre_commit.ends_with("\nci:\n  autofix_prs: false\n"),
        "{pre_commit}"
    );
    let mcp: serde_json::Value =
        serde_json::from_str(&sandbox.read_to_string("repo/.mcp.json")).unwrap();
    let names: Vec<&String> = mcp["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["other", "kbidx"]);

    // Nothing left to do but the skill, which only --force replaces.
    let again = sandbox.run(&["init", "repo"]).success();
    assert!(again.stdout.contains("nothing to do"), "{again:?}");
    sandbox.run(&["init", "repo", "--force"]).success();
    assert!(
        sandbox
            .read_to_string("repo/.claude/skills/repo/SKILL.md")
            .starts_with("---\nname: repo\n")
    );
}

#[test]
fn options_choose_the_knowledge_and_the_skill_directory() {
    let sandbox = Sandbox::new().with_repo_dir("tests/fixtures/knowledge", "repo/docs/kb");
    sandbox
        .run(&["init", "repo"])
        .exits(2, "kbidx: repo: no knowledge found: no knowledge/ directory, nor one named knowledge holding *.json files within 4 levels; give --knowledge DIR\n");
    let two = Sandbox::new()
        .with_repo_dir("tests/fixtures/knowledge", "repo/a/knowledge")
        .with_repo_dir("tests/fixtures/knowledge", "repo/b/knowledge");
    two.run(&["init", "repo"]).exits(
        2,
        "kbidx: repo: several knowledge directories (a/knowledge, b/knowledge); choose one with --knowledge DIR\n",
    );
    sandbox
        .run(&[
            "init",
            "repo",
            "--knowledge",
            "repo/docs/kb",
            "--skill-dir",
            "repo/skills/kb",
        ])
        .success();
    assert!(
        sandbox
            .read_to_string("repo/kbidx.toml")
            .contains("knowledge = \"docs/kb\"")
    );
    assert!(sandbox.path("repo/skills/kb/SKILL.md").is_file());
    assert!(
        sandbox
            .read_to_string("repo/.pre-commit-config.yaml")
            .contains("'^docs/kb/.*\\.json$|")
    );
    // Found below the repository when it is the only one.
    let nested = Sandbox::new().with_repo_dir(
        "tests/fixtures/knowledge",
        "repo/.claude/skills/kb/knowledge",
    );
    let run = nested.run(&["init", "repo", "--dry-run"]).success();
    assert!(
        run.stdout
            .starts_with("knowledge: .claude/skills/kb/knowledge (3 files"),
        "{run:?}"
    );
}

#[test]
fn bad_input_exits_2_naming_the_file_and_writes_nothing() {
    // (what is wrong, the file added to the fixture repository and its bytes, init's options,
    // the whole of stderr); no file: a repository without knowledge.
    type Case<'a> = (&'a str, &'a str, &'a [u8], &'a [&'a str], &'a str);
    let cases: [Case; 9] = [
        (
            "no knowledge",
            "",
            b"",
            &[],
            "kbidx: repo: no knowledge found: no knowledge/ directory, nor one named knowledge holding *.json files within 4 levels; give --knowledge DIR\n",
        ),
        (
            "invalid knowledge JSON",
            "repo/knowledge/broken.json",
            b"{\n  \"title\": \"x\",\n  \"index\": [\n}\n",
            &[],
            "kbidx: repo/knowledge/broken.json:4:1: invalid JSON: expected value\n",
        ),
        (
            "unreadable knowledge file (invalid UTF-8)",
            "repo/knowledge/latin1.json",
            b"{\"title\": \"caf\xe9\"}",
            &[],
            "kbidx: repo/knowledge/latin1.json:1:15: invalid UTF-8\n",
        ),
        (
            "unparsable .pre-commit-config.yaml",
            "repo/.pre-commit-config.yaml",
            b"repos:\n  - repo: local\n    hooks: [\n",
            &[],
            "kbidx: repo/.pre-commit-config.yaml:4:1: invalid YAML: while parsing a node, did not find expected node content\n",
        ),
        (
            "unparsable .mcp.json",
            "repo/.mcp.json",
            b"{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"x\"},\n  }\n}\n",
            &[],
            "kbidx: repo/.mcp.json:4:3: invalid JSON: trailing comma\n",
        ),
        (
            "unparsable .vscode/mcp.json (comments)",
            "repo/.vscode/mcp.json",
            b"// comments are not JSON\n{}\n",
            &[],
            "kbidx: repo/.vscode/mcp.json:1:1: invalid JSON: expected value\n",
        ),
        (
            ".mcp.json that is not an object",
            "repo/.mcp.json",
            b"[]\n",
            &[],
            "kbidx: repo/.mcp.json: the top level is not a JSON object\n",
        ),
        (
            "invalid kbidx.toml",
            "repo/kbidx.toml",
            b"knowledge = \"knowledge\"\nbad\n",
            &[],
            "kbidx: repo/kbidx.toml:2:4: key with no value, expected `=`\n",
        ),
        (
            "skill directory outside the repository",
            "repo/README.md",
            b"",
            &["--skill-dir", "elsewhere"],
            "kbidx: elsewhere: not inside repo: kbidx init sets up one repository\n",
        ),
    ];
    for (what, file, bytes, options, stderr) in cases {
        let sandbox = if file.is_empty() {
            Sandbox::new().with_dir("repo/docs")
        } else {
            fixture_repo().with_file(file, bytes)
        };
        let before = tree(sandbox.path("").as_path());
        let mut args = vec!["init", "repo"];
        args.extend_from_slice(options);
        let run = sandbox.run(&args);
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (2, stderr),
            "{what}: {run:?}"
        );
        assert!(run.stdout.is_empty(), "{what}: {run:?}");
        assert_eq!(
            tree(sandbox.path("").as_path()),
            before,
            "{what}: something was written"
        );
    }
}

/// The done-when: a directory holding only a copy of nabledge-6-small as `knowledge/`.
#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn init_on_nabledge_6_small() {
    let corpus = repo().join("../shared/corpora/nabledge-6-small");
    if !corpus.is_dir() {
        println!("skipped: {} not found", corpus.display());
        return;
    }
    let sandbox = Sandbox::new();
    crate::common::copy_dir(&corpus, &sandbox.path("repo/knowledge"));
    let first = sandbox.run(&["init", "repo"]).success();
    for file in WRITTEN {
        assert!(
            first.stdout.contains(&format!("{file}  created")),
            "{first:?}"
        );
        assert!(sandbox.path("repo").join(file).is_file(), "{file} missing");
    }
    assert!(
        first
            .stdout
            .contains("\n$ kbidx build\nrepo/index/index.toon: "),
        "{first:?}"
    );
    assert!(first.stdout.contains("\n$ kbidx search "), "{first:?}");
    assert!(
        first.stdout.contains("\n[1] "),
        "no search result:\n{first:?}"
    );
    // Both languages: Japanese text with Java names, annotations and keys in it.
    assert!(
        first.stdout.contains("  languages: ")
            && first.stdout.contains("ja ")
            && first.stdout.contains("en "),
        "{first:?}"
    );
    let skill = sandbox.read_to_string("repo/.claude/skills/repo/SKILL.md");
    assert!(
        skill.chars().count() <= 4000,
        "SKILL.md has {} characters",
        skill.chars().count()
    );
    let before = tree(&sandbox.path("repo"));
    let second = sandbox.run(&["init", "repo"]).success();
    assert!(second.stdout.contains("nothing to do"), "{second:?}");
    assert_eq!(tree(&sandbox.path("repo")), before);
}

/// The npm launcher package carries the crate's version, and depends on the five platform
/// packages at that version, the ones its `bin/kbidx.js` looks for.
#[test]
fn npm_package_matches_the_crate() {
    let text = std::fs::read_to_string(repo().join("packaging/npm/kbidx/package.json")).unwrap();
    let package: serde_json::Value = serde_json::from_str(&text).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(package["version"], version);
    let launcher =
        std::fs::read_to_string(repo().join("packaging/npm/kbidx/bin/kbidx.js")).unwrap();
    let optional = package["optionalDependencies"].as_object().unwrap();
    let names: Vec<&str> = optional.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "@kbidx/linux-x64",
            "@kbidx/linux-arm64",
            "@kbidx/darwin-x64",
            "@kbidx/darwin-arm64",
            "@kbidx/win32-x64"
        ]
    );
    for (name, wanted) in optional {
        assert_eq!(wanted, version, "{name}");
        assert!(
            launcher.contains(&format!("\"{name}\"")),
            "bin/kbidx.js does not know {name}"
        );
    }
}
