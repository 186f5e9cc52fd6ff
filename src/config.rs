//! `kbidx.toml`: where the knowledge, the index and the extraction program are.
//!
//! [`Config::load`] reads the file if it exists (a missing file gives the
//! defaults); command-line flags override its values afterwards. Relative
//! paths in the file are taken relative to the directory holding it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The default configuration file name, looked up in the current directory.
pub const CONFIG_FILE: &str = "kbidx.toml";

/// Derived terms per section unless configured otherwise.
pub const DEFAULT_TERMS: usize = 12;

/// Settings shared by `build`, `search`, `read` and `eval`.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The knowledge directory (default `knowledge`).
    pub knowledge: PathBuf,
    /// The index file (default `index/index.toon`).
    pub index: PathBuf,
    /// A jq program replacing the built-in `src/extract.jq`.
    pub filter: Option<PathBuf>,
    /// Globs (relative to the knowledge directory) a file must match (default `**/*.json`).
    pub include: Vec<String>,
    /// Globs (relative to the knowledge directory) that exclude a file.
    pub exclude: Vec<String>,
    /// Derived terms per section in the index's `terms` column (0: none; default 12).
    pub terms: usize,
    /// Two-pass file → section search in `search` and `eval` (default [`DEFAULT_HIERARCHY`]).
    pub hierarchy: bool,
    /// Weight of the section score in the two-pass blend (0–1).
    pub hierarchy_alpha: f64,
    /// Full-text fallback of `search` and `eval` (see `fallback`).
    pub fallback: crate::search::fallback::Settings,
    /// Whether `search` keeps the index's word index in the search cache (see `cache`).
    pub cache: bool,
    /// The body stage of `search` and `eval` (BM25F over the section text; default on).
    pub body: bool,
    /// Weight of concept coverage in keyword searches (0–1; default
    /// [`crate::search::DEFAULT_KEYWORD_COVERAGE`]; see `search::Body`).
    pub keyword_coverage: f64,
    /// Weight of L3 coverage in keyword searches (0–1; default
    /// [`crate::search::DEFAULT_L3_COVERAGE`]; see `search::Body`).
    pub l3_coverage: f64,
    /// Fold near-duplicate sections into the result above them in `search`
    /// and `eval` (`collapse`; default [`crate::search::DEFAULT_COLLAPSE`]).
    pub collapse: bool,
    /// The most knowledge (bytes) for which `build` and the searches build a
    /// body index or run the full-text fallback (`body_limit`, in MiB in the
    /// file; default [`crate::search::DEFAULT_BODY_LIMIT`]; see `search::limit`).
    pub body_limit: u64,
    /// How long `build` lets the extraction run before stopping it (default 60 s).
    pub build_timeout: std::time::Duration,
    /// Default content budget of `search` (`max_chars`, `max_tokens` and the
    /// per-result caps), applied whenever content is attached; flags override
    /// it cap by cap.
    pub budget: Budget,
    /// How `search` shapes the content it hands over (`hand_over`, or
    /// `passages = true` for [`HandOver::Passages`]; default start).
    pub hand_over: HandOver,
    /// Thresholds of `kbidx lint`'s rules (`[lint]`).
    pub lint: crate::lint::Thresholds,
    /// Path weights (`[[weight]]`): factors on the score of the sections of
    /// matching files, in `search`, `eval` and `mcp` (none by default).
    pub weights: crate::search::Weights,
}

/// Seconds `build` lets the extraction program run unless configured otherwise:
/// far above any real build (nabledge-6-fulltext takes under a second), short
/// enough that a program that never ends does not hang a pre-commit hook.
pub const DEFAULT_BUILD_TIMEOUT: u64 = 60;

/// Whether the two-pass file → section search is on unless configured otherwise
/// (chosen by `kbidx eval`; see docs/accuracy.md).
pub const DEFAULT_HIERARCHY: bool = false;

