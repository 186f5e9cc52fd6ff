//! The repository's own question sets (`tests/fixtures/eval/{dev,test,holdout*}/*.jsonl`, see
//! docs/accuracy.md): question mode, the shipped ranking (body stage on) next to the BM25
//! reference, with floors and a snapshot of the full report per split and corpus.
//!
//! `knowledge/` runs in every `cargo test`; the nabledge corpora need `../shared` and are
//! `#[ignore]`d (`.ci/run` runs them with `cargo test --release -- --ignored`).
//!
//! Each floor sits about 0.02 under the value measured when it was set: raise floors when the
//! ranking improves; a floor that fails is a regression to look at, not to lower. The `test`
//! split is for reporting: its floors guard against regressions, never tune against them.
//! `holdout` (written after the ranking was fixed) is the same, and also kept out of every
//! choice of method; so is `holdout2` (written before a later round of methods was tuned, and
//! used once to judge them), `holdout3` (written after holdout2 had judged two methods, for
//! the one that followed) and `holdout4` (written after every earlier split had judged L3
//! coverage, to judge it as a default).

use std::path::Path;

use kbidx::eval::{self, Limits, Method, Mode, Settings};

use crate::common::repo;

/// (method, Recall@30 floor, R@20000chars floor).
type Floors = [(Method, f64, f64); 2];

