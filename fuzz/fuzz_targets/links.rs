//! Arbitrary bytes as the Markdown of a section (before the first NUL) and a
//! knowledge document (after it, JSON): link extraction and anchor resolution
//! never panic, every target is text of the section, and every resolved
//! reference names one of the two files.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let (markdown, document) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"{}"[..]),
    };
    let Ok(text) = std::str::from_utf8(markdown) else {
        return;
    };
    let doc: Value = serde_json::from_slice(document).unwrap_or(Value::Null);
    for (target, resolved) in kbidx::fuzzing::links(text, &doc) {
        assert!(text.contains(&target), "{target:?} is not in the text");
        if let Ok(reference) = resolved {
            assert!(
                ["guide/a.json", "b.json"]
                    .iter()
                    .any(|file| reference == *file || reference.starts_with(&format!("{file}#"))),
                "{target:?} resolved to {reference:?}"
            );
        }
    }
    let _ = kbidx::fuzzing::slug(text);
});
