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
    // NFKC works on runs of text that end before an ASCII character: ASCII is
    // its own normal form, never combines with what precedes it, and only the
    // last character of an ASCII run can combine with what follows (`e` and
    // U+0301). So ASCII runs are folded byte by byte, and each stretch of
    // other text (with the ASCII character before it) is normalised on its
    // own, skipping the costly decomposition/composition when the quick check
    // says it is already NFKC, as most text is.
    let bytes = text.as_bytes();
    let mut folder = Folder {
        out: String::with_capacity(text.len()),
        pending_space: false,
    };
    let mut i = 0;
    while i < bytes.len() {
        let ascii_end = i + bytes[i..].iter().take_while(|b| b.is_ascii()).count();
        if ascii_end == bytes.len() {
            bytes[i..].iter().for_each(|&b| folder.push_ascii(b));
            break;
        }
        // `ascii_end` starts a non-ASCII character: the byte before it goes with it.
        let from = if ascii_end > i {
            ascii_end - 1
        } else {
            ascii_end
        };
        bytes[i..from].iter().for_each(|&b| folder.push_ascii(b));
        let end = ascii_end
            + bytes[ascii_end..]
                .iter()
                .take_while(|b| !b.is_ascii())
                .count();
        let stretch = &text[from..end];
        if all_stable_cjk(&bytes[ascii_end..end]) {
            // Kana and ideographs only (most Japanese text): copied as they are.
            bytes[from..ascii_end]
                .iter()
                .for_each(|&b| folder.push_ascii(b));
            folder.push_str(&text[ascii_end..end]);
        } else if unicode_normalization::is_nfkc_quick(stretch.chars()) == IsNormalized::Yes {
            stretch.chars().for_each(|c| folder.push(c));
        } else {
            stretch.nfkc().for_each(|c| folder.push(c));
        }
        i = end;
    }
    folder.out
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
        if !stable_cjk(&b[i..]) {
            return false;
        }
        i += 3;
    }
    true
}

/// Whether the UTF-8 text `b` starts with a kana, ideograph or common CJK
/// punctuation character (three bytes) that NFKC leaves alone, that has no
/// case and is not white space. Decided on the raw bytes.
fn stable_cjk(b: &[u8]) -> bool {
    match b {
        // U+4000..=U+9FFF: CJK ideographs (and Ext. A tail), NFKC-stable, caseless.
        [0xE4..=0xE9, _, _, ..] => true,
        // U+3000..=U+3FFF, decided on the second and third byte: allowed are
        // U+3001-3003, U+3005-3011, U+3041-3096, U+309D-309E, U+30A1-30FE, U+3400-3FFF.
        [0xE3, b1, b2, ..] => match b1 {
            0x90..=0xBF => true,
            0x81 => *b2 != 0x80,
            0x82 => !matches!(b2, 0x97..=0x9C | 0x9F | 0xA0),
            0x83 => *b2 != 0xBF,
            0x80 => matches!(b2, 0x81..=0x83 | 0x85..=0x91),
            _ => false,
        },
        _ => false,
    }
}

/// Whether every character of the UTF-8 text `b` passes [`stable_cjk`].
fn all_stable_cjk(b: &[u8]) -> bool {
    b.len().is_multiple_of(3) && b.chunks_exact(3).all(stable_cjk)
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

/// Lowercases and collapses white space, a character at a time.
struct Folder {
    out: String,
    /// White space was seen since the last character pushed.
    pending_space: bool,
}

impl Folder {
    fn push_ascii(&mut self, b: u8) {
        // `char::is_whitespace` in ASCII: tab, LF, VT, FF, CR and space.
        if matches!(b, b'\t'..=b'\r' | b' ') {
            self.pending_space = !self.out.is_empty();
        } else {
            self.push_folded(char::from(b.to_ascii_lowercase()));
        }
    }

    fn push(&mut self, c: char) {
        match c {
            c if c.is_ascii() => self.push_ascii(c as u8),
            // Kana, CJK punctuation and ideographs: no case, no white space
            // (U+3000 is white space and takes the general path).
            '\u{3001}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' => {
                self.push_folded(c);
            }
            c => {
                for l in c.to_lowercase() {
                    if l.is_whitespace() {
                        self.pending_space = !self.out.is_empty();
                    } else {
                        self.push_folded(l);
                    }
                }
            }
        }
    }

    /// Pushes text that is already folded and has no white space.
    fn push_str(&mut self, s: &str) {
        if self.pending_space {
            self.out.push(' ');
            self.pending_space = false;
        }
        self.out.push_str(s);
    }

    fn push_folded(&mut self, c: char) {
        if self.pending_space {
            self.out.push(' ');
            self.pending_space = false;
        }
        self.out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::{is_folded, normalize};
    use proptest::strategy::Strategy as _;

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

    /// The plain definition: NFKC of the whole text, then lowercase and
    /// collapse white space (what `normalize` computes piecewise).
    fn reference(text: &str) -> String {
        use unicode_normalization::UnicodeNormalization;
        let mut out = String::new();
        let mut pending_space = false;
        for c in text.nfkc().flat_map(char::to_lowercase) {
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

    #[test]
    fn piecewise_nfkc_equals_whole_text_nfkc_at_the_edges() {
        for text in [
            "cafe\u{301}",
            "e\u{301}e\u{301}",
            "A\u{30a}ngstro\u{308}m",
            "\u{1100}\u{1161}\u{11a8} x",
            "ｶﾞｷﾞ ﾊﾟ",
            "か\u{3099}き\u{309a}",
            "x\u{3099}",
            "\u{301}leading mark",
            "a\u{327}\u{301}b",
            "İSTANBUL ǅ ß Σ",
            "\u{b}\u{c}\u{1c}\u{85}\u{a0}x\u{2028}y\u{3000}",
            "ＡＢＣ（全角）１２３",
        ] {
            assert_eq!(normalize(text), reference(text), "{text:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 4096, ..Default::default() })]

        /// `normalize` equals NFKC of the whole text, lowercased, spaces collapsed.
        #[test]
        fn normalize_equals_the_plain_definition(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(&[
                        "e", "E", "a", "\u{301}", "\u{308}", "\u{327}", "\u{3099}", "\u{309a}",
                        "か", "ｶ", "ﾞ", "\u{1100}", "\u{1161}", "\u{11a8}", " ", "\t", "\u{3000}",
                        "\u{85}", "Ａ", "①", "İ", "ß", "Σ", "楽", "ー", "\n", "処理", "かな",
                        "カナ", "、", "「」", "〜", "ヿ", "ゟ", "゛", "㐀", "䷀", "\u{3000}",
                    ][..]).prop_map(str::to_owned),
                    proptest::arbitrary::any::<String>(),
                    "[ -~]{0,6}",
                ],
                0..12,
            )
        ) {
            let text = parts.concat();
            proptest::prop_assert_eq!(normalize(&text), reference(&text), "{:?}", text);
        }
    }
}
