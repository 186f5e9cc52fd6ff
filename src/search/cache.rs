//! The search cache: the word index of each index file searched, kept on disk
//! so that the next search looks words up instead of scanning every row.
//!
//! An entry is named after the index file's canonical path and records the
//! hash of the index text it was built from (and the kbidx version), so a
//! rebuilt, edited or moved-over index is never answered from a stale entry:
//! [`Cache::matcher`] hashes the index text on every search (xxh3, about 0.1 ms
//! per megabyte) and rebuilds the entry when anything differs. Entries are
//! written to a temporary file and renamed, like the index, and at most
//! [`KEEP`] are kept. The cache is an accelerator only: results are identical
//! with and without it, and when its directory cannot be written the search
//! goes on without it. Directory: `$KBIDX_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/kbidx`, else `$HOME/.cache/kbidx`; `KBIDX_CACHE_DIR=""`,
//! `--no-cache` or `cache = false` in kbidx.toml turn it off.

use std::borrow::Cow;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use crate::error::Result;
use crate::index::file::IndexFile;
use crate::search::body::BodyIndex;
use crate::search::{Matcher, WordIndex, text_hash};

/// Entries kept in the cache directory (the least recently written go first).
pub(crate) const KEEP: usize = 32;
/// File name extension of an entry.
const EXTENSION: &str = "kbidx-words";
/// File name extension of a body-index entry.
const BODY_EXTENSION: &str = "kbidx-body";

/// Where the search cache lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cache {
    dir: PathBuf,
}

/// What [`Cache::prime`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Primed {
    /// Whether it wrote an entry.
    pub(crate) wrote: bool,
    /// The knowledge is over `body_limit`: no body entry was built (and no
    /// search will build one).
    pub(crate) over: Option<crate::search::limit::Oversize>,
}

impl Cache {
    /// A cache in `dir`.
    pub(crate) fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The cache directory from the environment (see module docs); `None` when it is turned off
    /// or no directory is known.
    pub(crate) fn from_env() -> Option<Self> {
        let var = |name: &str| std::env::var_os(name);
        if let Some(dir) = var("KBIDX_CACHE_DIR") {
            return (!dir.is_empty()).then(|| Self::new(dir));
        }
        if let Some(dir) = var("XDG_CACHE_HOME").filter(|d| Path::new(d).is_absolute()) {
            return Some(Self::new(Path::new(&dir).join("kbidx")));
        }
        var("HOME")
            .filter(|d| !d.is_empty())
            .map(|home| Self::new(Path::new(&home).join(".cache").join("kbidx")))
    }

    /// The entry for the index file `path` (`None` if its path cannot be resolved).
    pub(crate) fn entry(&self, path: &Path) -> Option<PathBuf> {
        let canonical = std::fs::canonicalize(path).ok()?;
        let key = xxh3_64(canonical.as_os_str().as_encoded_bytes());
        Some(self.dir.join(format!("{key:016x}.{EXTENSION}")))
    }

