//! `kbidx mcp`: the `search` and `read` tools over the Model Context Protocol
//! (JSON-RPC 2.0 on stdin/stdout, one message per line).
//!
//! Why it exists: an agent that runs `kbidx search` in a shell starts a
//! process, maps the index and loads the dictionary for every question, and
//! has to be taught the command line by its skill. A server does that work
//! once and answers each call from memory, and an MCP client (Claude Code,
//! Claude Desktop) lists the tools with their input schemas itself.
//!
//! Why hand-written and not the official Rust SDK (`rmcp`): rmcp is built on
//! tokio and async handlers, a large dependency tree for a server that needs
//! four methods (`initialize`, `ping`, `tools/list`, `tools/call`) over one
//! synchronous pipe, and kbidx's [`Searcher`](crate::search::Searcher) is
//! single-threaded by design. A blocking loop over stdin with `serde_json`
//! (already a dependency) is a few hundred lines, adds no dependency and
//! no release build time, and is checked end to end against the official
//! TypeScript SDK client (`scripts/mcp-client/check.mjs`).
//!
//! Protocol decisions:
//!
//! * Version negotiation: the client's `protocolVersion` is answered with
//!   itself when it is one of [`VERSIONS`], else with the latest one. The
//!   messages kbidx sends are the same in all of them (`structuredContent`,
//!   new in 2025-06-18, is an extra field older clients ignore).
//! * Malformed input is answered, never fatal: a line that is not JSON gets
//!   `-32700`, a message that is not a JSON-RPC 2.0 request `-32600` (batches
//!   too: MCP removed them in 2025-06-18), an unknown method `-32601`, and
//!   `tools/call` without a known tool name `-32602`. Wrong *arguments* of a
//!   known tool are a tool result with `isError: true` and a readable message
//!   (as the 2025-11-25 revision asks), so the model can correct its call.
//!   Notifications (no `id`) are never answered; unknown ones are ignored,
//!   and so are responses (kbidx sends no requests).
//! * The lifecycle is not enforced: a client that calls a tool before
//!   `initialize` is answered all the same.
//! * stdout carries protocol messages only; the log (start, reloads, one line
//!   per tool call with its time) goes to stderr.
//! * End of input ends the server with exit code 0.

mod tools;

use std::io::{BufRead, Write};

use serde_json::{Map, Value, json};

use crate::config::Config;
use crate::error::{Error, Result};

/// Protocol revisions kbidx speaks, newest first.
pub(crate) const VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// What the server tells the client about itself in `initialize`.
const INSTRUCTIONS: &str = "kbidx ranks the sections of a JSON knowledge base. Call `search` with a \
plain question (Japanese or English) or with l1 (domain), l2 (component) and l3 (function) \
keywords; set max_tokens to get the best sections' text, the whole result within that budget. Call \
`read` with results' references (file.json#section) to get their full text.";

/// Where the server reads from (`kbidx mcp`'s flags; `None`: `kbidx.toml`).
#[derive(Debug, Default)]
pub(crate) struct Options {
    /// The index file.
    pub(crate) index: Option<std::path::PathBuf>,
    /// The knowledge directory.
    pub(crate) knowledge: Option<std::path::PathBuf>,
    /// Leave the search cache alone.
    pub(crate) no_cache: bool,
}

/// Runs the server: reads messages from `input` until it ends, writes
/// responses to `out` (flushed after each) and the log to `log`. Returns the
/// exit code (0); an error only when `out` cannot be written.
pub(crate) fn serve(
    config: &Config,
    args: Options,
    mut input: impl BufRead,
    out: &mut dyn Write,
    log: &mut dyn Write,
) -> Result<u8> {
    let mut session = Session::new(config, args, log)?;
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io("<stdin>", "cannot read", e))?;
        if read == 0 {
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(response) = session.answer(&line, log) {
            let write = |out: &mut dyn Write| {
                serde_json::to_writer(&mut *out, &response).map_err(std::io::Error::from)?;
                out.write_all(b"\n")?;
                out.flush()
            };
            write(out).map_err(|e| Error::io("<stdout>", "cannot write", e))?;
        }
    }
    Ok(0)
}

/// One server's state between messages: what [`serve`] keeps, and what the
/// fuzz targets drive without a pipe (`crate::fuzzing`).
pub(crate) struct Session {
    tools: tools::Tools,
}

