//! The sandbox every end-to-end test runs the real `kbidx` binary in.
//!
//! A [`Sandbox`] is a fresh temporary directory, set up builder-style:
//!
//! ```ignore
//! let s = Sandbox::new()
//!     .with_fixture_knowledge()          // tests/fixtures/knowledge/ → knowledge/
//!     .with_file("extract.jq", "...")    // any file, parents created
//!     .with_built_index();               // `kbidx build --quiet`, must succeed
//! let run = s.run(&["search", "--l3", "check"]);
//! ```
//!
//! Every run has the sandbox as its working directory and is given relative paths only, its
//! search cache (`KBIDX_CACHE_DIR`) inside the sandbox, stdin null (or the text a test passes)
//! and no `RUST_BACKTRACE`. A [`Run`] holds the exit code, stdout and stderr, with the
//! sandbox's absolute path (which no output should hold) replaced by `[SANDBOX]`; tests either
//! snapshot its [`Run::transcript`] or check the exact message with [`Run::exits`].

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The binary under test.
pub(crate) const KBIDX: &str = env!("CARGO_BIN_EXE_kbidx");

/// The repository root.
pub(crate) fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary working directory for one test.
pub(crate) struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    /// An empty sandbox.
    pub(crate) fn new() -> Self {
        Self {
            dir: tempfile::Builder::new()
                .prefix("kbidx-test-")
                .tempdir()
                .unwrap(),
        }
    }

    /// Adds `tests/fixtures/knowledge/` as `knowledge/`.
    pub(crate) fn with_fixture_knowledge(self) -> Self {
        self.with_repo_dir("tests/fixtures/knowledge", "knowledge")
    }

    /// Adds the repository's own `knowledge/` and `index/` (with `index/index.toon`).
    pub(crate) fn with_repo_knowledge(self) -> Self {
        self.with_repo_dir("knowledge", "knowledge")
            .with_repo_dir("index", "index")
    }

    /// Adds a copy of the repository's directory `from` as `to`.
    pub(crate) fn with_repo_dir(self, from: &str, to: &str) -> Self {
        copy_dir(&repo().join(from), &self.path(to));
        self
    }

    /// Adds a file (and its parent directories).
    pub(crate) fn with_file(self, relative: &str, contents: impl AsRef<[u8]>) -> Self {
        self.write(relative, contents);
        self
    }

    /// Adds a directory (and its parents).
    pub(crate) fn with_dir(self, relative: &str) -> Self {
        std::fs::create_dir_all(self.path(relative)).unwrap();
        self
    }

    /// Adds a symbolic link at `link` whose text is `target`.
    pub(crate) fn with_symlink(self, target: &str, link: &str) -> Self {
        let path = self.path(link);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, path).unwrap();
        self
    }

    /// Runs `kbidx build --quiet`, which must succeed (writes `index/index.toon`).
    pub(crate) fn with_built_index(self) -> Self {
        self.run(&["build", "--quiet"]).success();
        self
    }

    /// The absolute path of `relative` (for the test's own file checks, never for arguments).
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// Writes a file, creating its parent directories.
    pub(crate) fn write(&self, relative: &str, contents: impl AsRef<[u8]>) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }

    pub(crate) fn read(&self, relative: &str) -> Vec<u8> {
        std::fs::read(self.path(relative)).unwrap()
    }

    pub(crate) fn read_to_string(&self, relative: &str) -> String {
        String::from_utf8(self.read(relative)).unwrap()
    }

    /// Copies the sandbox's directory `from` to `to`.
    pub(crate) fn copy_dir(&self, from: &str, to: &str) {
        copy_dir(&self.path(from), &self.path(to));
    }

    /// `kbidx ARGS`, ready to run in the sandbox (stdin null, stdout and stderr piped).
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        self.command_via(&[], args)
    }

    /// `WRAPPER… kbidx ARGS` (e.g. `/usr/bin/time -f %M kbidx build`), set up as
    /// [`Self::command`].
    pub(crate) fn command_via(&self, wrapper: &[&str], args: &[&str]) -> Command {
        let mut command = match wrapper {
            [] => Command::new(KBIDX),
            [program, wrapper_args @ ..] => {
                let mut command = Command::new(program);
                command.args(wrapper_args).arg(KBIDX);
                command
            }
        };
        command
            .args(args)
            .current_dir(self.dir.path())
            .env_remove("RUST_BACKTRACE")
            // The file search, unless a test asks for PostgreSQL.
            .env_remove("KBIDX_PG_URL")
            // The search cache stays in the sandbox.
            .env("KBIDX_CACHE_DIR", self.path(".cache"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Runs `kbidx ARGS` to the end.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        self.finish(args, self.command(args).output().unwrap())
    }

    /// Runs `kbidx ARGS` with `stdin` as its standard input.
    pub(crate) fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        let mut child = self.command(args).stdin(Stdio::piped()).spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        self.finish(args, child.wait_with_output().unwrap())
    }

    /// Starts `kbidx ARGS` without waiting for it.
    pub(crate) fn spawn(&self, args: &[&str]) -> Running<'_> {
        Running {
            sandbox: self,
            args: owned(args),
            child: self.command(args).spawn().unwrap(),
        }
    }

    /// Runs `args` (expecting exit 2, nothing on stdout) and checks that
    /// `index/index.toon` kept its bytes.
    pub(crate) fn fails_leaving_index(&self, args: &[&str]) -> Run {
        let before = self.read("index/index.toon");
        let run = self.run(args);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stdout.is_empty(), "{}", run.transcript());
        assert_eq!(
            self.read("index/index.toon"),
            before,
            "index/index.toon changed:\n{}",
            run.transcript()
        );
        run
    }

    fn finish(&self, args: &[&str], output: Output) -> Run {
        // Belt and braces: no snapshot may hold the sandbox's absolute path.
        let root = self.dir.path().to_string_lossy().into_owned();
        let clean = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&root, "[SANDBOX]");
        Run {
            args: owned(args),
            code: output.status.code().unwrap_or(-1),
            stdout: clean(&output.stdout),
            stderr: clean(&output.stderr),
        }
    }
}

