//! The bad-input catalogue of `docs/reliability.md`, one test each, through the real binary.
//!
//! Every test runs `kbidx` in its own temporary directory with relative paths, and checks the
//! exit code and the exact message (the catalogue copies these messages). Tests run as root in
//! CI, so "unreadable" and "read-only" inputs are made without permissions: a directory or a
//! FIFO named `*.json`, a dangling symbolic link, an output path whose parent is a file, a
//! path under `/proc`, and (when the process may mount) a read-only tmpfs.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::Sandbox;

/// One knowledge file with `n` sections.
fn knowledge_doc(title: &str, n: usize) -> String {
    let index: Vec<_> = (0..n)
        .map(|i| serde_json::json!({"id": format!("s{i}"), "hints": [format!("hint{i}"), "共通", "common"]}))
        .collect();
    let sections: serde_json::Map<_, _> = (0..n)
        .map(|i| (format!("s{i}"), serde_json::json!(format!("text {i}"))))
        .collect();
    serde_json::json!({"title": title, "index": index, "sections": sections}).to_string()
}

const SMALL: &str =
    r#"{"title":"T","index":[{"id":"a","hints":["x","y"]}],"sections":{"a":"text"}}"#;

/// `kbidx build --knowledge k --out out/index.toon`.
const BUILD: &[&str] = &["build", "--knowledge", "k", "--out", "out/index.toon"];

// ---------------------------------------------------------------------------
// Knowledge files

#[test]
fn bom_knowledge_file_builds() {
    let s = Sandbox::new().with_file(
        "k/a.json",
        [b"\xEF\xBB\xBF".as_slice(), SMALL.as_bytes()].concat(),
    );
    let run = s.run(BUILD).exits(0, "");
    assert_eq!(run.stdout, "out/index.toon: 1 sections from 1 files\n");
    let index = s.read_to_string("out/index.toon");
    assert!(
        index.starts_with("sections[1]{reference,title,hints")
            && index.contains("\n  a.json#a,T,x y"),
        "{index}"
    );
    // Same index as without the BOM.
    s.write("plain/a.json", SMALL);
    s.run(&["build", "--knowledge", "plain", "--out", "plain.toon"])
        .exits(0, "");
    assert_eq!(s.read("out/index.toon"), s.read("plain.toon"));
}

#[test]
fn crlf_knowledge_file_builds_the_same_index_as_lf() {
    let s = Sandbox::new();
    let lf = "{\n \"title\": \"T\",\n \"index\": [{\"id\": \"a\", \"hints\": [\"x\", \"y\"]}],\n \"sections\": {\"a\": \"t\"}\n}\n";
    s.write("k/a.json", lf.replace('\n', "\r\n"));
    s.run(BUILD).exits(0, "");
    s.write("lf/a.json", lf);
    s.run(&["build", "--knowledge", "lf", "--out", "lf.toon"])
        .exits(0, "");
    assert_eq!(s.read("out/index.toon"), s.read("lf.toon"));
}

#[test]
fn truncated_json_names_file_line_and_column() {
    let s = Sandbox::new().with_file("k/a.json", &SMALL[..40]);
    s.run(BUILD).exits(
        2,
        "kbidx: k/a.json:1:40: invalid JSON: EOF while parsing a value\n",
    );
    assert!(!s.path("out").exists());
}

#[test]
fn empty_json_file() {
    let s = Sandbox::new().with_file("k/a.json", "");
    s.run(BUILD).exits(
        2,
        "kbidx: k/a.json:1:1: invalid JSON: EOF while parsing a value\n",
    );
}

