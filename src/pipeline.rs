//! The build step: knowledge files → extraction → index → TOON text → disk.
//!
//! [`build`] produces the index text in memory (it never writes); [`write`]
//! replaces the index file atomically (temp file in the same directory, then
//! rename), and [`check`] compares the text with the file on disk and returns
//! a short unified diff when they differ.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::{Error, Result, display};
use crate::extract::{Extractor, Record};
use crate::knowledge;
use crate::model::Index;
use crate::toon;

/// Everything `kbidx build` needs to know, already resolved from flags and `kbidx.toml`.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The knowledge directory.
    pub knowledge: PathBuf,
    /// A replacement extraction program (`None`: the built-in `src/extract.jq`).
    pub filter: Option<PathBuf>,
    /// Include globs, relative to the knowledge directory.
    pub include: Vec<String>,
    /// Exclude globs, relative to the knowledge directory.
    pub exclude: Vec<String>,
    /// Turn warnings into errors.
    pub strict: bool,
    /// Derived terms per section (0: no `terms` column). See `terms`.
    pub terms: usize,
}

/// The result of a successful build.
#[derive(Debug)]
pub struct Built {
    /// The index.
    pub index: Index,
    /// Its TOON encoding, exactly what goes on disk.
    pub text: Text,
    /// How many knowledge files were read.
    pub files: usize,
    /// Warnings, each prefixed with the file it is about.
    pub warnings: Vec<String>,
}

/// An index's TOON text, exactly what goes on disk, kept in the pieces it
/// was encoded in (without derived terms: the header, then each file's
/// rows) instead of copied into one string. Joining them cost a build of
/// nabledge-6-large a fresh 467 KB buffer, about 115 page faults (some
/// 0.4 ms) on the one thread that is left at the end; [`write`] and
/// [`check`] work on the pieces. `to_string()` joins them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
    pieces: Vec<String>,
    len: usize,
}

impl Text {
    /// The text made of `pieces`, in order.
    #[must_use]
    pub fn from_pieces(pieces: Vec<String>) -> Self {
        let len = pieces.iter().map(String::len).sum();
        Self { pieces, len }
    }

    /// Its length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its pieces, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().map(String::as_str)
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Self::from_pieces(vec![text])
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.pieces().try_for_each(|piece| f.write_str(piece))
    }
}

/// Builds the index from `options.knowledge` without touching the disk.
pub fn build(options: &BuildOptions) -> Result<Built> {
    let program = match &options.filter {
        Some(path) => {
            let code = std::fs::read_to_string(path)
                .map_err(|e| Error::io(path, "cannot read filter", e))?;
            (code, path.clone())
        }
        None => (
            crate::extract::DEFAULT_PROGRAM.to_owned(),
            PathBuf::from(crate::extract::DEFAULT_PROGRAM_PATH),
        ),
    };
    let with_terms = options.terms > 0;
    let (found, extracted) = extract_all(options, &program, with_terms)?;
    // Checked in file and record order before anything is moved, so the
    // first problem (a file that failed, a warning under --strict or a
    // duplicate reference) is the one reported; references are borrowed,
    // not copied.
    let mut warnings = found.warnings;
    let mut origin: HashMap<&str, usize, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(
            extracted.iter().flatten().map(|e| e.records.len()).sum(),
            foldhash::fast::RandomState::default(),
        );
    for (file_no, (file, extracted)) in found.files.iter().zip(&extracted).enumerate() {
        // A failed file ends the list (see `extract_all`); reported below.
        let Ok(extracted) = extracted else { break };
        for record in &extracted.records {
            match record {
                Record::Warning(message) => {
                    if options.strict {
                        return Err(Error::data(&file.path, format!("{message} (--strict)")));
                    }
                    warnings.push(format!("{}: {message}", display(&file.path)));
                }
                Record::Entry(entry) => {
                    if let Some(first) = origin.insert(&entry.reference, file_no) {
                        let first = &found.files[first].path;
                        return Err(Error::data(
                            &file.path,
                            format!(
                                "duplicate reference {:?} (also produced by {})",
                                entry.reference,
                                display(first)
                            ),
                        ));
                    }
                }
            }
        }
    }
    drop(origin);
    let extracted = extracted.into_iter().collect::<Result<Vec<FileOutput>>>()?;
    let mut index = Index::default();
    index
        .entries
        .reserve(extracted.iter().map(|e| e.records.len()).sum());
    let mut candidates: Vec<Vec<(String, u32)>> = Vec::new();
    let mut rows = Vec::with_capacity(extracted.len());
    for extracted in extracted {
        let mut file_candidates = extracted.candidates.into_iter();
        for record in extracted.records {
            if let Record::Entry(entry) = record {
                index.entries.push(entry);
                candidates.push(file_candidates.next().unwrap_or_default());
            }
        }
        rows.push(extracted.rows);
    }
    let text = if with_terms {
        let covered: Vec<String> = index
            .entries
            .iter()
            .map(|e| crate::matcher::normalize::normalize(&format!("{} {}", e.title, e.hints)))
            .collect();
        let picked = crate::terms::select(&candidates, &covered, options.terms);
        for (entry, terms) in index.entries.iter_mut().zip(picked) {
            entry.terms = terms;
        }
        Text::from(toon::encode(&index))
    } else {
        // Without terms, every row was encoded as its file was extracted
        // (what `toon::encode` writes: a header, then one line per entry).
        let mut header = String::new();
        toon::push_header(&mut header, index.len(), false);
        rows.insert(0, header);
        Text::from_pieces(rows)
    };
    Ok(Built {
        index,
        text,
        files: found.files.len(),
        warnings,
    })
}

