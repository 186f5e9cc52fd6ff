//! Corpus-scale tests over `../shared` (the nabledge-6 corpora and their
//! maintainers' query sets). `../shared` is not part of the repository, so
//! these tests are `#[ignore]`d and run by `.ci/run` with
//! `cargo test --release -- --ignored` when it exists; without it they print
//! a message and pass.
//!
//! Per corpus: the row count of the in-memory build, and the accuracy of
//! default and seed scoring (floors a little under the measured values, plus
//! the full per-query report as a snapshot, `shared__eval_<corpus>.snap`).

use std::path::{Path, PathBuf};

use kbidx::eval::{self, Method, Mode};
use kbidx::index::model::Index;
use kbidx::search::{Level, Matcher, Query, Scoring, Searcher, Settings};

use crate::common::repo;

/// `../shared`, or `None` (with a message) when it is missing.
fn shared() -> Option<PathBuf> {
    let dir = repo().join("../shared");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: {} not found", dir.display());
        None
    }
}

fn build(shared: &Path, corpus: &str) -> Index {
    crate::common::build_default(&shared.join("corpora").join(format!("nabledge-6-{corpus}")))
}

/// One floor: default or seed scoring in one mode must reach these values.
///
/// Each floor sits about 0.02 under the value measured when it was set (the
/// `shared__eval_*` snapshots hold the measured tables): raise floors when the
/// ranking improves; a floor that fails is a regression to look at, not to lower.
struct Floor {
    mode: Mode,
    method: Method,
    recall_at_30: f64,
    mrr: f64,
}

const fn floor(mode: Mode, method: Method, recall_at_30: f64, mrr: f64) -> Floor {
    Floor {
        mode,
        method,
        recall_at_30,
        mrr,
    }
}

