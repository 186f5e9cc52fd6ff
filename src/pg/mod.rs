//! The index in PostgreSQL: `kbidx pg push` loads the sections into one
//! table, `kbidx search --pg` / `kbidx eval --pg` rank them there.
//!
//! PostgreSQL's own parsers do not segment Japanese, so kbidx hands it text
//! it has already tokenised: every field goes through [`terms`] (NFKC, case
//! folding, IPADIC content words — the body stage's tokens) and is stored as
//! a `tsvector` literal with weights A (title), B (hints), C (terms) and D
//! (body). A literal, not `to_tsvector('simple', …)`, so a token such as
//! `o/rマッパー` or `universal-dao` stays one lexeme. Queries are built the
//! same way: one tsquery per keyword (a multi-word levelled keyword as an AND
//! group), ranked with `ts_rank_cd` and weighted by the keyword's level and
//! an idf from the table, plus a share of the best section of the same file
//! (the body stage's file share). [`PgSearcher`] is a [`rank::Backend`]:
//! the search stage's result shaping, output and eval take its ranking as
//! they take the index's.
//!
//! The synchronous `postgres` client without TLS: kbidx is a CLI with one
//! connection per command, and a loopback or socket-adjacent server is the
//! case this serves (TLS would add a second dependency tree; see docs/postgres.md).

use std::collections::HashMap;
use std::io::Write as _;

use postgres::{Client, NoTls};
use serde::Serialize;

use crate::build::{self, BuildOptions};
use crate::error::{Error, Result};
use crate::index::model::{Entry, split_reference};
use crate::knowledge::Root;
use crate::knowledge::content::Sections;
use crate::parallel::in_parallel;
use crate::query::{Level, Query};
use crate::rank::{self, Ranked, Section};
use crate::text::terms;

/// The layout of the tables this kbidx writes and reads. A schema with a
/// higher version was written by a newer kbidx: refused, not guessed at.
pub(crate) const SCHEMA_VERSION: i64 = 1;

/// The schema used when none is given.
pub(crate) const DEFAULT_SCHEMA: &str = "kbidx";

/// `ts_rank_cd` weights `{D, C, B, A}`: body, terms, hints, title. Title
/// first as in the body stage; body 0.15 and hints 0.4 chosen on the dev
/// split among a few variants (docs/postgres.md). Each word's rank goes
/// through normalisation 32 (`rank / (rank + 1)`), a saturation like BM25's
/// `k1` (0, 1, 2 and 33 measured worse on the dev split).
const WEIGHTS: &str = "'{0.15, 0.1, 0.4, 1.0}'";

/// Share of the best-scoring section of the same file added to a section's
/// score: the body stage's file share (0.2, confirmed on the dev split), as
/// a window over the candidates.
const FILE_SHARE: &str = "0.2";

/// The candidate bound (or `--top`, when larger) of each tier of
/// [`PgSearcher::rank`]: what keeps a question on a million sections
/// interactive (p50 0.29 s at 1,000, 0.45 s at 2,000, docs/postgres.md). On
/// the dev split 1,000 measured as well as 2,000 and as no bound.
const CANDIDATES: usize = 1000;

/// A table larger than this has its row count, and a lexeme in more rows
/// than this its document frequency, estimated from PostgreSQL's statistics
/// instead of counted (counting reads every match); below it, counts are exact.
const ESTIMATE_ABOVE: f64 = 50_000.0;

/// PostgreSQL limits: positions 1–16383, 256 positions per lexeme, lexemes under 2 KiB.
const MAX_POSITION: usize = 16383;
const MAX_POSITIONS_PER_LEXEME: usize = 255;
const MAX_LEXEME_BYTES: usize = 2000;

/// The connection string: `url`, else `KBIDX_PG_URL`.
pub(crate) fn url_from(url: Option<String>) -> Option<String> {
    url.filter(|u| !u.is_empty())
        .or_else(|| std::env::var("KBIDX_PG_URL").ok().filter(|u| !u.is_empty()))
}

/// A schema name kbidx will put in SQL unquoted-safe: lowercase letters,
/// digits and `_`, not starting with a digit.
fn check_schema(schema: &str) -> Result<()> {
    let ok = !schema.is_empty()
        && schema.len() <= 63
        && !schema.starts_with(|c: char| c.is_ascii_digit())
        && schema
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "invalid schema name {schema:?}: use lowercase letters, digits and _ (not first)"
        )))
    }
}

/// The URL without its password, for messages.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme + 3],
                    &userinfo[..colon],
                    &url[at..]
                ),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