impl Default for Config {
    fn default() -> Self {
        Self {
            knowledge: PathBuf::from("knowledge"),
            index: PathBuf::from("index/index.toon"),
            filter: None,
            include: vec!["**/*.json".to_owned()],
            exclude: Vec::new(),
            terms: DEFAULT_TERMS,
            hierarchy: DEFAULT_HIERARCHY,
            hierarchy_alpha: crate::search::DEFAULT_ALPHA,
            fallback: crate::search::fallback::Settings::default(),
            cache: true,
            body: true,
            keyword_coverage: crate::search::DEFAULT_KEYWORD_COVERAGE,
            l3_coverage: crate::search::DEFAULT_L3_COVERAGE,
            collapse: crate::search::DEFAULT_COLLAPSE,
            body_limit: crate::search::DEFAULT_BODY_LIMIT,
            build_timeout: std::time::Duration::from_secs(DEFAULT_BUILD_TIMEOUT),
            budget: Budget::default(),
            hand_over: HandOver::default(),
            lint: crate::lint::Thresholds::default(),
            weights: crate::search::Weights::default(),
        }
    }
}

impl Config {
    /// The search settings `kbidx.toml` (or the defaults) asks for, with no
    /// flag over them: what `kbidx mcp` searches with.
    pub(crate) fn search_settings(&self) -> Result<crate::search::Settings> {
        if !(0.0..=1.0).contains(&self.hierarchy_alpha) {
            return Err(Error::Usage(format!(
                "hierarchy_alpha must be between 0 and 1, not {}",
                self.hierarchy_alpha
            )));
        }
        if !self.body && self.keyword_coverage > 0.0 {
            // As for `--keyword-coverage` with `--no-body`: refused, not ignored.
            return Err(Error::Usage(
                "keyword_coverage works with the body stage: drop `body = false` from kbidx.toml"
                    .into(),
            ));
        }
        Ok(crate::search::Settings {
            hierarchy: self.hierarchy.then_some(crate::search::Hierarchy {
                alpha: self.hierarchy_alpha,
                ..crate::search::Hierarchy::default()
            }),
            fallback: self.fallback,
            body: self.body.then(|| crate::search::Body {
                keyword_coverage: self.keyword_coverage,
                l3_coverage: self.l3_coverage,
                ..crate::search::Body::default()
            }),
            weights: self.weights.clone(),
            body_limit: self.body_limit,
        })
    }
}

/// The file's shape; every key is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    knowledge: Option<PathBuf>,
    index: Option<PathBuf>,
    filter: Option<PathBuf>,
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    terms: Option<usize>,
    hierarchy: Option<bool>,
    hierarchy_alpha: Option<f64>,
    fallback: Option<bool>,
    fallback_min: Option<usize>,
    cache: Option<bool>,
    body: Option<bool>,
    keyword_coverage: Option<f64>,
    l3_coverage: Option<f64>,
    collapse: Option<bool>,
    /// Any value: a wrong type is reported naming the key, like a wrong number.
    body_limit: Option<toml::Value>,
    build_timeout: Option<u64>,
    max_chars: Option<usize>,
    max_tokens: Option<usize>,
    max_chars_per_result: Option<usize>,
    max_tokens_per_result: Option<usize>,
    passages: Option<bool>,
    hand_over: Option<HandOver>,
    lint: Option<RawLint>,
    weight: Option<Vec<toml::Spanned<RawWeight>>>,
}

/// `[[weight]]`: a factor on the score of sections whose file matches `glob`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWeight {
    glob: String,
    factor: f64,
}

/// `[lint]`: thresholds of `kbidx lint`'s rules.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLint {
    hint_share: Option<f64>,
    hint_min_rows: Option<usize>,
    repeated_hint_files: Option<usize>,
    repeated_hint_dirs: Option<usize>,
    section_tokens: Option<usize>,
    pointer_chars: Option<usize>,
}

