//! Arbitrary bytes as the keywords JSON of `kbidx search --keywords -`: read
//! as `search` reads stdin (UTF-8), parsed, turned into a query; an error's
//! message (with line and column) can be printed; a query keeps its limits.
#![no_main]

use kbidx::search::Query;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Query::parse_levels("<stdin>", text) {
        Ok(levels) => {
            let query = Query::from_levels(&levels);
            assert!(
                query.keywords.len() <= 256,
                "{} keywords",
                query.keywords.len()
            );
            for k in &query.keywords {
                assert!(!k.norm.is_empty() && k.text.chars().count() <= 200, "{k:?}");
            }
        }
        Err(e) => {
            assert!(e.to_string().starts_with("<stdin>"), "{e}");
        }
    }
});
