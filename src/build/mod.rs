//! The build stage: knowledge files → extraction → index → TOON text → disk.
//!
//! `crate::knowledge` finds and reads the knowledge files, `extract` runs the
//! jq program over each, `terms` derives each section's distinctive words.
//!
//! [`build`] produces the index text in memory (it never writes); [`write`]
//! replaces the index file atomically (temp file in the same directory, then
//! rename), and [`check`] compares the text with the file on disk and returns
//! a short unified diff when they differ.

pub mod extract;
pub(crate) mod terms;

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::build::extract::{Extractor, Record};
use crate::error::{Error, Result, display};
use crate::index::model::Index;
use crate::index::toon;
use crate::knowledge;
use crate::knowledge::content::{FieldLeftOut, LeftOut};

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
    pub text: String,
    /// How many knowledge files were read.
    pub files: usize,
    /// Warnings, each prefixed with the file it is about.
    pub warnings: Vec<String>,
    /// The links between sections that resolve (see `crate::links`), in
    /// index order, then in order of appearance; no duplicates, no self-links.
    pub links: Vec<crate::links::Link>,
    /// Their TOON encoding: what goes into `links.toon` next to the index.
    pub links_text: String,
    /// Characters of the knowledge's string content that no row holds,
    /// by where they sit (0 with the built-in program on the corpora it
    /// knows; a `--filter` that drops text shows here).
    pub left_out: LeftOut,
    /// The files with content left out, in file order, with their counts.
    pub left_out_files: Vec<(String, LeftOut)>,
    /// The top-level fields that are not indexed (neither page text nor
    /// structure or metadata), by name, summed over the files.
    pub left_out_fields: Vec<FieldLeftOut>,
}

/// [`build`], stopped with [`Error::Timeout`] when it takes longer than
/// `limit`: a `--filter` program that never ends (`def f: f; f`) must not hang
/// a pre-commit hook. jaq cannot be interrupted, so the build runs on its own
/// thread and is abandoned on time-out; the caller reports the error and the
/// process exits with it. Nothing is written either way ([`build`] never writes).
pub fn build_within(options: &BuildOptions, limit: std::time::Duration) -> Result<Built> {
    let (send, receive) = std::sync::mpsc::channel();
    let owned = options.clone();
    std::thread::Builder::new()
        .name("kbidx-build".into())
        .spawn(move || {
            // The receiver is gone only after a time-out; nobody wants the result then.
            let _ = send.send(build(&owned));
        })
        .map_err(|e| Error::io(&options.knowledge, "cannot start the build thread", e))?;
    match receive.recv_timeout(limit) {
        Ok(built) => built,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(Error::Timeout {
            program: options
                .filter
                .clone()
                .unwrap_or_else(|| PathBuf::from(crate::build::extract::DEFAULT_PROGRAM_PATH)),
            seconds: limit.as_secs(),
        }),
        // The build thread panicked (it does not on any input): re-raise it.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("the build thread stopped without a result")
        }
    }
}

/// The extraction program `filter` (`None`: the built-in one), compiled.
pub fn extractor(filter: Option<&Path>) -> Result<Extractor> {
    match filter {
        Some(path) => {
            let code = std::fs::read_to_string(path)
                .map_err(|e| Error::io(path, "cannot read filter", e))?;
            Extractor::new(&code, path)
        }
        None => Extractor::builtin(),
    }
}

