//! A body-index cache entry (`*.kbidx-body`) with damage: the fuzz input
//! either replaces the entry (first byte even) or edits the valid one (odd:
//! pairs of a position and a byte to xor in, then cut or extended by the
//! last byte). Damaged bytes never load. With the second byte odd the
//! damage is sealed with a fresh checksum, so it reaches the checks behind
//! the checksum: it may load, and a search over it must not panic.
#![no_main]

use std::sync::OnceLock;

use kbidx::fuzzing::Body;
use libfuzzer_sys::fuzz_target;

fn body() -> &'static Body {
    static BODY: OnceLock<Body> = OnceLock::new();
    BODY.get_or_init(|| Body::new().unwrap_or_else(|e| panic!("{e}")))
}

fuzz_target!(|data: &[u8]| {
    let [mode, seal, rest @ ..] = data else {
        return;
    };
    let body = body();
    let valid = body.entry();
    let mut bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut bytes = valid.to_vec();
        let (edits, resize) = rest.split_at(rest.len() - rest.len() % 3);
        for edit in edits.chunks_exact(3) {
            let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) % bytes.len().max(1);
            if let Some(b) = bytes.get_mut(at) {
                *b ^= edit[2];
            }
        }
        match resize {
            [cut] if cut % 2 == 0 => bytes.truncate(bytes.len().saturating_sub(usize::from(*cut))),
            [more] => bytes.extend(std::iter::repeat_n(*more, usize::from(*more) % 16 + 1)),
            _ => {}
        }
        bytes
    };
    if seal % 2 == 1 {
        Body::seal(&mut bytes);
        let _ = body.load(bytes);
    } else {
        let same = bytes == valid;
        assert_eq!(
            body.load(bytes).is_some(),
            same,
            "damaged entry loaded (or the valid one did not)"
        );
    }
});