/// A `kbidx` started by [`Sandbox::spawn`].
pub(crate) struct Running<'a> {
    sandbox: &'a Sandbox,
    args: Vec<String>,
    child: Child,
}

impl Running<'_> {
    /// Whether the process has exited (without waiting).
    pub(crate) fn has_exited(&mut self) -> bool {
        self.child.try_wait().unwrap().is_some()
    }

    pub(crate) fn kill(&mut self) {
        self.child.kill().unwrap();
    }

    /// Waits for the process and collects its output.
    pub(crate) fn wait(self) -> Run {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        self.sandbox
            .finish(&args, self.child.wait_with_output().unwrap())
    }
}

/// What one run of the binary did.
pub(crate) struct Run {
    pub(crate) args: Vec<String>,
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// `$ kbidx ARGS`, `exit: N`, then stdout and stderr.
    pub(crate) fn transcript(&self) -> String {
        let quoted: Vec<String> = self
            .args
            .iter()
            .map(|a| {
                if a.is_empty() || a.contains([' ', '"', '\'', '#', '{', '}']) {
                    format!("'{a}'")
                } else {
                    a.clone()
                }
            })
            .collect();
        let mut s = String::new();
        let _ = writeln!(s, "$ kbidx {}", quoted.join(" "));
        let _ = writeln!(s, "exit: {}", self.code);
        let _ = writeln!(s, "--- stdout\n{}", self.stdout);
        let _ = write!(s, "--- stderr\n{}", self.stderr);
        s
    }

    /// Asserts exit code 0.
    pub(crate) fn success(self) -> Self {
        assert_eq!(self.code, 0, "{}", self.transcript());
        self
    }

    /// Asserts the exit code and the exact stderr.
    pub(crate) fn exits(self, code: i32, stderr: &str) -> Self {
        assert_eq!(
            (self.code, self.stderr.as_str()),
            (code, stderr),
            "{}",
            self.transcript()
        );
        self
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.transcript())
    }
}