/// A PostgreSQL error as a person reads it: the server's message and hint
/// when there is one, else the client's (with its cause: "connection refused").
fn db_error(what: &str, e: &postgres::Error) -> Error {
    if let Some(db) = e.as_db_error() {
        let hint = match db.code().code() {
            "42501" => {
                " (the role needs CREATE on the database for `kbidx pg push`, USAGE and SELECT on the schema for search)"
            }
            "28P01" | "28000" => " (check the user and password in the URL or KBIDX_PG_URL)",
            "3D000" => " (create the database first)",
            _ => "",
        };
        return Error::Database(format!("{what}: {}{hint}", db.message()));
    }
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let text = s.to_string();
        if !message.contains(&text) {
            message = format!("{message}: {text}");
        }
        source = s.source();
    }
    Error::Database(format!("{what}: {message}"))
}

/// Connects to `url` (no TLS).
fn connect(url: &str) -> Result<Client> {
    let config: postgres::Config = url.parse().map_err(|e: postgres::Error| {
        Error::Database(format!(
            "invalid connection URL {:?}: {e} (expected postgresql://user:password@host:port/database)",
            redacted(url)
        ))
    })?;
    config
        .connect(NoTls)
        .map_err(|e| db_error(&format!("cannot connect to {}", redacted(url)), &e))
}

/// The stored schema version, `None` when kbidx has not set the schema up.
fn stored_version(client: &mut impl postgres::GenericClient, schema: &str) -> Result<Option<i64>> {
    let exists: bool = client
        .query_one(
            "SELECT to_regclass($1) IS NOT NULL",
            &[&format!("{schema}.kbidx_meta")],
        )
        .map_err(|e| db_error("cannot read the schema", &e))?
        .get(0);
    if !exists {
        return Ok(None);
    }
    let row = client
        .query_opt(
            &format!("SELECT value FROM {schema}.kbidx_meta WHERE key = 'schema_version'"),
            &[],
        )
        .map_err(|e| db_error("cannot read the schema version", &e))?;
    Ok(row.and_then(|r| r.get::<_, String>(0).parse().ok()))
}

fn newer(schema: &str, version: i64) -> Error {
    Error::Database(format!(
        "schema {schema} was written by a newer kbidx (schema version {version}; this kbidx knows {SCHEMA_VERSION}): upgrade kbidx"
    ))
}

/// Creates the schema's tables on first use and checks the version.
fn ensure_schema(tx: &mut postgres::Transaction<'_>, schema: &str) -> Result<()> {
    match stored_version(tx, schema)? {
        Some(v) if v > SCHEMA_VERSION => return Err(newer(schema, v)),
        // A schema pushed before the tier indexes existed gets them now.
        Some(_) => return create_tier_indexes(tx, schema),
        None => {}
    }
    let sql = format!(
        "CREATE SCHEMA IF NOT EXISTS {schema};
         CREATE TABLE {schema}.kbidx_meta (key text PRIMARY KEY, value text NOT NULL);
         INSERT INTO {schema}.kbidx_meta VALUES ('schema_version', '{SCHEMA_VERSION}');
         CREATE TABLE {schema}.files (
             file text PRIMARY KEY,
             hash text NOT NULL,
             sections integer NOT NULL);
         CREATE TABLE {schema}.sections (
             reference text PRIMARY KEY,
             file text NOT NULL REFERENCES {schema}.files (file) ON DELETE CASCADE,
             section text NOT NULL,
             ord integer NOT NULL,
             title text NOT NULL,
             hints text NOT NULL,
             terms text NOT NULL,
             content text,
             tsv tsvector NOT NULL);
         CREATE INDEX sections_tsv ON {schema}.sections USING GIN (tsv);
         CREATE INDEX sections_file ON {schema}.sections (file);"
    );
    tx.batch_execute(&sql)
        .map_err(|e| db_error(&format!("cannot create schema {schema}"), &e))?;
    create_tier_indexes(tx, schema)
}

/// Candidate tiers beyond the `tsv` index, best first: the lexemes of a
/// row's title (weight A), and of its title and hints (A and B). A GIN index
/// on each expression finds the rows whose title (or hints) hold a query's
/// words without reading their `tsvector` (see [`PgSearcher::rank`]): (index
/// name, expression).
const TIERS: [(&str, &str); 2] = [
    ("sections_title", "ts_filter(tsv, '{a}')"),
    ("sections_head", "ts_filter(tsv, '{a,b}')"),
];

fn create_tier_indexes(tx: &mut postgres::Transaction<'_>, schema: &str) -> Result<()> {
    for (name, expression) in TIERS {
        // An existing index is left alone without locking the table
        // (`CREATE INDEX IF NOT EXISTS` would take a share lock first).
        let exists: bool = tx
            .query_one(
                "SELECT to_regclass($1) IS NOT NULL",
                &[&format!("{schema}.{name}")],
            )
            .map_err(|e| db_error("cannot read the schema", &e))?
            .get(0);
        if exists {
            continue;
        }
        tx.batch_execute(&format!(
            "CREATE INDEX IF NOT EXISTS {name} ON {schema}.sections USING GIN ({expression})"
        ))
        .map_err(|e| db_error(&format!("cannot create the index {name} in {schema}"), &e))?;
    }
    Ok(())
}