impl Config {
    /// Loads `path` if given, else `kbidx.toml` in the current directory if it
    /// exists, else returns the defaults. An explicitly named file must exist.
    pub fn load(path: Option<&Path>) -> Result<Self> {
        let (path, required) = match path {
            Some(p) => (p.to_path_buf(), true),
            None => (PathBuf::from(CONFIG_FILE), false),
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::default());
            }
            Err(e) => return Err(Error::io(&path, "cannot read config", e)),
        };
        Self::parse(&path, &text)
    }

    /// Parses the contents of a config file found at `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            Error::syntax_at(path, text, offset, e.message().to_owned())
        })?;
        let base = path.parent().unwrap_or(Path::new(""));
        let rel = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
        let default = Self::default();
        // A weight between 0 and 1, or an error at the key's place in the file.
        let share = |key: &str, value: Option<f64>| match value {
            Some(w) if !(0.0..=1.0).contains(&w) => Err(Error::syntax_at(
                path,
                text,
                text.find(key).unwrap_or(0),
                format!("{key} must be between 0 and 1, not {w}"),
            )),
            _ => Ok(value),
        };
        for (key, value) in [
            ("max_tokens", raw.max_tokens),
            ("max_chars_per_result", raw.max_chars_per_result),
            ("max_tokens_per_result", raw.max_tokens_per_result),
        ] {
            if value == Some(0) {
                return Err(Error::syntax_at(
                    path,
                    text,
                    text.find(key).unwrap_or(0),
                    format!("{key} must be at least 1"),
                ));
            }
        }
        let lint = raw.lint.unwrap_or_default();
        if let Some(share) = lint.hint_share.filter(|s| !(0.0..=1.0).contains(s)) {
            return Err(Error::syntax_at(
                path,
                text,
                text.find("hint_share").unwrap_or(0),
                format!("hint_share must be between 0 and 1, not {share}"),
            ));
        }
        if lint.section_tokens == Some(0) {
            return Err(Error::syntax_at(
                path,
                text,
                text.find("section_tokens").unwrap_or(0),
                "section_tokens must be at least 1",
            ));
        }
        let raw_weights = raw.weight.unwrap_or_default();
        let weights = crate::search::Weights::new(
            raw_weights
                .iter()
                .map(|w| crate::search::Weight {
                    glob: w.get_ref().glob.clone(),
                    factor: w.get_ref().factor,
                })
                .collect(),
        )
        .map_err(|(i, message)| {
            let (line, column) = crate::error::line_column(text, raw_weights[i].span().start);
            Error::Weight {
                path: path.to_path_buf(),
                line,
                column,
                entry: i + 1,
                glob: raw_weights[i].get_ref().glob.clone(),
                message,
            }
        })?;
        Ok(Self {
            weights,
            lint: crate::lint::Thresholds {
                hint_share: lint.hint_share.unwrap_or(default.lint.hint_share),
                hint_min_rows: lint.hint_min_rows.unwrap_or(default.lint.hint_min_rows),
                repeated_hint_files: lint
                    .repeated_hint_files
                    .unwrap_or(default.lint.repeated_hint_files),
                repeated_hint_dirs: lint
                    .repeated_hint_dirs
                    .unwrap_or(default.lint.repeated_hint_dirs),
                section_tokens: lint.section_tokens.unwrap_or(default.lint.section_tokens),
                pointer_chars: lint.pointer_chars.unwrap_or(default.lint.pointer_chars),
            },
            knowledge: raw.knowledge.map_or(default.knowledge, rel),
            index: raw.index.map_or(default.index, rel),
            filter: raw.filter.map(rel),
            include: raw.include.unwrap_or(default.include),
            exclude: raw.exclude.unwrap_or(default.exclude),
            terms: raw.terms.unwrap_or(default.terms),
            hierarchy: raw.hierarchy.unwrap_or(default.hierarchy),
            hierarchy_alpha: share("hierarchy_alpha", raw.hierarchy_alpha)?
                .unwrap_or(default.hierarchy_alpha),
            fallback: crate::search::fallback::Settings {
                enabled: raw.fallback.unwrap_or(default.fallback.enabled),
                min: raw.fallback_min.unwrap_or(default.fallback.min),
            },
            cache: raw.cache.unwrap_or(default.cache),
            body: raw.body.unwrap_or(default.body),
            // Without the body stage the default has no fusion to weigh; a
            // weight the file gives is refused (`search_settings`).
            keyword_coverage: share("keyword_coverage", raw.keyword_coverage)?.unwrap_or(
                if raw.body == Some(false) {
                    0.0
                } else {
                    default.keyword_coverage
                },
            ),
            l3_coverage: share("l3_coverage", raw.l3_coverage)?.unwrap_or(default.l3_coverage),
            collapse: raw.collapse.unwrap_or(default.collapse),
            body_limit: match raw.body_limit {
                Some(value) => value
                    .as_integer()
                    .and_then(|mib| u64::try_from(mib).ok())
                    .and_then(|mib| mib.checked_mul(crate::search::limit::MIB))
                    .ok_or_else(|| {
                        Error::syntax_at(
                            path,
                            text,
                            text.find("body_limit").unwrap_or(0),
                            format!(
                                "body_limit must be a whole number of MiB, 0 or more, not {value}"
                            ),
                        )
                    })?,
                None => default.body_limit,
            },
            build_timeout: match raw.build_timeout {
                Some(0) => {
                    let offset = text.find("build_timeout").unwrap_or(0);
                    return Err(Error::syntax_at(
                        path,
                        text,
                        offset,
                        "build_timeout must be at least 1 (seconds)",
                    ));
                }
                Some(seconds) => std::time::Duration::from_secs(seconds),
                None => default.build_timeout,
            },
            budget: Budget {
                max_chars: raw.max_chars,
                max_tokens: raw.max_tokens,
                max_chars_per_result: raw.max_chars_per_result,
                max_tokens_per_result: raw.max_tokens_per_result,
            },
            hand_over: match (raw.hand_over, raw.passages) {
                (Some(mode), _) => mode,
                (None, Some(true)) => HandOver::Passages,
                (None, Some(false)) => HandOver::Start,
                (None, None) => default.hand_over,
            },
        })
    }
}

