//! The MCP tools `search` and `read`: their schemas, their arguments, and the
//! index they share.
//!
//! The index (its word index from the search cache) and the body index are
//! loaded when the server starts, the dictionary on its first use at start,
//! and every call reuses them. Before each call the index file is looked at
//! (one `stat`): when its size, modification time or inode changed (a
//! `kbidx build` renames a new file over it), it is loaded again, so a
//! long-running server never answers from an index that was rebuilt under
//! it. The knowledge files are read per call, as by `kbidx search` and
//! `kbidx read`, except for the body index, which is as of the last load (a
//! content edit that changes the index through its `terms` reloads it too).
//!
//! A search runs through [`crate::answer::answer`], the code `kbidx search` runs,
//! and returns the document `kbidx search --format json` prints.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::INVALID_PARAMS;
use crate::answer::Request;
use crate::config::Config;
use crate::config::HandOver;
use crate::error::{Error, Result, display};
use crate::index::file::IndexFile;
use crate::knowledge::content::Library;
use crate::output::budget::Budget;
use crate::output::{Format, Style};
use crate::query::LevelledKeywords;
use crate::search::cache::Cache;
use crate::search::{self, Query, Scoring, Searcher};

/// Results per search unless the call says otherwise (as `kbidx search --top`).
const DEFAULT_TOP: usize = 30;

/// The tool descriptions `tools/list` returns.
///
/// `search` declares no `outputSchema`: its document has fields that come and
/// go with the options and stages (`content`, `truncated`, `excerpt`,
/// `search_mode`, `matched[].partial` and `stage`), a schema written by hand
/// next to [`Report`](crate::output::Report) would drift from it, and a client
/// that validates would then reject good results. `read` has none either: one
/// section's document and several sections' (`{version, sections}`) differ.
///
/// Long on purpose: the tool descriptions and their JSON schemas, as data.
pub(super) fn list() -> Value {
    let keywords = |level: &str| {
        json!({
            "type": "array",
            "items": { "type": "string" },
            "description": format!("{level} keywords (also accepted: one comma-separated string); `a|b` in one entry joins synonyms of one concept."),
        })
    };
    let read_only = json!({
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false,
    });
    json!([
        {
            "name": "search",
            "title": "Search the knowledge base",
            "description": "Ranks the knowledge base's sections for a plain question (Japanese or \
    English) or for levelled keywords; give `question`, or `l1`/`l2`/`l3` keywords, or both. Returns \
    the ranked references (file.json#section) with titles and scores; with `with_content` (or a \
    `max_tokens`/`max_chars` budget, which implies it) also the sections' text, best first, cut to \
    the budget. The text result is the lean document of `kbidx search` (per result its reference, \
    title, score and text); the structured result the same as `kbidx search --format json`; \
    `max_tokens` bounds each of them whole. `explain` gives the whole document (matched keywords \
    and points, confidence, suggestions).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "question": {
                        "type": "string",
                        "description": "A plain question, Japanese or English; keywords are extracted from it.",
                    },
                    "l1": keywords("Domain"),
                    "l2": keywords("Component"),
                    "l3": keywords("Function"),
                    "top": {
                        "type": "integer",
                        "minimum": 1,
                        "default": DEFAULT_TOP,
                        "description": "How many results at most.",
                    },
                    "max_tokens": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Budget of the whole result, in estimated tokens (the text result and the structured one are each within it); the sections' text gets what the rest leaves; implies with_content.",
                    },
                    "max_chars": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Budget of the whole result, in characters; implies with_content. With max_tokens too, both apply.",
                    },
                    "max_tokens_per_result": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Cap on each result's attached text, in tokens (estimated), so that many results fit the budget; implies with_content.",
                    },
                    "with_content": {
                        "type": "boolean",
                        "default": false,
                        "description": "Attach each result's section text.",
                    },
                    "hand_over": {
                        "type": "string",
                        "enum": ["adaptive", "passages", "start"],
                        "description": "How content is shaped (default: the server's kbidx.toml, else start). adaptive: within max_tokens, short sections whole and long ones their best blocks for the query, best results first, then the best results widened with what is left (results cut this way have `passage: true` or `truncated: true`; read them whole with the read tool when the answer seems cut off). passages: each result's query-focused passage within max_tokens_per_result (default 1000 characters). start: each section from its start, cut where the budget ends.",
                    },
                    "passages": {
                        "type": "boolean",
                        "default": false,
                        "description": "Same as hand_over \"passages\". Implies with_content.",
                    },
                    "exclude": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Globs of knowledge files never to return (paths relative to the knowledge directory), e.g. [\"javadoc/**\", \"releases/**\"]; the list is refilled to `top`.",
                    },
                    "group_by": {
                        "type": "string",
                        "enum": ["file"],
                        "description": "`file`: one result per knowledge file (its best section); the file's other sections that ranked above the last result are listed in that result's `more`.",
                    },
                    "collapse": {
                        "type": "boolean",
                        "default": true,
                        "description": "Fold sections whose text nearly repeats a result above them (e.g. release notes of two versions) into that result's `also`, their differing paragraphs handed over with it (default from kbidx.toml `collapse`, else on).",
                    },
                    "explain": {
                        "type": "boolean",
                        "default": false,
                        "description": "The whole document: per result its matched keywords with level, field and points, stage and raw score; the confidence and the suggestions.",
                    },
                    "suggest": {
                        "type": "boolean",
                        "default": false,
                        "description": "Add words for a second search to the lean document.",
                    },
                },
                "additionalProperties": false,
            },
            "annotations": read_only,
        },
        {
            "name": "read",
            "title": "Read sections",
            "description": "Returns the full text of sections of the knowledge base, by their \
    references as `search` returns them (`path/to/file.json#section`): one (`reference`) or \
    several in one call (`references`), within `max_tokens` for the whole result when given.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "reference": {
                        "type": "string",
                        "description": "The section's reference, `path/to/file.json#section`.",
                    },
                    "references": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Several sections' references, read in turn into one result.",
                    },
                    "max_tokens": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Budget of estimated tokens of the whole result; sections are cut in order.",
                    },
                },
                "additionalProperties": false,
            },
            "annotations": read_only,
        },
    ])
}

