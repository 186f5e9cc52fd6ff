//! Katakana ↔ English loanword matching, for vocabulary bridges.
//!
//! Japanese technical text writes most English terms in katakana (リトライ
//! for retry, ハンドラ for handler, データベース for database), so an English
//! question shares few words with the Japanese section that answers it. No
//! bilingual dictionary ships with kbidx (nothing can be downloaded), but a
//! loanword keeps the consonants of its English source: both sides are
//! reduced to a consonant [`skeleton`] (vowels dropped, sounds katakana
//! cannot tell apart merged: l/r, b/v, s/z/th, g/j, c/k/q) and words whose
//! skeletons are equal are taken as the same word.
//!
//! This is deliberately rough: it is only used to add words at a lower
//! weight, and only words the knowledge base itself contains are ever added
//! (the caller matches against its vocabulary).

/// The romanisation (Hepburn-like) of a word written only in katakana
/// (with ー and ・ allowed inside), or `None` for anything else.
pub(crate) fn katakana_romaji(word: &str) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    let first = *chars.first()?;
    if !is_katakana(first) || first == 'ー' || first == 'ッ' {
        return None;
    }
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !is_katakana(c) && c != '・' {
            return None;
        }
        // A small ャュョァィゥェォ after a kana replaces its vowel (キャ kya, ティ ti).
        let next = chars.get(i + 1).copied();
        if let Some(small) = next.and_then(small_vowel)
            && let Some(base) = kana(c)
        {
            let stem = base.trim_end_matches(['a', 'i', 'u', 'e', 'o']);
            // シャ is sha, not shya; ジョ jo.
            let vowel = if stem.ends_with('h') || stem == "j" {
                small.trim_start_matches('y')
            } else {
                small
            };
            out.push_str(stem);
            out.push_str(vowel);
            i += 2;
            continue;
        }
        match c {
            'ー' | 'ッ' | '・' => {}
            _ => out.push_str(kana(c)?),
        }
        i += 1;
    }
    Some(out)
}

/// The consonant skeleton of a romanised katakana word (see the module doc).
pub(crate) fn romaji_skeleton(romaji: &str) -> String {
    let mut out = Vec::new();
    let b = romaji.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let rest = &romaji[i..];
        let (class, len) = if rest.starts_with("sh") {
            (b's', 2)
        } else if rest.starts_with("ch") {
            (b'c', 2)
        } else if rest.starts_with("ts") {
            (b't', 2)
        } else {
            (b[i], 1)
        };
        push_class(&mut out, class);
        i += len;
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The consonant skeleton of an English word (lowercase ASCII letters; the
/// module doc says what is merged). A post-vocalic `r` not before a vowel is
/// dropped, as katakana writes it as a long vowel (server サーバ, user ユーザー).
pub(crate) fn english_skeleton(word: &str) -> Option<String> {
    if word.len() < 2 || !word.bytes().all(|c| c.is_ascii_lowercase()) {
        return None;
    }
    let b = word.as_bytes();
    let vowel = |j: usize| b.get(j).is_some_and(|c| b"aeiouy".contains(c));
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &word[i..];
        let next = b.get(i + 1).copied();
        let (class, len): (Option<u8>, usize) = if rest.starts_with("tch") {
            (Some(b'c'), 3)
        } else if rest.starts_with("ph") {
            (Some(b'f'), 2)
        } else if rest.starts_with("th") || rest.starts_with("sh") {
            (Some(b's'), 2)
        } else if rest.starts_with("ch") {
            (Some(b'c'), 2)
        } else if rest.starts_with("ck") || rest.starts_with("qu") {
            (Some(b'k'), 2)
        } else if rest.starts_with("wh") {
            (None, 2)
        } else if rest.starts_with("tio") || rest.starts_with("sio") {
            (Some(b's'), 2)
        } else {
            let c = b[i];
            let class = match c {
                b'c' if matches!(next, Some(b'e' | b'i' | b'y')) => Some(b's'),
                b'c' | b'q' => Some(b'k'),
                b'x' => {
                    push_class(&mut out, b'k');
                    Some(b's')
                }
                b'm' if matches!(next, Some(b'p' | b'b')) => Some(b'n'),
                b'r' if i > 0 && vowel(i - 1) && !vowel(i + 1) => None,
                // A silent h after a vowel (ohm), w and y are vowels here.
                b'h' if i > 0 && vowel(i - 1) => None,
                _ => Some(c),
            };
            (class, 1)
        };
        if let Some(class) = class {
            push_class(&mut out, class);
        }
        i += len;
    }
    Some(String::from_utf8(out).unwrap_or_default())
}

/// How alike an English word and a romanised katakana word are with their
/// vowels (1 − edit distance / the longer length), after the spellings
/// katakana cannot show are mapped (c → k or s, l → r, v → b, ph → f,
/// th → s, x → ks). Two-consonant skeletons match too many words (read and
/// ロード, date and データ); this tells code/コード from keep/コピー.
pub(crate) fn similarity(english: &str, romaji: &str) -> f64 {
    let mut spelled = String::new();
    let b = english.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let rest = &english[i..];
        if rest.starts_with("ph") {
            spelled.push('f');
            i += 2;
            continue;
        }
        if rest.starts_with("th") {
            spelled.push('s');
            i += 2;
            continue;
        }
        match b[i] {
            b'c' if matches!(b.get(i + 1), Some(b'e' | b'i' | b'y')) => spelled.push('s'),
            b'c' | b'q' => spelled.push('k'),
            b'l' => spelled.push('r'),
            b'v' => spelled.push('b'),
            b'x' => spelled.push_str("ks"),
            c => spelled.push(char::from(c)),
        }
        i += 1;
    }
    let (a, b): (Vec<char>, Vec<char>) = (spelled.chars().collect(), romaji.chars().collect());
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 0.0;
    }
    // Levenshtein distance, one row at a time.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + cost);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    1.0 - row[b.len()] as f64 / longest as f64
}