/// How `search` shapes each result's content (see `answer::adaptive` and
/// `answer::passages`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum HandOver {
    /// Shaped to each section within the budget: every result's core (short
    /// sections whole, long ones their best blocks) best first, then the
    /// best results widened with what is left.
    Adaptive,
    /// Each result's query-focused passage within the per-result cap
    /// (1,000 characters when none is set).
    Passages,
    /// Each result's text from its start, cut where the budget ends. The
    /// default: `adaptive` is below it in some cells of answer recall on the
    /// held-out splits (docs/accuracy.md), and this is the simpler one.
    #[default]
    Start,
}

impl HandOver {
    /// The name kbidx.toml and the flags use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Adaptive => "adaptive",
            Self::Passages => "passages",
            Self::Start => "start",
        }
    }
}

/// The caps on the section text `search` attaches (see `output::budget`);
/// `None` is no cap.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// Characters over all results (`--max-chars`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
    /// Estimated tokens over all results (`--max-tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
    /// Characters per result (`--max-chars-per-result`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_chars_per_result: Option<usize>,
    /// Estimated tokens per result (`--max-tokens-per-result`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens_per_result: Option<usize>,
}

impl Budget {
    /// Whether any cap is set.
    pub fn is_set(&self) -> bool {
        *self != Self::default()
    }