#[test]
fn deep_nesting_hits_the_json_recursion_limit_cleanly() {
    let s = Sandbox::new();
    let depth = 100_000;
    s.write(
        "k/a.json",
        format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
    );
    s.run(BUILD).exits(
        2,
        "kbidx: k/a.json:1:128: invalid JSON: recursion limit exceeded\n",
    );
    // Inside the limit, a deep value the program does not look at is harmless.
    s.write(
        "k/a.json",
        format!(
            r#"{{"title":"T","deep":{}{},"index":[{{"id":"a","hints":["x"]}}],"sections":{{"a":"t"}}}}"#,
            "[".repeat(120),
            "]".repeat(120)
        ),
    );
    s.run(BUILD).exits(0, "");
}

#[test]
fn root_array_is_a_jq_error() {
    // Known issue (reported): jaq's message embeds the whole offending value, so a large
    // root array gives a message as long as the file. Checked here on a small one.
    let s = Sandbox::new().with_file("k/a.json", "[1,2,3]");
    s.run(BUILD).exits(
        2,
        "kbidx: k/a.json: jq error in src/extract.jq: cannot index [1,2,3] with \"title\"\n",
    );
}

#[test]
fn symlink_loop_warns_and_still_builds() {
    let s = Sandbox::new()
        .with_file("k/a.json", SMALL)
        .with_symlink("..", "k/sub/loop");
    let run = s
        .run(BUILD)
        .exits(0, "warning: k/sub/loop: symbolic link loop skipped\n");
    assert_eq!(run.stdout, "out/index.toon: 1 sections from 1 files\n");
}

#[test]
fn directory_named_json_is_not_a_knowledge_file() {
    let s = Sandbox::new()
        .with_file("k/a.json", SMALL)
        .with_dir("k/dir.json");
    let run = s.run(BUILD).exits(0, "");
    assert_eq!(run.stdout, "out/index.toon: 1 sections from 1 files\n");
}