/// Appends a consonant's class, merging what katakana cannot tell apart and
/// skipping vowels and repeats.
fn push_class(out: &mut Vec<u8>, c: u8) {
    let class = match c {
        b'a' | b'e' | b'i' | b'o' | b'u' | b'y' | b'w' => return,
        b'l' => b'r',
        b'v' => b'b',
        b'z' => b's',
        b'j' => b'g',
        other => other,
    };
    if out.last() != Some(&class) {
        out.push(class);
    }
}

fn is_katakana(c: char) -> bool {
    ('\u{30A1}'..='\u{30FC}').contains(&c) && c != '・'
}

/// The vowel (with `y` for ャュョ) a small kana gives the kana before it.
fn small_vowel(c: char) -> Option<&'static str> {
    Some(match c {
        'ャ' => "ya",
        'ュ' => "yu",
        'ョ' => "yo",
        'ァ' => "a",
        'ィ' => "i",
        'ゥ' => "u",
        'ェ' => "e",
        'ォ' => "o",
        _ => return None,
    })
}

/// One katakana's romanisation.
fn kana(c: char) -> Option<&'static str> {
    const TABLE: [(char, &str); 86] = [
        ('ア', "a"),
        ('イ', "i"),
        ('ウ', "u"),
        ('エ', "e"),
        ('オ', "o"),
        ('カ', "ka"),
        ('キ', "ki"),
        ('ク', "ku"),
        ('ケ', "ke"),
        ('コ', "ko"),
        ('ガ', "ga"),
        ('ギ', "gi"),
        ('グ', "gu"),
        ('ゲ', "ge"),
        ('ゴ', "go"),
        ('サ', "sa"),
        ('シ', "shi"),
        ('ス', "su"),
        ('セ', "se"),
        ('ソ', "so"),
        ('ザ', "za"),
        ('ジ', "ji"),
        ('ズ', "zu"),
        ('ゼ', "ze"),
        ('ゾ', "zo"),
        ('タ', "ta"),
        ('チ', "chi"),
        ('ツ', "tsu"),
        ('テ', "te"),
        ('ト', "to"),
        ('ダ', "da"),
        ('ヂ', "ji"),
        ('ヅ', "zu"),
        ('デ', "de"),
        ('ド', "do"),
        ('ナ', "na"),
        ('ニ', "ni"),
        ('ヌ', "nu"),
        ('ネ', "ne"),
        ('ノ', "no"),
        ('ハ', "ha"),
        ('ヒ', "hi"),
        ('フ', "fu"),
        ('ヘ', "he"),
        ('ホ', "ho"),
        ('バ', "ba"),
        ('ビ', "bi"),
        ('ブ', "bu"),
        ('ベ', "be"),
        ('ボ', "bo"),
        ('パ', "pa"),
        ('ピ', "pi"),
        ('プ', "pu"),
        ('ペ', "pe"),
        ('ポ', "po"),
        ('マ', "ma"),
        ('ミ', "mi"),
        ('ム', "mu"),
        ('メ', "me"),
        ('モ', "mo"),
        ('ヤ', "ya"),
        ('ユ', "yu"),
        ('ヨ', "yo"),
        ('ラ', "ra"),
        ('リ', "ri"),
        ('ル', "ru"),
        ('レ', "re"),
        ('ロ', "ro"),
        ('ワ', "wa"),
        ('ヲ', "o"),
        ('ン', "n"),
        ('ヴ', "vu"),
        ('ァ', "a"),
        ('ィ', "i"),
        ('ゥ', "u"),
        ('ェ', "e"),
        ('ォ', "o"),
        ('ャ', "ya"),
        ('ュ', "yu"),
        ('ョ', "yo"),
        ('ヮ', "wa"),
        ('ヰ', "i"),
        ('ヱ', "e"),
        ('ヵ', "ka"),
        ('ヶ', "ke"),
        ('ヷ', "va"),
    ];
    TABLE.iter().find(|(k, _)| *k == c).map(|(_, r)| *r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kana_skeleton(word: &str) -> String {
        romaji_skeleton(&katakana_romaji(word).expect("katakana"))
    }

    #[test]
    fn loanwords_meet_their_english_source() {
        let pairs = [
            ("retry", "リトライ"),
            ("handler", "ハンドラ"),
            ("handler", "ハンドラー"),
            ("database", "データベース"),
            ("session", "セッション"),
            ("transaction", "トランザクション"),
            ("message", "メッセージ"),
            ("paging", "ページング"),
            ("server", "サーバ"),
            ("user", "ユーザー"),
            ("parameter", "パラメータ"),
            ("component", "コンポーネント"),
            ("thread", "スレッド"),
            ("method", "メソッド"),
            ("access", "アクセス"),
            ("class", "クラス"),
            ("file", "ファイル"),
            ("connection", "コネクション"),
            ("template", "テンプレート"),
            ("interceptor", "インターセプタ"),
            ("validation", "バリデーション"),
            ("cookie", "クッキー"),
            ("property", "プロパティ"),
            ("token", "トークン"),
        ];
        for (en, ja) in pairs {
            assert_eq!(
                english_skeleton(en).as_deref(),
                Some(kana_skeleton(ja).as_str()),
                "{en} vs {ja} ({:?})",
                katakana_romaji(ja)
            );
        }
    }

    #[test]
    fn different_words_differ() {
        let pairs = [
            ("retry", "ハンドラ"),
            ("session", "サーバ"),
            ("database", "データ"),
            ("message", "メソッド"),
            ("paging", "パッケージ"),
        ];
        for (en, ja) in pairs {
            assert_ne!(
                english_skeleton(en).expect("english"),
                kana_skeleton(ja),
                "{en} vs {ja}"
            );
        }
    }

    #[test]
    fn short_skeletons_need_alike_vowels() {
        for (en, ja, alike) in [
            ("code", "コード", true),
            ("data", "データ", true),
            ("keep", "コピー", false),
            ("read", "ロード", false),
            ("date", "データ", false),
        ] {
            let sim = similarity(en, &katakana_romaji(ja).expect("katakana"));
            assert_eq!(sim >= 0.6, alike, "{en} vs {ja}: {sim}");
        }
    }

    #[test]
    fn only_katakana_words_are_romanised() {
        for word in ["", "ー", "ッテ", "漢字", "カタカナ語a", "ひらがな"] {
            assert_eq!(katakana_romaji(word), None, "{word}");
        }
        assert_eq!(katakana_romaji("キャッシュ").as_deref(), Some("kyashu"));
        assert_eq!(katakana_romaji("ティー").as_deref(), Some("ti"));
        assert_eq!(english_skeleton("Retry"), None);
        assert_eq!(english_skeleton("r2"), None);
    }
}