/// Builds `corpus`, checks its row count, evaluates `eval/<corpus>.jsonl`
/// with default and seed scoring, checks `floors` and snapshots the report.
fn corpus_accuracy(corpus: &str, rows: usize, floors: &[Floor]) {
    let Some(shared) = shared() else { return };
    let index = build(&shared, corpus);
    assert_eq!(index.len(), rows, "nabledge-6-{corpus}: row count");
    let cases = eval::load_cases(&shared.join("eval").join(format!("{corpus}.jsonl"))).unwrap();
    let modes = [Mode::Keywords, Mode::Terms, Mode::Question];
    let runs =
        crate::common::evaluate(&index, &cases, &modes, &[Method::Default, Method::Seed], 30)
            .unwrap();
    let report = eval::render_text(&runs, true);
    let summary = eval::render_text(&runs, false);
    println!("nabledge-6-{corpus} ({rows} rows)\n{summary}");

    let mut failures = Vec::new();
    for f in floors {
        let Some(run) = runs
            .iter()
            .find(|r| r.mode == f.mode && r.method == f.method)
        else {
            failures.push(format!("{:?}/{:?}: no such run", f.mode, f.method));
            continue;
        };
        let m = &run.metrics;
        if m.recall_at_30 < f.recall_at_30 {
            failures.push(format!(
                "{:?}/{:?}: Recall@30 {:.4} < floor {}",
                f.mode, f.method, m.recall_at_30, f.recall_at_30
            ));
        }
        if m.mrr < f.mrr {
            failures.push(format!(
                "{:?}/{:?}: MRR {:.4} < floor {}",
                f.mode, f.method, m.mrr, f.mrr
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "nabledge-6-{corpus}: accuracy regressed:\n{}\n\n{summary}",
        failures.join("\n")
    );
    insta::assert_snapshot!(format!("eval_{corpus}"), report);
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn small_corpus() {
    use Method::{Default, Seed};
    use Mode::{Keywords, Question};
    corpus_accuracy(
        "small",
        160,
        &[
            floor(Keywords, Default, 0.98, 0.98),
            floor(Keywords, Seed, 0.92, 0.98),
            floor(Question, Default, 0.87, 0.72),
            floor(Question, Seed, 0.72, 0.54),
        ],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn large_corpus() {
    use Method::{Default, Seed};
    use Mode::{Question, Terms};
    corpus_accuracy(
        "large",
        1411,
        &[
            floor(Terms, Default, 0.75, 0.54),
            floor(Terms, Seed, 0.62, 0.31),
            floor(Question, Default, 0.63, 0.31),
            floor(Question, Seed, 0.27, 0.13),
        ],
    );
}

#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn fulltext_corpus() {
    use Method::{Default, Seed};
    use Mode::{Question, Terms};
    corpus_accuracy(
        "fulltext",
        10277,
        &[
            // Lowered from 0.76 / 0.37 when derived terms became whole words: in 09-review-01
            // the must section names UniversalDao only inside link paths
            // (`javadoc-nablarch-common-dao-UniversalDao.json`), whose pieces are no terms now.
            floor(Terms, Default, 0.62, 0.34),
            floor(Terms, Seed, 0.13, 0.02),
            floor(Question, Default, 0.85, 0.45),
            // The seed rule sees only reference + hints, and fulltext rows have no hints.
            floor(Question, Seed, 0.29, 0.03),
        ],
    );
}

/// The design's worked example: 「ページングを実装したい」 with its L1/L2/L3
/// keywords ranks UniversalDao's paging first and database-access's second,
/// under both scorings, and so does the question itself through the shipped
/// search (index pass and body stage).
#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn worked_example_paging() {
    let Some(shared) = shared() else { return };
    let index = build(&shared, "small");
    let cases = eval::load_cases(&shared.join("eval/small.jsonl")).unwrap();
    let case = &cases[0];
    assert_eq!(case.query, "ページングを実装したい");
    let expected = [
        "features/libraries/universal-dao.json#paging",
        "features/libraries/database-access.json#paging",
    ];
    let keywords = Query::from_levels(case.keywords.as_ref().unwrap());
    let question = Query::from_question(&case.query).unwrap();
    let searcher = Searcher::new(
        Matcher::new(&index).unwrap(),
        Settings::default(),
        Some(shared.join("corpora/nabledge-6-small")),
    );
    for (what, query, scoring) in [
        ("keywords, default", &keywords, Scoring::Default),
        ("keywords, seed", &keywords, Scoring::Seed),
        ("question, default", &question, Scoring::Default),
    ] {
        let top3: Vec<&str> = searcher
            .search(query, scoring, 30, None)
            .unwrap()
            .rows()
            .into_iter()
            .take(3)
            .map(|row| index.entries[row].reference.as_str())
            .collect();
        if scoring == Scoring::Default && std::ptr::eq(query, &question) {
            // The question also finds UniversalDao's `tips` section (no
            // index entry; indexed since its text is knowledge too), whose
            // 「ページングの内部実装」 tip ranks between the two.
            assert_eq!(top3[0], expected[0], "{what}");
            assert!(top3.contains(&expected[1]), "{what}: {top3:?}");
            continue;
        }
        assert_eq!(top3[..2], expected, "{what}");
    }
}

/// The references of `query`'s first 30 results on `corpus`'s `index`.
fn top30<'i>(
    shared: &Path,
    corpus: &str,
    index: &'i Index,
    settings: Settings,
    query: &Query,
) -> Vec<&'i str> {
    let searcher = Searcher::new(
        Matcher::new(index).unwrap(),
        settings,
        Some(shared.join(format!("corpora/nabledge-6-{corpus}"))),
    );
    let ranking = searcher.search(query, Scoring::Default, 30, None).unwrap();
    ranking
        .rows()
        .into_iter()
        .map(|row| index.entries[row].reference.as_str())
        .collect()
}

/// The cases of issue 27: a section whose text alone holds a levelled
/// keyword is returned (リラン, which IPADIC splits), and a literal
/// identifier in the text ranks its section first.
#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn literal_keywords_in_section_text() {
    let Some(shared) = shared() else { return };
    for (corpus, keywords, expected, first) in [
        (
            "fulltext",
            &[(Level::L3, "リラン")][..],
            "processing-pattern/nablarch-batch/nablarch-batch-nablarch-batch-error-process.json#s2",
            false,
        ),
        (
            "large",
            &[
                (Level::L2, "BeanUtil"),
                (Level::L3, "BeanUtil.getProperty(user, \"id\")"),
            ][..],
            "component/libraries/libraries-bean_util.json#s2",
            true,
        ),
    ] {
        let index = build(&shared, corpus);
        let mut query = Query::default();
        for &(level, text) in keywords {
            query.push(text, level, 1.0);
        }
        let references = top30(&shared, corpus, &index, Settings::default(), &query);
        let at = references.iter().position(|r| *r == expected);
        assert!(at.is_some(), "{corpus}: {expected} not in {references:?}");
        if first {
            assert_eq!(at, Some(0), "{corpus}: {references:?}");
        }
    }
}

/// The BeanUtil question of the ranking issue, with an agent's first
/// keywords: by default (L3 coverage 0.5) the class's `getProperty` member
/// ranks in the top 3 and the guide section that shows its use in the top 5,
/// and so with `--keyword-coverage 0.6` alone; with both coverages off the
/// member stays in the top 3 and the guide within the top 30 (15th when L3
/// coverage was measured: docs/experiments.md, "L3 coverage in keyword mode").
#[test]
#[ignore = "needs ../shared; run with `cargo test -- --ignored`"]
fn bean_util_agent_keywords() {
    use kbidx::query::LevelledKeywords;
    use kbidx::search::Body;
    let Some(shared) = shared() else { return };
    let index = build(&shared, "fulltext");
    let list = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect();
    let query = Query::from_levels(&LevelledKeywords {
        l1: list(&["Bean|JavaBeans"]),
        l2: list(&["BeanUtil|nablarch.core.beans.BeanUtil"]),
        l3: list(&[
            "getProperty",
            "プロパティ値|プロパティ|property",
            "取得|get",
        ]),
    });
    let member = "javadoc/javadoc-nablarch-core-beans-BeanUtil.json#s14";
    let guide = "component/libraries/libraries-bean-util.json#s2";
    for (coverage, l3, member_within, guide_within) in
        [(0.0, 0.0, 3, 30), (0.0, 0.5, 3, 5), (0.6, 0.0, 3, 5)]
    {
        let mut body = Body::default();
        body.keyword_coverage = coverage;
        body.l3_coverage = l3;
        let settings = Settings {
            body: Some(body),
            ..Settings::default()
        };
        let references = top30(&shared, "fulltext", &index, settings, &query);
        let rank = |r: &str| references.iter().position(|x| *x == r).map(|i| i + 1);
        assert!(
            rank(member).is_some_and(|n| n <= member_within),
            "coverage {coverage}, L3 {l3}: {member} at {:?} in {references:?}",
            rank(member)
        );
        assert!(
            rank(guide).is_some_and(|n| n <= guide_within),
            "coverage {coverage}, L3 {l3}: {guide} at {:?} in {references:?}",
            rank(guide)
        );
    }
}