/// A `tools/call` result: the text item, and the structured document
/// (already encoded) or the error flag, in the order the protocol lists them.
#[derive(Debug, Serialize)]
pub(crate) struct ToolResult {
    content: [TextItem; 1],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured: Option<Box<RawValue>>,
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not")]
    is_error: bool,
}

/// A text content item.
#[derive(Debug, Serialize)]
struct TextItem {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

impl TextItem {
    fn of(text: String) -> Self {
        Self { kind: "text", text }
    }
}

/// The server's state: where the index and knowledge are, and the loaded index.
pub(super) struct Tools {
    index: PathBuf,
    knowledge: PathBuf,
    settings: search::Settings,
    /// The hand-over of kbidx.toml, for calls that do not choose one.
    hand_over: HandOver,
    /// Whether twins are folded when a call does not say (`collapse` in kbidx.toml).
    collapse: bool,
    cache: Option<Cache>,
    loaded: Option<Loaded>,
}

/// An index loaded for searching, and the file state it was loaded from.
struct Loaded {
    stamp: Option<Stamp>,
    searcher: Searcher<'static>,
}

/// What tells a rewritten index file from the one loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Self {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        })
    }
}

impl Tools {
    /// The tools for `kbidx mcp` with `args` over `config` (nothing is loaded yet).
    pub(super) fn new(config: &Config, args: super::Options) -> Result<Self> {
        Ok(Self {
            index: args.index.unwrap_or_else(|| config.index.clone()),
            knowledge: args.knowledge.unwrap_or_else(|| config.knowledge.clone()),
            settings: config.search_settings()?,
            hand_over: config.hand_over,
            collapse: config.collapse,
            cache: (config.cache && !args.no_cache)
                .then(Cache::from_env)
                .flatten(),
            loaded: None,
        })
    }