/// What `kbidx pg push` did.
#[derive(Debug, Serialize)]
pub(crate) struct PushSummary {
    /// Knowledge files now in the table.
    pub files: usize,
    /// Files inserted or rewritten by this push.
    pub changed: usize,
    /// Files removed because they are gone from the knowledge directory.
    pub removed: usize,
    /// Sections now in the table.
    pub sections: usize,
}

/// One section as stored.
struct Row<'a> {
    entry: &'a Entry,
    content: Option<String>,
}

/// Loads the knowledge base (as `kbidx build` extracts it) into `schema`:
/// only files whose content hash changed are rewritten, files that are gone
/// are removed, all in one transaction.
///
/// Long on purpose: the build, the files' hashes (read on threads), then
/// one transaction (removals, COPY of the changed files' rows) whose steps
/// share the client, the transaction and the rows grouped by file.
pub(crate) fn push(url: &str, schema: &str, options: &BuildOptions) -> Result<PushSummary> {
    check_schema(schema)?;
    let mut client = connect(url)?;
    // Extraction first: a knowledge error leaves the database untouched.
    let built = build::build(options)?;
    // The index's rows, grouped by file (a file's rows are consecutive).
    let mut groups: Vec<(&str, &[Entry])> = Vec::new();
    let entries = &built.index.entries;
    let mut start = 0;
    for i in 1..=entries.len() {
        if i == entries.len() || entries[i].file() != entries[start].file() {
            groups.push((entries[start].file(), &entries[start..i]));
            start = i;
        }
    }
    // Each file read and parsed once (on a few threads): its bytes' hash, so
    // any edit of the file rewrites it, and its sections' text.
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 8);
    let chunks: Vec<&[(&str, &[Entry])]> = groups
        .chunks(groups.len().div_ceil(threads).max(1))
        .collect();
    let read = in_parallel(&chunks, |chunk| {
        let root = Root::new(&options.knowledge);
        chunk
            .iter()
            .map(|&(file, rows)| {
                let bytes = root
                    .resolve(file, file)
                    .and_then(|path| {
                        std::fs::read(&path)
                            .map(|b| (path, b))
                            .map_err(|e| Error::io(file, "cannot read", e))
                    })
                    .ok();
                let hash = bytes
                    .as_ref()
                    .map_or(0, |(_, b)| xxhash_rust::xxh3::xxh3_128(b));
                let doc = bytes.and_then(|(path, b)| crate::knowledge::parse(&path, &b).ok());
                let sections = doc.as_ref().map(|d| Sections::new(d.value()));
                let rows: Vec<Row<'_>> = rows
                    .iter()
                    .map(|entry| Row {
                        entry,
                        content: sections
                            .as_ref()
                            .and_then(|s| s.text(split_reference(&entry.reference).1)),
                    })
                    .collect();
                (file, hash, rows)
            })
            .collect::<Vec<_>>()
    });
    let mut by_file: Vec<(&str, Vec<Row<'_>>)> = Vec::new();
    let mut bytes_hash: HashMap<&str, u128> = HashMap::new();
    for (file, hash, rows) in read.into_iter().flatten() {
        bytes_hash.insert(file, hash);
        by_file.push((file, rows));
    }
    let hashes: Vec<String> = by_file
        .iter()
        .map(|(file, rows)| file_hash(bytes_hash.get(file).copied().unwrap_or(0), rows))
        .collect();

    let mut tx = client
        .transaction()
        .map_err(|e| db_error("cannot start a transaction", &e))?;
    // One push per schema at a time, from its first statement: two first
    // pushes would both create the schema (and one would fail on it).
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext($1))",
        &[&format!("kbidx push {schema}")],
    )
    .map_err(|e| db_error("cannot lock the schema", &e))?;
    ensure_schema(&mut tx, schema)?;
    // One push at a time; searches go on reading the previous state.
    tx.batch_execute(&format!(
        "LOCK TABLE {schema}.files IN SHARE ROW EXCLUSIVE MODE"
    ))
    .map_err(|e| db_error("cannot lock the tables", &e))?;
    let stored: HashMap<String, String> = tx
        .query(&format!("SELECT file, hash FROM {schema}.files"), &[])
        .map_err(|e| db_error("cannot read the files table", &e))?
        .into_iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let present: std::collections::HashSet<&str> = by_file.iter().map(|(f, _)| *f).collect();
    let gone: Vec<String> = stored
        .keys()
        .filter(|f| !present.contains(f.as_str()))
        .cloned()
        .collect();
    let changed: Vec<usize> = (0..by_file.len())
        .filter(|&i| stored.get(by_file[i].0) != Some(&hashes[i]))
        .collect();
    let mut delete: Vec<String> = gone.clone();
    delete.extend(changed.iter().map(|&i| by_file[i].0.to_owned()));
    if !delete.is_empty() {
        tx.execute(
            &format!("DELETE FROM {schema}.files WHERE file = ANY($1)"),
            &[&delete],
        )
        .map_err(|e| db_error("cannot remove old rows", &e))?;
    }
    if !changed.is_empty() {
        let mut files = String::new();
        for &i in &changed {
            let (file, rows) = &by_file[i];
            copy_line(&mut files, &[Some(file), Some(&hashes[i])], rows.len());
        }
        let mut writer = copy_in(
            &mut tx,
            &format!("COPY {schema}.files (file, hash, sections) FROM STDIN"),
        )?;
        send(&mut writer, &files)?;
        finish(writer)?;
        // Tokenising is the slow part: changed files only, a batch of files
        // per thread at a time, streamed into COPY (memory stays bounded).
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .clamp(1, 8);
        let mut writer = copy_in(
            &mut tx,
            &format!(
                "COPY {schema}.sections (reference, file, section, ord, title, hints, terms, content, tsv) FROM STDIN"
            ),
        )?;
        let progress = crate::progress::Progress::new("pg push", changed.len(), "files");
        for batch in changed.chunks(threads * 16) {
            let chunks: Vec<&[usize]> = batch.chunks(16).collect();
            let lines = in_parallel(&chunks, |chunk| {
                let mut sections = String::new();
                for &i in chunk.iter() {
                    let (file, rows) = &by_file[i];
                    for (ord, row) in rows.iter().enumerate() {
                        let e = row.entry;
                        let tsv = tsvector(&[
                            &e.title,
                            &e.hints,
                            &e.terms,
                            row.content.as_deref().unwrap_or(""),
                        ]);
                        copy_section(&mut sections, file, ord, row, &tsv);
                    }
                }
                sections
            });
            for text in &lines {
                send(&mut writer, text)?;
            }
            progress.advance(batch.len());
        }
        finish(writer)?;
    }
    if !changed.is_empty() || !gone.is_empty() {
        // Fresh statistics: search estimates a large table's row count and
        // its common words' frequencies from them.
        tx.batch_execute(&format!("ANALYZE {schema}.sections"))
            .map_err(|e| db_error("cannot analyze the sections table", &e))?;
    }
    tx.commit()
        .map_err(|e| db_error("cannot commit the push", &e))?;
    Ok(PushSummary {
        files: by_file.len(),
        changed: changed.len(),
        removed: gone.len(),
        sections: built.index.entries.len(),
    })
}

