//! Japanese morphological analysis (lindera + IPADIC) and keyword extraction.
//!
//! Owns the embedded IPADIC dictionary (built by `build.rs`, loaded lazily once
//! per process), [`tokenize`] for morphemes, [`question_keywords`] for turning a
//! free-form question into search keywords, and [`parts`] for partial matching.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;

use lindera::dictionary::Dictionary;
use lindera::mode::Mode;
use lindera::segmenter::Segmenter;
use lindera::worker::SegmentWorker;
use unicode_normalization::UnicodeNormalization;

use crate::text::normalize::normalize;

/// Part-of-speech class, coarse, from IPADIC's first POS field.
///
/// Tokens made only of symbols/punctuation are [`Pos::Symbol`] whatever the
/// dictionary says (IPADIC files unknown symbols such as `?` as nouns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pos {
    /// 名詞 (except 名詞,接尾), including unknown words.
    Noun,
    /// 動詞.
    Verb,
    /// 形容詞.
    Adjective,
    /// 副詞.
    Adverb,
    /// 助詞.
    Particle,
    /// 助動詞.
    Auxiliary,
    /// 記号, or any token without letters or digits.
    Symbol,
    /// 接頭詞 (e.g. 再 in 再実行).
    Prefix,
    /// 名詞,接尾 (e.g. 的 in 楽観的, 化, 性, さん).
    Suffix,
    /// Everything else: 連体詞, 接続詞, 感動詞, フィラー, その他.
    Other,
}

/// One morpheme of the analysed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// The text as it appears in the input.
    pub surface: String,
    /// Dictionary (base) form, e.g. 読み込む for 読み込み; the surface for unknown words.
    pub base: String,
    /// Coarse part of speech.
    pub pos: Pos,
    /// IPADIC's second POS field (サ変接続, 接尾, 非自立, 固有名詞, …), `*` if none.
    pub subclass: String,
    /// IPADIC's conjugation form (連用形, 基本形, …), `*` if none.
    pub form: String,
    /// Whether the word is not in the dictionary (lindera guessed it from character classes).
    pub unknown: bool,
    /// Byte offset of the first byte in the input.
    pub start: usize,
    /// Byte offset one past the last byte in the input.
    pub end: usize,
    /// Whether [`whole_words`] joined it from several morphemes.
    pub joined: bool,
}

/// Generic words never returned as keywords on their own (compared with the
/// normalised surface, and with the base form for verbs and adjectives).
///
/// Verbs/adjectives that carry no topic (する, できる, 使う, …), formal nouns
/// (こと, もの, ため, よう, 方法, 場合, やり方, …) and question words.
#[rustfmt::skip]
const JA_STOP_WORDS: &[&str] = &[
    "する", "できる", "出来る", "ある", "いる", "なる", "やる", "行う", "おこなう", "使う",
    "思う", "いう", "言う", "ない", "いい", "よい", "良い", "教える", "知る", "わかる", "分かる",
    "たい", "こと", "もの", "ため", "よう", "の", "ん", "方法", "場合", "やり方", "使い方",
    "仕方", "方", "とき", "時", "何", "なに", "どう", "どれ", "どこ", "どの", "必要", "可能",
];

/// English words dropped from questions (only as whole words: parts of a
/// camelCase identifier are always kept).
#[rustfmt::skip]
const EN_STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "by", "can", "could", "do",
    "does", "for", "from", "get", "have", "how", "i", "if", "in", "into", "is", "it", "me",
    "my", "of", "on", "or", "should", "so", "that", "the", "this", "to", "use", "used",
    "using", "want", "way", "we", "what", "when", "where", "which", "why", "with", "would",
    "you",
];

/// Tokenizes `text` into morphemes with IPADIC.
///
/// Expects text already normalised by [`normalize`] (NFKC + lowercase), which is
/// what the dictionary is matched against. White space is not returned as
/// tokens; offsets are byte offsets into `text`. The dictionary is loaded on
/// the first call (well under a millisecond); an `Err` only reports a broken
/// embedded dictionary.
pub(crate) fn tokenize(text: &str) -> crate::Result<Vec<Token>> {
    segmented(text, |raw| {
        let mut tokens = Vec::with_capacity(raw.len());
        for t in raw {
            let surface = t.surface.to_string();
            let unknown = t.word_id.is_unknown();
            let (start, end) = (t.byte_start, t.byte_end);
            let mut details = details(t);
            let major = details.next().unwrap_or("*").to_string();
            let subclass = details.next().unwrap_or("*").to_string();
            let form = details.nth(3).unwrap_or("*").to_string();
            let base = match details.next() {
                Some(b) if b != "*" && !unknown => b.to_string(),
                _ => surface.clone(),
            };
            let pos = pos_of(&surface, &major, &subclass);
            tokens.push(Token {
                surface,
                base,
                pos,
                subclass,
                form,
                unknown,
                start,
                end,
                joined: false,
            });
        }
        tokens
    })
}