#[test]
fn fifo_named_json_is_skipped_without_blocking() {
    let s = Sandbox::new().with_file("k/a.json", SMALL);
    let status = Command::new("mkfifo")
        .arg(s.path("k/pipe.json"))
        .status()
        .unwrap();
    assert!(status.success());
    let mut child = s.spawn(BUILD);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !child.has_exited() {
        if std::time::Instant::now() > deadline {
            child.kill();
            panic!("kbidx build blocked on a FIFO named *.json");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let run = child.wait().exits(0, "");
    assert_eq!(run.stdout, "out/index.toon: 1 sections from 1 files\n");
}

#[test]
fn dangling_symlink_is_an_unreadable_file() {
    let s = Sandbox::new()
        .with_file("k/a.json", SMALL)
        .with_symlink("missing.json", "k/b.json");
    s.run(BUILD).exits(
        2,
        "kbidx: k/b.json: cannot read: no such file or directory\n",
    );
}

#[test]
fn symlink_out_of_the_knowledge_directory_is_not_followed() {
    let s = Sandbox::new()
        .with_file("k/a.json", SMALL)
        .with_file("secret/b.json", SMALL.replace("\"a\"", "\"b\""))
        .with_file("k/inside/c.json", SMALL.replace("\"a\"", "\"c\""))
        .with_symlink("../secret/b.json", "k/b.json")
        .with_symlink("../secret", "k/secret")
        .with_symlink("inside/c.json", "k/c.json");
    let run = s.run(BUILD).exits(
        0,
        "warning: k/b.json: symbolic link to outside the knowledge directory skipped\n\
         warning: k/secret: symbolic link to outside the knowledge directory skipped\n",
    );
    // a.json, c.json (a link inside) and inside/c.json.
    assert_eq!(run.stdout, "out/index.toon: 3 sections from 3 files\n");
    s.run(&["read", "--knowledge", "k", "b.json#b"]).exits(
        2,
        "kbidx: b.json#b: refused: a symbolic link points outside the knowledge directory \
         (kbidx reads only files inside the knowledge directory)\n",
    );
    s.run(&["read", "--knowledge", "k", "c.json#c"])
        .exits(0, "");
}

#[test]
fn read_refuses_references_outside_the_knowledge_directory() {
    let s = Sandbox::new()
        .with_file("k/a.json", SMALL)
        .with_file("x.json", SMALL);
    let cases = [
        ("/etc/passwd#x", "absolute paths are not allowed"),
        (
            "../x.json#a",
            "only plain relative paths are allowed (no `..` or `.`); a link's target is read by its path from the knowledge directory",
        ),
        (
            "sub/../../x.json#a",
            "only plain relative paths are allowed (no `..` or `.`); a link's target is read by its path from the knowledge directory",
        ),
    ];
    for (reference, rule) in cases {
        let message = format!(
            "kbidx: {reference}: refused: {rule} (kbidx reads only files inside the knowledge directory)\n"
        );
        s.run(&["read", "--knowledge", "k", reference])
            .exits(2, &message);
    }
    s.run(&["read", "--knowledge", "k", "a.json#a"])
        .exits(0, "");
}

#[test]
fn extraction_program_that_never_ends_is_stopped() {
    let s = Sandbox::new()
        .with_file("k/a.json", SMALL)
        .with_file("out/index.toon", "old\n")
        .with_file("loop.jq", "def f: f; f\n");
    let mut args = BUILD.to_vec();
    args.extend(["--filter", "loop.jq", "--timeout", "1"]);
    s.run(&args).exits(
        2,
        "kbidx: loop.jq: the extraction program ran for more than 1 s and was stopped \
         (nothing was written; raise `build_timeout` in kbidx.toml or --timeout if the \
         knowledge base really needs longer)\n",
    );
    assert_eq!(s.read("out/index.toon"), b"old\n");
}

/// Writes a ~100 MB knowledge file and reports kbidx's peak RSS (`/usr/bin/time -f %M`).
#[test]
#[ignore = "writes a 100 MB file; run with `cargo test --release -- --ignored`"]
fn hundred_megabyte_knowledge_file_has_bounded_memory() {
    let s = Sandbox::new();
    std::fs::create_dir_all(s.path("k")).unwrap();
    // 20,000 sections with 5 KB of text each: ~100 MB.
    let n = 20_000;
    let body = "長い本文 long body text ".repeat(200);
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(s.path("k/big.json")).unwrap());
        write!(f, r#"{{"title":"Big","index":["#).unwrap();
        for i in 0..n {
            let sep = if i == 0 { "" } else { "," };
            write!(
                f,
                r#"{sep}{{"id":"s{i}","hints":["hint{i}","共通","common"]}}"#
            )
            .unwrap();
        }
        write!(f, r#"],"sections":{{"#).unwrap();
        for i in 0..n {
            let sep = if i == 0 { "" } else { "," };
            write!(f, r#"{sep}"s{i}":"{body}{i}""#).unwrap();
        }
        write!(f, "}}}}").unwrap();
    }
    let size = std::fs::metadata(s.path("k/big.json")).unwrap().len();
    assert!(size > 100_000_000, "{size}");
    let time = "/usr/bin/time";
    if !Path::new(time).exists() {
        eprintln!("skipped the RSS measurement: /usr/bin/time not found");
        s.run(BUILD).exits(0, "");
        return;
    }
    let out = s
        .command_via(&[time, "-f", "%M %e"], BUILD)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let last = stderr.lines().last().unwrap();
    let mut it = last.split(' ');
    let rss_kb: u64 = it.next().unwrap().parse().unwrap();
    let secs = it.next().unwrap();
    println!(
        "100 MB knowledge file: {size} bytes, {n} sections, peak RSS {} MB, {secs} s",
        rss_kb / 1024
    );
    // The document is held in memory once as a jq value; it must not blow up beyond a small
    // multiple of the file size.
    assert!(
        rss_kb * 1024 < size * 8,
        "peak RSS {rss_kb} KB for a {size}-byte file"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("out/index.toon: {n} sections from 1 files\n")
    );
}

// ---------------------------------------------------------------------------
// Output

#[test]
fn output_parent_is_a_file() {
    let s = Sandbox::new()
        .with_file("k/a.json", SMALL)
        .with_file("blocker", "x");
    s.run(&["build", "--knowledge", "k", "--out", "blocker/index.toon"])
        .exits(2, "kbidx: blocker: cannot create directory: file exists\n");
    assert_eq!(s.read("blocker"), b"x");
}

#[test]
fn output_under_proc() {
    let s = Sandbox::new().with_file("k/a.json", SMALL);
    s.run(&[
        "build",
        "--knowledge",
        "k",
        "--out",
        "/proc/kbidx-test/index.toon",
    ])
    .exits(
        2,
        "kbidx: /proc/kbidx-test: cannot create directory: no such file or directory\n",
    );
}

/// A read-only output directory. Root ignores permission bits, so as root this mounts a
/// read-only tmpfs (skipped if the process may not mount); otherwise it uses `chmod 555`.
#[test]
fn output_directory_read_only() {
    let s = Sandbox::new().with_file("k/a.json", SMALL);
    let ro = s.path("ro");
    std::fs::create_dir_all(&ro).unwrap();
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    let expected_error = if is_root {
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs"])
            .arg(&ro)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|st| st.success());
        if !mounted {
            eprintln!("skipped: running as root without permission to mount a read-only tmpfs");
            return;
        }
        "kbidx: ro: cannot write: read-only file system\n"
    } else {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        "kbidx: ro: cannot write: permission denied\n"
    };
    let run = s.run(&["build", "--knowledge", "k", "--out", "ro/index.toon"]);
    if is_root {
        let _ = Command::new("umount").arg(&ro).status();
    }
    run.exits(2, expected_error);
}

// ---------------------------------------------------------------------------
// Hand-edited indexes

#[test]
fn index_with_wrong_row_count() {
    let s = Sandbox::new().with_file(
        "i.toon",
        "sections[2]{reference,title,hints}:\n  a.json#a,T,x\n",
    );
    let run = s.run(&["search", "--index", "i.toon", "--l3", "x"]).exits(
        2,
        "kbidx: i.toon:1:10: header declares 2 rows, found 1 (run `kbidx build` to rebuild the index)\n",
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn index_with_a_broken_row() {
    let s = Sandbox::new();
    for (text, message) in [
        (
            "sections[1]{reference,title,hints}:\n  a.json#a,T\n",
            "kbidx: i.toon:2:3: expected 3 cells, found 2 (quote cells that contain `,`)\n",
        ),
        (
            "sections[1]{reference,title,hints}:\n  a.json#a,\"T,x\n",
            "kbidx: i.toon:2:12: unterminated string\n",
        ),
        (
            "sections[1]{reference,title,hints}:\n  a.json#a,T,\"x\"y\n",
            "kbidx: i.toon:2:17: unexpected text after a quoted cell\n",
        ),
        (
            "sections[1,]{reference,title,hints}:\n  a.json#a,T,x\n",
            "kbidx: i.toon:1:11: expected `]` after the row count (`[N,]` is not TOON)\n",
        ),
    ] {
        s.write("i.toon", text);
        s.run(&["search", "--index", "i.toon", "--l3", "x"])
            .exits(2, message);
    }
}

#[test]
fn index_with_invalid_utf8() {
    let s = Sandbox::new().with_file(
        "i.toon",
        b"sections[1]{reference,title,hints}:\n  a.json#a,T,\xff\n",
    );
    s.run(&["search", "--index", "i.toon", "--l3", "x"])
        .exits(2, "kbidx: i.toon:2:14: invalid UTF-8\n");
}

#[test]
fn index_with_bom_and_crlf_is_read() {
    let s = Sandbox::new().with_file(
        "i.toon",
        "\u{feff}sections[1]{reference,title,hints}:\r\n  a.json#a,T,x\r\n",
    );
    let run = s.run(&["search", "--index", "i.toon", "--l3", "x"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("a.json#a"), "{run:?}");
}

// ---------------------------------------------------------------------------
// Concurrency

/// 4 simultaneous `kbidx build` runs to the same `--out`, 5 rounds, while a reader searches:
/// every run succeeds, the reader never sees a torn file, the final file equals a single
/// build, and no temporary file is left behind.
#[test]
fn concurrent_builds_never_tear_the_index() {
    let s = Sandbox::new();
    for f in 0..60 {
        s.write(
            &format!("k/d{}/f{f:03}.json", f % 6),
            knowledge_doc(&format!("File {f}"), 25),
        );
    }
    s.run(&["build", "-q", "--knowledge", "k", "--out", "single.toon"])
        .exits(0, "");
    let want = s.read("single.toon");
    for round in 0..5 {
        if round % 2 == 1 {
            let _ = std::fs::remove_file(s.path("out/index.toon"));
        }
        let children: Vec<_> = (0..4)
            .map(|_| s.spawn(&["build", "-q", "--knowledge", "k", "--out", "out/index.toon"]))
            .collect();
        // A reader racing the writers: whenever the file exists, it must parse.
        let mut reads = 0;
        let mut children = children;
        loop {
            if s.path("out/index.toon").exists() {
                let run = s.run(&["search", "--index", "out/index.toon", "--l3", "hint3"]);
                assert_eq!(run.code, 0, "round {round}: a reader saw {run:?}");
                reads += 1;
            }
            if children.iter_mut().all(|c| c.has_exited()) {
                break;
            }
        }
        for child in children {
            child.wait().exits(0, "");
        }
        assert_eq!(s.read("out/index.toon"), want, "round {round}");
        let leftovers: Vec<_> = std::fs::read_dir(s.path("out"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "index.toon" && n != "links.toon")
            .collect();
        assert!(leftovers.is_empty(), "round {round}: left {leftovers:?}");
        let _ = reads;
    }
}

/// Eight `kbidx search` processes at a time on a cold search cache, with the
/// index rebuilt (over a knowledge base that gained a file) while they run: each
/// answers exactly as a search of the old or of the new index does without
/// a cache, so none mixed the two or loaded a half-written cache entry (the
/// word and body entries are written to a temporary file and renamed, and
/// loading checks their hashes). The searches afterwards, from the entries
/// the race left behind, answer as the new index does.
#[test]
fn concurrent_searches_on_a_cold_cache_answer_from_one_index() {
    let s = Sandbox::new();
    for f in 0..24 {
        s.write(
            &format!("k/d{}/f{f:02}.json", f % 4),
            knowledge_doc(&format!("File {f}"), 20),
        );
    }
    // The new file wins the query; the old index leaves it out.
    s.write(
        "k/new.json",
        r#"{"title":"Fresh","index":[{"id":"a","hints":["hint3","fresh","共通"]}],"sections":{"a":"fresh text 共通"}}"#,
    );
    s.write(
        "old.toml",
        "knowledge = \"k\"\nindex = \"out/index.toon\"\nexclude = [\"new.json\"]\n",
    );
    s.write(
        "new.toml",
        "knowledge = \"k\"\nindex = \"out/index.toon\"\n",
    );
    let build = |config: &'static str| ["build", "-q", "--config", config];
    // `cache` "": `--no-cache` (the reference answers).
    let search = |cache: &str| -> std::process::Command {
        let no_cache = ["--no-cache"];
        let mut args = vec!["search"];
        args.extend(if cache.is_empty() { &no_cache[..] } else { &[] });
        args.extend([
            "--config",
            "/dev/null",
            "--index",
            "out/index.toon",
            "--knowledge",
            "k",
            "--l3",
            "hint3,fresh",
            "--with-content",
            "--max-tokens",
            "400",
            "--top",
            "5",
        ]);
        let mut command = s.command(&args);
        command.env("KBIDX_CACHE_DIR", s.path(cache));
        command
    };
    let answer = |output: std::process::Output| {
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    s.run(&build("new.toml")).exits(0, "");
    let new = answer(search("").output().unwrap());
    s.run(&build("old.toml")).exits(0, "");
    let old = answer(search("").output().unwrap());
    assert_ne!(old, new, "the rebuild must change the answer");
    assert!(new.contains("new.json#a") && !old.contains("new.json"));
    for round in 0..3 {
        s.run(&build("old.toml")).exits(0, "");
        let cache = format!("cache{round}");
        // Four searches start before the rebuild, eight run at a time while
        // it runs (at most 64 in all), and four start after it.
        let mut running: Vec<_> = (0..4).map(|_| search(&cache).spawn().unwrap()).collect();
        let mut done = Vec::new();
        let mut rebuild = s.spawn(&build("new.toml"));
        let mut started = 4;
        while !rebuild.has_exited() {
            for child in std::mem::take(&mut running) {
                let mut child = child;
                if child.try_wait().unwrap().is_some() {
                    done.push(child);
                } else {
                    running.push(child);
                }
            }
            while running.len() < 8 && started < 64 {
                running.push(search(&cache).spawn().unwrap());
                started += 1;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        rebuild.wait().exits(0, "");
        running.extend((0..4).map(|_| search(&cache).spawn().unwrap()));
        let mut seen = [0, 0];
        for child in done.into_iter().chain(running) {
            let got = answer(child.wait_with_output().unwrap());
            assert!(
                got == old || got == new,
                "round {round}: an answer from neither index:\n{got}\nold:\n{old}\nnew:\n{new}"
            );
            seen[usize::from(got == new)] += 1;
        }
        eprintln!("round {round}: {} old, {} new answers", seen[0], seen[1]);
        assert!(
            seen[1] >= 4,
            "round {round}: the searches after the rebuild"
        );
        for _ in 0..2 {
            assert_eq!(
                answer(search(&cache).output().unwrap()),
                new,
                "round {round}"
            );
        }
        let entries: Vec<String> = std::fs::read_dir(s.path(&cache))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            entries.iter().all(|n| !n.starts_with(".tmp")),
            "round {round}: {entries:?}"
        );
    }
}

/// One `kbidx mcp` server, 10,000 requests written by a second thread while
/// this one reads the answers: searches (questions, keywords with content),
/// reads (of a section, of a missing one), lines that are not JSON, oversized
/// arguments (a 64 KB question, 2,000 keywords, a 1 MB reference), notifications
/// and other methods, with the index rebuilt on disk halfway. Every request
/// is answered, in order, with its id (a line that is not JSON with `id:
/// null`); a probe search answers from the old index before the rebuild and
/// from the new one after it, never a mix; the server exits 0 at the end.
/// Prints the server's peak RSS (`VmHWM`) for docs/reliability.md.
#[test]
#[ignore = "10,000 requests; run with `cargo test --release -- --ignored mcp_under_load`"]
fn mcp_under_load_answers_every_request_in_order() {
    use std::io::{BufRead as _, BufReader};

    const REQUESTS: usize = 10_000;
    let s = Sandbox::new().with_repo_knowledge();
    // Its log (a line per call) is not read: a full stderr pipe would stop it.
    let mut child = s
        .command(&["mcp"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    // What each line expects: `Some(id)` for an answer with that id, `None` for none.
    let call = |id: usize, name: &str, arguments: serde_json::Value| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
        .to_string()
    };
    let big_question = "ページングの件数を取得したい ".repeat(4_000);
    let many: Vec<String> = (0..2_000).map(|i| format!("kw{i}")).collect();
    let huge_reference = format!("guide/build.json#{}", "x".repeat(1 << 20));
    let mut lines = Vec::with_capacity(REQUESTS);
    let mut expected: Vec<Option<serde_json::Value>> = Vec::with_capacity(REQUESTS);
    for i in 0..REQUESTS {
        let (line, answer) = match i % 10 {
            // The probe: a word only the knowledge rebuilt halfway holds.
            0 if i % 100 == 0 => (
                call(i, "search", serde_json::json!({"l3": ["zebrafish"]})),
                true,
            ),
            0 => (
                call(
                    i,
                    "search",
                    serde_json::json!({"question": "索引を作り直すには"}),
                ),
                true,
            ),
            1 => (
                call(
                    i,
                    "search",
                    serde_json::json!({"l2": ["build"], "l3": "index, check", "max_tokens": 500}),
                ),
                true,
            ),
            2 => (
                call(
                    i,
                    "read",
                    serde_json::json!({"reference": "guide/build.json#check"}),
                ),
                true,
            ),
            3 => (
                call(
                    i,
                    "read",
                    serde_json::json!({"reference": "guide/build.json#nope"}),
                ),
                true,
            ),
            4 => (format!("not json {i} {{"), true),
            5 if i % 1000 == 5 => (
                call(i, "read", serde_json::json!({"reference": huge_reference})),
                true,
            ),
            5 => (
                call(
                    i,
                    "search",
                    serde_json::json!({"question": big_question, "top": 3}),
                ),
                true,
            ),
            6 => (
                call(i, "search", serde_json::json!({"l1": many, "top": 1})),
                true,
            ),
            7 => (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
                false,
            ),
            8 => (
                format!(r#"{{"jsonrpc":"2.0","id":"s{i}","method":"ping"}}"#),
                true,
            ),
            _ => (
                format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"resources/list"}}"#),
                true,
            ),
        };
        let id = match i % 10 {
            4 => serde_json::Value::Null,
            8 => serde_json::json!(format!("s{i}")),
            _ => serde_json::json!(i),
        };
        lines.push(line);
        expected.push(answer.then_some(id));
    }
    // Halfway the writer waits until every earlier request is answered and
    // the index is rebuilt on disk; the server must pick the new one up.
    let (rebuilt, wait_rebuilt) = std::sync::mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        for (i, line) in lines.into_iter().enumerate() {
            if i == REQUESTS / 2 {
                stdin.flush().unwrap();
                wait_rebuilt.recv().unwrap();
            }
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin.flush().unwrap();
        // Kept open until the answers are read, so the peak RSS can be read first.
        stdin
    });
    let mut answers = stdout.lines();
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for (i, id) in expected.iter().enumerate() {
        if i == REQUESTS / 2 {
            s.write(
                "knowledge/zoo.json",
                r#"{"id": "zoo", "title": "Zoo", "index": [{"id": "fish", "title": "Zebrafish", "hints": ["zebrafish"]}],
                    "sections": {"fish": "Zebrafish are small."}}"#,
            );
            s.run(&["build", "--quiet"]).success();
            rebuilt.send(()).unwrap();
        }
        let Some(id) = id else { continue };
        let line = answers
            .next()
            .unwrap_or_else(|| panic!("request {i}: no answer"))
            .unwrap();
        let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(&answer["id"], id, "request {i}: {line:.300}");
        if i % 100 == 0 {
            // Wholly the old index before the rebuild, wholly the new one after.
            let results = &answer["result"]["structuredContent"]["results"];
            let found: Vec<&str> = results
                .as_array()
                .unwrap_or_else(|| panic!("request {i}: {line:.300}"))
                .iter()
                .filter_map(|r| r["reference"].as_str())
                .collect();
            let want: &[&str] = if i < REQUESTS / 2 {
                &[]
            } else {
                &["zoo.json#fish"]
            };
            assert_eq!(found, want, "request {i}");
        }
        let kind = if let Some(code) = answer["error"]["code"].as_i64() {
            format!("error {code}")
        } else if answer["result"]["isError"] == true {
            "tool error".to_owned()
        } else {
            "result".to_owned()
        };
        *kinds.entry(kind).or_default() += 1;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let peak = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: ?");
    eprintln!("kbidx mcp after {REQUESTS} requests: {peak}; answers {kinds:?}");
    drop(writer.join().unwrap());
    assert!(answers.next().is_none(), "an answer too many");
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