/// Builds the index from `options.knowledge` without touching the disk.
pub fn build(options: &BuildOptions) -> Result<Built> {
    let extractor = extractor(options.filter.as_deref())?;
    let found = knowledge::discover_some(&options.knowledge, &options.include, &options.exclude)?;
    let with_terms = options.terms > 0;
    let extracted = extract_all(&extractor, &found.files, with_terms);
    // Checked in file and record order before anything is moved, so the
    // first problem (a file that failed, a warning under --strict or a
    // duplicate reference) is the one a sequential build would report.
    let mut warnings = found.warnings;
    let mut origin: HashMap<&str, usize> = HashMap::new();
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
    let mut candidates: Vec<Vec<(String, u32)>> = Vec::new();
    let mut raw_links: Vec<Vec<String>> = Vec::new();
    let mut anchors = HashMap::new();
    let mut left_out = LeftOut::default();
    let mut left_out_files = Vec::new();
    let mut left_out_fields: std::collections::BTreeMap<String, FieldLeftOut> =
        std::collections::BTreeMap::new();
    for (file, extracted) in found.files.iter().zip(extracted) {
        if extracted.left_out.total() > 0 {
            left_out.add(extracted.left_out);
            left_out_files.push((file.relative.clone(), extracted.left_out));
        }
        for field in &extracted.left_out_fields {
            left_out_fields
                .entry(field.name.clone())
                .and_modify(|sum| sum.add(field))
                .or_insert_with(|| field.clone());
        }
        let mut file_candidates = extracted.candidates.into_iter();
        let mut file_links = extracted.links.into_iter();
        for record in extracted.records {
            if let Record::Entry(entry) = record {
                index.entries.push(entry);
                candidates.push(file_candidates.next().unwrap_or_default());
                raw_links.push(file_links.next().unwrap_or_default());
            }
        }
        anchors.insert(file.relative.clone(), extracted.anchors);
    }
    let links = resolve_links(&index, &raw_links, &anchors);
    if with_terms {
        let covered: Vec<String> = index
            .entries
            .iter()
            .map(|e| crate::text::normalize::normalize(&format!("{} {}", e.title, e.hints)))
            .collect();
        let picked = crate::build::terms::select(&candidates, &covered, options.terms);
        for (entry, terms) in index.entries.iter_mut().zip(picked) {
            entry.terms = terms;
        }
    }
    let text = toon::encode(&index);
    Ok(Built {
        index,
        text,
        files: found.files.len(),
        warnings,
        links_text: crate::links::encode(&links),
        links,
        left_out,
        left_out_files,
        left_out_fields: left_out_fields.into_values().collect(),
    })
}

/// The links of every row (`raw`, parallel to the index's entries) that
/// resolve against the files' `anchors`; broken ones are left to `kbidx lint`.
fn resolve_links(
    index: &Index,
    raw: &[Vec<String>],
    anchors: &HashMap<String, crate::links::resolve::Anchors>,
) -> Vec<crate::links::Link> {
    let mut links = Vec::new();
    for (entry, targets) in index.entries.iter().zip(raw) {
        let mut seen = std::collections::HashSet::new();
        for target in targets {
            let Ok(crate::links::resolve::Target::Section(to)) =
                crate::links::resolve::resolve(entry.file(), target, anchors)
            else {
                continue;
            };
            if to != entry.reference && seen.insert(to.clone()) {
                links.push(crate::links::Link {
                    from: entry.reference.clone(),
                    to,
                });
            }
        }
    }
    links
}

/// What one knowledge file gave.
struct FileOutput {
    /// The program's records, in order.
    records: Vec<Record>,
    /// The term candidates of each entry record, in order (empty unless
    /// terms are derived).
    candidates: Vec<Vec<(String, u32)>>,
    /// The link targets in the text of each entry record, in order.
    links: Vec<Vec<String>>,
    /// What links into this file can name.
    anchors: crate::links::resolve::Anchors,
    /// Its string content that no row holds.
    left_out: LeftOut,
    /// Its top-level fields that are not indexed.
    left_out_fields: Vec<FieldLeftOut>,
}