/// Calls `f` with each indexed term of `text`, in order: what
/// [`crate::text::terms`] returns. Expects normalised text, as [`tokenize`].
pub(crate) fn each_term(text: &str, f: impl FnMut(&str)) -> crate::Result<()> {
    thread_local! {
        static TOKENISER: std::cell::RefCell<Option<Tokeniser>> =
            const { std::cell::RefCell::new(None) };
    }
    TOKENISER.with(|cell| {
        let mut cell = cell.try_borrow_mut().map_err(|_| {
            crate::Error::Tokenizer("the tokenizer was called from within itself".to_owned())
        })?;
        let tokeniser = match &mut *cell {
            Some(tokeniser) => tokeniser,
            empty => {
                let segmenter = segmenter()?;
                empty.insert(Tokeniser::new(segmenter.clone(), &segmenter.dictionary))
            }
        };
        tokeniser.each_term(text, f)
    })
}

/// Terms of many texts on one thread, as [`each_term`] gives them: one
/// lindera [`SegmentWorker`] (its lattice allocated once, not per text)
/// and each dictionary word's class looked up once, not per occurrence.
pub(crate) struct Tokeniser {
    worker: SegmentWorker,
    /// The process's dictionary, whose words the worker's shares: the
    /// classes keep its base forms.
    words: &'static Dictionary,
    /// Per word (its id, and whether lindera's unknown-word table holds
    /// it): its part of speech before the surface is seen ([`pos_of`]) and
    /// its base form.
    classes: foldhash::HashMap<(u32, bool), (Pos, Option<&'static str>)>,
}

impl Tokeniser {
    fn new(segmenter: Segmenter, words: &'static Dictionary) -> Self {
        Self {
            worker: segmenter.into_worker(),
            words,
            classes: foldhash::HashMap::default(),
        }
    }

    /// A tokeniser for the body index, which reads every section: it looks
    /// character classes up in lindera's 64K table, which takes about half a
    /// millisecond to build (a search's tokeniser looks them up by binary
    /// search instead, see [`load_dictionary`]). Same morphemes either way.
    pub(crate) fn for_many_texts() -> crate::Result<Self> {
        use lindera_dictionary::dictionary::character_definition::CharacterDefinition;
        let words = &segmenter()?.dictionary;
        let mut dictionary = words.clone();
        let classes = &dictionary.character_definition;
        dictionary.character_definition = std::sync::Arc::new(CharacterDefinition::new(
            classes.category_definitions.clone(),
            classes.category_names.clone(),
            classes.mapping.clone(),
        ));
        Ok(Self::new(
            Segmenter::new(Mode::Normal, dictionary, None),
            words,
        ))
    }

    /// Calls `f` with each indexed term of `text` (normalised), in order.
    pub(crate) fn each_term(&mut self, text: &str, mut f: impl FnMut(&str)) -> crate::Result<()> {
        let tokens = self
            .worker
            .segment(text)
            .map_err(|e| crate::Error::Tokenizer(format!("Japanese tokenizer failed: {e}")))?;
        for t in &tokens {
            let surface: &str = &t.surface;
            let unknown = t.word_id.is_unknown();
            let key = (t.word_id.id(), unknown);
            let words = self.words;
            let (pos, base) = *self.classes.entry(key).or_insert_with(|| {
                let mut details = details_in(words, t);
                let major = details.next().unwrap_or("*");
                let subclass = details.next().unwrap_or("*");
                // Any letter: the class apart from the surface.
                (pos_of("a", major, subclass), details.nth(4))
            });
            let pos = if surface.chars().any(char::is_alphanumeric) {
                pos
            } else {
                Pos::Symbol
            };
            let word = match pos {
                Pos::Noun => surface,
                Pos::Verb | Pos::Adjective => match base {
                    Some(b) if b != "*" && !unknown => b,
                    _ => surface,
                },
                Pos::Symbol => continue,
                _ if unknown => surface,
                _ => continue,
            };
            let mut chars = word.chars();
            let single_kana = matches!((chars.next(), chars.next()),
                (Some(c), None) if ('\u{3041}'..='\u{30ff}').contains(&c));
            if !single_kana {
                f(word);
            }
        }
        Ok(())
    }
}

/// Runs `f` on lindera's morphemes of `text`.
fn segmented<R>(text: &str, f: impl FnOnce(&[lindera::token::Token<'_>]) -> R) -> crate::Result<R> {
    let tokens = segmenter()?
        .segment(Cow::Borrowed(text))
        .map_err(|e| crate::Error::Tokenizer(format!("Japanese tokenizer failed: {e}")))?;
    Ok(f(&tokens))
}

/// The dictionary fields of a morpheme (part of speech, subclasses,
/// conjugation, base form, readings), read in place: [`lindera`]'s
/// `Token::get_detail` copies them into a vector per token. A field past
/// the end reads as `*`, as `get_detail` pads it.
fn details<'d>(t: &lindera::token::Token<'d>) -> impl Iterator<Item = &'d str> {
    details_in(t.dictionary, t)
}

fn details_in<'d>(
    dictionary: &'d Dictionary,
    t: &lindera::token::Token<'_>,
) -> impl Iterator<Item = &'d str> + use<'d> {
    let id = t.word_id.id() as usize;
    if t.word_id.is_unknown() {
        dictionary.unknown_word_details_iter(id)
    } else if t.word_id.is_system() {
        dictionary.word_details_iter(id)
    } else {
        lindera_dictionary::dictionary::DetailFields::unk()
    }
}