/// What one knowledge file gave.
struct FileOutput {
    /// The program's records, in order.
    records: Vec<Record>,
    /// The term candidates of each entry record, in order (empty unless
    /// terms are derived).
    candidates: Vec<Vec<(String, u32)>>,
    /// The index rows of the entry records, encoded (empty when terms are
    /// derived: the rows are encoded once the terms are known).
    rows: String,
}

/// Per file: what it gave, or the error that stops the build.
type Extracted = Result<FileOutput>;

/// Finds, reads and extracts every file with one compiled program shared by
/// a few threads (jaq values are not `Send`, but the compiled program is
/// `Sync`).
///
/// The calling thread never waits for a helper: it walks the knowledge
/// directory, compiles the program (about 1 ms with jaq's standard
/// definitions) unless a helper already took that on, and then extracts
/// files like the helpers. Helpers are started off the calling thread's
/// CPU (see `placement`), and join in whenever they start: one that starts
/// during the walk compiles the program, and all take files as soon as the
/// walk is done and, until the program is compiled, read and parse them
/// ahead. Errors are still reported as if the steps ran in sequence: a
/// program error first, then a directory error, then an empty directory,
/// then the first failing file in file order.
///
/// Threads take the next file from a shared counter, so that a few large
/// files do not leave one thread working alone. Returns the discovery and
/// one result per file, in file order, up to and including the first error
/// in file order (files after a known error are skipped), so errors are the
/// same as a sequential run's.
fn extract_all(
    options: &BuildOptions,
    program: &(String, PathBuf),
    with_terms: bool,
) -> Result<(knowledge::Discovery, Vec<Extracted>)> {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(2, 8);
    let shared = std::sync::Arc::new(Shared {
        program: program.clone(),
        with_terms,
        cpus: crate::placement::Cpus::of_this_thread(),
        compile_claimed: AtomicBool::new(false),
        compiled: OnceLock::new(),
        found: OnceLock::new(),
        next: AtomicUsize::new(0),
        first_error: AtomicUsize::new(usize::MAX),
    });
    // Helpers own a handle on the shared state (rather than borrowing it
    // from a thread scope) so that their OS threads can be placed: see
    // `placement`.
    let helpers: Vec<_> = (1..threads)
        .map(|_| {
            let mine = std::sync::Arc::clone(&shared);
            let helper = std::thread::spawn(move || {
                if let Some(cpus) = &mine.cpus {
                    cpus.restore_here();
                }
                if mine.found.get().is_none() {
                    mine.compile();
                }
                mine.work()
            });
            if let Some(cpus) = &shared.cpus {
                cpus.move_off_caller(&helper);
            }
            helper
        })
        .collect();
    let walked = catch_unwind(AssertUnwindSafe(|| {
        knowledge::discover(&options.knowledge, &options.include, &options.exclude)
    }));
    let _ = shared
        .found
        .set(walked.unwrap_or_else(|_| Err(panicked("the directory walk"))));
    shared.compile();
    let mut all = shared.work();
    for helper in helpers {
        all.extend(
            helper
                .join()
                .map_err(|_| panicked("an extraction thread"))?,
        );
    }
    let Ok(shared) = std::sync::Arc::try_unwrap(shared) else {
        return Err(panicked("an extraction thread"));
    };
    // In the order of a sequential run: program, directory, files.
    if let Some(Err(e)) = shared.compiled.into_inner() {
        return Err(e);
    }
    let found = shared
        .found
        .into_inner()
        .unwrap_or_else(|| Err(panicked("the directory walk")))?;
    if found.files.is_empty() {
        return Err(Error::data(
            &options.knowledge,
            format!(
                "no knowledge files found (include: {})",
                options.include.join(", ")
            ),
        ));
    }
    all.sort_unstable_by_key(|(i, _)| *i);
    let stop = shared.first_error.into_inner();
    let extracted = all
        .into_iter()
        .take_while(|(i, _)| *i <= stop)
        .map(|(_, extracted)| extracted)
        .collect();
    Ok((found, extracted))
}

