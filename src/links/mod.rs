//! Links between sections: found in the section text at build time,
//! resolved to references, and kept in `links.toon` next to the index.
//!
//! Why a second file rather than a `links` column in `index/index.toon`:
//! every search reads (and the cache hashes) the whole index, and an agent
//! reading the index directly wants one short line per section; outgoing
//! references are long paths (nabledge-6-fulltext's 2,867 links take 356 KB,
//! a fifth of its 1.8 MB index) that only `read --links`, `search --expand` and
//! `lint` need. One row per link (`from,to`) also gives backlinks with a
//! scan of one small file, and a row is readable on its own.
//!
//! `markdown` finds link targets in section text, `resolve` turns a target
//! into a reference (the slug rule is documented there), `expand` finds the
//! linked neighbours of search results.

pub(crate) mod expand;
pub(crate) mod markdown;
pub(crate) mod resolve;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::index::toon;

/// The key of the links file's tabular array.
const KEY: &str = "links";

/// One resolved link: section `from` links to section `to`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Link {
    /// The linking section's reference.
    pub from: String,
    /// The linked section's reference.
    pub to: String,
}

/// The links file that belongs to the index file `index`, in the same
/// directory: `links.toon` for `index.toon`, else `NAME.links.toon` for
/// `NAME.toon` (or `NAME`), so that two indexes in one directory do not
/// share one links file.
pub fn path_for(index: &Path) -> PathBuf {
    let name = index
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".toon").unwrap_or(&name);
    if stem == "index" {
        index.with_file_name("links.toon")
    } else {
        index.with_file_name(format!("{stem}.links.toon"))
    }
}

/// `links[N]{from,to}:` and one row per link, in the order given (the build
/// gives index order, then order of appearance), each line ending in `\n`.
pub fn encode(links: &[Link]) -> String {
    let rows: Vec<Vec<String>> = links
        .iter()
        .map(|link| vec![toon::quote(&link.from, ','), toon::quote(&link.to, ',')])
        .collect();
    let mut out = String::new();
    toon::push_table(&mut out, KEY, &["from", "to"], &rows);
    out
}

/// Reads the links file at `path` (written by [`encode`]; any TOON quoting
/// is accepted). A missing file is an error that says to run `kbidx build`.
pub fn load(path: &Path) -> Result<Vec<Link>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::data(
                path,
                "no links file: run `kbidx build` (kbidx writes it next to the index)",
            ));
        }
        Err(e) => return Err(Error::io(path, "cannot read", e)),
    };
    decode(path, &text)
}

/// Parses the text of a links file.
pub fn decode(path: &Path, text: &str) -> Result<Vec<Link>> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let mut offset = bom;
    let mut lines = body.split('\n').map(|line| {
        let at = offset;
        offset += line.len() + 1;
        (at, line.strip_suffix('\r').unwrap_or(line))
    });
    let header = lines.next().map(|(_, l)| l).unwrap_or_default();
    let declared = header
        .strip_prefix("links[")
        .and_then(|rest| rest.strip_suffix("]{from,to}:"))
        .and_then(|n| n.parse::<usize>().ok())
        .ok_or_else(|| Error::syntax_at(path, text, bom, "expected `links[N]{from,to}:`"))?;
    let mut table = toon::Table {
        delimiter: b',',
        columns: 2,
        reference: 0,
        hints: 1,
        bom,
        ..toon::Table::default()
    };
    for (at, line) in lines {
        if line.is_empty() {
            continue;
        }
        if !line.starts_with("  ") {
            return Err(Error::syntax_at(
                path,
                text,
                at,
                "expected a row indented by 2 spaces",
            ));
        }
        let start = u32::try_from(at + 2).map_err(|_| Error::data(path, "links file too large"))?;
        let end = u32::try_from(at + line.len())
            .map_err(|_| Error::data(path, "links file too large"))?;
        table.rows.push((start, end));
    }
    if table.rows.len() != declared {
        return Err(Error::data(
            path,
            format!(
                "declares {declared} links but has {} rows",
                table.rows.len()
            ),
        ));
    }
    let mut links = Vec::with_capacity(declared);
    let mut cells: Vec<Cow<'_, str>> = Vec::with_capacity(2);
    for row in 0..table.rows.len() {
        cells.clear();
        table.cells(path, text, row, &mut cells)?;
        links.push(Link {
            from: cells[0].to_string(),
            to: cells[1].to_string(),
        });
    }
    Ok(links)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_file_names() {
        for (index, want) in [
            ("index/index.toon", "index/links.toon"),
            ("out/small.toon", "out/small.links.toon"),
            ("x.toon.again", "x.toon.again.links.toon"),
        ] {
            assert_eq!(path_for(Path::new(index)), Path::new(want), "{index}");
        }
    }

    #[test]
    fn links_round_trip() {
        let links = vec![
            Link {
                from: "a.json#s1".into(),
                to: "b/c.json#s2".into(),
            },
            Link {
                from: "my notes.json#a,b".into(),
                to: "#x".into(),
            },
        ];
        let text = encode(&links);
        assert_eq!(
            text,
            "links[2]{from,to}:\n  a.json#s1,b/c.json#s2\n  \"my notes.json#a,b\",\"#x\"\n"
        );
        assert_eq!(
            decode(Path::new("l.toon"), &text).map_err(|e| e.to_string()),
            Ok(links)
        );
        assert_eq!(encode(&[]), "links[0]{from,to}:\n");
        for (bad, message) in [
            (
                "sections[1]{a}:\n",
                "l.toon:1:1: expected `links[N]{from,to}:`",
            ),
            (
                "links[2]{from,to}:\n  a,b\n",
                "l.toon: declares 2 links but has 1 rows",
            ),
            (
                "links[1]{from,to}:\n  a\n",
                "l.toon:2:3: expected 2 cells, found 1 (quote cells that contain `,`)",
            ),
            (
                "links[1]{from,to}:\nx,y\n",
                "l.toon:2:1: expected a row indented by 2 spaces",
            ),
        ] {
            let got = decode(Path::new("l.toon"), bad)
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert_eq!(got, Err(message.to_owned()), "{bad}");
        }
    }
}
