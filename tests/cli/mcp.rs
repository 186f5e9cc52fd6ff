//! `kbidx mcp`: the MCP server, driven through the real binary's stdin and stdout.
//!
//! A [`Session`] writes one JSON-RPC message per line and reads the answer;
//! the tools' results are compared with what `kbidx search` and `kbidx read`
//! print for the same request (the server runs the same code, so they must be
//! equal). The official TypeScript SDK client checks the same server in
//! `scripts/mcp-client/check.mjs` (CI, with npm); these tests need neither.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use crate::common::Sandbox;

/// A running `kbidx mcp` with pipes to talk to it.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(sandbox: &Sandbox, args: &[&str]) -> Self {
        let mut all = vec!["mcp"];
        all.extend_from_slice(args);
        let mut child = sandbox.command(&all).stdin(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    /// A started session that has done the `initialize` handshake.
    fn initialized(sandbox: &Sandbox, args: &[&str]) -> Self {
        let mut session = Self::start(sandbox, args);
        let init = session.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "kbidx-tests", "version": "0" },
            }),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        session.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        session
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the server writes, which must be one JSON-RPC message.
    fn receive(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "the server closed stdout");
        let value: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not a JSON line on stdout ({e}): {line}"));
        assert_eq!(value["jsonrpc"], "2.0", "{value}");
        value
    }

    /// Sends `method` with `params` and returns the response (checked to answer this id).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send_line(&message.to_string());
        let response = self.receive();
        assert_eq!(response["id"], id, "{response}");
        response
    }

    /// `tools/call` of `name` with `arguments`: the call's result.
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let response = self.request(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        );
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
    }

    /// Closes stdin and waits: the exit code and what was left on stdout and stderr.
    fn finish(mut self) -> (i32, String, String) {
        drop(self.stdin.take());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        let output = self.child.wait_with_output().unwrap();
        (
            output.status.code().unwrap_or(-1),
            rest,
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

/// A successful tool result: its text and structured content.
fn ok(result: &Value) -> (&str, &Value) {
    assert!(result.get("isError").is_none(), "{result}");
    assert_eq!(result["content"][0]["type"], "text", "{result}");
    (
        result["content"][0]["text"].as_str().unwrap(),
        &result["structuredContent"],
    )
}

/// A tool error result's message.
fn tool_error(result: &Value) -> &str {
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

/// `kbidx search ARGS` (JSON and text) on the same sandbox, for comparison.
fn cli_search(sandbox: &Sandbox, args: &[&str]) -> (String, Value) {
    let mut json_args = vec!["search", "--format", "json"];
    json_args.extend_from_slice(args);
    let json = sandbox.run(&json_args);
    let mut text_args = vec!["search"];
    text_args.extend_from_slice(args);
    let text = sandbox.run(&text_args);
    (text.stdout, serde_json::from_str(&json.stdout).unwrap())
}

#[test]
fn mcp_session_lists_tools_and_answers_like_the_cli() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let mut s = Session::initialized(&sandbox, &[]);

    let ping = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}));

    let list = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["search", "read"]);
    let search_schema = &tools[0]["inputSchema"];
    assert_eq!(search_schema["type"], "object");
    for property in [
        "question",
        "l1",
        "l2",
        "l3",
        "top",
        "max_tokens",
        "max_chars",
        "with_content",
        "passages",
        "hand_over",
    ] {
        assert!(
            search_schema["properties"].get(property).is_some(),
            "{property}"
        );
    }
    for property in ["reference", "references", "max_tokens"] {
        assert!(
            tools[1]["inputSchema"]["properties"]
                .get(property)
                .is_some(),
            "{property}"
        );
    }

    // A question: the same document and text as `kbidx search`.
    let question = "索引が古いと言われたらどうする？";
    let result = s.call("search", json!({ "question": question, "top": 5 }));
    let (text, structured) = ok(&result);
    let (cli_text, cli_json) = cli_search(&sandbox, &[question, "--top", "5"]);
    assert_eq!(structured, &cli_json);
    assert_eq!(text, cli_text);
    assert_eq!(
        structured["results"][0]["reference"],
        "troubleshooting.json#stale-index"
    );

    // Levelled keywords, with content within a character budget.
    let result = s.call(
        "search",
        json!({ "l2": ["build"], "l3": ["check", "stale"], "top": 3, "max_chars": 300 }),
    );
    let (text, structured) = ok(&result);
    let (cli_text, cli_json) = cli_search(
        &sandbox,
        &[
            "--l2",
            "build",
            "--l3",
            "check,stale",
            "--top",
            "3",
            "--max-chars",
            "300",
        ],
    );
    assert_eq!(structured, &cli_json);
    // The budget bounds each form whole: the text (no escapes) fits it too,
    // with the same results.
    let _ = cli_text;
    assert!(text.chars().count() <= 300, "{text}");
    for r in structured["results"].as_array().unwrap() {
        assert!(text.contains(r["reference"].as_str().unwrap()), "{text}");
    }
    assert!(
        structured["results"][0]["content"].is_string(),
        "{structured}"
    );

    // Grouped synonyms: one concept, the same confidence as the CLI's.
    let result = s.call(
        "search",
        json!({ "l2": ["build"], "l3": ["check|stale|鮮度"], "top": 3, "explain": true }),
    );
    let (_, structured) = ok(&result);
    let (_, cli_json) = cli_search(
        &sandbox,
        &[
            "--explain",
            "--l2",
            "build",
            "--l3",
            "check|stale|鮮度",
            "--top",
            "3",
        ],
    );
    assert_eq!(structured, &cli_json);
    assert_eq!(structured["confidence"]["concepts"], 2, "{structured}");
    assert_eq!(
        structured["keywords"]["l3"],
        json!(["check", "stale", "鮮度"])
    );

    // Passages: the same document and text as `kbidx search --passages`.
    let result = s.call(
        "search",
        json!({ "question": "索引を作り直すには", "top": 3, "passages": true, "max_tokens_per_result": 100 }),
    );
    let (text, structured) = ok(&result);
    let (cli_text, cli_json) = cli_search(
        &sandbox,
        &[
            "索引を作り直すには",
            "--top",
            "3",
            "--passages",
            "--max-tokens-per-result",
            "100",
        ],
    );
    assert_eq!(structured, &cli_json);
    assert_eq!(text, cli_text);
    assert_eq!(structured["budget"]["passages"], true, "{structured}");

    // A search that finds nothing is a result, not an error.
    let result = s.call("search", json!({ "l3": ["zzqqxxnotaword"] }));
    let (text, structured) = ok(&result);
    assert_eq!(text, "no results\n");
    assert_eq!(structured["results"], json!([]));

    // read: the text `kbidx read` prints, with the index's title.
    let reference = "guide/build.json#check";
    let result = s.call("read", json!({ "reference": reference }));
    let (text, structured) = ok(&result);
    let cli = sandbox.run(&["read", reference]).success();
    assert_eq!(text, cli.stdout);
    assert_eq!(structured["reference"], reference);
    assert_eq!(
        format!("{}\n", structured["content"].as_str().unwrap()),
        text
    );
    assert!(
        structured["title"].as_str().unwrap().contains("Check mode"),
        "{structured}"
    );

    let (code, rest, stderr) = s.finish();
    assert_eq!((code, rest.as_str()), (0, ""), "{stderr}");
    assert!(
        stderr.contains(" sections) and knowledge knowledge ready in "),
        "{stderr}"
    );
}

