//! `kbidx pg push` and `search --pg` / `eval --pg` against a real PostgreSQL.
//!
//! Each test starts a throwaway server ([`Server`]: `initdb` + `pg_ctl` in a temporary
//! directory, on a free loopback port, password authentication, as an unprivileged user when
//! the tests run as root) and stops it when dropped. Without `initdb`/`pg_ctl` on the machine
//! (PATH or /usr/lib/postgresql/*/bin) the tests print a notice and pass, unless
//! `KBIDX_REQUIRE_PG` is set (as `.ci/run` does).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{Sandbox, repo};

const PASSWORD: &str = "kbidx-test";

/// A PostgreSQL server of its own, stopped (immediately) on drop.
struct Server {
    dir: tempfile::TempDir,
    pg_ctl: PathBuf,
    user: Option<&'static str>,
    port: u16,
}

/// `name` from PATH, else from the newest /usr/lib/postgresql/*/bin.
fn find_bin(name: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin").join(name)))
        .filter(|p| p.is_file())
        .collect();
    versions.sort_by_key(|p| {
        p.components()
            .nth(4)
            .and_then(|c| c.as_os_str().to_str()?.parse::<u32>().ok())
    });
    versions.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl Server {
    /// A started server, or `None` (with a notice) when PostgreSQL is not installed.
    fn start(test: &str) -> Option<Self> {
        let (Some(initdb), Some(pg_ctl)) = (find_bin("initdb"), find_bin("pg_ctl")) else {
            // .ci/run installs PostgreSQL and sets this: there, a skip would hide a failure.
            assert!(
                std::env::var_os("KBIDX_REQUIRE_PG").is_none(),
                "{test}: KBIDX_REQUIRE_PG is set but initdb/pg_ctl were not found"
            );
            eprintln!(
                "NOTICE: {test} skipped: PostgreSQL (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin"
            );
            return None;
        };
        // initdb refuses root: run the server as `postgres` (Debian's package user) or `nobody`.
        let user = is_root().then(|| {
            if Command::new("id")
                .arg("postgres")
                .output()
                .is_ok_and(|o| o.status.success())
            {
                "postgres"
            } else {
                "nobody"
            }
        });
        let dir = tempfile::Builder::new()
            .prefix("kbidx-pg-")
            .tempdir()
            .unwrap();
        std::fs::write(dir.path().join("pw"), PASSWORD).unwrap();
        if let Some(user) = user {
            let status = Command::new("chown")
                .args(["-R", user])
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(status.success(), "chown {user} failed");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let server = Self {
            dir,
            pg_ctl,
            user,
            port,
        };
        let data = server.path("data");
        let pw = server.path("pw");
        let out = server
            .command(&initdb)
            .args(["-D", &data, "-U", "kbidx", "--auth=scram-sha-256"])
            .arg(format!("--pwfile={pw}"))
            .args(["-E", "UTF8", "--no-locale"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        server.pg_ctl_start();
        Some(server)
    }

    /// Starts the initialised server (`pg_ctl start`, waiting until it accepts connections).
    fn pg_ctl_start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let out = self
            .command(&self.pg_ctl)
            .args([
                "-D",
                &self.path("data"),
                "-l",
                &self.path("log"),
                "-w",
                "-t",
                "60",
            ])
            .args(["-o", &options, "start"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_ctl start failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
        );
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`): connections break mid-statement.
    fn stop_immediately(&self) {
        let out = self
            .command(&self.pg_ctl)
            .args(["-D", &self.path("data"), "-m", "immediate", "-w", "stop"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_ctl stop failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_string_lossy().into_owned()
    }

    /// `program`, run as the server's user.
    fn command(&self, program: &Path) -> Command {
        match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(program);
                c
            }
            None => Command::new(program),
        }
    }

    /// The superuser's URL (`kbidx`, password authentication).
    fn url(&self) -> String {
        format!(
            "postgresql://kbidx:{PASSWORD}@127.0.0.1:{}/postgres",
            self.port
        )
    }

    /// A direct connection, for checks and set-up the CLI does not offer.
    fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url(), postgres::NoTls).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self
            .command(&self.pg_ctl)
            .args(["-D", &self.path("data"), "-m", "immediate", "-w", "stop"])
            .output();
    }
}

fn json(run: &crate::common::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.transcript()))
}

fn push(s: &Sandbox, url: &str) -> Value {
    json(
        &s.run(&["pg", "push", "--url", url, "--format", "json"])
            .success(),
    )
}

fn summary(files: u64, changed: u64, removed: u64, sections: u64) -> Value {
    serde_json::json!({"files": files, "changed": changed, "removed": removed, "sections": sections})
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn push_is_incremental_and_search_answers_like_the_file_search() {
    let Some(server) = Server::start("pg::push_is_incremental") else {
        return;
    };
    let url = server.url();
    let s = Sandbox::new().with_repo_knowledge();
    let first = push(&s, &url);
    let files = first["files"].as_u64().unwrap();
    let sections = first["sections"].as_u64().unwrap();
    assert!(files > 5 && sections > 20, "{first}");
    assert_eq!(first, summary(files, files, 0, sections));
    // Nothing changed: nothing rewritten.
    assert_eq!(push(&s, &url), summary(files, 0, 0, sections));

    // The same document as the file search, ranked in PostgreSQL.
    let question = "楽観ロックの使い方";
    let pg = json(
        &s.run(&[
            "search",
            "--explain",
            "--pg",
            &url,
            question,
            "--format",
            "json",
        ])
        .success(),
    );
    let file = json(
        &s.run(&["search", "--explain", question, "--format", "json"])
            .success(),
    );
    assert_eq!(keys(&pg), keys(&file));
    let (pg_rows, file_rows) = (
        pg["results"].as_array().unwrap(),
        file["results"].as_array().unwrap(),
    );
    assert!(!pg_rows.is_empty());
    for row in pg_rows {
        for key in keys(&file_rows[0]) {
            assert!(row.get(&key).is_some(), "{key} missing in {row}");
        }
        assert_eq!(row["stage"], "pg");
    }
    // The file search's best answer is among PostgreSQL's top 3.
    let top: Vec<&Value> = pg_rows.iter().take(3).map(|r| &r["reference"]).collect();
    assert!(top.contains(&&file_rows[0]["reference"]), "{pg}");

    // Result shaping, budgets and every format go through the same Searcher
    // and renderers as the file search.
    let broad_q = "索引の検索とスコアの計算";
    let broad = json(
        &s.run(&[
            "search",
            "--explain",
            "--pg",
            &url,
            broad_q,
            "--format",
            "json",
        ])
        .success(),
    );
    let broad_rows = broad["results"].as_array().unwrap();
    assert!(broad_rows.len() > 5, "{broad}");
    let first_file = broad_rows[0]["file"].as_str().unwrap();
    let excluded = json(
        &s.run(&[
            "search",
            "--explain",
            "--pg",
            &url,
            broad_q,
            "--exclude",
            first_file,
            "--format",
            "json",
        ])
        .success(),
    );
    let rows = excluded["results"].as_array().unwrap();
    assert!(!rows.is_empty(), "{excluded}");
    assert!(rows.iter().all(|r| r["file"] != first_file), "{excluded}");
    let grouped = json(
        &s.run(&[
            "search",
            "--explain",
            "--pg",
            &url,
            broad_q,
            "--group-by",
            "file",
            "--format",
            "json",
        ])
        .success(),
    );
    let grouped_files: Vec<&str> = grouped["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    let unique: std::collections::HashSet<&&str> = grouped_files.iter().collect();
    assert_eq!(unique.len(), grouped_files.len(), "{grouped}");
    let file_grouped = json(
        &s.run(&[
            "search",
            "--explain",
            broad_q,
            "--group-by",
            "file",
            "--format",
            "json",
        ])
        .success(),
    );
    assert_eq!(keys(&grouped), keys(&file_grouped));
    // A file's other sections are folded into its result, as in the file search.
    assert!(
        grouped["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["more"].as_array().is_some_and(|m| !m.is_empty())),
        "{grouped}"
    );
    s.run(&["search", "--explain", "--pg", &url, broad_q, "--collapse"])
        .success();
    let budgeted = json(
        &s.run(&[
            "search",
            "--pg",
            &url,
            broad_q,
            "--max-chars",
            "800",
            "--format",
            "json",
        ])
        .success(),
    );
    // The budget cuts the first result's stored text (the document within 800 characters).
    let used = budgeted["budget"]["content_chars"].as_u64().unwrap();
    assert!(
        used > 0 && budgeted["budget"]["chars"].as_u64().unwrap() <= 800,
        "{budgeted}"
    );
    let first = &budgeted["results"][0];
    assert_eq!(first["truncated"], true, "{budgeted}");
    assert_eq!(
        first["content"].as_str().unwrap().chars().count() as u64,
        used,
        "{budgeted}"
    );
    let toon = s
        .run(&[
            "search",
            "--explain",
            "--pg",
            &url,
            broad_q,
            "--format",
            "toon",
        ])
        .success();
    assert!(toon.stdout.contains("results["), "{}", toon.transcript());
    let text = s
        .run(&["search", "--explain", "--pg", &url, broad_q])
        .success();
    assert!(
        text.stdout
            .contains(broad_rows[0]["reference"].as_str().unwrap()),
        "{}",
        text.transcript()
    );

    // Levelled keywords, and content from the table equal to the file's.
    let pg = json(
        &s.run(&[
            "search",
            "--explain",
            "--pg",
            &url,
            "--l2",
            "search",
            "--l3",
            "score",
            "--with-content",
            "--top",
            "3",
            "--format",
            "json",
        ])
        .success(),
    );
    let first = &pg["results"][0];
    let reference = first["reference"].as_str().unwrap();
    let read = s.run(&["read", reference]).success();
    assert_eq!(
        first["content"].as_str().unwrap().trim_end(),
        read.stdout.trim_end()
    );

    // eval --pg scores PostgreSQL's ranking like the file search's.
    let best = file_rows[0]["reference"].as_str().unwrap();
    let (best_file, best_section) = best.split_once('#').unwrap();
    let case = serde_json::json!({"id": "q1", "query": question, "expected": [
        {"file": best_file, "section": best_section, "grade": "must"}]});
    s.write("q.jsonl", format!("{case}\n"));
    let eval = json(
        &s.run(&[
            "eval", "--pg", &url, "--eval", "q.jsonl", "--mode", "question", "--format", "json",
        ])
        .success(),
    );
    assert!(eval["runs"][0]["metrics"]["recall_at_30"] == 1.0, "{eval}");

    // KBIDX_PG_URL instead of --pg.
    let run = s
        .command(&["search", "--explain", question, "--format", "json"])
        .env("KBIDX_PG_URL", &url)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["results"][0]["stage"], "pg");

    // One changed file: one file rewritten.
    let changed = "knowledge/reference/scoring.json";
    let text = s.read_to_string(changed);
    let edited = text.replacen("Scoring overview", "Scoring overview (edited)", 1);
    assert_ne!(text, edited);
    s.write(changed, &edited);
    assert_eq!(push(&s, &url), summary(files, 1, 0, sections));

    // A push that fails leaves the previous state: nothing to rewrite afterwards.
    s.write(changed, "{ not json");
    let run = s.run(&["pg", "push", "--url", &url, "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    s.write(changed, &edited);
    assert_eq!(push(&s, &url), summary(files, 0, 0, sections));

    // A removed file: removed.
    let gone = s.path(changed);
    let gone_sections = server
        .client()
        .query_one(
            "SELECT count(*) FROM kbidx.sections WHERE file = 'reference/scoring.json'",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0) as u64;
    std::fs::remove_file(gone).unwrap();
    let after = push(&s, &url);
    assert_eq!(after["removed"], 1, "{after}");
    assert_eq!(after["files"], files - 1, "{after}");
    assert_eq!(after["sections"], sections - gone_sections, "{after}");
    // `changed` is not 0 here: the derived terms are chosen over the whole corpus
    // (document frequencies), so removing a file changes other files' terms and
    // those files are rewritten, as a fresh `kbidx build` would index them.
}

#[test]
fn push_and_search_a_shared_corpus() {
    let corpus = repo().join("../shared/corpora/nabledge-6-small");
    let cases = repo().join("../shared/eval/small.jsonl");
    if !corpus.is_dir() || !cases.is_file() {
        eprintln!("NOTICE: pg::push_and_search_a_shared_corpus skipped: ../shared not found");
        return;
    }
    let Some(server) = Server::start("pg::push_and_search_a_shared_corpus") else {
        return;
    };
    let url = server.url();
    let s = Sandbox::new()
        .with_dir("knowledge")
        .with_file("small.jsonl", std::fs::read(&cases).unwrap());
    crate::common::copy_dir(&corpus, &s.path("knowledge"));
    let pushed = json(
        &s.run(&[
            "pg", "push", "--url", &url, "--schema", "small", "--format", "json",
        ])
        .success(),
    );
    assert_eq!(pushed["changed"], pushed["files"]);
    let run = s
        .run(&[
            "eval",
            "--pg",
            &url,
            "--pg-schema",
            "small",
            "--eval",
            "small.jsonl",
            "--mode",
            "question",
            "--format",
            "json",
        ])
        .success();
    let recall = json(&run)["runs"][0]["metrics"]["recall_at_30"]
        .as_f64()
        .unwrap();
    // 0.925 measured (docs/postgres.md); the file search has the same.
    assert!(recall >= 0.85, "{}", run.stdout);
}

/// kbidx.toml's path weights apply to the PostgreSQL ranking too: the
/// best file demoted falls below the others, its result shows the weight
/// as a counted `matched` entry (the counted points still sum to the score),
/// and `normalized_score` stays within 0–1.
#[test]
fn search_pg_applies_path_weights() {
    let Some(server) = Server::start("pg::search_pg_applies_path_weights") else {
        return;
    };
    let url = server.url();
    let s = Sandbox::new().with_repo_knowledge();
    push(&s, &url);
    let question = "索引の検索とスコアの計算";
    let plain = json(
        &s.run(&[
            "search",
            "--explain",
            "--pg",
            &url,
            question,
            "--top",
            "30",
            "--format",
            "json",
        ])
        .success(),
    );
    let first = plain["results"][0].clone();
    let file = first["file"].as_str().unwrap();
    s.write(
        "weights.toml",
        format!("[[weight]]\nglob = {file:?}\nfactor = 0.5\n"),
    );
    let weighted = json(
        &s.run(&[
            "--config",
            "weights.toml",
            "search",
            "--explain",
            "--pg",
            &url,
            question,
            "--top",
            "30",
            "--format",
            "json",
        ])
        .success(),
    );
    let rows = weighted["results"].as_array().unwrap();
    assert_ne!(rows[0]["file"], file, "{weighted}");
    let demoted = rows
        .iter()
        .find(|r| r["reference"] == first["reference"])
        .unwrap_or_else(|| panic!("{weighted}"));
    let score = demoted["score"].as_f64().unwrap();
    assert!(
        (score - 0.5 * first["score"].as_f64().unwrap()).abs() < 1e-3,
        "{demoted}"
    );
    let sum: f64 = demoted["matched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["points"].as_f64().unwrap())
        .sum();
    assert!(
        demoted["matched"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["field"] == "weight"),
        "{demoted}"
    );
    // The pg entries' points are the query units' weights, not a share of
    // the score; only the weight's entry is checked against the score.
    let weight = demoted["matched"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["field"] == "weight")
        .unwrap()["points"]
        .as_f64()
        .unwrap();
    assert!(
        (first["score"].as_f64().unwrap() + weight - score).abs() < 1e-3,
        "{demoted} {sum}"
    );
    for r in rows {
        let n = r["normalized_score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&n), "{r}");
    }
}

#[test]
fn database_errors_are_clear() {
    let Some(server) = Server::start("pg::database_errors_are_clear") else {
        return;
    };
    let url = server.url();
    let s = Sandbox::new().with_repo_knowledge();
    let fails = |args: &[&str], expected: &str| {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stderr.contains(expected), "{}", run.transcript());
        assert!(!run.stderr.contains(PASSWORD), "{}", run.transcript());
    };
    fails(
        &[
            "pg",
            "push",
            "--url",
            "postgresql://kbidx@127.0.0.1:notaport/x",
        ],
        "invalid connection URL",
    );
    let wrong = url.replace(PASSWORD, "wrong");
    fails(
        &["pg", "push", "--url", &wrong],
        "password authentication failed",
    );
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let refused = format!("postgresql://kbidx:{PASSWORD}@127.0.0.1:{port}/postgres");
    fails(&["search", "--pg", &refused, "検索"], "cannot connect");
    fails(&["search", "--pg", &url, "検索"], "run `kbidx pg push");

    let mut client = server.client();
    client
        .batch_execute("CREATE ROLE reader LOGIN PASSWORD 'reader'")
        .unwrap();
    let reader = url.replace(&format!("kbidx:{PASSWORD}"), "reader:reader");
    fails(&["pg", "push", "--url", &reader], "permission denied");
    s.run(&["pg", "push", "--url", &url]).success();
    fails(&["search", "--pg", &reader, "検索"], "permission denied");

    client
        .batch_execute("UPDATE kbidx.kbidx_meta SET value = '99' WHERE key = 'schema_version'")
        .unwrap();
    fails(&["search", "--pg", &url, "検索"], "newer kbidx");
    fails(&["pg", "push", "--url", &url], "newer kbidx");
}

/// More matching rows than the ranking's bound (1,000): the candidates are
/// bounded, and the rows matching every word (AND-first) are among them.
#[test]
fn common_words_rank_a_bounded_candidate_set() {
    let Some(server) = Server::start("pg::common_words_rank_a_bounded_candidate_set") else {
        return;
    };
    let url = server.url();
    let s = Sandbox::new().with_dir("knowledge");
    // 2,400 sections; "alpha" in 1,100 and "bravo" in about 1,100 (each under
    // half of the rows, so both select), both in about 500.
    for file in 0..24 {
        let mut index = Vec::new();
        let mut sections = serde_json::Map::new();
        for k in 0..100 {
            let i = file * 100 + k;
            let mut words = vec![format!("filler{}", i % 7), "common".to_owned()];
            if i % 24 < 11 {
                words.push("alpha".into());
            }
            if (i / 24) % 24 < 11 {
                words.push("bravo".into());
            }
            let id = format!("s{k}");
            index.push(serde_json::json!({"id": id, "title": format!("row {i}"), "hints": []}));
            sections.insert(id, Value::String(words.join(" ")));
        }
        let doc = serde_json::json!({"id": format!("f{file}"), "title": format!("file {file}"),
            "index": index, "sections": sections});
        s.write(&format!("knowledge/f{file:02}.json"), doc.to_string());
    }
    let special = serde_json::json!({"id": "special", "title": "special",
        "index": [{"id": "s1", "title": "alpha bravo", "hints": ["alpha", "bravo"]}],
        "sections": {"s1": "alpha bravo"}});
    s.write("knowledge/special.json", special.to_string());
    s.run(&["pg", "push", "--url", &url, "--terms", "0"])
        .success();
    let found = json(
        &s.run(&[
            "search",
            "--explain",
            "--pg",
            &url,
            "--l3",
            "alpha",
            "--l3",
            "bravo",
            "--format",
            "json",
        ])
        .success(),
    );
    let ranked = found["total"].as_u64().unwrap();
    assert!(ranked <= 1000, "{found}");
    assert_eq!(
        found["results"][0]["reference"], "special.json#s1",
        "{found}"
    );
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 30, "{found}");
    // Every result matched both words: the AND-first candidates come first.
    for row in results {
        assert_eq!(row["matched"].as_array().unwrap().len(), 2, "{row}");
    }
}

/// Everything a push leaves in `schema`, in one comparable form: each
/// file's hash and section count, and each section's columns, sorted.
fn state(client: &mut postgres::Client, schema: &str) -> Vec<String> {
    let mut rows: Vec<String> = client
        .query(
            &format!("SELECT file || '|' || hash || '|' || sections FROM {schema}.files"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect();
    rows.extend(
        client
            .query(
                &format!(
                    "SELECT concat_ws('|', reference, file, section, ord, title, hints, terms, \
                     content, tsv::text) FROM {schema}.sections"
                ),
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get::<_, String>(0)),
    );
    rows.sort();
    rows
}

/// Waits until another session waits for a lock while running a statement
/// that starts with `statement` (the push is then held at that point).
fn wait_until_blocked(client: &mut postgres::Client, statement: &str) {
    // A guard against a hang, not a timing assertion: the push reaches the
    // statement in well under a second.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let blocked: i64 = client
            .query_one(
                "SELECT count(*) FROM pg_stat_activity \
                 WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock' \
                 AND starts_with(query, $1)",
                &[&statement],
            )
            .unwrap()
            .get(0);
        if blocked > 0 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no push blocked at {statement}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The knowledge the fault tests push second: one file edited, one added,
/// one removed (the first state is the repository's knowledge). The fault
/// tests push without derived terms (`--terms 0`): terms depend on the
/// whole corpus, so with them every file would change.
fn change_knowledge(s: &Sandbox) {
    let path = "knowledge/guide/install.json";
    let mut doc: Value = serde_json::from_slice(&s.read(path)).unwrap();
    let overview = &mut doc["sections"]["overview"];
    let text = overview.as_str().unwrap().to_owned();
    *overview = Value::String(format!("{text}\n\nEdited for the fault tests."));
    s.write(path, serde_json::to_vec_pretty(&doc).unwrap());
    s.write(
        "knowledge/guide/zz-added.json",
        r#"{"id": "zz-added", "title": "Added later", "index": [{"id": "s1", "title": "Added", "hints": ["added"]}], "sections": {"s1": "A file the second push adds."}}"#,
    );
    std::fs::remove_file(s.path("knowledge/troubleshooting.json")).unwrap();
}

/// Holds the key of the section the second push adds (under a file it
/// keeps), so that the push waits in the middle of its section rows.
const HOLD_ADDED_SECTION: &str = "INSERT INTO kbidx.sections \
     (reference, file, section, ord, title, hints, terms, tsv) \
     VALUES ('guide/zz-added.json#s1', 'guide/build.json', 'zz', 99, '', '', '', '')";

/// A push killed before, during and after writing its rows leaves the old
/// state (one transaction); the next push converges to the knowledge
/// exactly (the same state as a push into an empty schema).
#[test]
fn killed_pushes_leave_the_old_state_and_the_next_push_converges() {
    let Some(server) = Server::start("pg::killed_pushes") else {
        return;
    };
    let url = server.url();
    let s = Sandbox::new().with_repo_knowledge();
    s.run(&["pg", "push", "--terms", "0", "--url", &url])
        .success();
    let mut client = server.client();
    let old = state(&mut client, "kbidx");
    change_knowledge(&s);
    // Each point: what the test's own open transaction holds, and the
    // statement of the push that then waits for it.
    let points: [(&str, &str); 4] = [
        // Before any row: the push's table lock.
        (
            "LOCK TABLE kbidx.files IN ACCESS EXCLUSIVE MODE",
            "LOCK TABLE",
        ),
        // During the file rows: removing a changed file's rows cascades to
        // its sections, which the test holds.
        (
            "LOCK TABLE kbidx.sections IN SHARE MODE",
            "DELETE FROM kbidx.files",
        ),
        // During the section rows: an added section's key, taken uncommitted.
        (HOLD_ADDED_SECTION, "COPY kbidx.sections"),
        // After the rows, before the commit: the statistics.
        (
            "LOCK TABLE kbidx.sections IN SHARE UPDATE EXCLUSIVE MODE",
            "ANALYZE",
        ),
    ];
    for (hold, statement) in points {
        let mut holder = server.client();
        let mut tx = holder.transaction().unwrap();
        tx.batch_execute(hold).unwrap();
        let mut running = s.spawn(&["pg", "push", "--terms", "0", "--url", &url]);
        wait_until_blocked(&mut client, statement);
        running.kill();
        let killed = running.wait();
        assert_ne!(killed.code, 0, "{}", killed.transcript());
        tx.rollback().unwrap();
        assert!(
            state(&mut client, "kbidx") == old,
            "killed at {statement}: not the old state"
        );
    }
    let converged = json(
        &s.run(&[
            "pg", "push", "--terms", "0", "--url", &url, "--format", "json",
        ])
        .success(),
    );
    assert_eq!(converged["changed"], 2, "{converged}");
    assert_eq!(converged["removed"], 1, "{converged}");
    s.run(&[
        "pg", "push", "--terms", "0", "--url", &url, "--schema", "fresh",
    ])
    .success();
    assert!(state(&mut client, "kbidx") == state(&mut client, "fresh"));
    assert!(state(&mut client, "kbidx") != old);
}

/// A server stopped in the middle of a push: the push fails with a clear
/// error (exit 2), and after a restart nothing of it is visible.
#[test]
fn a_server_stopped_mid_push_leaves_nothing_half_visible() {
    let Some(server) = Server::start("pg::server_stopped_mid_push") else {
        return;
    };
    let url = server.url();
    let s = Sandbox::new().with_repo_knowledge();
    s.run(&["pg", "push", "--terms", "0", "--url", &url])
        .success();
    let old = state(&mut server.client(), "kbidx");
    let before = s
        .run(&["search", "--pg", &url, "インストール", "--format", "json"])
        .success()
        .stdout;
    change_knowledge(&s);
    let mut holder = server.client();
    let mut tx = holder.transaction().unwrap();
    tx.batch_execute(HOLD_ADDED_SECTION).unwrap();
    let running = s.spawn(&["pg", "push", "--terms", "0", "--url", &url]);
    wait_until_blocked(&mut server.client(), "COPY kbidx.sections");
    server.stop_immediately();
    let run = running.wait();
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stdout.is_empty(), "{}", run.transcript());
    assert!(
        run.stderr.starts_with("kbidx: ") && run.stderr.lines().count() == 1,
        "{}",
        run.transcript()
    );
    assert!(!run.stderr.contains(PASSWORD), "{}", run.transcript());
    drop(tx);
    server.pg_ctl_start();
    assert!(state(&mut server.client(), "kbidx") == old);
    let after = s
        .run(&["search", "--pg", &url, "インストール", "--format", "json"])
        .success()
        .stdout;
    assert_eq!(before, after);
}

/// Two pushes at once, into a new schema and into an existing one: both
/// succeed and the result equals one push.
#[test]
fn concurrent_pushes_equal_one_push() {
    let Some(server) = Server::start("pg::concurrent_pushes") else {
        return;
    };
    let url = server.url();
    let s = Sandbox::new().with_repo_knowledge();
    let mut client = server.client();
    // A new schema: both set it up at the same time.
    for round in 0..3 {
        let schema = format!("both{round}");
        let a = s.spawn(&[
            "pg", "push", "--terms", "0", "--url", &url, "--schema", &schema,
        ]);
        let b = s.spawn(&[
            "pg", "push", "--terms", "0", "--url", &url, "--schema", &schema,
        ]);
        for run in [a.wait(), b.wait()] {
            assert_eq!(run.code, 0, "{}", run.transcript());
        }
    }
    s.run(&[
        "pg", "push", "--terms", "0", "--url", &url, "--schema", "one",
    ])
    .success();
    let one = state(&mut client, "one");
    for round in 0..3 {
        assert!(
            state(&mut client, &format!("both{round}")) == one,
            "round {round}"
        );
    }
    // An existing schema: both wait for the same lock, then run one after the other.
    change_knowledge(&s);
    let mut holder = server.client();
    let mut tx = holder.transaction().unwrap();
    tx.batch_execute("LOCK TABLE one.files IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let a = s.spawn(&[
        "pg", "push", "--terms", "0", "--url", &url, "--schema", "one", "--format", "json",
    ]);
    let b = s.spawn(&[
        "pg", "push", "--terms", "0", "--url", &url, "--schema", "one", "--format", "json",
    ]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let waiting: i64 = client
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' \
                 AND (starts_with(query, 'LOCK TABLE one.files') \
                      OR starts_with(query, 'SELECT pg_advisory_xact_lock'))",
                &[],
            )
            .unwrap()
            .get(0);
        if waiting == 2 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the pushes did not both wait"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    tx.rollback().unwrap();
    let mut changed: Vec<u64> = [a.wait(), b.wait()]
        .iter()
        .map(|run| json(run)["changed"].as_u64().unwrap())
        .collect();
    changed.sort_unstable();
    assert_eq!(
        changed,
        [0, 2],
        "one push rewrote the edited and the added file"
    );
    s.run(&[
        "pg", "push", "--terms", "0", "--url", &url, "--schema", "fresh",
    ])
    .success();
    assert!(state(&mut client, "one") == state(&mut client, "fresh"));
}
