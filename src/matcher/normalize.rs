//! Text normalisation shared by index rows and queries.
//!
//! One function, [`normalize`], is applied to every string before matching,
//! on both sides: Unicode NFKC (full-width ASCII → half-width, half-width
//! katakana → full-width, compatibility characters folded), then full case
//! folding to lowercase, then runs of white space collapsed to one ASCII
//! space. It owns nothing else: tokenisation lives in `tokenize`.

use unicode_normalization::UnicodeNormalization;

/// Normalises `text` for matching: NFKC, lowercase, white space collapsed and trimmed.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
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

#[cfg(test)]
mod tests {
    use super::normalize;

    macro_rules! t {
        ($($input:expr => $want:expr),* $(,)?) => {$(
            assert_eq!(normalize($input), $want, "normalize({:?})", $input);
        )*};
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