/// The coarse part of speech of a morpheme from IPADIC's first two fields.
fn pos_of(surface: &str, major: &str, subclass: &str) -> Pos {
    if !surface.chars().any(char::is_alphanumeric) {
        return Pos::Symbol;
    }
    match (major, subclass) {
        ("名詞", "接尾") => Pos::Suffix,
        ("名詞", _) => Pos::Noun,
        ("動詞", _) => Pos::Verb,
        ("形容詞", _) => Pos::Adjective,
        ("副詞", _) => Pos::Adverb,
        ("助詞", _) => Pos::Particle,
        ("助動詞", _) => Pos::Auxiliary,
        ("記号", _) => Pos::Symbol,
        ("接頭詞", _) => Pos::Prefix,
        _ => Pos::Other,
    }
}

/// The morphemes of `text` as whole words, as the text writes them.
///
/// IPADIC cuts a loanword it lacks into katakana words it has (バインド →
/// バ + インド, データベース → デー + タバ + ース) and an identifier at its
/// connectors (`web-inf` → web + - + inf); a piece alone is a fragment, not a
/// word of the text. So [`tokenize`]'s tokens are joined where nothing
/// separates them and both sides are katakana (with ー), or both are
/// identifier characters (`a-z 0-9 _`, and a `-` between two of them; a `.`
/// separates: `java.util.List`, `index.jsp` are words joined by dots).
/// A joined word is a [`Pos::Noun`] when one of its parts is. An identifier
/// right after `%` or `\` is a format directive or an escape sequence
/// (`%rid`, `\tclient_ip`), not a word: it comes back as [`Pos::Symbol`].
/// Expects normalised text, as [`tokenize`].
pub(crate) fn whole_words(text: &str) -> crate::Result<Vec<Token>> {
    let tokens = tokenize(text)?;
    let mut words: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let glued = words.last().filter(|w| w.end == t.start).and_then(|w| {
            let (a, b) = (
                text[..w.end].chars().next_back()?,
                text[t.start..].chars().next()?,
            );
            if (is_katakana(a) && is_katakana(b)) || (is_ident(a) && is_ident(b)) {
                return Some(1);
            }
            // `web-inf`, `end-of-file`: a hyphen between identifier characters.
            let next = tokens.get(i + 1).filter(|n| n.start == t.end)?;
            let c = text[next.start..].chars().next()?;
            (is_ident(a) && t.surface == "-" && is_ident(c)).then_some(2)
        });
        match glued {
            Some(n) => {
                let w = words.last_mut().expect("glued to a word");
                for part in &tokens[i..i + n] {
                    if part.pos == Pos::Noun && w.pos != Pos::Noun {
                        w.pos = Pos::Noun;
                        w.subclass = part.subclass.clone();
                    }
                    w.unknown |= part.unknown;
                }
                w.end = tokens[i + n - 1].end;
                w.surface = text[w.start..w.end].to_owned();
                w.base = w.surface.clone();
                w.form = "*".to_owned();
                w.joined = true;
                i += n;
            }
            None => {
                words.push(t.clone());
                i += 1;
            }
        }
    }
    for w in &mut words {
        let escaped = text[..w.start].ends_with(['%', '\\']);
        if escaped && w.surface.starts_with(is_ident) {
            w.pos = Pos::Symbol;
        }
    }
    Ok(words)
}

/// Katakana (incl. ー), the script of loanwords.
fn is_katakana(c: char) -> bool {
    matches!(c, '\u{30a1}'..='\u{30fa}' | '\u{30fc}')
}

/// A character of an identifier (normalised text: lowercase).
fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Extracts search keywords from a plain question, Japanese or English.
///
/// Takes **raw** text (not normalised): camelCase is split before lowercasing.
/// Returns normalised keywords ([`normalize`]d), deduplicated, in order of first
/// appearance:
/// - runs of adjacent nouns (incl. サ変接続 nouns, unknown words, prefixes and
///   suffixes such as 的, and Latin words) are returned whole, then each
///   content part: 楽観的ロック → 楽観的ロック, 楽観, ロック;
/// - Latin words (ASCII letters/digits, joined by `_ - . /`) are returned whole
///   and split at camelCase, digit and connector boundaries: UniversalDao →
///   universaldao, universal, dao; `O/Rマッパー` → o/rマッパー, o/r, マッパー
///   (one-character pieces such as `o` are dropped);
/// - verbs and adjectives by base form (読み込む);
/// - dropped: particles, auxiliaries, symbols, adverbs, pronouns, formal nouns,
///   single kana, and the generic words in `JA_STOP_WORDS` / `EN_STOP_WORDS`
///   (a stop word at either end of a noun run is also trimmed off the whole).
pub(crate) fn question_keywords(text: &str) -> crate::Result<Vec<String>> {
    let units = question_units(text)?;
    let mut out = Keywords::default();
    let mut run: Vec<&Unit> = Vec::new();
    for unit in &units {
        let joins = unit.class.joins_compounds();
        if !(joins && unit.glued) {
            flush_run(&run, &mut out);
            run.clear();
        }
        if joins {
            run.push(unit);
        } else if unit.class == Class::Content {
            out.push(&unit.text);
            if let Some(also) = &unit.also {
                out.push(also);
            }
        }
    }
    flush_run(&run, &mut out);
    Ok(out.list)
}