fn copy_in<'t>(
    tx: &'t mut postgres::Transaction<'_>,
    sql: &str,
) -> Result<postgres::CopyInWriter<'t>> {
    tx.copy_in(sql)
        .map_err(|e| db_error("cannot write rows", &e))
}

/// Sends `text` in pieces of at most 1 MiB: one COPY message may not exceed
/// 1 GiB, and a large corpus's rows do.
fn send(writer: &mut postgres::CopyInWriter<'_>, text: &str) -> Result<()> {
    for piece in text.as_bytes().chunks(1 << 20) {
        writer
            .write_all(piece)
            .map_err(|e| Error::Database(format!("cannot write rows: {e}")))?;
    }
    Ok(())
}

fn finish(writer: postgres::CopyInWriter<'_>) -> Result<()> {
    writer
        .finish()
        .map(|_| ())
        .map_err(|e| db_error("cannot write rows", &e))
}

/// A file's content hash: its bytes (`bytes`, hashed) and what its rows hold,
/// so a file is rewritten when it changed or what was extracted from it did
/// (the derived terms depend on the whole corpus; a new `--filter` too).
fn file_hash(bytes: u128, rows: &[Row<'_>]) -> String {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&SCHEMA_VERSION.to_le_bytes());
    hasher.update(&bytes.to_le_bytes());
    for row in rows {
        let e = row.entry;
        for field in [
            e.reference.as_str(),
            &e.title,
            &e.hints,
            &e.terms,
            row.content.as_deref().unwrap_or("\u{0}none"),
        ] {
            hasher.update(&(field.len() as u64).to_le_bytes());
            hasher.update(field.as_bytes());
        }
    }
    format!("{:032x}", hasher.digest128())
}

/// Escapes a value for COPY's text format.
fn copy_escape(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn copy_line(out: &mut String, fields: &[Option<&str>], count: usize) {
    for f in fields {
        match f {
            Some(v) => copy_escape(out, v),
            None => out.push_str("\\N"),
        }
        out.push('\t');
    }
    out.push_str(&count.to_string());
    out.push('\n');
}

fn copy_section(out: &mut String, file: &str, ord: usize, row: &Row<'_>, tsv: &str) {
    let e = row.entry;
    let section = split_reference(&e.reference).1;
    for v in [&e.reference, file, section] {
        copy_escape(out, v);
        out.push('\t');
    }
    out.push_str(&ord.to_string());
    for v in [&e.title, &e.hints, &e.terms] {
        out.push('\t');
        copy_escape(out, v);
    }
    out.push('\t');
    match &row.content {
        Some(c) => copy_escape(out, c),
        None => out.push_str("\\N"),
    }
    out.push('\t');
    copy_escape(out, tsv);
    out.push('\n');
}

/// A quoted tsvector/tsquery lexeme: `'…'` with `'` and `\` doubled/escaped.
fn lexeme(word: &str) -> String {
    let mut end = word.len().min(MAX_LEXEME_BYTES);
    while !word.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 2);
    out.push('\'');
    for c in word[..end].chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The tsvector literal of a row's four fields (title, hints, terms, body):
/// kbidx's tokens with their positions and the field's weight letter.
pub(crate) fn tsvector(fields: &[&str; 4]) -> String {
    const LETTERS: [char; 4] = ['A', 'B', 'C', 'D'];
    let mut positions: Vec<(String, Vec<String>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut position = 0usize;
    for (f, text) in fields.iter().enumerate() {
        for word in terms(text).unwrap_or_default() {
            position = (position + 1).min(MAX_POSITION);
            let i = *at.entry(word.clone()).or_insert_with(|| {
                positions.push((word, Vec::new()));
                positions.len() - 1
            });
            let list = &mut positions[i].1;
            if list.len() < MAX_POSITIONS_PER_LEXEME {
                list.push(format!("{position}{}", LETTERS[f]));
            }
        }
    }
    let mut out = String::new();
    for (word, list) in positions {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&lexeme(&word));
        out.push(':');
        out.push_str(&list.join(","));
    }
    out
}

/// One part of a query as PostgreSQL ranks it: a tsquery and its weight.
#[derive(Debug, Clone, PartialEq)]
struct Unit {
    tsquery: String,
    /// Its lexemes (several for an AND group).
    words: Vec<String>,
    /// The keyword it came from (for `matched`), its level and weight.
    keyword: String,
    level: Level,
    weight: f64,
    /// A question word that is part of a longer one (`楽観` of `楽観的ロック`).
    part: bool,
}

/// The query's units: one per keyword token, or per multi-word levelled
/// keyword (its tokens ANDed); L1 keywords weigh 0.3 as in the body stage.
fn units(query: &Query) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    let mut add = |unit: Unit| match units.iter_mut().find(|u| u.tsquery == unit.tsquery) {
        Some(u) if u.weight < unit.weight => *u = unit,
        Some(_) => {}
        None => units.push(unit),
    };
    for k in &query.keywords {
        let weight = if k.level == Level::L1 { 0.3 } else { 1.0 } * k.weight.min(1.0);
        let words = terms(&k.norm).unwrap_or_default();
        if words.is_empty() {
            continue;
        }
        if k.level != Level::Question && words.len() > 1 {
            let tsquery = words
                .iter()
                .map(|w| lexeme(w))
                .collect::<Vec<_>>()
                .join(" & ");
            add(Unit {
                tsquery,
                words,
                keyword: k.text.clone(),
                level: k.level,
                weight,
                part: k.weight < 1.0,
            });
        } else {
            for w in words {
                add(Unit {
                    tsquery: lexeme(&w),
                    words: vec![w.clone()],
                    keyword: w,
                    level: k.level,
                    weight,
                    part: k.weight < 1.0,
                });
            }
        }
    }
    units
}

/// A connection prepared for searching one schema: the PostgreSQL
/// [`rank::Backend`].
pub(crate) struct PgSearcher {
    client: Client,
    schema: String,
    /// Sections in the table (for idf).
    rows: i64,
    /// The share of rows holding each of the table's most common lexemes,
    /// from PostgreSQL's statistics (read once; empty for a small table).
    common: Option<HashMap<String, f64>>,
    /// The [`TIERS`] whose index exists (a schema pushed by an older kbidx has none).
    tiers: Vec<&'static str>,
}

impl std::fmt::Debug for PgSearcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgSearcher({})", self.schema)
    }
}

