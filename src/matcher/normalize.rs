//! Text normalisation shared by index rows and queries.
//!
//! One function, [`normalize`], is applied to every string before matching,
//! on both sides: Unicode NFKC (full-width ASCII → half-width, half-width
//! katakana → full-width, compatibility characters folded), then full case
//! folding to lowercase, then runs of white space collapsed to one ASCII
//! space. It owns nothing else: tokenisation lives in `tokenize`.

use unicode_normalization::{IsNormalized, UnicodeNormalization};

/// Normalises `text` for matching: NFKC, lowercase, white space collapsed and trimmed.
pub fn normalize(text: &str) -> String {
    // Fast path: most index text is already NFKC (checked with the quick
    // table), so the costly decomposition/composition pass is skipped.
    if unicode_normalization::is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        return fold(text.chars(), text.len());
    }
    fold(text.nfkc(), text.len())
}

/// Whether `text` is unchanged by [`normalize`] up to ASCII case: printable
/// ASCII with single spaces inside, hiragana, katakana, CJK ideographs and
/// common Japanese punctuation. Such text can be matched as it is with an
/// ASCII-case-insensitive automaton, which saves normalising every index row
/// on every search. A cheap, conservative check: `false` only means "normalise".
pub fn is_folded(text: &str) -> bool {
    let b = text.as_bytes();
    if b.first() == Some(&b' ') || b.last() == Some(&b' ') {
        return false;
    }
    // Byte-level scan (this runs over every index cell on every search).
    // `text` is valid UTF-8, so a lead byte 0xE3..=0xE9 starts a 3-byte sequence.
    let mut i = 0;
    let mut prev_space = false;
    while i < b.len() {
        // Eight printable ASCII bytes at a time (paths, identifiers, English hints).
        if let Some(word) = b.get(i..i + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            if let Some(last_space) = ascii_word(u64::from_le_bytes(w), prev_space) {
                prev_space = last_space;
                i += 8;
                continue;
            }
        }
        let x = b[i];
        if x < 0x80 {
            if x == b' ' {
                if prev_space {
                    return false;
                }
                prev_space = true;
            } else if x < 0x21 || x == 0x7f {
                return false;
            } else {
                prev_space = false;
            }
            i += 1;
            continue;
        }
        prev_space = false;
        match x {
            // U+4000..=U+9FFF: CJK ideographs (and Ext. A tail), NFKC-stable, caseless.
            0xE4..=0xE9 => i += 3,
            // U+3000..=U+3FFF, decided on the second and third byte: allowed are
            // U+3001-3003, U+3005-3011, U+3041-3096, U+309D-309E, U+30A1-30FE, U+3400-3FFF.
            0xE3 => {
                let (b1, b2) = (b[i + 1], b[i + 2]);
                let ok = match b1 {
                    0x90..=0xBF => true,
                    0x81 => b2 != 0x80,
                    0x82 => !matches!(b2, 0x97..=0x9C | 0x9F | 0xA0),
                    0x83 => b2 != 0xBF,
                    0x80 => matches!(b2, 0x81..=0x83 | 0x85..=0x91),
                    _ => false,
                };
                if !ok {
                    return false;
                }
                i += 3;
            }
            _ => return false,
        }
    }
    true
}

/// Eight bytes (little-endian) that are all printable ASCII (0x20..=0x7E) with
/// no two spaces in a row (`prev_space`: the byte before was a space): whether
/// the last of them is a space. `None` when the word has anything else.
fn ascii_word(w: u64, prev_space: bool) -> Option<bool> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // All bytes < 0x80, so the additions below never carry into the next byte.
    if w & HIGH != 0
        || w.wrapping_add(0x6060_6060_6060_6060) & HIGH != HIGH // a byte < 0x20
        || w.wrapping_add(0x0101_0101_0101_0101) & HIGH != 0
    // a byte 0x7F
    {
        return None;
    }
    // 0x80 in every byte that is a space.
    let z = w ^ 0x2020_2020_2020_2020;
    let spaces = !(((z & LOW7).wrapping_add(LOW7)) | z | LOW7);
    if spaces & (spaces << 8) != 0 || (prev_space && spaces & 0x80 != 0) {
        return None;
    }
    Some(spaces >> 63 != 0)
}

/// Lowercases and collapses white space.
fn fold(chars: impl Iterator<Item = char>, len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut pending_space = false;
    for c in chars.flat_map(char::to_lowercase) {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{is_folded, normalize};

    macro_rules! t {
        ($($input:expr => $want:expr),* $(,)?) => {$(
            assert_eq!(normalize($input), $want, "normalize({:?})", $input);
        )*};
    }

    #[test]
    fn folded_text_needs_only_ascii_case_folding() {
        for text in [
            "ページング per Page",
            "UniversalDao paging per page of results with a limit",
            "abcdefg hijklmno p",
            "楽観的ロック、排他制御。",
            "a/b.json#s1",
            "「括弧」ー・",
            "",
        ] {
            assert!(is_folded(text), "{text}");
            assert_eq!(normalize(text), text.to_ascii_lowercase(), "{text}");
        }
        for text in [
            "ＵＤ",
            "ﾍﾟｰｼﾞ",
            "a  b",
            "abcdefg  hijklmnop",
            "abcdefgh  ijklmnop",
            "abcdefghijklmno\u{7f}",
            "abcdefghijklmno\tp",
            "long ascii text with ÄÖ",
            " a",
            "a\tb",
            "（括弧）",
            "①",
            "が\u{3099}",
            "Ä",
        ] {
            assert!(!is_folded(text), "{text}");
        }
    }

    /// The byte-level check of U+3000..=U+3FFF agrees with normalisation.
    #[test]
    fn cjk_symbols_and_kana_block_is_checked_exactly() {
        for cp in 0x3000..=0x3fffu32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let s = c.to_string();
            let stable = normalize(&s) == s;
            assert!(!is_folded(&s) || stable, "U+{cp:04X} accepted but changes");
            let listed = matches!(cp,
                0x3001..=0x3003 | 0x3005..=0x3011 | 0x3041..=0x3096 | 0x309d..=0x309e
                | 0x30a1..=0x30fe | 0x3400..=0x3fff);
            assert_eq!(is_folded(&s), listed, "U+{cp:04X}");
        }
    }

    #[test]
    fn folds_width_case_and_space() {
        t! {
            "ＵｎｉｖｅｒｓａｌＤａｏ" => "universaldao",
            "ﾍﾟｰｼﾞﾝｸﾞ" => "ページング",
            "  SELECT\tFOR\u{3000}UPDATE " => "select for update",
            "①" => "1",
            "楽観的ロック" => "楽観的ロック",
            "" => "",
        }
    }
}