/// Returns the noun-ish morphemes (surface forms) of `text`, deduplicated, in order.
///
/// Expects normalised text (as [`tokenize`]). Used for partial matching: 楽観ロック
/// and 楽観的ロック both give 楽観 and ロック. Suffixes/prefixes (的, 化, 再),
/// pronouns, formal nouns, single kana and `JA_STOP_WORDS` are left out;
/// Latin words come as lindera groups them (no camelCase split, lowercase input).
pub(crate) fn parts(text: &str) -> crate::Result<Vec<String>> {
    let mut out = Keywords::default();
    for token in tokenize(text)? {
        if token.pos == Pos::Noun && standalone_noun(&token.surface, &token.subclass) {
            out.push(&token.surface);
        }
    }
    Ok(out.list)
}

// ---------------------------------------------------------------------------
// Dictionary loading

/// The segmenter over the embedded IPADIC, built on first use.
fn segmenter() -> crate::Result<&'static Segmenter> {
    static SEGMENTER: OnceLock<Result<Segmenter, String>> = OnceLock::new();
    SEGMENTER
        .get_or_init(|| load_dictionary().map(|d| Segmenter::new(Mode::Normal, d, None)))
        .as_ref()
        .map_err(|e| crate::Error::Tokenizer(e.clone()))
}

/// Loads lindera's own embedded IPADIC (`download-ipadic` feature).
#[cfg(feature = "download-ipadic")]
fn load_dictionary() -> Result<Dictionary, String> {
    lindera::dictionary::load_dictionary("embedded://ipadic")
        .map_err(|e| format!("cannot load the embedded IPADIC dictionary: {e}"))
}

/// Loads the IPADIC that `build.rs` compiled into `$OUT_DIR/lindera-ipadic`.
///
/// Every component is a zero-copy view of the bytes baked into the binary,
/// except the character definition, which is read from a small JSON file
/// instead of lindera's `char_def.bin`: `CharacterDefinition::load` rebuilds a
/// 64K-entry lookup table on every load (~0.5 ms), the serde path does not
/// (category lookups then use a binary search over ~30 ranges).
#[cfg(not(feature = "download-ipadic"))]
fn load_dictionary() -> Result<Dictionary, String> {
    use std::sync::Arc;

    use lindera_dictionary::dictionary::character_definition::CharacterDefinition;
    use lindera_dictionary::dictionary::connection_cost_matrix::ConnectionCostMatrix;
    use lindera_dictionary::dictionary::metadata::Metadata;
    use lindera_dictionary::dictionary::prefix_dictionary::PrefixDictionary;
    use lindera_dictionary::dictionary::unknown_dictionary::UnknownDictionary;

    macro_rules! dict_file {
        ($name:literal) => {
            include_bytes!(concat!(env!("KBIDX_IPADIC_OUT"), "/", $name))
        };
    }
    // 16-byte alignment lets the connection matrix be viewed as [i16] in place.
    static MATRIX: &[u8] = lindera_dictionary::include_bytes_aligned!(concat!(
        env!("KBIDX_IPADIC_OUT"),
        "/matrix.mtx"
    ));
    static TRIE: &[u8] = dict_file!("dict.trie");
    static VALS_IDX: &[u8] = dict_file!("dict.valsidx");
    static VALS: &[u8] = dict_file!("dict.vals");
    static WORDS_IDX: &[u8] = dict_file!("dict.wordsidx");
    static WORDS: &[u8] = dict_file!("dict.words");
    static UNKNOWN: &[u8] = dict_file!("unk.bin");
    static CHAR_DEF_JSON: &[u8] = dict_file!("char_def.json");
    static METADATA: &[u8] = dict_file!("metadata.json");

    let broken = |what: &str, e: &dyn std::fmt::Display| {
        format!("embedded IPADIC dictionary is broken ({what}): {e}; rebuild kbidx")
    };
    let metadata = Metadata::load(METADATA).map_err(|e| broken("metadata", &e))?;
    metadata
        .validate_format_version()
        .map_err(|e| broken("format version", &e))?;
    let prefix_dictionary = PrefixDictionary::load(TRIE, VALS_IDX, VALS, WORDS_IDX, WORDS)
        .map_err(|e| broken("prefix dictionary", &e))?;
    let connection_cost_matrix =
        ConnectionCostMatrix::load(MATRIX).map_err(|e| broken("connection matrix", &e))?;
    let character_definition: CharacterDefinition =
        serde_json::from_slice(CHAR_DEF_JSON).map_err(|e| broken("character definition", &e))?;
    let unknown_dictionary =
        UnknownDictionary::load(UNKNOWN).map_err(|e| broken("unknown-word dictionary", &e))?;
    Ok(Dictionary {
        prefix_dictionary: Arc::new(prefix_dictionary),
        connection_cost_matrix: Arc::new(connection_cost_matrix),
        character_definition: Arc::new(character_definition),
        unknown_dictionary: Arc::new(unknown_dictionary),
        metadata: Arc::new(metadata),
    })
}

// ---------------------------------------------------------------------------
// Keyword extraction

/// How a unit of a question takes part in keyword extraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A content noun: joins compounds, emitted on its own.
    Noun,
    /// A Latin word: joins compounds, emitted whole and split.
    Latin,
    /// Prefix, suffix or adverbial noun (的, 再, 後): joins compounds, never alone.
    Affix,
    /// A content verb/adjective (base form): emitted alone, breaks compounds.
    Content,
    /// Everything else: breaks compounds, never emitted.
    Break,
}