    /// Loads the dictionary, the index and its body index now, so that the
    /// first call is answered as fast as the others. A failure is logged, not
    /// fatal: each `search` reports it until the index can be read.
    pub(super) fn load(&mut self, log: &mut dyn Write) {
        let started = Instant::now();
        // The dictionary is loaded on first use; a failure shows in the first call.
        let _ = crate::text::tokenize::tokenize("索引");
        let (index, knowledge) = (display(&self.index), display(&self.knowledge));
        match self.searcher(log) {
            Ok(searcher) => {
                let _ = writeln!(
                    log,
                    "kbidx mcp: {index} ({} sections) and knowledge {knowledge} ready in {:.1} ms",
                    searcher.len(),
                    ms(started)
                );
            }
            Err(e) => {
                let _ = writeln!(
                    log,
                    "kbidx mcp: {e} (search reports this until it is fixed)"
                );
            }
        }
    }

    /// The searcher over the index as it is on disk now (loaded again if the file changed).
    fn searcher(&mut self, log: &mut dyn Write) -> Result<&Searcher<'static>> {
        let stamp = Stamp::of(&self.index);
        let fresh = self
            .loaded
            .as_ref()
            .is_some_and(|l| stamp.is_some() && l.stamp == stamp);
        if !fresh {
            if self.loaded.take().is_some() {
                let _ = writeln!(
                    log,
                    "kbidx mcp: {} changed on disk, loading it again",
                    display(&self.index)
                );
            }
            let searcher = self.open()?;
            searcher.load_body_index();
            for note in searcher.notes() {
                let _ = writeln!(log, "kbidx mcp: {note}");
            }
            searcher.prepare_for_many();
            self.loaded = Some(Loaded { stamp, searcher });
        }
        match &self.loaded {
            Some(loaded) => Ok(&loaded.searcher),
            None => Err(Error::data(&self.index, "cannot load index")),
        }
    }

    /// Reads, checks and prepares the index (from the search cache when it has it).
    fn open(&self) -> Result<Searcher<'static>> {
        let file = IndexFile::open(&self.index)?;
        // Owned: the searcher outlives this call; the mapping is dropped here.
        let text = crate::index::file::index_text(&self.index, file.bytes())?.to_owned();
        let matcher = crate::search::cache::prepare_index(
            &self.index,
            Cow::Owned(text),
            self.cache.as_ref(),
        )?;
        Ok(
            Searcher::new(matcher, self.settings.clone(), Some(self.knowledge.clone()))
                .with_cache(self.cache.clone()),
        )
    }

    /// `tools/call`: runs the tool, with errors in the arguments or the
    /// knowledge base as a tool result with `isError` (a panic too, as a last
    /// resort: the server answers the next call with the index loaded again).
    pub(super) fn call(
        &mut self,
        params: &Map<String, Value>,
        log: &mut dyn Write,
    ) -> std::result::Result<ToolResult, (i64, String)> {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err((
                INVALID_PARAMS,
                "tools/call: \"name\" must be a string".into(),
            ));
        };
        let empty = Map::new();
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(arguments)) => arguments,
            Some(_) => {
                return Err((
                    INVALID_PARAMS,
                    "tools/call: \"arguments\" must be an object".into(),
                ));
            }
        };
        let started = Instant::now();
        let run = std::panic::AssertUnwindSafe(|| match name {
            "search" => Some(self.search(arguments, log)),
            "read" => Some(self.read(arguments, log)),
            _ => None,
        });
        let outcome = match std::panic::catch_unwind(run) {
            Ok(Some(outcome)) => outcome,
            Ok(None) => {
                return Err((
                    INVALID_PARAMS,
                    format!("unknown tool {name:?} (kbidx has search and read)"),
                ));
            }
            Err(_) => {
                self.loaded = None;
                Err(Error::Usage(format!(
                    "internal error in {name}; please report it (the server goes on)"
                )))
            }
        };
        let _ = match &outcome {
            Ok(_) => writeln!(log, "kbidx mcp: {name} in {:.2} ms", ms(started)),
            Err(e) => writeln!(log, "kbidx mcp: {name} failed: {e}"),
        };
        // `KBIDX_TIMINGS=1`: the call's phases, as `kbidx search` prints them.
        if let Some(line) = crate::timings::line(started) {
            let _ = writeln!(log, "{line}");
        }
        Ok(match outcome {
            Ok((text, structured)) => ToolResult {
                content: [TextItem::of(text)],
                structured: Some(structured),
                is_error: false,
            },
            Err(e) => ToolResult {
                content: [TextItem::of(e.to_string())],
                structured: None,
                is_error: true,
            },
        })
    }

    /// The `search` tool: the text rendering (with content, when attached)
    /// and the JSON document. The text item is meant for the model: the
    /// sections' markdown reads as itself there, where in the JSON every
    /// newline and quote of it is escaped; programs take the
    /// `structuredContent`.
    fn search(
        &mut self,
        arguments: &Map<String, Value>,
        log: &mut dyn Write,
    ) -> Result<(String, Box<RawValue>)> {
        let request = SearchRequest::parse(arguments, self.collapse)?;
        let query = crate::timings::time("query", || request.query())?;
        let options = Request {
            query,
            knowledge: self.knowledge.clone(),
            scoring: Scoring::Default,
            // A budget bounds the structured document, the larger of the two
            // forms the result carries (the text has no escapes).
            style: Style {
                format: Format::Json,
                explain: request.explain,
                suggest: request.suggest,
                pretty: false,
            },
            top: request.top,
            min_score: None,
            with_content: request.with_content || request.budget.is_set() || request.passages,
            budget: request.budget,
            hand_over: match (request.hand_over, request.passages) {
                (Some(mode), _) => mode,
                (None, true) => HandOver::Passages,
                (None, false) => self.hand_over,
            },
            hierarchy: self.settings.hierarchy,
            fallback: self.settings.fallback,
            body: self.settings.body,
            expand: 0,
            links: PathBuf::new(),
            diversity: request.diversity.clone(),
        };
        let searcher = self.searcher(log)?;
        let report = crate::answer::answer(&options, searcher)?;
        let text = crate::timings::time("render", || {
            let style = Style {
                format: Format::Text,
                ..options.style
            };
            // The text states its own size, as `kbidx search` prints it.
            let mut text = report.clone();
            crate::answer::seal(&mut text, style);
            text.document(style)
        });
        // Encoded once, as `kbidx search --format json` writes it: no
        // `serde_json::Value` tree (a map per object) is built and dropped per call.
        let structured = crate::timings::time("json", || {
            RawValue::from_string(report.document(options.style).trim_end().to_owned())
        })
        .map_err(|e| Error::Usage(format!("cannot encode the result: {e}")))?;
        Ok((text, structured))
    }

    /// The `read` tool: the section's text, and `{reference, title, content}`.
    fn read(
        &mut self,
        arguments: &Map<String, Value>,
        _log: &mut dyn Write,
    ) -> Result<(String, Box<RawValue>)> {
        check_names(
            arguments,
            "read",
            &["reference", "references", "max_tokens"],
        )?;
        let mut references: Vec<String> = Vec::new();
        match arguments.get("reference") {
            Some(Value::String(r)) if !r.trim().is_empty() => references.push(r.trim().to_owned()),
            Some(Value::String(_)) | None | Some(Value::Null) => {}
            Some(other) => return Err(wrong_type("reference", "a string", other)),
        }
        match arguments.get("references") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    match item {
                        Value::String(r) if !r.trim().is_empty() => {
                            references.push(r.trim().to_owned());
                        }
                        other => {
                            return Err(wrong_type("references", "an array of strings", other));
                        }
                    }
                }
            }
            Some(other) => return Err(wrong_type("references", "an array of strings", other)),
        }
        if references.is_empty() {
            return Err(Error::Usage(
                "read needs `reference` or `references`: sections' references as search returns \
                 them, `path/to/file.json#section`"
                    .into(),
            ));
        }
        let max_tokens = match arguments.get("max_tokens") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_u64() {
                Some(n) if n > 0 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
                _ => return Err(wrong_type("max_tokens", "a positive integer", v)),
            },
        };
        // Any anchor a link may write (section id, heading text or slug);
        // the answer names the section as the index does.
        let mut library = Library::new(&self.knowledge).with_index(&self.index);
        let mut docs = Vec::with_capacity(references.len());
        for reference in &references {
            docs.push(crate::output::read::SectionDoc::read(
                &mut library,
                reference,
            )?);
        }
        let budget = Budget {
            max_tokens,
            ..Budget::default()
        };
        let json = crate::output::read::Reading::fit(docs.clone(), budget, true);
        let text = crate::output::read::Reading::fit(docs, budget, false);
        // One line: the document is indented for people, a JSON-RPC message is not.
        let structured = serde_json::from_str::<Value>(&json.document)
            .and_then(|doc| serde_json::value::to_raw_value(&doc))
            .map_err(|e| Error::Usage(format!("cannot encode the result: {e}")))?;
        Ok((text.document, structured))
    }
}