fn split_accuracy(split: &str, corpus: &str, knowledge: &Path, floors: Floors) {
    let index = crate::common::build_default(knowledge);
    let set = repo().join(format!("tests/fixtures/eval/{split}/{corpus}.jsonl"));
    let cases = eval::load_cases(&set).unwrap();
    let runs = crate::common::evaluate_full(
        &index,
        Some(knowledge),
        &cases,
        &[Mode::Question],
        &[Method::Default, Method::Bm25],
        Limits {
            top: 30,
            chars: 20_000,
            chars_per_result: None,
            passages: false,
            hand_over: kbidx::config::HandOver::default(),
            expand: 0,
            second_search: 0,
            document: kbidx::eval::DocumentFormat::default(),
        },
        Settings::default(),
    )
    .unwrap();
    let summary = eval::render_text(&runs, false);
    println!("{split}/{corpus}\n{summary}");
    let mut failures = Vec::new();
    for (method, recall, within) in floors {
        let run = runs.iter().find(|r| r.method == method).unwrap();
        let m = &run.metrics;
        if m.recall_at_30 < recall {
            failures.push(format!(
                "{method:?}: Recall@30 {:.4} < floor {recall}",
                m.recall_at_30
            ));
        }
        if m.recall_at_chars.unwrap_or(0.0) < within {
            failures.push(format!(
                "{method:?}: R@20000chars {:.4} < floor {within}",
                m.recall_at_chars.unwrap_or(0.0)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{split}/{corpus}: accuracy regressed:\n{}\n\n{summary}",
        failures.join("\n")
    );
    insta::assert_snapshot!(format!("{split}_{corpus}"), eval::render_text(&runs, true));
}

/// [`split_accuracy`] over `../shared/corpora/nabledge-6-{corpus}`, skipped
/// (with a line saying so) when that directory is missing.
fn shared_split(split: &str, corpus: &str, floors: Floors) {
    let dir = repo()
        .join("../shared/corpora")
        .join(format!("nabledge-6-{corpus}"));
    if dir.is_dir() {
        split_accuracy(split, corpus, &dir, floors);
    } else {
        println!("skipped: {} not found", dir.display());
    }
}

#[test]
fn dev_knowledge() {
    let floors = [(Method::Default, 0.81, 0.81), (Method::Bm25, 0.81, 0.81)];
    split_accuracy("dev", "knowledge", &repo().join("knowledge"), floors);
}

#[test]
fn test_knowledge() {
    let floors = [(Method::Default, 0.75, 0.75), (Method::Bm25, 0.75, 0.75)];
    split_accuracy("test", "knowledge", &repo().join("knowledge"), floors);
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn dev_large() {
    shared_split(
        "dev",
        "large",
        [(Method::Default, 0.89, 0.81), (Method::Bm25, 0.85, 0.81)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn test_large() {
    shared_split(
        "test",
        "large",
        [(Method::Default, 0.73, 0.60), (Method::Bm25, 0.76, 0.65)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn dev_fulltext() {
    shared_split(
        "dev",
        "fulltext",
        [(Method::Default, 0.78, 0.76), (Method::Bm25, 0.72, 0.71)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn test_fulltext() {
    shared_split(
        "test",
        "fulltext",
        [(Method::Default, 0.80, 0.75), (Method::Bm25, 0.78, 0.78)],
    );
}

#[test]
fn holdout_knowledge() {
    let floors = [(Method::Default, 0.98, 0.98), (Method::Bm25, 0.98, 0.98)];
    split_accuracy("holdout", "knowledge", &repo().join("knowledge"), floors);
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn holdout_large() {
    shared_split(
        "holdout",
        "large",
        [(Method::Default, 0.81, 0.75), (Method::Bm25, 0.78, 0.68)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn holdout_fulltext() {
    shared_split(
        "holdout",
        "fulltext",
        // With the 901 page-text rows in the index, two must sections at
        // ranks 27 and 29 fall just below the top 30 (0.817 -> 0.750).
        [(Method::Default, 0.73, 0.70), (Method::Bm25, 0.73, 0.70)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn holdout2_large() {
    shared_split(
        "holdout2",
        "large",
        [(Method::Default, 0.91, 0.81), (Method::Bm25, 0.88, 0.84)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn holdout2_fulltext() {
    shared_split(
        "holdout2",
        "fulltext",
        [(Method::Default, 0.74, 0.74), (Method::Bm25, 0.68, 0.68)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn holdout3_large() {
    shared_split(
        "holdout3",
        "large",
        [(Method::Default, 0.91, 0.84), (Method::Bm25, 0.88, 0.81)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn holdout3_fulltext() {
    shared_split(
        "holdout3",
        "fulltext",
        [(Method::Default, 0.68, 0.68), (Method::Bm25, 0.68, 0.68)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn holdout4_large() {
    shared_split(
        "holdout4",
        "large",
        [(Method::Default, 0.71, 0.64), (Method::Bm25, 0.71, 0.64)],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn holdout4_fulltext() {
    shared_split(
        "holdout4",
        "fulltext",
        [(Method::Default, 0.71, 0.71), (Method::Bm25, 0.68, 0.64)],
    );
}

/// Keyword mode (each question's helper-written first keywords, as an agent following
/// SKILL.md step 1 writes them): floors on R@10, R@30 and MRR per split and corpus, about
/// 0.02 under the values measured when they were set (docs/accuracy.md, "The current
/// numbers"). The top of the list is what a budget hands over most of, so MRR and R@10
/// are guarded here as R@30 is in question mode.
#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn keyword_mode_floors() {
    // (split, corpus, R@10, R@30, MRR)
    let floors = [
        ("dev", "large", 0.95, 0.96, 0.81),
        ("dev", "fulltext", 0.94, 0.96, 0.76),
        ("test", "large", 0.95, 0.98, 0.83),
        ("test", "fulltext", 0.92, 0.98, 0.66),
        ("holdout", "large", 0.98, 0.98, 0.88),
        ("holdout", "fulltext", 0.98, 0.98, 0.81),
        ("holdout2", "large", 0.94, 0.98, 0.88),
        ("holdout2", "fulltext", 0.98, 0.98, 0.85),
        ("holdout3", "large", 0.94, 0.98, 0.81),
        ("holdout3", "fulltext", 0.98, 0.98, 0.83),
        ("holdout4", "large", 0.94, 0.98, 0.72),
        ("holdout4", "fulltext", 0.94, 0.98, 0.74),
    ];
    let corpora = repo().join("../shared/corpora");
    if !corpora.is_dir() {
        println!("skipped: ../shared/corpora not found");
        return;
    }
    let mut failures = Vec::new();
    for corpus in ["large", "fulltext"] {
        let knowledge = corpora.join(format!("nabledge-6-{corpus}"));
        let index = crate::common::build_default(&knowledge);
        for &(split, _, r10, r30, mrr) in floors.iter().filter(|f| f.1 == corpus) {
            let set = repo().join(format!("tests/fixtures/eval/{split}/{corpus}.jsonl"));
            let cases = eval::load_cases(&set).unwrap();
            let runs = crate::common::evaluate_full(
                &index,
                Some(&knowledge),
                &cases,
                &[Mode::Keywords],
                &[Method::Default],
                Limits {
                    top: 30,
                    chars: 20_000,
                    chars_per_result: None,
                    passages: false,
                    hand_over: kbidx::config::HandOver::default(),
                    expand: 0,
                    second_search: 0,
                    document: kbidx::eval::DocumentFormat::default(),
                },
                Settings::default(),
            )
            .unwrap();
            let m = &runs[0].metrics;
            println!(
                "{split}/{corpus} keywords: R@10 {:.4} R@30 {:.4} MRR {:.4}",
                m.recall_at_10, m.recall_at_30, m.mrr
            );
            for (name, value, floor) in [
                ("R@10", m.recall_at_10, r10),
                ("R@30", m.recall_at_30, r30),
                ("MRR", m.mrr, mrr),
            ] {
                if value < floor {
                    failures.push(format!(
                        "{split}/{corpus} keywords: {name} {value:.4} < floor {floor}"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "keyword mode regressed:\n{}",
        failures.join("\n")
    );
}