impl Class {
    /// Whether units of this class are glued into compound nouns.
    fn joins_compounds(self) -> bool {
        matches!(self, Class::Noun | Class::Latin | Class::Affix)
    }
}

/// A morpheme or Latin word of a question, normalised.
#[derive(Debug)]
struct Unit {
    /// Normalised text (base form for verbs/adjectives).
    text: String,
    /// Role in keyword extraction.
    class: Class,
    /// True when nothing (no white space) separates it from the previous unit.
    glued: bool,
    /// For Latin words: the camelCase/connector pieces, lowercase.
    pieces: Vec<String>,
    /// Whether the unit is a stop word (trimmed from compound ends).
    stop: bool,
    /// A second keyword for the same word: the continuative form of a verb
    /// (読み込み for 読み込む), which is how Japanese hints and titles name actions.
    also: Option<String>,
}

/// Ordered, deduplicated keyword list.
#[derive(Default)]
struct Keywords {
    /// Keywords in order of first appearance.
    list: Vec<String>,
    /// Membership set for `list`.
    seen: HashSet<String>,
}

impl Keywords {
    /// Appends `word` unless it is empty or already present.
    fn push(&mut self, word: &str) {
        if !word.is_empty() && self.seen.insert(word.to_string()) {
            self.list.push(word.to_string());
        }
    }
}

/// Whether `c` can be part of a Latin word.
fn is_latin(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// Whether `c` joins two Latin pieces into one word (snake_case, o/r, a.b, x-y).
fn is_connector(c: char) -> bool {
    matches!(c, '_' | '-' | '.' | '/')
}

/// Splits raw `text` into Latin words and IPADIC morphemes, in order.
fn question_units(text: &str) -> crate::Result<Vec<Unit>> {
    // NFKC first (full-width ＵｎｉｖｅｒｓａｌＤａｏ → UniversalDao), keeping case.
    let nfkc: String = text.nfkc().collect();
    let chars: Vec<(usize, char)> = nfkc.char_indices().collect();
    let mut units = Vec::new();
    let mut seg_start = 0; // byte start of the pending non-Latin segment
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        if !is_latin(c) {
            i += 1;
            continue;
        }
        // A Latin word: letters/digits, with single connectors between them.
        let mut j = i + 1;
        while j < chars.len() {
            let (_, d) = chars[j];
            let next_is_latin = chars.get(j + 1).is_some_and(|&(_, n)| is_latin(n));
            if is_latin(d) || (is_connector(d) && next_is_latin) {
                j += 1;
            } else {
                break;
            }
        }
        let end = chars.get(j).map_or(nfkc.len(), |&(p, _)| p);
        japanese_units(&nfkc[seg_start..pos], &mut units)?;
        let glued = !units.is_empty() && !nfkc[..pos].ends_with(char::is_whitespace);
        units.push(latin_unit(&nfkc[pos..end], glued));
        seg_start = end;
        i = j;
    }
    japanese_units(&nfkc[seg_start..], &mut units)?;
    Ok(units)
}

/// Builds the unit for one Latin word (case preserved, NFKC applied).
fn latin_unit(word: &str, glued: bool) -> Unit {
    let text = word.to_ascii_lowercase();
    let pieces: Vec<String> = split_identifier(word)
        .into_iter()
        .map(|p| p.to_ascii_lowercase())
        .filter(|p| p.len() > 1)
        .collect();
    let stop = EN_STOP_WORDS.contains(&text.as_str()) || text.len() < 2;
    Unit {
        text,
        class: Class::Latin,
        glued,
        pieces,
        stop,
        also: None,
    }
}

/// Splits an identifier at connectors, lower→Upper, acronym→Word
/// (`SQLFile` → SQL, File) and digit→Upper boundaries.
fn split_identifier(word: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    for chunk in word.split(is_connector).filter(|c| !c.is_empty()) {
        let b = chunk.as_bytes();
        let mut start = 0;
        for k in 1..b.len() {
            let (prev, cur) = (b[k - 1], b[k]);
            let next_lower = b.get(k + 1).is_some_and(u8::is_ascii_lowercase);
            let boundary = cur.is_ascii_uppercase()
                && (prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower));
            if boundary {
                pieces.push(&chunk[start..k]);
                start = k;
            }
        }
        pieces.push(&chunk[start..]);
    }
    pieces
}

/// Tokenizes a non-Latin segment of the question and appends its units.
fn japanese_units(segment: &str, units: &mut Vec<Unit>) -> crate::Result<()> {
    let normalised = normalize(segment);
    if normalised.is_empty() {
        return Ok(());
    }
    // The first morpheme is glued to the previous unit unless white space separates them.
    let mut prev_end = if units.is_empty() || segment.starts_with(char::is_whitespace) {
        usize::MAX
    } else {
        0
    };
    for token in tokenize(&normalised)? {
        let glued = token.start == prev_end;
        prev_end = token.end;
        let (class, text) = classify(&token);
        let stop = is_ja_stop(&text);
        let class = match class {
            Class::Content if stop => Class::Break,
            other => other,
        };
        let also = (class == Class::Content
            && token.pos == Pos::Verb
            && token.form.starts_with("連用")
            && token.surface != text
            && token.surface.chars().count() >= 2)
            .then(|| token.surface.clone());
        units.push(Unit {
            text,
            class,
            glued,
            pieces: Vec::new(),
            stop,
            also,
        });
    }
    Ok(())
}