/// The `search` tool's arguments, checked.
#[derive(Debug, Default)]
struct SearchRequest {
    question: Option<String>,
    levels: LevelledKeywords,
    top: usize,
    with_content: bool,
    /// Query-focused passages (`passages`).
    passages: bool,
    /// `hand_over`, when given.
    hand_over: Option<HandOver>,
    /// The content budget (`max_chars`, `max_tokens`, `max_tokens_per_result`).
    budget: Budget,
    /// `exclude` and `group_by`, checked.
    diversity: crate::search::Diversity,
    /// The whole document (`explain`) instead of the lean one.
    explain: bool,
    /// The suggestions in the lean document (`suggest`).
    suggest: bool,
}

impl SearchRequest {
    /// Checks `arguments` against the `search` input schema, with messages
    /// that name the argument (`null` counts as absent).
    ///
    /// Long on purpose: one check per argument of the schema, each with its own message.
    fn parse(arguments: &Map<String, Value>, collapse: bool) -> Result<Self> {
        const NAMES: [&str; 16] = [
            "question",
            "l1",
            "l2",
            "l3",
            "top",
            "max_tokens",
            "max_chars",
            "max_tokens_per_result",
            "with_content",
            "passages",
            "hand_over",
            "exclude",
            "group_by",
            "collapse",
            "explain",
            "suggest",
        ];
        check_names(arguments, "search", &NAMES)?;
        let get = |name: &str| arguments.get(name).filter(|v| !v.is_null());
        let question = match get("question") {
            None => None,
            Some(Value::String(q)) => Some(q.clone()),
            Some(other) => return Err(wrong_type("question", "a string", other)),
        };
        let keywords = |name: &str| -> Result<Vec<String>> {
            match get(name) {
                None => Ok(Vec::new()),
                // As on the command line: `--l3 a,b`.
                Some(Value::String(list)) => Ok(list.split(',').map(str::to_owned).collect()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| match item {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(wrong_type(name, "an array of strings", other)),
                    })
                    .collect(),
                Some(other) => Err(wrong_type(name, "an array of strings", other)),
            }
        };
        let count = |name: &str| -> Result<Option<usize>> {
            match get(name) {
                None => Ok(None),
                Some(v) => v
                    .as_u64()
                    .map(|n| Some(usize::try_from(n).unwrap_or(usize::MAX)))
                    .ok_or_else(|| wrong_type(name, "a non-negative integer", v)),
            }
        };
        let top = count("top")?.unwrap_or(DEFAULT_TOP);
        if top == 0 {
            return Err(Error::Usage("`top` must be at least 1".into()));
        }
        let with_content = match get("with_content") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(wrong_type("with_content", "true or false", other)),
        };
        let max_tokens_per_result = count("max_tokens_per_result")?;
        if max_tokens_per_result == Some(0) {
            return Err(Error::Usage(
                "`max_tokens_per_result` must be at least 1".into(),
            ));
        }
        let passages = match get("passages") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(wrong_type("passages", "true or false", other)),
        };
        let hand_over = match get("hand_over") {
            None => None,
            Some(Value::String(mode)) => Some(match mode.as_str() {
                "adaptive" => HandOver::Adaptive,
                "passages" => HandOver::Passages,
                "start" => HandOver::Start,
                _ => {
                    return Err(Error::Usage(format!(
                        "`hand_over` must be \"adaptive\", \"passages\" or \"start\", not {mode:?}"
                    )));
                }
            }),
            Some(other) => {
                return Err(wrong_type(
                    "hand_over",
                    "\"adaptive\", \"passages\" or \"start\"",
                    other,
                ));
            }
        };
        let flag_or = |name: &str, default: bool| match get(name) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(wrong_type(name, "true or false", other)),
        };
        let flag = |name: &str| flag_or(name, false);
        let collapse = flag_or("collapse", collapse)?;
        let per_file = match get("group_by") {
            None => None,
            Some(Value::String(by)) if by == "file" => Some(1),
            Some(Value::String(by)) => {
                return Err(Error::Usage(format!(
                    "`group_by` must be \"file\", not {by:?}"
                )));
            }
            Some(other) => return Err(wrong_type("group_by", "\"file\"", other)),
        };
        let diversity = crate::search::Diversity::new(&keywords("exclude")?, per_file, collapse)?;
        let budget = Budget {
            max_chars: count("max_chars")?,
            max_tokens: count("max_tokens")?,
            max_tokens_per_result,
            ..Budget::default()
        };
        Ok(Self {
            question,
            levels: LevelledKeywords {
                l1: keywords("l1")?,
                l2: keywords("l2")?,
                l3: keywords("l3")?,
            },
            top,
            with_content,
            passages,
            hand_over,
            budget,
            diversity,
            explain: flag("explain")?,
            suggest: flag("suggest")?,
        })
    }

    /// The query, as `kbidx search` builds it from the same question and keywords.
    fn query(&self) -> Result<Query> {
        let levels = &self.levels;
        if let Some(question) = self.question.as_deref().filter(|q| !q.trim().is_empty())
            && !(levels.l1.is_empty() && levels.l2.is_empty() && levels.l3.is_empty())
        {
            return Err(Error::Usage(format!(
                "give either `question` or `l1`/`l2`/`l3`, not both (question {question:?}): \
                 a search mixing them switches mode without saying so; put every keyword in \
                 the lists, or search the question on its own"
            )));
        }
        let mut query = Query::from_levels(&self.levels);
        if let Some(question) = self.question.as_deref().filter(|q| !q.trim().is_empty()) {
            query.add_question(question)?;
        }
        if query.is_empty() {
            return Err(Error::Usage(
                "nothing to search for: give `question` (a plain question) or `l1`/`l2`/`l3` \
                 keywords (arrays of strings)"
                    .into(),
            ));
        }
        Ok(query)
    }
}

