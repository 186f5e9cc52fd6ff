//! Read-only access to the index file for a search: memory-mapped when possible.
//!
//! A search reads every byte of the index once. Mapping the file lets it scan
//! the page cache directly: no read into a fresh buffer, whose pages the
//! kernel would first have to zero (on a 33 MB index that zeroing and copying
//! cost more than the search itself). Files that cannot be mapped (pipes,
//! special files, empty files) are read into memory instead.
//!
//! This is the one place in kbidx with `unsafe` code: a mapping is only sound
//! while nobody truncates or rewrites the file in place. `kbidx build` never
//! does that (it writes a temporary file and renames it over the index, so a
//! mapped old index stays intact); a tool that rewrote the index in place
//! during a search could make that search fail with SIGBUS, as with ripgrep's
//! memory maps.

use std::fs::File;
use std::path::Path;

use crate::error::{Error, Result};

/// The bytes of an index file.
#[derive(Debug)]
pub enum IndexFile {
    /// Mapped read-only.
    Mapped(memmap2::Mmap),
    /// Read into memory.
    Read(Vec<u8>),
}

impl IndexFile {
    /// Opens `path`, mapping it when it is a non-empty regular file.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| {
            let action = if e.kind() == std::io::ErrorKind::NotFound {
                "cannot read index (run `kbidx build` first?)"
            } else {
                "cannot read index"
            };
            Error::io(path, action, e)
        })?;
        let regular = file.metadata().is_ok_and(|m| m.is_file() && m.len() > 0);
        if regular && let Ok(map) = map(&file) {
            return Ok(Self::Mapped(map));
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut &file, &mut bytes)
            .map_err(|e| Error::io(path, "cannot read index", e))?;
        Ok(Self::Read(bytes))
    }

    /// The file's contents.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Self::Mapped(map) => map,
            Self::Read(bytes) => bytes,
        }
    }
}

#[allow(unsafe_code)]
fn map(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the mapping is read-only and lives as long as the search. It is
    // sound unless the file is truncated or rewritten in place meanwhile; see
    // the module docs for why kbidx accepts that (as ripgrep does).
    unsafe { memmap2::Mmap::map(file) }
}

/// The index text, checked to be UTF-8 (with SIMD: this runs on every search).
pub(crate) fn index_text<'a>(path: &std::path::Path, bytes: &'a [u8]) -> Result<&'a str> {
    simdutf8::basic::from_utf8(bytes).map_err(|_| {
        let valid = std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
        let text = String::from_utf8_lossy(&bytes[..valid]);
        Error::syntax_at(path, &text, valid, "invalid UTF-8")
    })
}

#[cfg(test)]
mod tests {
    use super::IndexFile;

    #[test]
    fn maps_regular_files_and_reads_empty_ones() -> crate::Result<()> {
        let dir = tempfile::tempdir().map_err(|e| crate::Error::io("<tmp>", "mkdir", e))?;
        let full = dir.path().join("i.toon");
        let empty = dir.path().join("e.toon");
        std::fs::write(&full, "sections[0]{reference,hints}:\n")
            .and_then(|()| std::fs::write(&empty, ""))
            .map_err(|e| crate::Error::io("<tmp>", "write", e))?;
        let mapped = IndexFile::open(&full)?;
        assert!(matches!(mapped, IndexFile::Mapped(_)));
        assert_eq!(mapped.bytes(), b"sections[0]{reference,hints}:\n");
        let read = IndexFile::open(&empty)?;
        assert!(matches!(read, IndexFile::Read(_)));
        assert!(read.bytes().is_empty());
        assert!(IndexFile::open(&dir.path().join("missing.toon")).is_err());
        Ok(())
    }
}