/// Reads and extracts every file with one compiled program, on as many
/// scoped threads as there are CPUs (at most 8): jaq values are not `Send`,
/// but the compiled program is `Sync`, so each thread reads, parses and
/// extracts whole files, taking the next one from a shared counter.
///
/// Returns one result per file, in file order, up to and including the first
/// failing file (later files are skipped), so the error reported is the one a
/// sequential run meets first.
fn extract_all(
    extractor: &Extractor,
    files: &[knowledge::KnowledgeFile],
    with_terms: bool,
) -> Vec<Result<FileOutput>> {
    let next = AtomicUsize::new(0);
    let first_error = AtomicUsize::new(usize::MAX);
    let progress = crate::progress::Progress::new("build", files.len(), "files");
    let work = || {
        let mut out = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= files.len() || i > first_error.load(Ordering::Relaxed) {
                return out;
            }
            let extracted = extract_one(extractor, &files[i], with_terms);
            progress.advance(1);
            if extracted.is_err() {
                first_error.fetch_min(i, Ordering::Relaxed);
            }
            out.push((i, extracted));
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8)
        .min(files.len());
    let mut all = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut all = work();
        for helper in helpers {
            // Extraction does not panic on any input; if it did, re-raise it here.
            all.extend(
                helper
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    let stop = first_error.into_inner();
    all.into_iter()
        .take_while(|(i, _)| *i <= stop)
        .map(|(_, extracted)| extracted)
        .collect()
}

/// Reads, parses and extracts one file, and finds the links in the content
/// of each section the program emitted (looked up by section id); with
/// `with_terms`, also tokenises that content into term candidates.
fn extract_one(
    extractor: &Extractor,
    file: &knowledge::KnowledgeFile,
    with_terms: bool,
) -> Result<FileOutput> {
    let document = knowledge::read(&file.path)?;
    let outputs = extractor.run_with_links(&file.relative, &file.path, document.to_jaq())?;
    let sections = crate::knowledge::content::Sections::new(document.value());
    let mut candidates = Vec::new();
    let mut links = Vec::new();
    let mut records = Vec::with_capacity(outputs.len());
    let mut held = String::new();
    for (record, program_links) in outputs {
        let Record::Entry(e) = &record else {
            records.push(record);
            continue;
        };
        let id = row_section(e, &file.relative);
        let text = sections.text(id).unwrap_or_default();
        for part in [&e.title, &e.hints, &text] {
            held.push_str(part);
            held.push('\n');
        }
        // Links the program names replace those found in the text.
        links.push(program_links.unwrap_or_else(|| {
            crate::links::markdown::knowledge_links(&text)
                .into_iter()
                .map(|l| l.target)
                .collect()
        }));
        if with_terms {
            candidates.push(crate::build::terms::candidates(&text));
        }
        records.push(record);
    }
    let anchors = crate::links::resolve::Anchors::of(document.value()).with_rows(
        records.iter().filter_map(|r| match r {
            Record::Entry(e) => Some(e.section()),
            Record::Warning(_) => None,
        }),
    );
    let (left_out, left_out_fields) = crate::knowledge::content::left_out(document.value(), &held);
    Ok(FileOutput {
        records,
        candidates,
        links,
        anchors,
        left_out,
        left_out_fields,
    })
}

/// The section id of `entry`, a row the program made of the knowledge file
/// `relative`: what its reference names after `relative#` (an id may hold a
/// `/`, where [`crate::index::model::Entry::section`] would cut it), else the
/// reference's section part.
pub(crate) fn row_section<'a>(entry: &'a crate::index::model::Entry, relative: &str) -> &'a str {
    entry
        .reference
        .strip_prefix(relative)
        .and_then(|r| r.strip_prefix('#'))
        .unwrap_or_else(|| entry.section())
}

/// Whether the file at `path` holds exactly `expected` (any read error counts as "differs").
fn holds(path: &Path, expected: &str) -> bool {
    std::fs::read(path).is_ok_and(|bytes| bytes == expected.as_bytes())
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
pub fn write(path: &Path, text: &str) -> Result<Written> {
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
    tmp.as_file()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io(tmp.path(), "cannot write", e))?;
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
pub fn check(path: &Path, text: &str) -> Result<Freshness> {
    let old = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path, "cannot read", e)),
    };
    if old == text {
        return Ok(Freshness::UpToDate);
    }
    Ok(Freshness::Stale(short_diff(&display(path), &old, text, 40)))
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

    /// A written text reads back whole, is left alone when unchanged, and `check` agrees.
    #[test]
    fn written_text_is_checked() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("index").join("i.toon");
        let text = "a[2]:\n  x\n  y\n";
        assert_eq!(write(&path, text).expect("write"), Written::Replaced);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
        assert_eq!(write(&path, text).expect("write"), Written::Unchanged);
        assert_eq!(check(&path, text).expect("check"), Freshness::UpToDate);
        assert!(matches!(
            check(&path, "a[2]:\n  x\n  z\n"),
            Ok(Freshness::Stale(_))
        ));
        assert!(!holds(&dir.path().join("missing"), ""));
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
