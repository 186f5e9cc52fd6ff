//! Arbitrary bytes as one knowledge file: `knowledge::parse` then the built-in extraction
//! program must return Ok or Err, never panic; every entry it yields must survive
//! `toon::encode` → `toon::decode`.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use kbidx::build::extract::{Extractor, Record};
use kbidx::index::model::Index;
use libfuzzer_sys::fuzz_target;

fn extractor() -> &'static Extractor {
    static EXTRACTOR: OnceLock<Extractor> = OnceLock::new();
    EXTRACTOR.get_or_init(|| Extractor::builtin().expect("built-in program compiles"))
}

fuzz_target!(|data: &[u8]| {
    let path = Path::new("knowledge/a.json");
    let Ok(doc) = kbidx::knowledge::parse(path, data) else {
        return;
    };
    let Ok(records) = extractor().run("a.json", path, doc.to_jaq()) else {
        return;
    };
    let index = Index {
        entries: records
            .into_iter()
            .filter_map(|r| match r {
                Record::Entry(e) => Some(e),
                Record::Warning(_) => None,
            })
            .collect(),
    };
    let text = kbidx::index::toon::encode(&index);
    let back = kbidx::index::toon::decode(Path::new("index.toon"), &text)
        .expect("kbidx's own encoding must decode");
    assert_eq!(back, index, "encode/decode round trip changed the index");
});