impl PgSearcher {
    /// Connects and checks that `schema` holds a kbidx table this kbidx can read.
    pub(crate) fn open(url: &str, schema: &str) -> Result<Self> {
        check_schema(schema)?;
        let mut client = connect(url)?;
        match stored_version(&mut client, schema)? {
            None => {
                return Err(Error::Database(format!(
                    "no kbidx tables in schema {schema}: run `kbidx pg push --url URL --schema {schema}` first"
                )));
            }
            Some(v) if v > SCHEMA_VERSION => return Err(newer(schema, v)),
            Some(_) => {}
        }
        // A large table's row count from its statistics: counting a
        // million rows takes longer than the search.
        let estimate: f64 = client
            .query_one(
                "SELECT coalesce((SELECT reltuples::float8 FROM pg_class WHERE oid = to_regclass($1)), -1)",
                &[&format!("{schema}.sections")],
            )
            .map_err(|e| db_error("cannot read the sections table", &e))?
            .get(0);
        let rows: i64 = if estimate >= ESTIMATE_ABOVE {
            estimate as i64
        } else {
            client
                .query_one(&format!("SELECT count(*) FROM {schema}.sections"), &[])
                .map_err(|e| db_error("cannot read the sections table", &e))?
                .get(0)
        };
        let mut tiers = Vec::new();
        for (name, expression) in TIERS {
            let exists: bool = client
                .query_one(
                    "SELECT to_regclass($1) IS NOT NULL",
                    &[&format!("{schema}.{name}")],
                )
                .map_err(|e| db_error("cannot read the sections table", &e))?
                .get(0);
            if exists {
                tiers.push(expression);
            }
        }
        Ok(Self {
            client,
            schema: schema.to_owned(),
            rows,
            common: None,
            tiers,
        })
    }

