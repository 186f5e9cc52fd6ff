//! Arbitrary bytes as an index file: `toon::decode` must return Ok or Err, never panic.
//! When it succeeds, re-encoding and decoding again must give the same index.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(index) = kbidx::index::toon::decode(Path::new("index.toon"), text) {
        let again = kbidx::index::toon::encode(&index);
        let back = kbidx::index::toon::decode(Path::new("index.toon"), &again)
            .expect("kbidx's own encoding must decode");
        assert_eq!(back, index, "encode/decode round trip changed the index");
    }
});