/// Role and keyword text of one morpheme.
fn classify(token: &Token) -> (Class, String) {
    let sub = token.subclass.as_str();
    match token.pos {
        Pos::Noun if matches!(sub, "代名詞" | "非自立" | "特殊" | "接続詞的") => {
            (Class::Break, token.surface.clone())
        }
        Pos::Noun if matches!(sub, "副詞可能" | "数") => (Class::Affix, token.surface.clone()),
        Pos::Noun if standalone_noun(&token.surface, sub) => (Class::Noun, token.surface.clone()),
        Pos::Noun | Pos::Prefix | Pos::Suffix => (Class::Affix, token.surface.clone()),
        Pos::Verb | Pos::Adjective if sub == "自立" => (Class::Content, token.base.clone()),
        _ => (Class::Break, token.surface.clone()),
    }
}

/// Whether a noun is worth a keyword on its own.
pub(crate) fn standalone_noun(surface: &str, subclass: &str) -> bool {
    let mut chars = surface.chars();
    let single_kana = matches!((chars.next(), chars.next()), (Some(c), None) if is_kana(c));
    !single_kana
        && !is_ja_stop(surface)
        && !matches!(
            subclass,
            "代名詞" | "非自立" | "特殊" | "接続詞的" | "副詞可能" | "接尾"
        )
        && surface.chars().any(char::is_alphanumeric)
}

/// Hiragana or katakana (incl. ー).
fn is_kana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{30ff}')
}

/// Whether `word` is in the Japanese stop list.
fn is_ja_stop(word: &str) -> bool {
    JA_STOP_WORDS.contains(&word)
}

