//! The committed `index/index.toon` must be what `kbidx build` makes of
//! `knowledge/` today (the typos `codegen` pattern): edit knowledge, run
//! `kbidx build`, commit both.

use kbidx::build::{self, BuildOptions};
use kbidx::config::Config;

use crate::common::repo;

/// The repository's `kbidx.toml` (or the defaults), with paths made absolute.
fn config() -> Config {
    let file = repo().join(kbidx::config::CONFIG_FILE);
    if file.exists() {
        Config::load(Some(&file)).unwrap()
    } else {
        let default = Config::default();
        Config {
            knowledge: repo().join(default.knowledge),
            index: repo().join(default.index),
            ..default
        }
    }
}

fn build(config: &Config) -> build::Built {
    let options = BuildOptions {
        knowledge: config.knowledge.clone(),
        filter: config.filter.clone(),
        include: config.include.clone(),
        exclude: config.exclude.clone(),
        strict: false,
        terms: config.terms,
    };
    build::build(&options).unwrap_or_else(|e| panic!("building knowledge/ failed: {e}"))
}

#[test]
fn committed_index_is_fresh() {
    let config = config();
    let rebuilt = build(&config).text.to_string();
    let committed = std::fs::read_to_string(&config.index)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", config.index.display()));
    if committed != rebuilt {
        let first = committed
            .lines()
            .zip(rebuilt.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(rebuilt.lines().count()));
        let line = |text: &str| {
            text.lines()
                .nth(first)
                .unwrap_or("<end of file>")
                .to_owned()
        };
        let diff = similar::TextDiff::from_lines(&committed, &rebuilt)
            .unified_diff()
            .context_radius(0)
            .header("index/index.toon (committed)", "index/index.toon (rebuilt)")
            .to_string();
        let shown: String = diff.lines().take(30).map(|l| format!("{l}\n")).collect();
        panic!(
            "index/index.toon is stale: run `kbidx build` to update\n\n\
             first difference at line {}:\n  committed: {}\n  rebuilt:   {}\n\n{shown}",
            first + 1,
            line(&committed),
            line(&rebuilt),
        );
    }
}

/// The links file next to the index (`index/links.toon`) is committed with it.
#[test]
fn committed_links_are_fresh() {
    let config = config();
    let path = kbidx::links::path_for(&config.index);
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert_eq!(
        committed,
        build(&config).links_text,
        "{} is stale: run `kbidx build` to update",
        path.display()
    );
}

#[test]
fn knowledge_builds_without_warnings() {
    let built = build(&config());
    assert!(
        built.warnings.is_empty(),
        "knowledge/ has warnings (`kbidx build --strict` fails):\n{}",
        built.warnings.join("\n")
    );
}
