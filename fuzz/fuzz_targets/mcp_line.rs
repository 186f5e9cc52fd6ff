//! Arbitrary bytes as one line of input to `kbidx mcp` (a small built
//! knowledge base behind it): no panic, and every answer is one line of JSON,
//! a JSON-RPC 2.0 response with exactly one of `result` and `error`, whose
//! `id` is the request's when the request had a valid one.
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
    // `serve` reads up to a newline: a line never contains one.
    let line = data.split(|&b| b == b'\n').next().unwrap_or_default();
    let mut server = server().lock().unwrap_or_else(|e| e.into_inner());
    let Some(answer) = server.answer(line) else {
        return;
    };
    assert!(!answer.contains('\n'), "answer spans lines: {answer}");
    let response: Value = serde_json::from_str(&answer).expect("the answer is JSON");
    assert_eq!(response["jsonrpc"], "2.0", "{answer}");
    assert!(
        response.get("result").is_some() != response.get("error").is_some(),
        "exactly one of result and error: {answer}"
    );
    if let Some(error) = response.get("error") {
        assert!(
            error["code"].is_i64() && error["message"].is_string(),
            "{answer}"
        );
    }
    let id = &response["id"];
    assert!(
        id.is_null() || id.is_string() || id.is_i64() || id.is_u64(),
        "{answer}"
    );
    // A request with a valid id and version is answered with that id.
    if let Ok(Value::Object(request)) = serde_json::from_slice::<Value>(line)
        && request.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && request.get("method").is_some_and(Value::is_string)
        && let Some(sent) = request.get("id")
        && (sent.is_string() || sent.is_i64() || sent.is_u64())
    {
        assert_eq!(id, sent, "{answer}");
    }
});