fn panicked(what: &str) -> Error {
    Error::Usage(format!("internal error: {what} panicked"))
}

/// What the threads of [`extract_all`] share. The two `OnceLock`s are set
/// exactly once each, also when their step panics, so no thread waits forever.
struct Shared {
    program: (String, PathBuf),
    with_terms: bool,
    /// The CPUs the build may use (where placement is supported).
    cpus: Option<crate::placement::Cpus>,
    /// Whether a thread has taken on compiling the program.
    compile_claimed: AtomicBool,
    compiled: OnceLock<Result<Extractor>>,
    found: OnceLock<Result<knowledge::Discovery>>,
    /// The next file to take.
    next: AtomicUsize,
    /// The lowest file number that failed.
    first_error: AtomicUsize,
}

impl Shared {
    /// Compiles the program, unless another thread already took that on.
    /// Whichever thread is free first does it: a helper that starts while
    /// the walk is still going, else the walking thread.
    fn compile(&self) {
        use std::panic::{AssertUnwindSafe, catch_unwind};
        if self.compile_claimed.swap(true, Ordering::AcqRel) {
            return;
        }
        let (code, path) = &self.program;
        let extractor = catch_unwind(AssertUnwindSafe(|| Extractor::new(code, path)));
        let _ = self
            .compiled
            .set(extractor.unwrap_or_else(|_| Err(panicked("the jq compiler"))));
    }

    /// Takes files until none are left (or one before them failed): reads
    /// and parses each and, once the program is compiled, extracts it.
    fn work(&self) -> Vec<(usize, Extracted)> {
        let Ok(found) = self.found.wait() else {
            return Vec::new();
        };
        let files = &found.files;
        let mut out = Vec::new();
        // Parsed, waiting for the program to be compiled.
        let mut pending = Vec::new();
        let extract_pending =
            |extractor: &Extractor, pending: &mut Vec<(usize, Parsed)>, out: &mut Vec<_>| {
                for (i, parsed) in pending.drain(..) {
                    let extracted = extract_one(extractor, &files[i], parsed, self.with_terms);
                    if extracted.is_err() {
                        self.first_error.fetch_min(i, Ordering::Relaxed);
                    }
                    out.push((i, extracted));
                }
            };
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= files.len() || i > self.first_error.load(Ordering::Relaxed) {
                break;
            }
            match read_and_parse(&files[i]) {
                Ok(parsed) => pending.push((i, parsed)),
                Err(e) => {
                    self.first_error.fetch_min(i, Ordering::Relaxed);
                    out.push((i, Err(e)));
                }
            }
            match self.compiled.get() {
                None => {}
                Some(Ok(extractor)) => extract_pending(extractor, &mut pending, &mut out),
                Some(Err(_)) => return out,
            }
        }
        if let Ok(extractor) = self.compiled.wait() {
            extract_pending(extractor, &mut pending, &mut out);
        }
        out
    }
}

