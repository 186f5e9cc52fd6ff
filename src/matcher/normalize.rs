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
    let bytes = text.as_bytes();
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    let mut prev_space = false;
    for c in text.chars() {
        let ok = match c {
            ' ' => !prev_space,
            '!'..='~' => true,
            '\u{3001}'..='\u{3003}' | '\u{3005}'..='\u{3007}' | '\u{3008}'..='\u{3011}' => true,
            '\u{3041}'..='\u{3096}' | '\u{309d}' | '\u{309e}' => true,
            '\u{30a1}'..='\u{30fa}' | '\u{30fc}'..='\u{30fe}' | '\u{30fb}' => true,
            '\u{4e00}'..='\u{9fff}' => true,
            _ => false,
        };
        if !ok {
            return false;
        }
        prev_space = c == ' ';
    }
    true
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