    /// Prepares `text`, the contents of the index file `path`, for searching:
    /// from its cache entry when that is valid for `text`, else by checking
    /// `text` (errors as [`Matcher::from_text`]), building its word index and
    /// storing it (failures to store are ignored). Also says whether the
    /// entry was used.
    pub(crate) fn matcher<'a>(
        &self,
        path: &Path,
        text: Cow<'a, str>,
    ) -> Result<(Matcher<'a>, bool)> {
        let hash = text_hash(&text);
        let entry = self.entry(path);
        if let Some(words) = entry.as_deref().and_then(|e| cached_words(e, hash, &text)) {
            return Ok((Matcher::from_words(path, text, words), true));
        }
        let matcher = Matcher::from_text_with_words(path, text, hash)?;
        if let (Some(entry), Some(words)) = (entry, matcher.words()) {
            // Best effort: a search never fails because its cache cannot be written.
            let _ = self.store(&entry, words.as_bytes());
        }
        Ok((matcher, false))
    }

    /// The body-index entry for the index file `path` (see `body`).
    pub(crate) fn body_entry(&self, path: &Path) -> Option<PathBuf> {
        self.entry(path).map(|e| e.with_extension(BODY_EXTENSION))
    }

    /// Writes the entries the first search of the index file `path` would
    /// write, unless valid ones are there: its word index (`text` is the
    /// file's contents) and, given the knowledge directory `knowledge` (the
    /// body stage is on), its body index when the knowledge is at most
    /// `limit` bytes (`body_limit`, see `limit`: above it no command builds
    /// one). `kbidx build` calls this so that no search builds a cache. Says
    /// whether anything was written, and whether the knowledge is over the
    /// cap; an entry that cannot be stored is an error, which `build`
    /// reports as a warning only.
    pub(crate) fn prime(
        &self,
        path: &Path,
        text: &str,
        knowledge: Option<&Path>,
        limit: u64,
    ) -> Result<Primed> {
        let io = |e| crate::Error::io(&self.dir, "cannot write the search cache", e);
        let entry = self.entry(path).ok_or_else(|| {
            io(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("cannot resolve {}", path.display()),
            ))
        })?;
        let hash = text_hash(text);
        let mut wrote = false;
        let matcher = match cached_words(&entry, hash, text) {
            Some(words) => Matcher::from_words(path, Cow::Borrowed(text), words),
            None => {
                let matcher = Matcher::from_text_with_words(path, Cow::Borrowed(text), hash)?;
                if let Some(words) = matcher.words() {
                    self.store(&entry, words.as_bytes()).map_err(io)?;
                    wrote = true;
                }
                matcher
            }
        };
        let mut over = None;
        if let Some(knowledge) = knowledge {
            let body_entry = entry.with_extension(BODY_EXTENSION);
            let entries = matcher.entries();
            if cached_body(&body_entry, hash, knowledge).is_none() {
                over = crate::search::limit::check(
                    entries.iter().map(|e| &e.reference),
                    knowledge,
                    limit,
                );
                if over.is_none() {
                    let body = BodyIndex::build(&entries, knowledge, hash);
                    self.store(&body_entry, body.as_bytes()).map_err(io)?;
                    wrote = true;
                }
            }
        }
        Ok(Primed { wrote, over })
    }

    pub(crate) fn store(&self, entry: &Path, bytes: &[u8]) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&self.dir)?;
        tmp.write_all(bytes)?;
        tmp.persist(entry).map_err(|e| e.error)?;
        self.evict();
        Ok(())
    }

    /// Removes the oldest entries beyond [`KEEP`].
    fn evict(&self) {
        let Ok(read) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut entries: Vec<(std::time::SystemTime, PathBuf)> = read
            .filter_map(|e| {
                let e = e.ok()?;
                let path = e.path();
                let extension = path.extension()?;
                if extension != EXTENSION && extension != BODY_EXTENSION {
                    return None;
                }
                Some((e.metadata().ok()?.modified().ok()?, path))
            })
            .collect();
        // Each index has a word entry and, once its body stage ran, a body entry.
        if entries.len() <= 2 * KEEP {
            return;
        }
        entries.sort();
        for (_, path) in &entries[..entries.len() - 2 * KEEP] {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The word index stored in `entry`, if it is valid for the index text `text` (hash `hash`).
fn cached_words(entry: &Path, hash: u128, text: &str) -> Option<WordIndex> {
    WordIndex::from_file(IndexFile::open(entry).ok()?, hash, text)
}

/// The body index stored in `entry`, if it is valid for the index text hash
/// `hash` and the files of `knowledge` as they are now.
pub(crate) fn cached_body(entry: &Path, hash: u128, knowledge: &Path) -> Option<BodyIndex> {
    let file = crate::timings::time("body map", || IndexFile::open(entry)).ok()?;
    BodyIndex::from_file(file, Some(hash), knowledge)
}

/// The body index `cache` holds for the index file `path`, if the files of
/// `knowledge` are unchanged, whatever index text it was built for: a search
/// maps and checks it while the index itself is read, then keeps it only if
/// [`BodyIndex::built_for`] that index's text.
pub(crate) fn prefetch_body(cache: &Cache, path: &Path, knowledge: &Path) -> Option<BodyIndex> {
    let entry = cache.body_entry(path)?;
    let file = crate::timings::time("body map", || IndexFile::open(&entry)).ok()?;
    BodyIndex::from_file(file, None, knowledge)
}

/// Checks the index text `text` (of the file `path`) and prepares it for
/// searching: from its search-cache entry when `cache` is on (see `cache`),
/// else by checking every row.
pub(crate) fn prepare_index<'a>(
    path: &Path,
    text: Cow<'a, str>,
    cache: Option<&Cache>,
) -> Result<Matcher<'a>> {
    match cache {
        Some(cache) => Ok(cache.matcher(path, text)?.0),
        None => Matcher::from_text(path, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Level, Query, Scoring};

    fn io<T>(r: std::io::Result<T>) -> Result<T> {
        r.map_err(|e| crate::Error::io("<tmp>", "test", e))
    }

    #[test]
    fn entries_are_stored_reused_and_replaced() -> Result<()> {
        let dir = io(tempfile::tempdir())?;
        let cache = Cache::new(dir.path().join("cache"));
        let index = dir.path().join("i.toon");
        let old = "sections[2]{reference,hints}:\n  a.json#x,paging\n  b.json#y,per page\n";
        io(std::fs::write(&index, old))?;
        let mut query = Query::default();
        query.push("paging", Level::L3, 1.0);
        let search = |text: &'static str| -> Result<(Vec<usize>, bool)> {
            let (matcher, hit) = cache.matcher(&index, Cow::Borrowed(text))?;
            let hits = matcher.search(&query, Scoring::Default, 10, None).hits;
            Ok((hits.iter().map(|h| h.row).collect(), hit))
        };
        assert_eq!(search(old)?, (vec![0], false));
        let entry = cache
            .entry(&index)
            .ok_or_else(|| crate::Error::data("x", "no entry"))?;
        let stored = io(std::fs::read(&entry))?;
        assert_eq!(search(old)?, (vec![0], true), "a valid entry is used");

        // Another text for the same path replaces the entry.
        let new = "sections[2]{reference,hints}:\n  a.json#x,other\n  b.json#y,paging\n";
        io(std::fs::write(&index, new))?;
        assert_eq!(search(new)?, (vec![1], false));
        assert_ne!(io(std::fs::read(&entry))?, stored);
        assert_eq!(search(new)?, (vec![1], true));

        // A damaged entry is rebuilt, not trusted.
        io(std::fs::write(&entry, b"KBIDXWI\0garbage"))?;
        assert_eq!(search(new)?, (vec![1], false));
        assert_eq!(search(new)?, (vec![1], true));
        Ok(())
    }

    /// `prime` (what `kbidx build` runs) writes both entries once; a search then only maps them.
    #[test]
    fn primed_entries_are_written_once_and_used() -> Result<()> {
        let dir = io(tempfile::tempdir())?;
        let knowledge = dir.path().join("k");
        io(std::fs::create_dir_all(&knowledge))?;
        io(std::fs::write(
            knowledge.join("a.json"),
            r#"{"index":[{"id":"x","hints":["paging"]}],"sections":{"x":"paging text"}}"#,
        ))?;
        let cache = Cache::new(dir.path().join("cache"));
        let index = dir.path().join("i.toon");
        let text = "sections[1]{reference,hints}:\n  a.json#x,paging\n";
        io(std::fs::write(&index, text))?;
        let primes = [
            (None, true),              // the word entry only
            (None, false),             // valid: nothing to write
            (Some(&*knowledge), true), // the body entry too
            (Some(&*knowledge), false),
        ];
        for (i, (knowledge, writes)) in primes.into_iter().enumerate() {
            let limit = crate::search::DEFAULT_BODY_LIMIT;
            assert_eq!(
                cache.prime(&index, text, knowledge, limit)?.wrote,
                writes,
                "prime {i}"
            );
        }
        let (_, hit) = cache.matcher(&index, Cow::Borrowed(text))?;
        assert!(hit, "the search built the word entry again");
        let body = cache
            .body_entry(&index)
            .and_then(|e| cached_body(&e, text_hash(text), &knowledge));
        assert_eq!(body.map(|b| b.rows()), Some(1));
        Ok(())
    }

    #[test]
    fn unwritable_cache_directories_are_ignored() -> Result<()> {
        let dir = io(tempfile::tempdir())?;
        let blocker = dir.path().join("file");
        io(std::fs::write(&blocker, "not a directory"))?;
        let cache = Cache::new(blocker.join("cache"));
        let index = dir.path().join("i.toon");
        let text = "sections[1]{reference,hints}:\n  a.json#x,paging\n";
        io(std::fs::write(&index, text))?;
        let (matcher, hit) = cache.matcher(&index, Cow::Borrowed(text))?;
        assert_eq!((matcher.len(), hit), (1, false));
        Ok(())
    }
}