/// Emits the keywords of one run of compound-joining units.
fn flush_run(run: &[&Unit], out: &mut Keywords) {
    // Trim stop words off both ends (データ取得方法 → データ取得).
    let mut lo = 0;
    let mut hi = run.len();
    while lo < hi && run[lo].stop {
        lo += 1;
    }
    while hi > lo && run[hi - 1].stop {
        hi -= 1;
    }
    let run = &run[lo..hi];
    if run.len() > 1 {
        let whole: String = run.iter().map(|u| u.text.as_str()).collect();
        out.push(&whole);
    }
    for unit in run {
        match unit.class {
            Class::Noun if !unit.stop => out.push(&unit.text),
            Class::Latin if !unit.stop => {
                out.push(&unit.text);
                if unit.pieces.len() > 1 {
                    for piece in &unit.pieces {
                        out.push(piece);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;

    /// Table-driven checks: `t!(function, input => [must contain...] ; ![must not contain...])`.
    macro_rules! t {
        ($f:ident, $input:expr => [$($yes:expr),*] ; ![$($no:expr),*]) => {{
            let got = $f($input).expect("tokenizer works");
            $(assert!(got.iter().any(|k| k == $yes), "{:?}: missing {:?} in {:?}", $input, $yes, got);)*
            $(assert!(!got.iter().any(|k| k == $no), "{:?}: unexpected {:?} in {:?}", $input, $no, got);)*
        }};
    }

    #[test]
    fn question_keywords_table() {
        t!(question_keywords, "ページングを実装したい" => ["ページング", "実装"]; !["を", "たい", "する", "し"]);
        t!(question_keywords, "バッチでデータを読み込みたい" => ["バッチ", "データ", "読み込む", "読み込み"]; !["で", "を", "たい"]);
        t!(question_keywords, "ファイルを分割して書き込む" => ["ファイル", "分割", "書き込む"]; !["書き込み"]);
        t!(question_keywords, "楽観的ロックのやり方" => ["楽観的ロック", "楽観", "ロック"]; !["やり方", "の", "的"]);
        t!(question_keywords, "How do I use UniversalDao paging?" =>
            ["universaldao", "universal", "dao", "paging"]; !["how", "do", "i", "use", "?"]);
        t!(question_keywords, "トランザクション制御" => ["トランザクション制御", "トランザクション", "制御"]; ![]);
        t!(question_keywords, "ＵｎｉｖｅｒｓａｌＤａｏ" => ["universaldao", "universal", "dao"]; ![]);
        t!(question_keywords, "findAllBySqlFileの使い方" =>
            ["findallbysqlfile", "find", "all", "by", "sql", "file"]; !["使い方", "の"]);
        t!(question_keywords, "O/Rマッパーの使い方" => ["o/rマッパー", "o/r", "マッパー"]; !["o", "r", "使い方"]);
        t!(question_keywords, "排他制御を行う方法" => ["排他制御", "排他", "制御"]; !["行う", "方法"]);
        t!(question_keywords, "データ取得方法" => ["データ取得", "データ", "取得"]; !["データ取得方法", "方法"]);
    }

    #[test]
    fn question_keywords_samples() {
        let samples = [
            "ページングを実装したい",
            "バッチでデータを読み込みたい",
            "楽観的ロックのやり方",
            "How do I use UniversalDao paging?",
            "トランザクション制御",
            "ＵｎｉｖｅｒｓａｌＤａｏ",
            "O/Rマッパーの使い方",
            "Nablarchバッチで排他制御を行う方法は？",
        ];
        let got: Vec<String> = samples
            .iter()
            .map(|q| {
                format!(
                    "{q} => {}",
                    question_keywords(q).expect("tokenizer works").join(" | ")
                )
            })
            .collect();
        insta::assert_debug_snapshot!(got, @r#"
        [
            "ページングを実装したい => ページング | 実装",
            "バッチでデータを読み込みたい => バッチ | データ | 読み込む | 読み込み",
            "楽観的ロックのやり方 => 楽観的ロック | 楽観 | ロック",
            "How do I use UniversalDao paging? => universaldao | universal | dao | paging",
            "トランザクション制御 => トランザクション制御 | トランザクション | 制御",
            "ＵｎｉｖｅｒｓａｌＤａｏ => universaldao | universal | dao",
            "O/Rマッパーの使い方 => o/rマッパー | o/r | マッパー",
            "Nablarchバッチで排他制御を行う方法は？ => nablarchバッチ | nablarch | バッチ | 排他制御 | 排他 | 制御",
        ]
        "#);
    }

    #[test]
    fn question_keywords_order_and_dedup() {
        let got = question_keywords("UniversalDaoでページング。UniversalDaoの検索")
            .expect("tokenizer works");
        assert_eq!(
            got,
            ["universaldao", "universal", "dao", "ページング", "検索"]
        );
    }

    /// Prints the cost of the lazy dictionary load; run it alone, in release:
    /// `cargo test --release --lib dictionary_load_time -- --ignored --nocapture`.
    #[test]
    #[ignore = "timing report, not a check"]
    fn dictionary_load_time() {
        let t0 = std::time::Instant::now();
        segmenter().expect("dictionary loads");
        let t1 = std::time::Instant::now();
        tokenize("サーバサイドで排他制御を行う方法").expect("tokenizer works");
        let t2 = std::time::Instant::now();
        question_keywords("UniversalDaoで楽観的ロックを実装したい").expect("tokenizer works");
        let t3 = std::time::Instant::now();
        eprintln!(
            "load {:?}, first tokenize {:?}, then question_keywords {:?}",
            t1 - t0,
            t2 - t1,
            t3 - t2
        );
    }

    #[test]
    fn split_identifier_boundaries() {
        assert_eq!(
            split_identifier("findAllBySqlFile"),
            ["find", "All", "By", "Sql", "File"]
        );
        assert_eq!(split_identifier("HTTPClient"), ["HTTP", "Client"]);
        assert_eq!(split_identifier("Base64Encoder"), ["Base64", "Encoder"]);
        assert_eq!(
            split_identifier("snake_case.name"),
            ["snake", "case", "name"]
        );
    }

    /// Whole words never cut a loanword or an identifier, and drop format
    /// directives and escapes.
    #[test]
    fn whole_words_table() {
        for (text, yes, no) in [
            (
                "ウィンドウを開く",
                &["ウィンドウ"][..],
                &["インド", "ウィ"][..],
            ),
            (
                "パラメータをバインドする",
                &["パラメータ", "バインド"],
                &["インド", "バ"],
            ),
            (
                "データベースに接続",
                &["データベース"],
                &["タバ", "デー", "ース"],
            ),
            (
                "データベースアクセス",
                &["データベースアクセス"],
                &["タバ", "データベース"],
            ),
            ("プラグインの設定", &["プラグイン"], &["プラグ", "イン"]),
            (
                "/web-inf/view/index.jsp",
                &["web-inf", "view", "index", "jsp"],
                &["inf", "web"],
            ),
            ("format=%rid %tclient %sid", &[], &["rid", "tclient", "sid"]),
            (
                "\\tclient_ip = [$clientipaddress$]",
                &["clientipaddress"],
                &["tclient", "tclient_ip", "client_ip"],
            ),
            (
                "log.format=rid = [$requestid$]",
                &["log", "format", "rid", "requestid"],
                &["log.format"],
            ),
            (
                "楽観的ロックで排他制御",
                &["楽観", "ロック", "排他", "制御"],
                &[],
            ),
        ] {
            let words: Vec<String> = whole_words(text)
                .expect("tokenizer works")
                .into_iter()
                .filter(|w| w.pos != Pos::Symbol)
                .map(|w| w.surface)
                .collect();
            for y in yes {
                assert!(
                    words.iter().any(|w| w == y),
                    "{text:?}: missing {y:?} in {words:?}"
                );
            }
            for n in no {
                assert!(
                    !words.iter().any(|w| w == n),
                    "{text:?}: unexpected {n:?} in {words:?}"
                );
            }
        }
    }

    #[test]
    fn parts_table() {
        t!(parts, "楽観的ロック" => ["楽観", "ロック"]; !["的"]);
        t!(parts, "楽観ロック" => ["楽観", "ロック"]; ![]);
        t!(parts, "トランザクション制御" => ["トランザクション", "制御"]; ![]);
        t!(parts, "ページングを実装したい" => ["ページング", "実装"]; !["を", "し", "たい"]);
    }

    #[test]
    fn tokenize_offsets_and_pos() {
        let tokens = tokenize("バッチでデータを読み込みたい").expect("tokenizer works");
        let summary: Vec<String> = tokens
            .iter()
            .map(|t| {
                format!(
                    "{}/{}/{:?}/{}..{}",
                    t.surface, t.base, t.pos, t.start, t.end
                )
            })
            .collect();
        insta::assert_debug_snapshot!(summary, @r#"
        [
            "バッチ/バッチ/Noun/0..9",
            "で/で/Particle/9..12",
            "データ/データ/Noun/12..21",
            "を/を/Particle/21..24",
            "読み込み/読み込む/Verb/24..36",
            "たい/たい/Auxiliary/36..42",
        ]
        "#);
        for t in &tokens {
            assert_eq!(&"バッチでデータを読み込みたい"[t.start..t.end], t.surface);
        }
    }

    #[test]
    fn unknown_symbol_is_symbol() {
        let tokens = tokenize("paging?").expect("tokenizer works");
        assert_eq!(tokens.last().map(|t| t.pos), Some(Pos::Symbol));
        assert!(tokens[0].unknown);
    }

    /// The JSON character definition must classify every BMP character like
    /// lindera's own rkyv file does.
    #[cfg(not(feature = "download-ipadic"))]
    #[test]
    fn json_char_def_matches_rkyv() {
        use lindera_dictionary::dictionary::character_definition::CharacterDefinition;
        let rkyv = CharacterDefinition::load(include_bytes!(concat!(
            env!("KBIDX_IPADIC_OUT"),
            "/char_def.bin"
        )))
        .expect("char_def.bin loads");
        let json: CharacterDefinition = serde_json::from_slice(include_bytes!(concat!(
            env!("KBIDX_IPADIC_OUT"),
            "/char_def.json"
        )))
        .expect("char_def.json loads");
        for c in (0..0x11000u32).filter_map(char::from_u32) {
            assert_eq!(
                rkyv.lookup_categories(c),
                json.lookup_categories(c),
                "{c:?}"
            );
        }
    }

    /// The terms of `text` as [`tokenize`]'s tokens define them: what
    /// [`each_term`] and [`Tokeniser`] must give without building tokens.
    fn terms_of_tokens(text: &str) -> Vec<String> {
        tokenize(text)
            .expect("tokenizer works")
            .into_iter()
            .filter_map(|t| {
                let word = match t.pos {
                    Pos::Noun => t.surface,
                    Pos::Verb | Pos::Adjective => t.base,
                    _ if t.unknown && t.pos != Pos::Symbol => t.surface,
                    _ => return None,
                };
                let mut chars = word.chars();
                let single_kana = matches!((chars.next(), chars.next()),
                    (Some(c), None) if ('\u{3041}'..='\u{30ff}').contains(&c));
                (!single_kana).then_some(word)
            })
            .collect()
    }

    /// Both tokenisers' terms of `text`, each checked against [`terms_of_tokens`].
    fn assert_terms_as_tokens(text: &str, many: &mut Tokeniser) {
        let expected = terms_of_tokens(text);
        let mut one = Vec::new();
        each_term(text, |w| one.push(w.to_owned())).expect("tokenizer works");
        assert_eq!(one, expected, "{text:?}");
        let mut bulk = Vec::new();
        many.each_term(text, |w| bulk.push(w.to_owned()))
            .expect("tokenizer works");
        assert_eq!(bulk, expected, "{text:?}");
    }

    #[test]
    fn terms_equal_the_terms_of_the_tokens() {
        let mut many = Tokeniser::for_many_texts().expect("tokenizer works");
        let long_lines = "バッチを再実行する。ログを読み込み、dbにコミットした\n".repeat(300);
        let one_long_line = "楽観ロックのversionカラムを更新する、".repeat(400);
        for text in [
            "",
            " ",
            "\n\n",
            "サーバサイドで排他制御を行う方法",
            "バッチでデータを読み込みたい",
            "universaldao で検索した結果を beans に変換する",
            "web-inf/web.xml の %rid と \\tclient_ip",
            "楽観的ロックと楽観ロック、さん、化、性",
            "paging? 1,000件 ①②  ａｂｃ",
            "あ い う ア イ ウ ー ヿ ゟ",
            "高い 美しく 走った 読み込まれる 見る",
            "データベース バインド リトライ retry",
            "😀 emoji ✓ 「かぎ」（括弧）",
            "\t tab\tseparated\twords",
            &long_lines,
            &one_long_line,
        ] {
            assert_terms_as_tokens(text, &mut many);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 512, ..Default::default() })]

        /// Whatever the text, the cached word classes give the tokens' terms.
        #[test]
        fn terms_equal_the_terms_of_the_tokens_for_any_text(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(&[
                        "を", "する", "した", "読み込み", "ロック", "楽観", "処理", "バッチ",
                        "データ", "が", "高い", "。", "、", "\n", "\t", " ", "-", "_", ".",
                        "%", "\\", "db", "web", "inf", "1", "①", "ー", "ア", "あ", "😀",
                    ][..]).prop_map(str::to_owned),
                    proptest::arbitrary::any::<String>(),
                    "[ -~]{0,6}",
                ],
                0..40,
            )
        ) {
            let text = crate::text::normalize::normalize(&parts.concat());
            let mut many = Tokeniser::for_many_texts().expect("tokenizer works");
            assert_terms_as_tokens(&text, &mut many);
        }
    }
}