impl Session {
    /// The server over `config` with `args`, its index loaded (failures logged to `log`).
    pub(crate) fn new(config: &Config, args: Options, log: &mut dyn Write) -> Result<Self> {
        let mut tools = tools::Tools::new(config, args)?;
        tools.load(log);
        Ok(Self { tools })
    }

    /// The answer to one line of input (`None`: a notification or a response).
    pub(crate) fn answer(&mut self, line: &[u8], log: &mut dyn Write) -> Option<Reply> {
        handle(&mut self.tools, line, log)
    }

    /// `tools/call` of the tool `name` with `arguments`.
    pub(crate) fn call(
        &mut self,
        name: &str,
        arguments: Map<String, Value>,
        log: &mut dyn Write,
    ) -> std::result::Result<Value, (i64, String)> {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name.into()));
        params.insert("arguments".into(), Value::Object(arguments));
        let result = self.tools.call(&params, log)?;
        serde_json::to_value(&result).map_err(|e| (INVALID_PARAMS, e.to_string()))
    }
}

/// A message the server writes: a JSON value, or a tool's result (whose
/// structured document is written as encoded, not rebuilt as a value).
#[derive(Debug)]
pub(crate) enum Reply {
    /// A response or error built as a value.
    Value(Value),
    /// The response to a `tools/call` with a result (an `isError` one too).
    Tool {
        id: Value,
        result: tools::ToolResult,
    },
}

impl serde::Serialize for Reply {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        /// `{"jsonrpc": "2.0", "id": …, "result": …}`, in that order.
        #[derive(serde::Serialize)]
        struct Envelope<'a> {
            jsonrpc: &'static str,
            id: &'a Value,
            result: &'a tools::ToolResult,
        }
        match self {
            Self::Value(value) => value.serialize(serializer),
            Self::Tool { id, result } => Envelope {
                jsonrpc: "2.0",
                id,
                result,
            }
            .serialize(serializer),
        }
    }
}

/// Answers one message (`None`: nothing to answer, a notification or a response).
fn handle(tools: &mut tools::Tools, line: &[u8], log: &mut dyn Write) -> Option<Reply> {
    let message: Value = match serde_json::from_slice(line) {
        Ok(message) => message,
        Err(e) => return Some(error(Value::Null, PARSE_ERROR, format!("parse error: {e}"))),
    };
    let Value::Object(message) = message else {
        let what = if message.is_array() {
            "batches are not supported (MCP 2025-06-18 and later): send one request per line"
        } else {
            "a request must be a JSON object"
        };
        return Some(error(Value::Null, INVALID_REQUEST, what.into()));
    };
    let id = message.get("id").cloned();
    let Some(method) = message.get("method") else {
        // A response (kbidx sends no requests, so none is expected) or junk.
        // An id that is not a valid one is not echoed (fuzz target `mcp_line`).
        return match id {
            Some(id) if !message.contains_key("result") && !message.contains_key("error") => {
                let id = Some(id).filter(valid_id).unwrap_or(Value::Null);
                Some(error(id, INVALID_REQUEST, "missing \"method\"".into()))
            }
            _ => None,
        };
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let id = id.filter(valid_id).unwrap_or(Value::Null);
        return Some(error(
            id,
            INVALID_REQUEST,
            "\"jsonrpc\" must be \"2.0\"".into(),
        ));
    }
    let Some(method) = method.as_str() else {
        let id = id.filter(valid_id).unwrap_or(Value::Null);
        return Some(error(
            id,
            INVALID_REQUEST,
            "\"method\" must be a string".into(),
        ));
    };
    let Some(id) = id else {
        // A notification: `notifications/initialized`, `notifications/cancelled`
        // (every call is answered before the next is read) or one kbidx does not know.
        return None;
    };
    if !valid_id(&id) {
        return Some(error(
            Value::Null,
            INVALID_REQUEST,
            "\"id\" must be a string or an integer".into(),
        ));
    }
    let params = match message.get("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params.clone(),
        Some(_) => {
            return Some(error(
                id,
                INVALID_PARAMS,
                "\"params\" must be an object".into(),
            ));
        }
    };
    let result = match method {
        "initialize" => initialize(&params),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({ "tools": tools::list() })),
        "tools/call" => {
            return Some(match tools.call(&params, log) {
                Ok(result) => Reply::Tool { id, result },
                Err((code, message)) => error(id, code, message),
            });
        }
        _ => Err((METHOD_NOT_FOUND, format!("method not found: {method}"))),
    };
    Some(match result {
        Ok(result) => Reply::Value(json!({ "jsonrpc": "2.0", "id": id, "result": result })),
        Err((code, message)) => error(id, code, message),
    })
}

