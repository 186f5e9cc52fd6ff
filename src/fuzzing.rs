//! Entry points for the cargo-fuzz targets in `fuzz/`: the parsers they
//! exercise (the MCP server's messages and tool arguments, Markdown links and
//! anchors, `kbidx.toml`, the body-index cache entry) are private to the
//! crate, and a target needs one call per input over a prepared state, not
//! the command line. Hidden from the documentation; not an API.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::build::BuildOptions;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::index::model::EntryRef;
use crate::links::resolve::{Anchors, Target};
use crate::search::Query;
use crate::search::body::{BodyIndex, Params};

/// The knowledge files of [`Corpus`]: sections by id and as an array, an
/// index with hints, a page preamble, links between the files and to anchors.
const FILES: [(&str, &str); 2] = [
    (
        "guide/a.json",
        r##"{"title":"ページング / Paging","page":"# ページング\n\n概要。[B](../b.json#lock)",
"index":[{"id":"s1","title":"件数の取得","hints":["ページング","paging","件数"]},
{"id":"s2","title":"Retry handler","hints":["リトライ","retry"]}],
"sections":{"s1":"オフセットで件数を取得する。[下へ](#retry-handler) [top](#)",
"s2":"失敗した処理を自動で再実行する。`[code](x.json)` [lock](../b.json#楽観的ロック)"}}"##,
    ),
    (
        "b.json",
        r##"{"title":"排他制御","sections":[{"id":"lock","title":"楽観的ロック","content":"後勝ちを防ぐ。optimistic lock [a](guide/a.json#s1)"},
{"id":"s2","title":"悲観的ロック","content":"select for update"}]}"##,
    ),
];

/// A knowledge directory with [`FILES`] and its index (`index/index.toon`,
/// with `links.toon`), in a temporary directory that lives as long as this.
struct Corpus {
    dir: tempfile::TempDir,
}

impl Corpus {
    fn new() -> Result<Self> {
        let io = |e| Error::io("<temp dir>", "cannot write", e);
        let dir = tempfile::tempdir().map_err(io)?;
        for (name, text) in FILES {
            let path = dir.path().join("knowledge").join(name);
            std::fs::create_dir_all(path.parent().unwrap_or(dir.path())).map_err(io)?;
            std::fs::write(path, text).map_err(io)?;
        }
        let config = Config::default();
        let built = crate::build::build(&BuildOptions {
            knowledge: dir.path().join("knowledge"),
            filter: None,
            include: config.include,
            exclude: config.exclude,
            strict: false,
            terms: config.terms,
        })?;
        let corpus = Self { dir };
        crate::build::write(&corpus.index(), &built.text)?;
        crate::build::write(&crate::links::path_for(&corpus.index()), &built.links_text)?;
        Ok(corpus)
    }

    fn knowledge(&self) -> PathBuf {
        self.dir.path().join("knowledge")
    }

    fn index(&self) -> PathBuf {
        self.dir.path().join("index").join("index.toon")
    }
}

/// A `kbidx mcp` server over a small built knowledge base, without the
/// search cache (a fuzz run must not write to the user's cache).
pub struct Mcp {
    session: crate::mcp::Session,
    _corpus: Corpus,
}

impl Mcp {
    /// The server, its index loaded.
    pub fn new() -> Result<Self> {
        let corpus = Corpus::new()?;
        let options = crate::mcp::Options {
            index: Some(corpus.index()),
            knowledge: Some(corpus.knowledge()),
            no_cache: true,
        };
        let session = crate::mcp::Session::new(&Config::default(), options, &mut std::io::sink())?;
        Ok(Self {
            session,
            _corpus: corpus,
        })
    }

    /// What the server writes for one line of input (without the newline),
    /// `None` when it writes nothing.
    pub fn answer(&mut self, line: &[u8]) -> Option<String> {
        let response = self.session.answer(line, &mut std::io::sink())?;
        Some(serde_json::to_string(&response).unwrap_or_else(|e| format!("unencodable: {e}")))
    }

    /// The result of `tools/call` of `tool` with `arguments` (or its JSON-RPC error).
    pub fn call(
        &mut self,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> std::result::Result<Value, (i64, String)> {
        self.session.call(tool, arguments, &mut std::io::sink())
    }
}

/// The knowledge links of the Markdown `text` in the file `guide/a.json`,
/// each with where it resolves (`Ok`: a reference or a file) or why not,
/// when `guide/a.json` and `b.json` both have the anchors of `doc`.
pub fn links(text: &str, doc: &Value) -> Vec<(String, std::result::Result<String, String>)> {
    let anchors = Anchors::of(doc);
    let files: HashMap<String, Anchors> = [
        ("guide/a.json".to_owned(), anchors.clone()),
        ("b.json".to_owned(), anchors),
    ]
    .into();
    crate::links::markdown::knowledge_links(text)
        .into_iter()
        .map(|link| {
            let resolved = crate::links::resolve::resolve("guide/a.json", &link.target, &files)
                .map(|t| match t {
                    Target::Section(reference) => reference,
                    Target::File(file) => file,
                });
            (link.target, resolved)
        })
        .collect()
}

/// The heading slug of `title` (the anchor rule of `links::resolve`).
pub fn slug(title: &str) -> String {
    crate::links::resolve::slug(title)
}

/// `text` as `kbidx.toml`: its settings, checked as a search would check them.
pub fn config(text: &str) -> Result<()> {
    Config::parse(Path::new("kbidx.toml"), text)?.search_settings()?;
    Ok(())
}

/// A body-index cache entry built for [`Corpus`], and the keys a search
/// would load it with.
pub struct Body {
    entry: Vec<u8>,
    hash: u128,
    fingerprint: u64,
    queries: Vec<Query>,
}

impl Body {
    /// Builds the entry.
    pub fn new() -> Result<Self> {
        let corpus = Corpus::new()?;
        let text = std::fs::read_to_string(corpus.index())
            .map_err(|e| Error::io(corpus.index(), "cannot read", e))?;
        let index = crate::index::toon::decode(&corpus.index(), &text)?;
        let rows: Vec<EntryRef<'_>> = index.entries.iter().map(EntryRef::from).collect();
        let hash = crate::search::text_hash(&text);
        let built = BodyIndex::build(&rows, &corpus.knowledge(), hash);
        let entry = built.as_bytes().to_vec();
        let fingerprint = entry
            .get(24..32)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_le_bytes);
        let queries = vec![
            Query::from_question("ページングで件数を取得したい")?,
            Query::from_question("optimistic lock retry")?,
        ];
        Ok(Self {
            entry,
            hash,
            fingerprint,
            queries,
        })
    }

    /// The valid entry.
    pub fn entry(&self) -> &[u8] {
        &self.entry
    }

    /// Loads `bytes` as the search cache would; when it loads, searches it
    /// for a few questions. Returns the number of rows, `None` when rejected.
    pub fn load(&self, bytes: Vec<u8>) -> Option<usize> {
        let index = BodyIndex::from_entry(bytes, self.hash, self.fingerprint)?;
        for query in &self.queries {
            let _ = index.search(query, &Params::default(), 10);
        }
        Some(index.rows())
    }

    /// Writes the checksum of `bytes` into it, so that a mutation passes it.
    pub fn seal(bytes: &mut [u8]) {
        BodyIndex::seal(bytes);
    }
}
