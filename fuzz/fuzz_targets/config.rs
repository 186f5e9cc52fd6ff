//! Arbitrary bytes as `kbidx.toml`: parsing and the search settings' checks
//! return the settings or an error whose message can be printed, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = kbidx::fuzzing::config(text) {
        let message = e.to_string();
        assert!(!message.is_empty());
    }
});