/// Transcripts of several runs, one after the other.
pub(crate) fn transcripts(runs: &[Run]) -> String {
    runs.iter()
        .map(Run::transcript)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A lean result's `content` split at its folded sections: the result's own
/// text, then each folded section's anchor and text (what follows its line
/// `[#anchor]`, up to the next such line). A twin's line `[file#anchor] (…)`
/// or `[#anchor] (…)` ends the text before it; its own text (the paragraphs
/// not shown above) is not a section's text and is left out.
pub(crate) fn folded_sections(content: &str) -> (&str, Vec<(&str, &str)>) {
    // Each piece: the line that opens it (none for the result's own text)
    // and its text.
    let mut pieces: Vec<(Option<&str>, &str)> = Vec::new();
    let (mut start, mut opened, mut at) = (0, None, 0);
    for line in content.split_inclusive('\n') {
        let marker = line
            .strip_prefix('[')
            .and_then(|l| l.split_once(']'))
            .is_some_and(|(r, _)| r.contains('#') && !r.contains(' '));
        if marker && at >= 2 && content[..at].ends_with("\n\n") {
            pieces.push((opened, &content[start..at - 2]));
            opened = Some(line.trim_end());
            start = at + line.len();
        }
        at += line.len();
    }
    pieces.push((opened, &content[start.min(content.len())..]));
    let own = pieces[0].1;
    let folded = pieces[1..]
        .iter()
        .filter(|(line, _)| {
            !line.is_some_and(|l| l.ends_with(" (paragraphs shown above left out)"))
        })
        .filter_map(|&(line, text)| {
            let anchor = line?.strip_prefix("[#")?.split(']').next()?;
            Some((anchor, text))
        })
        .collect();
    (own, folded)
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The index `kbidx build` makes of `knowledge` with the default settings
/// (every `*.json`, derived terms on), built in-process for the tests that
/// rank through the library.
pub(crate) fn build_default(knowledge: &Path) -> kbidx::index::model::Index {
    let options = kbidx::build::BuildOptions {
        knowledge: knowledge.to_path_buf(),
        filter: None,
        include: vec!["**/*.json".to_owned()],
        exclude: Vec::new(),
        strict: false,
        terms: kbidx::config::DEFAULT_TERMS,
    };
    kbidx::build::build(&options)
        .unwrap_or_else(|e| panic!("{}: {e}", knowledge.display()))
        .index
}

/// Every case of `cases` in every mode of `modes` with every method, at
/// most `top` deep, over `index` alone: no knowledge directory (so no body
/// stage, fallback or BM25), no links, no hand-over measured.
pub(crate) fn evaluate(
    index: &kbidx::index::model::Index,
    cases: &[kbidx::eval::Case],
    modes: &[kbidx::eval::Mode],
    methods: &[kbidx::eval::Method],
    top: usize,
) -> kbidx::Result<Vec<kbidx::eval::Run>> {
    let limits = kbidx::eval::Limits {
        top,
        chars: 0,
        chars_per_result: None,
        passages: false,
        hand_over: kbidx::config::HandOver::default(),
        expand: 0,
        second_search: 0,
        document: kbidx::eval::DocumentFormat::default(),
    };
    let settings = kbidx::search::Settings {
        body: None,
        ..kbidx::search::Settings::default()
    };
    evaluate_full(index, None, cases, modes, methods, limits, settings)
}

/// [`evaluate`] with the knowledge directory `index` was built from, the
/// limits and the search settings (no links, no diversity).
pub(crate) fn evaluate_full(
    index: &kbidx::index::model::Index,
    knowledge: Option<&Path>,
    cases: &[kbidx::eval::Case],
    modes: &[kbidx::eval::Mode],
    methods: &[kbidx::eval::Method],
    limits: kbidx::eval::Limits,
    settings: kbidx::search::Settings,
) -> kbidx::Result<Vec<kbidx::eval::Run>> {
    kbidx::eval::evaluate_with_links(
        index,
        &[],
        knowledge,
        cases,
        modes,
        methods,
        limits,
        // As `kbidx eval` runs without flags: twins folded (`collapse`).
        &kbidx::search::Diversity::new(&[], None, kbidx::search::DEFAULT_COLLAPSE)?,
        settings,
    )
}