/// A knowledge file's bytes and its parsed document.
type Parsed = (Vec<u8>, jaq_json::Val);

/// Reads and parses one knowledge file.
fn read_and_parse(file: &knowledge::KnowledgeFile) -> Result<Parsed> {
    let bytes = std::fs::read(&file.path).map_err(|e| Error::io(&file.path, "cannot read", e))?;
    let doc = knowledge::parse_json(&file.path, &bytes)?;
    Ok((bytes, doc))
}

/// Extracts one parsed file; without `with_terms`, also encodes its
/// entries' index rows, else tokenises the content of each section the
/// program emitted (looked up by section id).
fn extract_one(
    extractor: &Extractor,
    file: &knowledge::KnowledgeFile,
    (bytes, doc): Parsed,
    with_terms: bool,
) -> Extracted {
    let records = extractor.run(&file.relative, &file.path, doc)?;
    if !with_terms {
        let mut rows = String::new();
        for record in &records {
            if let Record::Entry(entry) = record {
                toon::push_row(&mut rows, entry, false);
            }
        }
        return Ok(FileOutput {
            records,
            candidates: Vec::new(),
            rows,
        });
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let value: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let sections = crate::content::Sections::new(&value);
    let candidates = records
        .iter()
        .filter_map(|r| match r {
            Record::Entry(e) => Some(
                sections
                    .text(crate::model::split_reference(&e.reference).1)
                    .map(|text| crate::terms::candidates(&text))
                    .unwrap_or_default(),
            ),
            Record::Warning(_) => None,
        })
        .collect();
    Ok(FileOutput {
        records,
        candidates,
        rows: String::new(),
    })
}

/// Whether the file at `path` holds exactly `expected`, read in small
/// chunks: an index is hundreds of kilobytes, and reading it whole into
/// fresh memory cost a `kbidx build` of nabledge-6-large about 100 page
/// faults. Any read error counts as "differs".
fn holds(path: &Path, expected: &Text) -> bool {
    use std::io::Read as _;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut pieces = expected.pieces().map(str::as_bytes);
    let mut piece: &[u8] = &[];
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let mut read = match file.read(&mut chunk) {
            Ok(0) => return piece.is_empty() && pieces.all(<[u8]>::is_empty),
            Ok(n) => &chunk[..n],
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        };
        // Match what was read against the pieces, moving to the next piece
        // as each one is used up.
        while !read.is_empty() {
            if piece.is_empty() {
                match pieces.next() {
                    Some(next) => piece = next,
                    None => return false,
                }
                continue;
            }
            let n = read.len().min(piece.len());
            if read[..n] != piece[..n] {
                return false;
            }
            read = &read[n..];
            piece = &piece[n..];
        }
    }
}

/// What [`write`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The file was created or replaced.
    Replaced,
    /// The file already held exactly `text`: left untouched (no write, no
    /// fsync, modification time kept), as a pre-commit hook or `make` wants.
    Unchanged,
}

/// Writes `text` to `path` atomically: a temp file in the same directory,
/// then rename. A regular file that already holds exactly `text` is left
/// alone.
pub fn write(path: &Path, text: &Text) -> Result<Written> {
    // Write through a symbolic link to its target, and never replace
    // anything but a regular file (e.g. `--out /dev/null` is refused).
    let resolved;
    let path = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            resolved = std::fs::canonicalize(path)
                .map_err(|e| Error::io(path, "cannot resolve link", e))?;
            resolved.as_path()
        }
        _ => path,
    };
    let existing = std::fs::metadata(path).ok();
    if let Some(m) = &existing {
        if !m.is_file() {
            return Err(Error::data(path, "output exists and is not a regular file"));
        }
        // Same length first: a changed index rarely keeps its exact size,
        // and then the old file is not read at all.
        if m.len() == text.len() as u64 && holds(path, text) {
            return Ok(Written::Unchanged);
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "cannot create directory", e))?;
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // tempfile's default is 0600; an index is meant to be read by everyone.
        let mode = existing
            .as_ref()
            .map_or(0o644, |m| m.permissions().mode() & 0o7777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let tmp = builder
        .prefix(".kbidx-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, "cannot write", e))?;
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, tmp.as_file());
    text.pieces()
        .try_for_each(|piece| out.write_all(piece.as_bytes()))
        .and_then(|()| out.flush())
        .map_err(|e| Error::io(tmp.path(), "cannot write", e))?;
    drop(out);
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io(tmp.path(), "cannot write", e))?;
    tmp.persist(path)
        .map_err(|e| Error::io(path, "cannot replace", e.error))?;
    Ok(Written::Replaced)
}