/// JSON-RPC ids are strings or numbers; MCP also rules out `null`.
fn valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// The `initialize` result: the negotiated version, the tools capability, who we are.
fn initialize(params: &Map<String, Value>) -> std::result::Result<Value, (i64, String)> {
    let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
        return Err((
            INVALID_PARAMS,
            "initialize: \"protocolVersion\" must be a string".into(),
        ));
    };
    let version = VERSIONS
        .iter()
        .find(|v| **v == requested)
        .unwrap_or(&VERSIONS[0]);
    Ok(json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": {
            "name": "kbidx",
            "title": "kbidx knowledge search",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "instructions": INSTRUCTIONS,
    }))
}

/// A JSON-RPC error response.
fn error(id: Value, code: i64, message: String) -> Reply {
    Reply::Value(
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> tools::Tools {
        let config = Config::default();
        let args = Options {
            index: Some("/nonexistent/index.toon".into()),
            knowledge: Some("/nonexistent/knowledge".into()),
            no_cache: true,
        };
        tools::Tools::new(&config, args).unwrap_or_else(|e| panic!("{e}"))
    }

    fn answer(tools: &mut tools::Tools, line: &str) -> Option<Value> {
        let reply = handle(tools, line.as_bytes(), &mut Vec::new())?;
        serde_json::to_value(&reply).ok()
    }

    fn code(response: &Value) -> Option<i64> {
        response["error"]["code"].as_i64()
    }

    #[test]
    fn malformed_messages_get_json_rpc_errors() {
        let mut t = server();
        let cases = [
            ("{", PARSE_ERROR),
            ("\"x\"", INVALID_REQUEST),
            ("[]", INVALID_REQUEST),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                INVALID_REQUEST,
            ),
            (
                r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, INVALID_REQUEST),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (r#"{"jsonrpc":"2.0","id":1}"#, INVALID_REQUEST),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#,
                METHOD_NOT_FOUND,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#,
                INVALID_PARAMS,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
                INVALID_PARAMS,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
                INVALID_PARAMS,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
                INVALID_PARAMS,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":[]}}"#,
                INVALID_PARAMS,
            ),
        ];
        for (line, expected) in cases {
            let response = answer(&mut t, line).unwrap_or_else(|| panic!("no answer to {line}"));
            assert_eq!(code(&response), Some(expected), "{line}: {response}");
        }
    }

    /// An id that is not a string or an integer is never echoed: the answer's
    /// id is `null` (found by the fuzz target `mcp_line`: a message without
    /// `method` whose id was an object got that object back).
    #[test]
    fn invalid_ids_are_answered_with_null() {
        let mut t = server();
        for line in [
            r#"{"jsonrpc":"2.0","id":{"name":"search"}}"#,
            r#"{"jsonrpc":"2.0","id":[1]}"#,
            r#"{"jsonrpc":"2.0","id":true}"#,
            r#"{"jsonrpc":"2.0","id":1.5}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":[2],"method":7}"#,
        ] {
            let response = answer(&mut t, line).unwrap_or_else(|| panic!("no answer to {line}"));
            assert_eq!(response["id"], Value::Null, "{line}: {response}");
            assert_eq!(code(&response), Some(INVALID_REQUEST), "{line}: {response}");
        }
    }

    #[test]
    fn notifications_and_responses_are_not_answered() {
        let mut t = server();
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}"#,
        ] {
            assert_eq!(answer(&mut t, line), None, "{line}");
        }
    }

    #[test]
    fn versions_are_negotiated() {
        let mut t = server();
        for (asked, given) in [
            ("2025-06-18", "2025-06-18"),
            ("2024-11-05", "2024-11-05"),
            ("2025-11-25", "2025-11-25"),
            ("1999-01-01", VERSIONS[0]),
        ] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":"a","method":"initialize","params":{{"protocolVersion":"{asked}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
            );
            let response = answer(&mut t, &line).unwrap_or_default();
            assert_eq!(response["id"], "a");
            assert_eq!(response["result"]["protocolVersion"], given, "{response}");
        }
    }

    #[test]
    fn a_missing_index_is_a_tool_error() {
        let mut t = server();
        let response = answer(
            &mut t,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"question":"索引"}}}"#,
        )
        .unwrap_or_default();
        assert_eq!(response["result"]["isError"], true, "{response}");
        let text = response["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("cannot read index"), "{text}");
    }
}