#[test]
fn mcp_bad_calls_are_errors_and_the_server_goes_on() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let mut s = Session::initialized(&sandbox, &[]);

    // Wrong arguments of a known tool: tool errors the model can read.
    let cases = [
        ("search", json!({}), "nothing to search for"),
        (
            "search",
            json!({ "question": "   " }),
            "nothing to search for",
        ),
        (
            "search",
            json!({ "question": "x", "top": 0 }),
            "`top` must be at least 1",
        ),
        (
            "search",
            json!({ "question": "x", "top": "5" }),
            "`top` must be a non-negative integer, not a string",
        ),
        (
            "search",
            json!({ "l1": [true] }),
            "`l1` must be an array of strings, not a boolean",
        ),
        (
            "search",
            json!({ "query": "x" }),
            "search: unknown argument \"query\"",
        ),
        ("read", json!({}), "read needs `reference`"),
        (
            "read",
            json!({ "reference": 3 }),
            "`reference` must be a string, not a number",
        ),
        (
            "read",
            json!({ "reference": "guide/build.json#no-such-section" }),
            "guide/build.json#no-such-section: no section id or heading slug \"no-such-section\"",
        ),
        (
            "read",
            json!({ "reference": "no-such-file.json#x" }),
            "knowledge/no-such-file.json: cannot read",
        ),
        (
            "read",
            json!({ "reference": "../outside.json#x" }),
            "refused",
        ),
    ];
    for (tool, arguments, expected) in cases {
        let result = s.call(tool, arguments.clone());
        let message = tool_error(&result);
        assert!(
            message.contains(expected),
            "{tool} {arguments}: {message:?} lacks {expected:?}"
        );
    }

    // Protocol errors: JSON-RPC error responses.
    let unknown_tool = s.request("tools/call", json!({ "name": "delete", "arguments": {} }));
    assert_eq!(unknown_tool["error"]["code"], -32602, "{unknown_tool}");
    let unknown_method = s.request("resources/list", json!({}));
    assert_eq!(unknown_method["error"]["code"], -32601, "{unknown_method}");
    s.send_line("{ this is not json");
    let parse = s.receive();
    assert_eq!(
        (parse["id"].clone(), parse["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );
    s.send_line(r#"{"jsonrpc":"2.0","id":"batch","method":"ping"#);
    assert_eq!(s.receive()["error"]["code"], -32700);
    s.send_line(r#"[{"jsonrpc":"2.0","id":9,"method":"ping"}]"#);
    assert_eq!(s.receive()["error"]["code"], -32600);
    s.send_line(r#"{"jsonrpc":"1.0","id":10,"method":"ping"}"#);
    let invalid = s.receive();
    assert_eq!(
        (invalid["id"].clone(), invalid["error"]["code"].clone()),
        (json!(10), json!(-32600))
    );
    // Invalid UTF-8 is a parse error too; an unknown notification is ignored.
    s.stdin.as_mut().unwrap().write_all(b"\xff\xfe\n").unwrap();
    assert_eq!(s.receive()["error"]["code"], -32700);
    s.send_line(r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#);

    // Still serving.
    let result = s.call("search", json!({ "l3": ["check"], "top": 1 }));
    let (_, structured) = ok(&result);
    assert_eq!(structured["results"].as_array().unwrap().len(), 1);

    let (code, rest, _) = s.finish();
    assert_eq!((code, rest.as_str()), (0, ""));
}

#[test]
fn mcp_without_an_index_reports_it_per_call_and_reads() {
    let sandbox = Sandbox::new().with_repo_dir("knowledge", "knowledge");
    let mut s = Session::initialized(&sandbox, &[]);
    let result = s.call("search", json!({ "question": "索引" }));
    assert_eq!(
        tool_error(&result),
        "index/index.toon: cannot read index (run `kbidx build` first?): no such file or directory"
    );
    let result = s.call("read", json!({ "reference": "guide/build.json#check" }));
    let (text, structured) = ok(&result);
    assert!(text.starts_with("## "), "{text}");
    // The section's own title, from its knowledge file.
    assert!(structured["title"].is_string(), "{structured}");

    // Built while the server runs: the next call uses it.
    sandbox.run(&["build", "--quiet"]).success();
    let result = s.call("search", json!({ "question": "索引" }));
    ok(&result);
    let (code, _, _) = s.finish();
    assert_eq!(code, 0);
}

#[test]
fn mcp_loads_a_rebuilt_index() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let mut s = Session::initialized(&sandbox, &[]);
    let search = json!({ "l3": ["zebrafish"] });
    let result = s.call("search", search.clone());
    let (_, before) = ok(&result);
    assert_eq!(before["results"], json!([]));

    sandbox.write(
        "knowledge/zoo.json",
        r#"{"id": "zoo", "title": "Zoo", "index": [{"id": "fish", "title": "Zebrafish", "hints": ["zebrafish"]}],
            "sections": {"fish": "Zebrafish are small."}}"#,
    );
    sandbox.run(&["build", "--quiet"]).success();
    let result = s.call("search", search);
    let (_, after) = ok(&result);
    assert_eq!(after["results"][0]["reference"], "zoo.json#fish", "{after}");
    let (code, _, stderr) = s.finish();
    assert_eq!(code, 0);
    assert!(stderr.contains("changed on disk"), "{stderr}");
}

#[test]
fn mcp_takes_index_and_knowledge_options() {
    let sandbox = Sandbox::new()
        .with_repo_dir("knowledge", "kb")
        .with_repo_dir("index", "idx");
    let mut s = Session::initialized(
        &sandbox,
        &["--index", "idx/index.toon", "--knowledge", "kb"],
    );
    let result = s.call(
        "search",
        json!({ "l3": ["check"], "top": 2, "with_content": true }),
    );
    let (_, structured) = ok(&result);
    assert!(
        structured["results"][0]["content"].is_string(),
        "{structured}"
    );
    let result = s.call("read", json!({ "reference": "guide/build.json#check" }));
    ok(&result);
    let (code, _, _) = s.finish();
    assert_eq!(code, 0);
}

#[test]
fn mcp_exits_0_at_end_of_input() {
    let sandbox = Sandbox::new();
    let run = sandbox.run_with_stdin(&["mcp"], "");
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, ""),
        "{}",
        run.transcript()
    );
}

/// The server searches with kbidx.toml's path weights, as `kbidx search`
/// does: the same document, with the weight's `matched` entry.
#[test]
fn mcp_applies_path_weights() {
    let sandbox = Sandbox::new().with_repo_knowledge().with_file(
        "kbidx.toml",
        "[[weight]]\nglob = \"troubleshooting.json\"\nfactor = 0.3\n",
    );
    let mut s = Session::initialized(&sandbox, &[]);
    let question = "索引が古いと言われたらどうする？";
    let result = s.call(
        "search",
        json!({ "question": question, "top": 12, "explain": true }),
    );
    let (_, structured) = ok(&result);
    let (_, cli_json) = cli_search(&sandbox, &[question, "--top", "12", "--explain"]);
    assert_eq!(structured, &cli_json);
    let results = structured["results"].as_array().unwrap();
    assert_ne!(results[0]["file"], "troubleshooting.json", "{structured}");
    let demoted = results
        .iter()
        .find(|r| r["file"] == "troubleshooting.json")
        .unwrap_or_else(|| panic!("{structured}"));
    assert!(
        demoted["matched"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["field"] == "weight" && m["factor"] == 0.3),
        "{demoted}"
    );
    let (code, _, _) = s.finish();
    assert_eq!(code, 0);
}

/// Keywords that start with `-` (`-requestPath`) are keywords over MCP too.
#[test]
fn mcp_keywords_may_start_with_a_hyphen() {
    let sandbox = Sandbox::new().with_repo_knowledge();
    let mut s = Session::initialized(&sandbox, &[]);
    let result = s.call(
        "search",
        json!({ "l2": ["-x"], "l3": ["-requestPath", "check"], "explain": true }),
    );
    let (_, structured) = ok(&result);
    assert_eq!(structured["keywords"]["l2"], json!(["-x"]), "{structured}");
    assert_eq!(
        structured["keywords"]["l3"],
        json!(["-requestPath", "check"]),
        "{structured}"
    );
}