    /// Sections in the table.
    fn len(&self) -> usize {
        usize::try_from(self.rows).unwrap_or(0)
    }

    /// The stored text of each of `references` (`None`: the row has no
    /// content, its section could not be read at push time).
    fn contents(&mut self, references: &[&str]) -> Result<HashMap<String, Option<String>>> {
        let rows = self
            .client
            .query(
                &format!(
                    "SELECT reference, content FROM {}.sections WHERE reference = ANY($1)",
                    self.schema
                ),
                &[&references],
            )
            .map_err(|e| db_error("cannot read section content", &e))?;
        Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// The share of rows holding each common lexeme (`most_common_elems`
    /// of the `tsv` column; `pg push` runs ANALYZE), read once.
    fn common(&mut self) -> Result<&HashMap<String, f64>> {
        if self.common.is_none() {
            let mut common = HashMap::new();
            if self.rows as f64 >= ESTIMATE_ABOVE {
                let rows = self
                    .client
                    .query(
                        "SELECT most_common_elems::text::text[], most_common_elem_freqs
                         FROM pg_stats WHERE schemaname = $1 AND tablename = 'sections' AND attname = 'tsv'",
                        &[&self.schema],
                    )
                    .map_err(|e| db_error("cannot read the table's statistics", &e))?;
                if let Some(row) = rows.first() {
                    let words: Option<Vec<String>> = row.get(0);
                    let shares: Option<Vec<f32>> = row.get(1);
                    // The shares array ends with three summary numbers: zip drops them.
                    for (word, share) in words
                        .unwrap_or_default()
                        .into_iter()
                        .zip(shares.unwrap_or_default())
                    {
                        common.insert(word, f64::from(share));
                    }
                }
            }
            self.common = Some(common);
        }
        Ok(self.common.get_or_insert_with(HashMap::new))
    }

    /// How many rows match `unit`: estimated from the statistics when they
    /// put it in many rows (an AND group: the product of its words'
    /// shares), else counted on the GIN index.
    fn df(&mut self, unit: &Unit) -> Result<f64> {
        let n = self.rows as f64;
        let common = self.common()?;
        let estimate = unit
            .words
            .iter()
            .map(|w| common.get(w).copied())
            .product::<Option<f64>>()
            .map(|share| share * n);
        if let Some(df) = estimate.filter(|df| *df >= ESTIMATE_ABOVE) {
            return Ok(df);
        }
        let df: i64 = self
            .client
            .query_one(
                &format!(
                    "SELECT count(*) FROM {}.sections WHERE tsv @@ $1::text::tsquery",
                    self.schema
                ),
                &[&unit.tsquery],
            )
            .map_err(|e| db_error("search failed", &e))?
            .get(0);
        Ok(df as f64)
    }

    /// The top `top` rows for `query` (those scoring below `min_score`
    /// dropped), best first, and how many rows were ranked.
    ///
    /// `ts_rank_cd` reads each candidate's `tsvector`, so the cost is the
    /// number of candidates (about 50 µs each), and a GIN index finds rows,
    /// it does not order them. So the candidates are bounded (see
    /// [`CANDIDATES`]): the rows matching the query's rarest selecting words,
    /// as many words as fit in the bound together (all of them: the exact
    /// ranking of every row matching a selecting word). When not all fit:
    /// those rows, plus AND-first tiers, each at most [`CANDIDATES`] rows in
    /// table order: rows whose title holds every word of the query, rows
    /// whose title or hints do (the [`TIERS`] indexes), rows whose text does; while fewer than
    /// `top` rows match every word, the most common words are dropped from
    /// the AND, down to the rarest alone (and the fewer rows matching one
    /// word more are all kept).
    ///
    /// Long on purpose: one SQL statement built from the units' df and idf,
    /// the selecting words and the AND-first tiers; the pieces are strings
    /// that only make sense together.
    fn rank(&mut self, query: &Query, top: usize, min_score: Option<f64>) -> Result<Ranked> {
        let units = units(query);
        if units.is_empty() {
            return Ok(Ranked::default());
        }
        // idf per unit, as BM25 computes it.
        let mut df = Vec::with_capacity(units.len());
        for u in &units {
            df.push(self.df(u)?);
        }
        let n = self.rows as f64;
        let idf: Vec<f64> = df
            .iter()
            .map(|df| (1.0 + (n - df + 0.5) / (df + 0.5)).ln())
            .collect();
        let schema = self.schema.clone();
        let params: Vec<String> = (1..=units.len())
            .map(|i| format!("${i}::text::tsquery"))
            .collect();
        let score = units
            .iter()
            .zip(&idf)
            .zip(&params)
            .map(|((u, idf), p)| {
                format!(
                    "{:.6} * ts_rank_cd({WEIGHTS}, tsv, {p}, 32)",
                    u.weight * idf
                )
            })
            .collect::<Vec<_>>()
            .join(" + ");
        let hits = params
            .iter()
            .map(|p| format!("tsv @@ {p}"))
            .collect::<Vec<_>>()
            .join(", ");
        // Rarest first.
        let mut rarest: Vec<usize> = (0..units.len()).collect();
        rarest.sort_by(|&a, &b| df[a].total_cmp(&df[b]).then(a.cmp(&b)));
        // Words that select: those in at most half of the rows (idf ≥ ln 2).
        // A word in nearly every row (a synthetic corpus's 「データベース」:
        // 99.98%) selects nothing, at an idf near 0; it still counts in the
        // candidates' score. When every word is that common, all select.
        let mut selecting: Vec<usize> = rarest
            .iter()
            .copied()
            .filter(|&i| idf[i] >= std::f64::consts::LN_2)
            .collect();
        if selecting.is_empty() {
            selecting.clone_from(&rarest);
        }
        let bound = CANDIDATES.max(top);
        let mut exact = Vec::new();
        let mut rows = 0.0;
        for &i in &selecting {
            if rows + df[i] > bound as f64 {
                break;
            }
            rows += df[i];
            exact.push(i);
        }
        let any = |set: &[usize]| {
            set.iter()
                .map(|&i| params[i].as_str())
                .collect::<Vec<_>>()
                .join(" || ")
        };
        let columns = "reference, file, title, tsv";
        let from = if exact.len() == selecting.len() {
            format!("{schema}.sections WHERE tsv @@ ({})", any(&exact))
        } else {
            // Title, then title and hints first: their words weigh most, and
            // their indexes find such rows among a million without reading them.
            let mut parts = Vec::new();
            if !exact.is_empty() {
                parts.push(format!(
                    "SELECT {columns} FROM {schema}.sections WHERE tsv @@ ({})",
                    any(&exact)
                ));
            }
            // The AND leaves out words in no row (it would match nothing)
            // and the parts of longer words (a row holding `楽観的ロック`
            // need not hold `楽観` and `ロック` as well), unless a longer
            // word is in no row (`国際化`: then its parts stand for it).
            let whole_missing = (0..units.len()).any(|i| !units[i].part && df[i] == 0.0);
            let mut and_units: Vec<usize> = rarest
                .iter()
                .copied()
                .filter(|&i| df[i] > 0.0 && (whole_missing || !units[i].part))
                .collect();
            if and_units.is_empty() {
                and_units = rarest.iter().copied().filter(|&i| df[i] > 0.0).collect();
            }
            let mut fields = self.tiers.clone();
            fields.push("tsv");
            if and_units.is_empty() {
                fields.clear();
            }
            for field in fields {
                let (k, n) = self.and_first(field, &units, &and_units, top)?;
                let and = |k: usize| {
                    and_units[..k]
                        .iter()
                        .map(|&i| params[i].as_str())
                        .collect::<Vec<_>>()
                        .join(" && ")
                };
                parts.push(format!(
                    "SELECT * FROM (SELECT {columns} FROM {schema}.sections WHERE {field} @@ ({}) LIMIT {bound}) a",
                    and(k)
                ));
                // The rows matching one word more: fewer than `top`, all kept.
                if k < n {
                    parts.push(format!(
                        "SELECT {columns} FROM {schema}.sections WHERE {field} @@ ({})",
                        and(k + 1)
                    ));
                }
            }
            if parts.is_empty() {
                // Nothing can match: an empty candidate set.
                parts.push(format!(
                    "SELECT {columns} FROM {schema}.sections WHERE false"
                ));
            }
            format!("({}) c", parts.join(" UNION "))
        };
        let sql = format!(
            "SELECT reference, title, total_score, hit, count(*) OVER ()
             FROM (SELECT reference, title, hit, score + {FILE_SHARE} * max(score) OVER (PARTITION BY file) AS total_score
                   FROM (SELECT reference, file, title, ({score})::float8 AS score, ARRAY[{hits}] AS hit
                         FROM {from}) s) t
             ORDER BY total_score DESC, reference
             LIMIT {top}"
        );
        let values: Vec<&(dyn postgres::types::ToSql + Sync)> = units
            .iter()
            .map(|u| &u.tsquery as &(dyn postgres::types::ToSql + Sync))
            .collect();
        let rows = self
            .client
            .query(&sql, &values)
            .map_err(|e| db_error("search failed", &e))?;
        let total = rows.first().map_or(0, |r| r.get::<_, i64>(4) as usize);
        // Best first: the rows below `min_score` are the tail.
        let hits = rows
            .into_iter()
            .filter(|r| min_score.is_none_or(|min| r.get::<_, f64>(2) >= min))
            .map(|r| {
                let hit: Vec<bool> = r.get(3);
                Section {
                    reference: r.get(0),
                    title: r.get(1),
                    score: r.get(2),
                    matched: units
                        .iter()
                        .zip(hit)
                        .filter(|(_, m)| *m)
                        .map(|(u, _)| (u.keyword.clone(), u.level, u.weight))
                        .collect(),
                }
            })
            .collect();
        Ok(Ranked {
            sections: hits,
            total,
        })
    }

    /// How many of the `rarest`-ordered units to AND for the capped
    /// candidates in `field` (`tsv`, or a [`TIERS`] expression): all `n` of them, or, while
    /// fewer than `top` rows match them all, all but the most common, down
    /// to the rarest alone; and `n`.
    fn and_first(
        &mut self,
        field: &str,
        units: &[Unit],
        rarest: &[usize],
        top: usize,
    ) -> Result<(usize, usize)> {
        let n = rarest.len();
        let mut k = n;
        while k > 1 {
            let and = (1..=k)
                .map(|i| format!("${i}::text::tsquery"))
                .collect::<Vec<_>>()
                .join(" && ");
            let values: Vec<&(dyn postgres::types::ToSql + Sync)> = rarest[..k]
                .iter()
                .map(|&i| &units[i].tsquery as &(dyn postgres::types::ToSql + Sync))
                .collect();
            let found: i64 = self
                .client
                .query_one(
                    &format!(
                        "SELECT count(*) FROM (SELECT 1 FROM {}.sections WHERE {field} @@ ({and}) LIMIT {top}) s",
                        self.schema
                    ),
                    &values,
                )
                .map_err(|e| db_error("search failed", &e))?
                .get(0);
            if found as usize >= top {
                break;
            }
            k -= 1;
        }
        Ok((k, n))
    }
}

impl rank::Backend for PgSearcher {
    fn len(&self) -> usize {
        self.len()
    }

    fn rank(&mut self, query: &Query, top: usize, min_score: Option<f64>) -> Result<Ranked> {
        self.rank(query, top, min_score)
    }

    fn contents(&mut self, references: &[&str]) -> Result<HashMap<String, Option<String>>> {
        self.contents(references)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexemes_are_quoted_whole() {
        assert_eq!(lexeme("o/rマッパー"), "'o/rマッパー'");
        assert_eq!(lexeme("it's"), "'it''s'");
        assert_eq!(lexeme("a\\b"), "'a\\\\b'");
    }

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            redacted("postgresql://u:secret@h:5/db"),
            "postgresql://u:***@h:5/db"
        );
        assert_eq!(redacted("postgresql://h/db"), "postgresql://h/db");
    }

    #[test]
    fn schema_names_are_checked() {
        assert!(check_schema("kbidx_2").is_ok());
        assert!(check_schema("a; drop").is_err());
        assert!(check_schema("1a").is_err());
    }
}