/// Whether the index on disk matches a fresh build.
#[derive(Debug, PartialEq, Eq)]
pub enum Freshness {
    /// The file equals the rebuilt text.
    UpToDate,
    /// The file differs (or is missing); a short unified diff, old → new.
    Stale(String),
}

/// Compares `text` (a fresh build) with the file at `path`.
pub fn check(path: &Path, text: &Text) -> Result<Freshness> {
    if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == text.len() as u64)
        && holds(path, text)
    {
        return Ok(Freshness::UpToDate);
    }
    let old = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path, "cannot read", e)),
    };
    let text = text.to_string();
    if old == text {
        return Ok(Freshness::UpToDate);
    }
    Ok(Freshness::Stale(short_diff(
        &display(path),
        &old,
        &text,
        40,
    )))
}

/// A unified diff of at most `max_lines` lines.
fn short_diff(name: &str, old: &str, new: &str, max_lines: usize) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let full = diff
        .unified_diff()
        .context_radius(1)
        .header(&format!("{name} (on disk)"), &format!("{name} (rebuilt)"))
        .to_string();
    let total = full.lines().count();
    if total <= max_lines {
        return full;
    }
    let mut out: String = full
        .lines()
        .take(max_lines)
        .flat_map(|l| [l, "\n"])
        .collect();
    out.push_str(&format!("… {} more diff lines\n", total - max_lines));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_is_short() {
        let old: String = (0..100).map(|i| format!("{i}\n")).collect();
        let new: String = (0..100).map(|i| format!("{}\n", i * 2)).collect();
        let diff = short_diff("i.toon", &old, &new, 10);
        assert_eq!(diff.lines().count(), 11);
        assert!(
            diff.starts_with("--- i.toon (on disk)\n+++ i.toon (rebuilt)\n"),
            "{diff}"
        );
    }

    /// `holds` reads in 16 KiB chunks and walks the pieces alongside: equal,
    /// shorter, longer and different contents on both sides of a chunk
    /// boundary, pieces split anywhere (empty ones too), a missing file.
    #[test]
    fn holds_compares_files_with_pieces_chunk_by_chunk() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("i.toon");
        let big: String = (0..40_000u32)
            .map(|i| char::from(b'a' + u8::try_from(i % 26).unwrap_or(0)))
            .collect();
        let mut changed = big.clone().into_bytes();
        changed[16 * 1024] = b'!';
        let changed = String::from_utf8(changed).expect("ASCII");
        let split = |text: &str, at: &[usize]| -> Vec<String> {
            let mut pieces = Vec::new();
            let mut from = 0;
            for &to in at {
                pieces.push(text[from..to].to_owned());
                from = to;
            }
            pieces.push(text[from..].to_owned());
            pieces
        };
        let chunk = 16 * 1024;
        // (file contents, expected as pieces, holds)
        let cases: Vec<(&str, Vec<String>, bool)> = vec![
            ("", vec![], true),
            ("", vec![String::new(), String::new()], true),
            ("abc", split("abc", &[]), true),
            ("abc", split("abc", &[0, 1, 1, 3]), true),
            ("abc", split("abd", &[1]), false),
            ("abc", split("ab", &[1]), false),
            ("ab", split("abc", &[2]), false),
            ("abc", vec![], false),
            (&big, split(&big, &[]), true),
            (
                &big,
                split(&big, &[5, chunk - 1, chunk, chunk + 1, 39_999]),
                true,
            ),
            (&big, split(&changed, &[chunk]), false),
            (&big, split(&changed, &[chunk + 1]), false),
            (&big[..chunk], split(&big, &[chunk]), false),
            (&big, split(&big[..chunk], &[100]), false),
        ];
        for (i, (on_disk, pieces, want)) in cases.into_iter().enumerate() {
            std::fs::write(&path, on_disk).expect("write");
            assert_eq!(holds(&path, &Text::from_pieces(pieces)), want, "case {i}");
        }
        assert!(!holds(&dir.path().join("missing"), &Text::default()));
    }

    /// A text written in pieces reads back whole, and `check` agrees.
    #[test]
    fn pieces_are_written_and_checked_as_one_text() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("index").join("i.toon");
        let text = Text::from_pieces(vec!["a[2]:\n".into(), "  x\n".into(), "  y\n".into()]);
        assert_eq!(write(&path, &text).expect("write"), Written::Replaced);
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "a[2]:\n  x\n  y\n"
        );
        assert_eq!(write(&path, &text).expect("write"), Written::Unchanged);
        assert_eq!(check(&path, &text).expect("check"), Freshness::UpToDate);
        let other = Text::from("a[2]:\n  x\n  z\n".to_owned());
        assert!(matches!(check(&path, &other), Ok(Freshness::Stale(_))));
    }

    /// Whatever thread meets it first, the error reported is the one a
    /// sequential build meets first: program, directory, then files in path
    /// order (a failing file, a warning under --strict, a duplicate).
    #[test]
    fn the_first_problem_in_sequential_order_is_reported() {
        let ok = r#"{"index":[{"id":"a","hints":[]}],"sections":{"a":""}}"#;
        let orphan = r#"{"index":[],"sections":{"x":""}}"#;
        let dup = r#"{"id":"d","index":[{"id":"a","hints":[]}],"sections":{"a":""}}"#;
        // (knowledge files, replacement program, start of the message)
        type Case<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>, &'a str);
        let cases: &[Case] = &[
            (
                &[("a.json", "{"), ("b.json", orphan)],
                None,
                "a.json:1:1: invalid JSON",
            ),
            (
                &[("a.json", orphan), ("b.json", "{")],
                None,
                "a.json: section \"x\" has no index entry (--strict)",
            ),
            (
                &[("a.json", ok), ("b.json", orphan), ("c.json", "{")],
                None,
                "b.json: section",
            ),
            (
                &[("a.json", ok), ("b.json", "[1"), ("c.json", orphan)],
                None,
                "b.json:1:",
            ),
            (
                &[("x/a.json", dup), ("x/b.json", "{"), ("y.json", dup)],
                None,
                "x/b.json:1:",
            ),
            (&[("a.json", "{")], Some(".["), "bad.jq:1:3"),
            (&[], Some(".["), "bad.jq:1:3"),
        ];
        for (files, program, want) in cases {
            let dir = tempfile::tempdir().expect("temp dir");
            let knowledge = dir.path().join("k");
            for (name, text) in *files {
                let path = knowledge.join(name);
                let parent = path.parent().expect("file in a directory");
                std::fs::create_dir_all(parent).expect("mkdir");
                std::fs::write(path, text).expect("write knowledge");
            }
            std::fs::create_dir_all(&knowledge).expect("mkdir");
            let filter = program.map(|code| {
                let path = dir.path().join("bad.jq");
                std::fs::write(&path, code).expect("write program");
                path
            });
            let options = BuildOptions {
                knowledge: knowledge.clone(),
                filter,
                include: vec!["**/*.json".to_owned()],
                exclude: Vec::new(),
                strict: true,
                terms: 0,
            };
            // Several runs: the threads' timing differs from run to run.
            for _ in 0..5 {
                let message = build(&options).expect_err("must fail").to_string();
                let message = message.replace(&format!("{}/", knowledge.display()), "");
                let message = message.replace(&format!("{}/", dir.path().display()), "");
                assert!(message.starts_with(want), "{files:?}: {message}");
            }
        }
    }
}