/// Refuses arguments the tool `tool` does not take (`names`).
fn check_names(arguments: &Map<String, Value>, tool: &str, names: &[&str]) -> Result<()> {
    match arguments.keys().find(|k| !names.contains(&k.as_str())) {
        Some(unknown) => Err(Error::Usage(format!(
            "{tool}: unknown argument {unknown:?} (it takes {})",
            names.join(", ")
        ))),
        None => Ok(()),
    }
}

/// An argument of the wrong JSON type.
fn wrong_type(name: &str, expected: &str, value: &Value) -> Error {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() && n.as_i64().is_some_and(|n| n < 0) => "a negative number",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    Error::Usage(format!("`{name}` must be {expected}, not {kind}"))
}

/// Milliseconds since `started`.
fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(arguments: Value) -> Result<SearchRequest> {
        match arguments {
            Value::Object(map) => SearchRequest::parse(&map, true),
            _ => SearchRequest::parse(&Map::new(), true),
        }
    }

    fn message(arguments: Value) -> String {
        match parse(arguments).and_then(|r| r.query().map(|_| r)) {
            Ok(r) => format!("accepted: {r:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn search_arguments_are_checked_with_readable_messages() {
        assert_eq!(
            message(json!({})),
            "nothing to search for: give `question` (a plain question) or `l1`/`l2`/`l3` keywords (arrays of strings)"
        );
        assert_eq!(message(json!({"question": "  "})), message(json!({})));
        assert_eq!(
            message(json!({"question": "x", "top": 0})),
            "`top` must be at least 1"
        );
        assert_eq!(
            message(json!({"question": "x", "top": -3})),
            "`top` must be a non-negative integer, not a negative number"
        );
        assert_eq!(
            message(json!({"question": "x", "top": 2.5})),
            "`top` must be a non-negative integer, not a fractional number"
        );
        assert_eq!(
            message(json!({"l3": [1]})),
            "`l3` must be an array of strings, not a number"
        );
        assert_eq!(
            message(json!({"question": 5})),
            "`question` must be a string, not a number"
        );
        assert_eq!(
            message(json!({"q": "x"})),
            "search: unknown argument \"q\" (it takes question, l1, l2, l3, top, max_tokens, max_chars, max_tokens_per_result, with_content, passages, hand_over, exclude, group_by, collapse, explain, suggest)"
        );
    }

    #[test]
    fn search_arguments_have_cli_defaults_and_budgets() -> Result<()> {
        let r = parse(json!({"l3": "a, b", "l2": ["c"], "question": null}))?;
        assert_eq!(r.levels.l3, ["a", " b"]);
        assert_eq!(r.levels.l2, ["c"]);
        assert_eq!(
            (r.top, r.with_content, r.budget.is_set()),
            (DEFAULT_TOP, false, false)
        );
        let r = parse(json!({"question": "x", "max_tokens": 100}))?;
        assert_eq!(r.budget.max_tokens, Some(100));
        let r = parse(json!({"question": "x", "max_tokens": 100, "max_chars": 50, "top": 3}))?;
        assert_eq!(
            (r.budget.max_chars, r.budget.max_tokens, r.top),
            (Some(50), Some(100), 3)
        );
        let mixed = parse(json!({"question": "x y", "l3": ["z"]}))?;
        assert!(
            mixed
                .query()
                .err()
                .is_some_and(|e| e.to_string().contains("not both")),
            "a question with keywords is refused"
        );
        let r = parse(json!({"question": "x", "hand_over": "start"}))?;
        assert_eq!(r.hand_over, Some(HandOver::Start));
        assert_eq!(
            message(json!({"question": "x", "hand_over": "whole"})),
            "`hand_over` must be \"adaptive\", \"passages\" or \"start\", not \"whole\""
        );
        let r = parse(json!({"question": "x", "passages": true}))?;
        assert!(r.passages && !r.with_content);
        assert_eq!(
            message(json!({"question": "x", "passages": "yes"})),
            "`passages` must be true or false, not a string"
        );
        Ok(())
    }

    #[test]
    fn search_diversity_arguments_are_checked() -> Result<()> {
        let r = parse(json!({"question": "x", "exclude": ["javadoc/**"], "group_by": "file"}))?;
        assert!(r.diversity.excludes("javadoc/a/b.json") && !r.diversity.excludes("guide/a.json"));
        // Twins are folded unless the call (or kbidx.toml) says otherwise.
        assert!(parse(json!({"question": "x"}))?.diversity.collapse);
        assert!(
            parse(json!({"question": "x", "collapse": false}))?
                .diversity
                .is_off()
        );
        assert!(message(json!({"question": "x", "exclude": ["a/["]})).contains("invalid glob"));
        assert_eq!(
            message(json!({"question": "x", "group_by": "section"})),
            "`group_by` must be \"file\", not \"section\""
        );
        Ok(())
    }
}
