//! Ranking accuracy on kbidx's own knowledge base.
//!
//! Runs `tests/fixtures/queries.jsonl` (36 questions about kbidx, Japanese
//! and English) over an index built in memory from `knowledge/`, in every
//! mode the cases support and with both scoring methods, and
//! - asserts floors on the default scoring's Recall@30 (must) and MRR,
//! - snapshots the full report (`accuracy__kbidx_knowledge.snap`), so that
//!   every rank change is reviewed (`cargo insta review`).
//!
//! The floors sit a little under the measured values: raise them when the
//! ranking improves, never lower them to make a regression pass.

use kbidx::build::{self, BuildOptions};
use kbidx::config::Config;
use kbidx::eval::{self, Method, Mode};

use crate::common::repo;

/// (mode, minimum Recall@30 of `must` sections, minimum MRR) for default scoring.
///
/// The target for every mode is Recall@30 ≥ 0.9 and MRR ≥ 0.6; each floor sits
/// a little under the value measured when it was set. Question mode is below
/// the recall target (measured 0.8750, MRR 0.5951 with derived terms on; the
/// terms column lifts fulltext recall a lot and costs this suite a little MRR),
/// so its floors guard the current level until the ranking reaches the targets.
const FLOORS: [(Mode, f64, f64); 3] = [
    (Mode::Keywords, 0.95, 0.95),
    (Mode::Terms, 0.95, 0.88),
    (Mode::Question, 0.85, 0.58),
];

#[test]
fn kbidx_knowledge_accuracy() {
    // The repository's kbidx.toml (paths relative to it), as `kbidx eval` would use it.
    let file = repo().join(kbidx::config::CONFIG_FILE);
    let config = if file.exists() {
        Config::load(Some(&file)).unwrap()
    } else {
        Config::default()
    };
    let options = BuildOptions {
        knowledge: repo().join(&config.knowledge),
        filter: config.filter.map(|f| repo().join(f)),
        include: config.include,
        exclude: config.exclude,
        strict: false,
        terms: config.terms,
    };
    let index = build::build(&options).unwrap().index;
    let cases = eval::load_cases(&repo().join("tests/fixtures/queries.jsonl")).unwrap();
    let modes = [Mode::Keywords, Mode::Terms, Mode::Question];
    let runs =
        crate::common::evaluate(&index, &cases, &modes, &[Method::Default, Method::Seed], 30)
            .unwrap();
    let report = eval::render_text(&runs, true);
    let summary = eval::render_text(&runs, false);
    println!("{summary}");

    let mut failures = Vec::new();
    for mode in modes {
        let Some(run) = runs
            .iter()
            .find(|r| r.mode == mode && r.method == Method::Default)
        else {
            continue;
        };
        let (_, recall_floor, mrr_floor) =
            FLOORS.iter().find(|(m, ..)| *m == mode).copied().unwrap();
        let m = &run.metrics;
        if m.recall_at_30 < recall_floor {
            failures.push(format!(
                "{mode:?}: Recall@30 {:.4} < floor {recall_floor}",
                m.recall_at_30
            ));
        }
        if m.mrr < mrr_floor {
            failures.push(format!("{mode:?}: MRR {:.4} < floor {mrr_floor}", m.mrr));
        }
    }
    assert!(
        failures.is_empty(),
        "accuracy regressed (default scoring):\n{}\n\n{summary}",
        failures.join("\n")
    );
    assert!(
        runs.iter().any(|r| r.mode == Mode::Question),
        "no question-mode run"
    );

    insta::assert_snapshot!("kbidx_knowledge", report);
}