    /// Each cap of `self`, or else of `defaults` (flags over `kbidx.toml`).
    pub fn or(self, defaults: Self) -> Self {
        Self {
            max_chars: self.max_chars.or(defaults.max_chars),
            max_tokens: self.max_tokens.or(defaults.max_tokens),
            max_chars_per_result: self.max_chars_per_result.or(defaults.max_chars_per_result),
            max_tokens_per_result: self
                .max_tokens_per_result
                .or(defaults.max_tokens_per_result),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` parsed as kbidx.toml: what `get` takes of it, or the error's
    /// message.
    fn parsed<T>(text: &str, get: impl FnOnce(Config) -> T) -> Result<T, String> {
        Config::parse(Path::new("kbidx.toml"), text)
            .map(get)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn parses_keys_relative_to_the_file() {
        let config = Config::parse(
            Path::new("proj/kbidx.toml"),
            "knowledge = \"kb\"\nindex = \"out/i.toon\"\nexclude = [\"drafts/**\"]\n",
        )
        .map_err(|e| e.to_string());
        let config = config
            .as_ref()
            .map(|c| (c.knowledge.clone(), c.index.clone(), c.exclude.clone()));
        assert_eq!(
            config,
            Ok((
                PathBuf::from("proj/kb"),
                PathBuf::from("proj/out/i.toon"),
                vec!["drafts/**".to_owned()]
            ))
        );
    }

    /// What `kbidx mcp` searches with: the file's keys, and a coverage weight
    /// without the body stage refused (it would do nothing).
    #[test]
    fn search_settings_keys() {
        let settings = |text: &str| {
            Config::parse(Path::new("kbidx.toml"), text)
                .and_then(|c| c.search_settings())
                .map(|s| s.body.map(|b| (b.keyword_coverage, b.l3_coverage)))
                .map_err(|e| e.to_string())
        };
        // (keyword_coverage, l3_coverage) of the body stage, or the error.
        type Want = std::result::Result<Option<(f64, f64)>, &'static str>;
        let cases: &[(&str, Want)] = &[
            ("", Ok(Some((0.4, 0.5)))),
            ("keyword_coverage = 0.6\n", Ok(Some((0.6, 0.5)))),
            ("keyword_coverage = 0\n", Ok(Some((0.0, 0.5)))),
            ("l3_coverage = 0\n", Ok(Some((0.4, 0.0)))),
            // The default L3 weight has no fusion to weigh without the body stage.
            ("body = false\nl3_coverage = 0.5\n", Ok(None)),
            ("body = false\n", Ok(None)),
            ("body = false\nkeyword_coverage = 0\n", Ok(None)),
            (
                "body = false\nkeyword_coverage = 0.6\n",
                Err(
                    "keyword_coverage works with the body stage: drop `body = false` from kbidx.toml",
                ),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(settings(text), want.map_err(str::to_owned), "{text:?}");
        }
    }

    #[test]
    fn fallback_keys() {
        let parse = |text: &str| parsed(text, |c| (c.fallback.enabled, c.fallback.min));
        assert_eq!(parse(""), Ok((true, crate::search::fallback::DEFAULT_MIN)));
        assert_eq!(
            parse("fallback = false\nfallback_min = 5\n"),
            Ok((false, 5))
        );
        assert!(parse("fallback = \"yes\"\n").is_err());
    }

    #[test]
    fn collapse_key() {
        let parse = |text: &str| parsed(text, |c| c.collapse);
        assert_eq!(parse(""), Ok(true));
        assert_eq!(parse("collapse = false\n"), Ok(false));
        assert!(parse("collapse = 1\n").is_err());
    }

    #[test]
    fn budget_keys() {
        let parse = |text: &str| parsed(text, |c| c.budget);
        let cases: &[(&str, Result<Budget, String>)] = &[
            ("", Ok(Budget::default())),
            (
                "max_tokens = 8000\nmax_chars_per_result = 2000\n",
                Ok(Budget {
                    max_tokens: Some(8000),
                    max_chars_per_result: Some(2000),
                    ..Budget::default()
                }),
            ),
            (
                "max_chars = 0\nmax_tokens_per_result = 0\n",
                Err("kbidx.toml:2:1: max_tokens_per_result must be at least 1".to_owned()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(&parse(text), want, "{text:?}");
        }
    }

    #[test]
    fn hand_over_and_passages_keys() {
        let parse = |text: &str| parsed(text, |c| c.hand_over);
        let cases: &[(&str, HandOver)] = &[
            ("", HandOver::Start),
            ("passages = true\n", HandOver::Passages),
            ("passages = false\n", HandOver::Start),
            ("hand_over = \"start\"\n", HandOver::Start),
            (
                "hand_over = \"adaptive\"\npassages = true\n",
                HandOver::Adaptive,
            ),
        ];
        for &(text, want) in cases {
            assert_eq!(parse(text), Ok(want), "{text:?}");
        }
        assert!(parse("passages = 1\n").is_err());
        assert!(parse("hand_over = \"whole\"\n").is_err());
    }

    #[test]
    fn lint_keys() {
        /// `section_tokens`, `pointer_chars` and `hint_min_rows`, or the error.
        type Parsed = Result<(usize, usize, usize), String>;
        let parse = |text: &str| -> Parsed {
            parsed(text, |c| {
                (
                    c.lint.section_tokens,
                    c.lint.pointer_chars,
                    c.lint.hint_min_rows,
                )
            })
        };
        let cases: &[(&str, Parsed)] = &[
            ("", Ok((4000, 200, 5))),
            (
                "[lint]\nsection_tokens = 8000\npointer_chars = 0\n",
                Ok((8000, 0, 5)),
            ),
            (
                "[lint]\nsection_tokens = 0\n",
                Err("kbidx.toml:2:1: section_tokens must be at least 1".to_owned()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(&parse(text), want, "{text:?}");
        }
    }

    /// `body_limit`: whole MiB (0 allowed: no body index is ever built),
    /// stored in bytes; anything else is an error naming the key.
    #[test]
    fn body_limit_key() {
        let parse = |text: &str| parsed(text, |c| c.body_limit);
        let mib = crate::search::limit::MIB;
        let cases: &[(&str, Result<u64, &str>)] = &[
            ("", Ok(64 * mib)),
            ("body_limit = 0\n", Ok(0)),
            ("body_limit = 2048\n", Ok(2048 * mib)),
            (
                "terms = 3\nbody_limit = -1\n",
                Err("kbidx.toml:2:1: body_limit must be a whole number of MiB, 0 or more, not -1"),
            ),
            (
                "body_limit = 99999999999999\n",
                Err(
                    "kbidx.toml:1:1: body_limit must be a whole number of MiB, 0 or more, not 99999999999999",
                ),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text), want.map_err(str::to_owned), "{text:?}");
        }
        for (text, shown) in [
            ("body_limit = \"64MiB\"\n", "\"64MiB\""),
            ("body_limit = 1.5\n", "1.5"),
        ] {
            let want = format!(
                "kbidx.toml:1:1: body_limit must be a whole number of MiB, 0 or more, not {shown}"
            );
            assert_eq!(parse(text), Err(want), "{text:?}");
        }
    }

    /// `[[weight]]` entries: parsed in order, none by default; a bad glob or
    /// factor is an error naming the file, the entry's line and the entry.
    #[test]
    fn weight_entries() {
        let parse = |text: &str| {
            parsed(text, |c| {
                c.weights
                    .entries()
                    .iter()
                    .map(|w| (w.glob.clone(), w.factor))
                    .collect::<Vec<_>>()
            })
        };
        let entry = |glob: &str, factor: f64| (glob.to_owned(), factor);
        type Parsed = Result<Vec<(String, f64)>, String>;
        let cases: &[(&str, Parsed)] = &[
            ("", Ok(Vec::new())),
            (
                "[[weight]]\nglob = \"javadoc/**\"\nfactor = 0.5\n\n[[weight]]\nglob = \"guide/*\"\nfactor = 2\n",
                Ok(vec![entry("javadoc/**", 0.5), entry("guide/*", 2.0)]),
            ),
            (
                "terms = 3\n[[weight]]\nglob = \"a/**\"\nfactor = 0.5\n[[weight]]\nglob = \"b/**\"\nfactor = 0\n",
                Err("kbidx.toml:5:1: [[weight]] entry 2 (glob = \"b/**\"): factor must be a finite number above 0, not 0".to_owned()),
            ),
            (
                "[[weight]]\nglob = \"a/**\"\nfactor = -0.5\n",
                Err("kbidx.toml:1:1: [[weight]] entry 1 (glob = \"a/**\"): factor must be a finite number above 0, not -0.5".to_owned()),
            ),
            (
                "[[weight]]\nglob = \"a/**\"\nfactor = nan\n",
                Err("kbidx.toml:1:1: [[weight]] entry 1 (glob = \"a/**\"): factor must be a finite number above 0, not NaN".to_owned()),
            ),
            (
                "[[weight]]\nglob = \"a/[\"\nfactor = 0.5\n",
                Err("kbidx.toml:1:1: [[weight]] entry 1 (glob = \"a/[\"): invalid glob \"a/[\": unclosed character class; missing ']'".to_owned()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(&parse(text), want, "{text:?}");
        }
        // A missing or unknown key is the TOML parser's error, with its position.
        for text in [
            "[[weight]]\nglob = \"a/**\"\n",
            "[[weight]]\nglob = \"a/**\"\nfactor = 0.5\nfactr = 1\n",
            "[[weight]]\nglob = \"a/**\"\nfactor = \"half\"\n",
        ] {
            let message = parse(text).err().unwrap_or_default();
            assert!(message.starts_with("kbidx.toml:"), "{text:?}: {message}");
        }
    }

    #[test]
    fn unknown_keys_are_errors_with_a_position() {
        let err = Config::parse(
            Path::new("kbidx.toml"),
            "knowledge = \"kb\"\nindx = \"x\"\n",
        )
        .map(|_| ())
        .map_err(|e| e.to_string());
        let message = err.err().unwrap_or_default();
        assert!(
            message.starts_with("kbidx.toml:2:1: unknown field `indx`"),
            "{message}"
        );
    }
}
