//! Arbitrary bytes as the `arguments` of the MCP tools `search` and `read`
//! (a small built knowledge base behind them): any JSON object gets a tool
//! result, with `isError` or without, never a JSON-RPC error or a panic.
#![no_main]

use std::sync::{Mutex, OnceLock};

use kbidx::fuzzing::Mcp;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn server() -> &'static Mutex<Mcp> {
    static SERVER: OnceLock<Mutex<Mcp>> = OnceLock::new();
    SERVER.get_or_init(|| Mutex::new(Mcp::new().unwrap_or_else(|e| panic!("{e}"))))
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Object(arguments)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let mut server = server().lock().unwrap_or_else(|e| e.into_inner());
    for tool in ["search", "read"] {
        let result = match server.call(tool, arguments.clone()) {
            Ok(result) => result,
            Err((code, message)) => panic!("{tool}: JSON-RPC error {code} {message}"),
        };
        let text = result["content"][0]["text"].as_str().expect("a text item");
        if result.get("isError").is_some() {
            assert_eq!(result["isError"], true, "{result}");
            assert!(!text.starts_with("internal error"), "{tool}: {text}");
        } else {
            assert!(result["structuredContent"].is_object(), "{result}");
        }
    }
});
