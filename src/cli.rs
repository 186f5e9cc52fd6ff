//! The command line: clap definitions, turned into typed options, then run.
//!
//! [`Cli`] is parsed by clap; [`run`] resolves it against `kbidx.toml` into
//! the library's option types before doing any work, and returns the exit
//! code (0 success/results, 1 stale index or no results, 2 is an `Err`).

use std::borrow::Cow;
use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::answer::Request;
use crate::build::{self, BuildOptions, Freshness, Written};
use crate::config::Config;
use crate::error::{Error, Result, display};
use crate::eval::{self, Method, Mode};
use crate::index::file::IndexFile;
use crate::index::model::Index;
use crate::index::toon;
use crate::knowledge::content::Library;
use crate::output::Format;
use crate::output::budget::Budget;
use crate::output::build::{BuildReport, Status};
use crate::output::read::{FileListing, SectionDoc};
use crate::query::LevelledKeywords;
use crate::search::cache::Cache;
use crate::search::fallback;
use crate::search::{self, Hierarchy, Query, Scoring, Searcher};

/// Section index and L1/L2/L3 keyword search for JSON knowledge bases.
///
/// Exit codes: 0 success / results, 1 no results or stale index (`build --check`), 2 error.
#[derive(Debug, Parser)]
#[command(
    name = "kbidx",
    version,
    about,
    long_about = None,
    max_term_width = 100,
    after_help = "Exit codes: 0 success / results, 1 no results or stale index (build --check), 2 error."
)]
pub struct Cli {
    /// Configuration file (default: ./kbidx.toml if present).
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Set a knowledge repository up: kbidx.toml, pre-commit hook, SKILL.md, MCP client files.
    Init(crate::init::InitArgs),
    /// Build index/index.toon from the knowledge directory (or check it is up to date).
    Build(BuildArgs),
    /// Rank index sections for levelled keywords or a plain question.
    Search(SearchArgs),
    /// Print sections' content: `kbidx read path/to/file.json#section [MORE…]`.
    Read(ReadArgs),
    /// Measure ranking accuracy on a JSON Lines query set (Recall@k, MRR, nDCG@10).
    Eval(EvalArgs),
    /// Check the knowledge for maintainers: broken links, index/section mismatches, weak hints.
    Lint(LintArgs),
    /// Serve the `search` and `read` tools over stdio (Model Context Protocol, JSON-RPC 2.0).
    Mcp(McpArgs),
    /// The index in PostgreSQL full-text search (`kbidx pg push`; search with `search --pg`).
    #[command(subcommand)]
    Pg(PgCommand),
    /// Print a shell completion script: `kbidx completions bash > /etc/bash_completion.d/kbidx`.
    Completions(CompletionsArgs),
    /// Print the manual page (`kbidx man > kbidx.1`), or the flag reference as markdown.
    Man(ManArgs),
}

/// `kbidx completions` arguments.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// `kbidx man` flags.
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// `roff` (the man page) or `markdown` (docs/cli.md).
    #[arg(long, value_enum, default_value_t = ManFormat::Roff)]
    pub(crate) format: ManFormat,
}

/// What `kbidx man` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ManFormat {
    /// The man page, kbidx(1).
    Roff,
    /// The flag reference, docs/cli.md.
    Markdown,
}

/// `kbidx pg` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum PgCommand {
    /// Load or update the knowledge base's sections in PostgreSQL (incremental, one transaction).
    Push(PgPushArgs),
}

/// `kbidx pg push` flags.
#[derive(Debug, Args)]
pub(crate) struct PgPushArgs {
    /// Connection URL, postgresql://user:password@host:port/database (default: KBIDX_PG_URL).
    #[arg(long, value_name = "URL")]
    pub(crate) url: Option<String>,
    /// Schema holding kbidx's tables (created on first push).
    #[arg(long, value_name = "S", default_value = crate::pg::DEFAULT_SCHEMA)]
    pub(crate) schema: String,
    /// Knowledge directory (default from kbidx.toml, else `knowledge`).
    #[arg(long, value_name = "DIR")]
    pub(crate) knowledge: Option<PathBuf>,
    /// jq program replacing the built-in extraction (src/extract.jq).
    #[arg(long, value_name = "FILE")]
    pub(crate) filter: Option<PathBuf>,
    /// Derived terms per section (default from kbidx.toml, else 12).
    #[arg(long, value_name = "N")]
    pub(crate) terms: Option<usize>,
    /// Output format (json: {"files", "changed", "removed", "sections"}).
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub(crate) format: DocFormat,
}

/// Where `search --pg` and `eval --pg` rank.
#[derive(Debug, Default, Args)]
pub(crate) struct PgArgs {
    /// Rank in PostgreSQL instead of the index file: connection URL (default: KBIDX_PG_URL
    /// when set and no --index is given).
    #[arg(long, value_name = "URL")]
    pub(crate) pg: Option<String>,
    /// Schema `kbidx pg push` wrote (with --pg).
    #[arg(long, value_name = "S", default_value = crate::pg::DEFAULT_SCHEMA)]
    pub(crate) pg_schema: String,
}

impl PgArgs {
    /// The URL to rank at, when PostgreSQL is the backend: `--pg`, else
    /// `KBIDX_PG_URL` unless an index file was named.
    fn url(&self, index: Option<&Path>) -> Option<String> {
        match (&self.pg, index) {
            (Some(url), _) => Some(url.clone()),
            (None, None) => crate::pg::url_from(None),
            (None, Some(_)) => None,
        }
    }
}

/// `kbidx lint` flags (the knowledge and the extraction as for `build`).
#[derive(Debug, Args)]
pub(crate) struct LintArgs {
    /// Knowledge directory (default from kbidx.toml, else `knowledge`).
    #[arg(long, value_name = "DIR")]
    pub(crate) knowledge: Option<PathBuf>,
    /// jq program replacing the built-in extraction (src/extract.jq).
    #[arg(long, value_name = "FILE")]
    pub(crate) filter: Option<PathBuf>,
    /// Run only these rules (comma-separated, repeatable; default: all).
    #[arg(long, value_name = "RULE,..", value_delimiter = ',')]
    pub(crate) rule: Vec<String>,
    /// Do not run these rules (comma-separated, repeatable).
    #[arg(long, value_name = "RULE,..", value_delimiter = ',')]
    pub(crate) skip: Vec<String>,
    /// Output format: text (one line per finding, then a summary) or json.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub(crate) format: DocFormat,
}

/// `kbidx mcp` flags: where the index and the knowledge are, as for `search`
/// (everything else comes from `kbidx.toml`; each tool call gives its own query options).
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Index file (default from kbidx.toml, else `index/index.toon`).
    #[arg(long, value_name = "FILE")]
    pub(crate) index: Option<PathBuf>,
    /// Knowledge directory, for content, `read` and the body stage (default from kbidx.toml, else `knowledge`).
    #[arg(long, value_name = "DIR")]
    pub(crate) knowledge: Option<PathBuf>,
    /// Do not use or write the search cache (the index's word and body index, see docs/ranking.md).
    #[arg(long)]
    pub(crate) no_cache: bool,
}

/// `kbidx eval` flags.
#[derive(Debug, Args)]
pub(crate) struct EvalArgs {
    /// Query set, JSON Lines: {id, query, keywords?, terms?, expected: [{file, section, grade}]}.
    #[arg(long = "eval", value_name = "FILE.jsonl")]
    pub(crate) eval: PathBuf,
    /// Knowledge directory to build the index from in memory (default from kbidx.toml).
    #[arg(long, value_name = "DIR")]
    pub(crate) knowledge: Option<PathBuf>,
    /// Use this index file instead of building one from --knowledge.
    #[arg(long, value_name = "FILE")]
    pub(crate) index: Option<PathBuf>,
    /// Query modes to run (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Mode::Keywords, Mode::Terms, Mode::Question])]
    pub(crate) mode: Vec<Mode>,
    /// Scoring methods to compare (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Method::Default, Method::Seed])]
    pub(crate) scoring: Vec<Method>,
    /// Results per query (ranks beyond this count as not found).
    #[arg(long, default_value_t = 30, value_name = "N")]
    pub(crate) top: usize,
    /// Character budget of R@chars: the share of must sections whose content starts within the
    /// first N characters `search --with-content --max-chars N` hands over.
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub(crate) chars: usize,
    /// R@chars as `search --max-chars-per-result N` hands over: each result counts at most N
    /// characters of the budget.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(crate) chars_per_result: Option<usize>,
    /// R@chars as `search --passages` hands over: each result spends the characters of its
    /// query-focused passage (within --chars-per-result, else 1000); a must section counts when
    /// its passage starts within the budget (answer recall tells whether it holds the answer).
    /// Answer recall then measures `--hand-over passages`.
    #[arg(long)]
    pub(crate) passages: bool,
    /// The hand-over answer recall measures (`search --hand-over`; default from kbidx.toml
    /// `hand_over`, else start; `--passages` means passages).
    #[arg(long, value_name = "MODE")]
    pub(crate) hand_over: Option<crate::config::HandOver>,
    /// Append up to N linked neighbours after each query's results, as `search --expand N`.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) expand: usize,
    /// Score a second search per case instead of the first: the first search's keywords plus its
    /// top N `suggest` words, each at its level (automatic, no LLM; JSON lists each case's
    /// suggestions as `suggested`). Default and seed scoring only.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) second_search: usize,
    /// The search document whose whole size answer recall's budgets bound: the lean text (what
    /// `kbidx search` prints by default), JSON or TOON.
    #[arg(long, value_enum, value_name = "FORM", default_value_t = eval::DocumentFormat::Text)]
    pub(crate) document_format: eval::DocumentFormat,
    /// Output format: text (table, then per-query ranks) or json.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub(crate) format: DocFormat,
    /// Text format: print only the summary table.
    #[arg(long)]
    pub(crate) summary: bool,
    /// Derived terms per section when building in memory (default from kbidx.toml, else 12).
    #[arg(long, value_name = "N")]
    pub(crate) terms: Option<usize>,
    /// Two-pass search flags.
    #[command(flatten)]
    pub(crate) hierarchy: HierarchyArgs,
    /// Full-text fallback flags.
    #[command(flatten)]
    pub(crate) fallback: FallbackArgs,
    /// Body-stage flags.
    #[command(flatten)]
    pub(crate) body: BodyArgs,
    /// Result-diversity flags.
    #[command(flatten)]
    pub(crate) diversity: DiversityArgs,
    /// PostgreSQL backend flags.
    #[command(flatten)]
    pub(crate) pg: PgArgs,
}

/// Two-pass file → section search flags, shared by `search` and `eval`.
#[derive(Debug, Default, Args)]
pub(crate) struct HierarchyArgs {
    /// Two-pass file → section search on (default from kbidx.toml `hierarchy`).
    #[arg(long, overrides_with = "no_hierarchy")]
    pub(crate) hierarchy: bool,
    /// Two-pass file → section search off: rank sections on their own.
    #[arg(long, overrides_with = "hierarchy")]
    pub(crate) no_hierarchy: bool,
    /// Weight of the section score in the two-pass blend, 0–1 (default from kbidx.toml, else 0.7).
    #[arg(long, value_name = "ALPHA")]
    pub(crate) hierarchy_alpha: Option<f64>,
}

impl HierarchyArgs {
    /// The two-pass settings: these flags over `kbidx.toml` (`None`: off).
    pub(crate) fn resolve(&self, config: &Config) -> Result<Option<Hierarchy>> {
        let alpha = self.hierarchy_alpha.unwrap_or(config.hierarchy_alpha);
        if !(0.0..=1.0).contains(&alpha) {
            return Err(Error::Usage(format!(
                "--hierarchy-alpha must be between 0 and 1, not {alpha}"
            )));
        }
        let enabled = if self.hierarchy || self.no_hierarchy {
            self.hierarchy
        } else {
            config.hierarchy
        };
        Ok(enabled.then_some(Hierarchy {
            alpha,
            ..Hierarchy::default()
        }))
    }
}

/// Result-diversity flags, shared by `search` and `eval`.
#[derive(Debug, Default, Args)]
pub(crate) struct DiversityArgs {
    /// Never return sections of files matching GLOB (repeatable; paths relative to the knowledge
    /// directory, globs as kbidx.toml `exclude`), e.g. `javadoc/**`; the list is refilled to --top.
    #[arg(long, value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,
    /// `file`: show each file's best section only (see --per-file) and fold its other sections
    /// into that result's `more`; the list is refilled to --top.
    #[arg(long, value_enum, value_name = "BY")]
    pub(crate) group_by: Option<GroupBy>,
    /// With --group-by file: sections shown per file (default 1).
    #[arg(long, value_name = "N", requires = "group_by", value_parser = at_least_one)]
    pub(crate) per_file: Option<usize>,
    /// Fold a section whose text is nearly identical to a result above it (character 5-gram
    /// Jaccard ≥ 0.9, e.g. two release notes) into that result's `also`, its differing
    /// paragraphs handed over with that result (default from kbidx.toml `collapse`, else on).
    #[arg(long, overrides_with = "no_collapse")]
    pub(crate) collapse: bool,
    /// Twins stay results of their own (see --collapse).
    #[arg(long, overrides_with = "collapse")]
    pub(crate) no_collapse: bool,
}

/// What `--group-by` groups results by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GroupBy {
    /// The knowledge file.
    File,
}

impl DiversityArgs {
    /// The checked globs, grouping and folding, these flags over `kbidx.toml`
    /// (a bad glob is a usage error, before any work).
    pub(crate) fn resolve(&self, config: &Config) -> Result<search::Diversity> {
        let per_file = self
            .group_by
            .map(|GroupBy::File| self.per_file.unwrap_or(1));
        let collapse = if self.collapse || self.no_collapse {
            self.collapse
        } else {
            config.collapse
        };
        search::Diversity::new(&self.exclude, per_file, collapse)
    }
}

/// Body-stage flags, shared by `search` and `eval`.
#[derive(Debug, Default, Args)]
pub(crate) struct BodyArgs {
    /// Rank on titles, hints and terms only: no body stage (then the full-text fallback runs
    /// when the index pass is unsure, as before).
    #[arg(long)]
    pub(crate) no_body: bool,
    /// Weight of concept coverage in keyword searches, 0–1: each result's score times
    /// 1 − W + W × the share of the query's concepts it matches (default from kbidx.toml
    /// `keyword_coverage`, else 0.4; 0: off; docs/ranking.md)
    #[arg(long, value_name = "W")]
    pub(crate) keyword_coverage: Option<f64>,
    /// Weight of L3 coverage in keyword searches, 0–1: each result's score times
    /// 1 − W + W × the share of the query's L3 concepts it matches (default from
    /// kbidx.toml `l3_coverage`, else 0.5; 0: off; docs/ranking.md)
    #[arg(long = "l3-coverage", value_name = "W")]
    pub(crate) l3_coverage: Option<f64>,
}

impl BodyArgs {
    /// The body stage's settings: these flags over `kbidx.toml` (`None`: off).
    pub(crate) fn resolve(&self, config: &Config) -> Result<Option<search::Body>> {
        let coverage = self.keyword_coverage.unwrap_or(config.keyword_coverage);
        let l3 = self.l3_coverage.unwrap_or(config.l3_coverage);
        for (flag, weight) in [("--keyword-coverage", coverage), ("--l3-coverage", l3)] {
            if !(0.0..=1.0).contains(&weight) {
                return Err(Error::Usage(format!(
                    "{flag} must be between 0 and 1, not {weight}"
                )));
            }
        }
        let on = config.body && !self.no_body;
        if !config.body && config.keyword_coverage > 0.0 {
            return Err(Error::Usage(
                "keyword_coverage works with the body stage: drop `body = false` from kbidx.toml"
                    .into(),
            ));
        }
        // Coverage weighs the fusion of the two stages: without the body
        // stage a weight asked for (by flag, or by kbidx.toml beside `body =
        // false`, above) would be ignored, so it is refused instead. The
        // defaults simply have no fusion to weigh.
        for (flag, weight) in [
            ("--keyword-coverage", self.keyword_coverage),
            ("--l3-coverage", self.l3_coverage),
        ] {
            if !on && weight.is_some_and(|w| w > 0.0) {
                return Err(Error::Usage(format!(
                    "{flag} works with the body stage: drop --no-body (or `body = false` in kbidx.toml)"
                )));
            }
        }
        Ok(on.then(|| search::Body {
            keyword_coverage: coverage,
            l3_coverage: l3,
            ..search::Body::default()
        }))
    }
}

/// Full-text fallback flags, shared by `search` and `eval`.
#[derive(Debug, Default, Args)]
pub(crate) struct FallbackArgs {
    /// Never score section text when the index pass is unsure (default scoring only).
    #[arg(long)]
    pub(crate) no_fallback: bool,
    /// Score section text when fewer than N index hits are confident and fewer than --top were
    /// found (default from kbidx.toml, else 3).
    #[arg(long, value_name = "N")]
    pub(crate) fallback_min: Option<usize>,
}

impl FallbackArgs {
    /// The fallback settings: these flags over `kbidx.toml`.
    pub(crate) fn resolve(&self, config: &Config) -> fallback::Settings {
        fallback::Settings {
            enabled: config.fallback.enabled && !self.no_fallback,
            min: self.fallback_min.unwrap_or(config.fallback.min),
        }
    }
}

/// `kbidx eval --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum DocFormat {
    /// For people (eval: the table, then per-query ranks).
    Text,
    /// The JSON document described in docs/output.md.
    Json,
}

/// `kbidx search` flags.
#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// A plain question (Japanese or English; several words are one question); keywords are
    /// extracted from it. Not together with --l1/--l2/--l3 or --keywords.
    #[arg(value_name = "QUERY")]
    pub(crate) query: Vec<String>,
    /// Domain keywords (comma-separated, repeatable); 0 points under `--scoring seed`.
    #[arg(long, value_name = "KW,..", value_delimiter = ',')]
    pub(crate) l1: Vec<String>,
    /// Component keywords (comma-separated, repeatable; `a|b` joins synonyms of one concept).
    #[arg(long, value_name = "KW,..", value_delimiter = ',')]
    pub(crate) l2: Vec<String>,
    /// Function keywords (comma-separated, repeatable; `a|b` joins synonyms of one concept).
    #[arg(long, value_name = "KW,..", value_delimiter = ',')]
    pub(crate) l3: Vec<String>,
    /// Levelled keywords as JSON {"l1": [..], "l2": [..], "l3": [..]} from FILE, or `-` for stdin.
    #[arg(long, value_name = "FILE")]
    pub(crate) keywords: Option<PathBuf>,
    /// Index file (default from kbidx.toml, else `index/index.toon`).
    #[arg(long, value_name = "FILE")]
    pub(crate) index: Option<PathBuf>,
    /// Knowledge directory, for `--with-content` and the full-text fallback (default from kbidx.toml, else `knowledge`).
    #[arg(long, value_name = "DIR")]
    pub(crate) knowledge: Option<PathBuf>,
    /// Scoring method.
    #[arg(long, value_enum, default_value_t = ScoringArg::Default)]
    pub(crate) scoring: ScoringArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    /// How many results at most.
    #[arg(long, default_value_t = 30, value_name = "N")]
    pub(crate) top: usize,
    /// Drop results scoring below this (default: seed 2, default scoring > 0).
    #[arg(long, value_name = "SCORE")]
    pub(crate) min_score: Option<f64>,
    /// The whole document: per result each matched keyword with its level, field and points,
    /// its stage and raw score; the confidence and the suggestions (default: the lean document,
    /// per result reference, title, score and content).
    #[arg(long)]
    pub(crate) explain: bool,
    /// Add words for a second search (shared by the top results, rare in the index) to the lean
    /// document (--explain has them).
    #[arg(long)]
    pub(crate) suggest: bool,
    /// Attach each result's section text from the knowledge files.
    #[arg(long)]
    pub(crate) with_content: bool,
    /// Budget of characters of the whole printed document, envelope and content together
    /// (implies --with-content).
    #[arg(long, value_name = "N")]
    pub(crate) max_chars: Option<usize>,
    /// Budget of estimated tokens of the whole printed document, envelope and content together
    /// (implies --with-content; with --max-chars the tighter wins).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(crate) max_tokens: Option<usize>,
    /// Characters of content per result at most (implies --with-content).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(crate) max_chars_per_result: Option<usize>,
    /// Estimated tokens of content per result at most (implies --with-content).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(crate) max_tokens_per_result: Option<usize>,
    /// How content is shaped: `adaptive` (short sections whole, long ones their best blocks,
    /// the best results widened with what the budget leaves), `passages` (each result's
    /// query-focused passage within the per-result cap, default 1000 characters) or `start`
    /// (each section from its start, cut where the budget ends); default from kbidx.toml
    /// `hand_over`, else start.
    #[arg(long, value_name = "MODE", overrides_with_all = ["passages", "no_passages"])]
    pub(crate) hand_over: Option<crate::config::HandOver>,
    /// `--hand-over passages`; implies --with-content.
    #[arg(long, overrides_with_all = ["no_passages", "hand_over"])]
    pub(crate) passages: bool,
    /// `--hand-over start`.
    #[arg(long, overrides_with_all = ["passages", "hand_over"])]
    pub(crate) no_passages: bool,
    /// Two-pass search flags.
    #[command(flatten)]
    pub(crate) hierarchy: HierarchyArgs,
    /// Full-text fallback flags.
    #[command(flatten)]
    pub(crate) fallback: FallbackArgs,
    /// Body-stage flags.
    #[command(flatten)]
    pub(crate) body: BodyArgs,
    /// Result-diversity flags.
    #[command(flatten)]
    pub(crate) diversity: DiversityArgs,
    /// Do not use or write the search cache (the index's word index, see docs/ranking.md).
    #[arg(long)]
    pub(crate) no_cache: bool,
    /// Append up to N sections linked with the results (stage `linked`, with `via`), within
    /// the same content budget (links from links.toon next to the index; default 0).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) expand: usize,
    /// PostgreSQL backend flags.
    #[command(flatten)]
    pub(crate) pg: PgArgs,
}

/// Scoring method names on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ScoringArg {
    /// kbidx's scoring: NFKC, word boundaries, IDF, field weights, compound parts.
    Default,
    /// The design's seed rule: +2 per distinct L2/L3 keyword found in reference + hints.
    Seed,
}

/// `kbidx read` arguments.
#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// `path/to/file.json#section-id`, as in the index; `path/to/file.json` lists its sections.
    /// The part after `#` may also be a heading's text or slug; a reference in double quotes (as
    /// text output quotes one that holds a space or a comma) is taken as written inside them.
    /// Several references are read in turn into one document, within one budget; files among
    /// them are listed first.
    #[arg(value_name = "REFERENCE", value_parser = unquote_reference, required = true)]
    pub(crate) references: Vec<String>,
    /// Budget of estimated tokens of the whole printed document; sections are cut in order
    /// (a cut one ends with `…`; later ones are left out and named).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(crate) max_tokens: Option<usize>,
    /// Budget of characters of the whole printed document (with --max-tokens the tighter wins).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(crate) max_chars: Option<usize>,
    /// Knowledge directory (default from kbidx.toml, else `knowledge`).
    #[arg(long, value_name = "DIR")]
    pub(crate) knowledge: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub(crate) format: DocFormat,
    /// Also list the section's outgoing links and backlinks (from links.toon next to the index).
    #[arg(long)]
    pub(crate) links: bool,
    /// Index file, for --links (default from kbidx.toml, else `index/index.toon`).
    #[arg(long, value_name = "FILE")]
    pub(crate) index: Option<PathBuf>,
}

/// `kbidx build` flags.
#[derive(Debug, Args)]
pub(crate) struct BuildArgs {
    /// Knowledge directory (default from kbidx.toml, else `knowledge`).
    #[arg(long, value_name = "DIR")]
    pub(crate) knowledge: Option<PathBuf>,
    /// Index file to write (default from kbidx.toml, else `index/index.toon`).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// jq program replacing the built-in extraction (src/extract.jq).
    #[arg(long, value_name = "FILE")]
    pub(crate) filter: Option<PathBuf>,
    /// Treat warnings (e.g. a section with no index entry) as errors.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Derived terms per section (0: no `terms` column; default from kbidx.toml, else 12).
    #[arg(long, value_name = "N")]
    pub(crate) terms: Option<usize>,
    /// Write nothing; exit 0 if the index is up to date, 1 with a diff if stale.
    #[arg(long)]
    pub(crate) check: bool,
    /// Do not write the search cache entries of the index (by default the build writes them, so the first search does not build them).
    #[arg(long)]
    pub(crate) no_cache: bool,
    /// Print nothing but errors and warnings.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Stop the extraction after this many seconds (default from kbidx.toml `build_timeout`, else 60).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) timeout: Option<u64>,
    /// Output format (json: one document on stdout, warnings in it).
    #[arg(long, value_enum, default_value_t = DocFormat::Text, conflicts_with = "quiet")]
    pub(crate) format: DocFormat,
}

/// The command line as clap should read it: a keyword list that starts with
/// one `-` right after `--l1`, `--l2` or `--l3` (`--l3 -requestPath`, as
/// identifiers are written in code) joined to its flag (`--l3=-requestPath`),
/// where clap would take it for a flag. A value that starts with `--` stays a
/// flag: `--l2 --format json` is a forgotten keyword, not the keyword
/// `--format`.
pub fn args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut out: Vec<std::ffi::OsString> = Vec::new();
    for arg in args {
        let keyword = arg
            .to_str()
            .is_some_and(|a| a.starts_with('-') && !a.starts_with("--") && a.len() > 1);
        match out.last_mut() {
            Some(last) if keyword && matches!(last.to_str(), Some("--l1" | "--l2" | "--l3")) => {
                last.push("=");
                last.push(&arg);
            }
            _ => out.push(arg),
        }
    }
    out
}

/// Runs a parsed command line; returns the exit code for success paths (0 or 1).
pub fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    let config = Config::load(cli.config.as_deref())?;
    match cli.command {
        Command::Init(args) => crate::init::run(args, out, err),
        Command::Build(args) => run_build(&config, args, out, err),
        Command::Search(args) if args.pg.url(args.index.as_deref()).is_some() => {
            let url = args.pg.url(args.index.as_deref()).unwrap_or_default();
            let schema = args.pg.pg_schema.clone();
            let options = Request::resolve(&config, args)?;
            options.refuse_with_pg()?;
            let searcher =
                Searcher::sections(Box::new(crate::pg::PgSearcher::open(&url, &schema)?))
                    .with_weights(config.weights.clone());
            run_search(&options, &searcher, out, err)
        }
        Command::Search(args) => {
            let started = std::time::Instant::now();
            // Three jobs that take about a millisecond each and need none of
            // the others run at once: the index is opened, checked and
            // prepared (or its cache entry loaded) on one thread; the body
            // index's cache entry is mapped and checked (its checksum, and one
            // status read per knowledge file: the largest fixed cost of a
            // search, needing only the index's path) on another; the query is
            // resolved (keywords file, question tokenisation) here. Query
            // errors are still reported first.
            let index = args.index.clone().unwrap_or_else(|| config.index.clone());
            let cache = (config.cache && !args.no_cache)
                .then(Cache::from_env)
                .flatten();
            let knowledge = Request::knowledge(&config, &args);
            let body_on =
                args.body.resolve(&config)?.is_some() && args.scoring == ScoringArg::Default;
            let (file, open_error) = match IndexFile::open(&index) {
                Ok(file) => (Some(file), None),
                Err(e) => (None, Some(e)),
            };
            std::thread::scope(|scope| {
                let prepare = file.as_ref().map(|file| {
                    scope.spawn(|| {
                        crate::timings::time("load index", || {
                            let text = Cow::Borrowed(crate::index::file::index_text(
                                &index,
                                file.bytes(),
                            )?);
                            crate::search::cache::prepare_index(&index, text, cache.as_ref())
                        })
                    })
                });
                let prefetch = cache.as_ref().filter(|_| body_on).map(|cache| {
                    scope.spawn(|| crate::search::cache::prefetch_body(cache, &index, &knowledge))
                });
                let options = crate::timings::time("query", || Request::resolve(&config, args))?;
                if let Some(e) = open_error {
                    return Err(e);
                }
                // Checking an entry does not panic on any input; if it did, re-raise it here.
                let body = prefetch
                    .and_then(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
                let matcher = match prepare.map(std::thread::ScopedJoinHandle::join) {
                    Some(Ok(matcher)) => matcher?,
                    // Preparing does not panic on any input; if it did, re-raise it here.
                    Some(Err(panic)) => std::panic::resume_unwind(panic),
                    None => return Err(Error::data(&index, "cannot read index")),
                };
                let searcher = Searcher::new(
                    matcher,
                    search::Settings {
                        hierarchy: options.hierarchy,
                        fallback: options.fallback,
                        body: options.body,
                        weights: config.weights.clone(),
                        body_limit: config.body_limit,
                    },
                    Some(options.knowledge.clone()),
                )
                .with_cache(cache.clone())
                .with_body_index(body);
                let code = run_search(&options, &searcher, out, err)?;
                if let Some(line) = crate::timings::line(started) {
                    writeln!(err, "{line}").map_err(stdio)?;
                }
                Ok(code)
            })
        }
        Command::Eval(args) => run_eval(&config, args, out, err),
        Command::Mcp(args) => {
            let input = std::io::stdin().lock();
            let options = crate::mcp::Options {
                index: args.index,
                knowledge: args.knowledge,
                no_cache: args.no_cache,
            };
            crate::mcp::serve(&config, options, input, out, err)
        }
        Command::Read(args) => run_read(&config, args, out),
        Command::Lint(args) => run_lint(&config, args, out),
        Command::Pg(PgCommand::Push(args)) => run_pg_push(&config, args, out),
        Command::Completions(args) => {
            out.write_all(&crate::manual::completions(args.shell))
                .map_err(stdio)?;
            Ok(0)
        }
        Command::Man(args) => {
            let text = match args.format {
                ManFormat::Roff => crate::manual::man().map_err(stdio)?,
                ManFormat::Markdown => crate::manual::markdown().into_bytes(),
            };
            out.write_all(&text).map_err(stdio)?;
            Ok(0)
        }
    }
}

fn run_pg_push(config: &Config, args: PgPushArgs, out: &mut dyn Write) -> Result<u8> {
    let url = crate::pg::url_from(args.url)
        .ok_or_else(|| Error::Usage("no database: give --url URL or set KBIDX_PG_URL".into()))?;
    let options = BuildOptions {
        knowledge: args.knowledge.unwrap_or_else(|| config.knowledge.clone()),
        filter: args.filter.or_else(|| config.filter.clone()),
        include: config.include.clone(),
        exclude: config.exclude.clone(),
        strict: false,
        terms: args.terms.unwrap_or(config.terms),
    };
    let summary = crate::pg::push(&url, &args.schema, &options)?;
    match args.format {
        DocFormat::Json => write_json(out, &summary)?,
        DocFormat::Text => writeln!(
            out,
            "pushed {} files ({} changed, {} removed), {} sections",
            summary.files, summary.changed, summary.removed, summary.sections
        )
        .map_err(stdio)?,
    }
    Ok(0)
}

impl Request {
    /// The knowledge directory a search reads: `--knowledge`, else `kbidx.toml`'s.
    fn knowledge(config: &Config, args: &SearchArgs) -> PathBuf {
        args.knowledge
            .clone()
            .unwrap_or_else(|| config.knowledge.clone())
    }

    /// Resolves flags, `kbidx.toml` and the keywords file into typed options.
    pub(crate) fn resolve(config: &Config, args: SearchArgs) -> Result<Self> {
        let knowledge = Self::knowledge(config, &args);
        let mut levels = LevelledKeywords {
            l1: args.l1,
            l2: args.l2,
            l3: args.l3,
        };
        // Keywords and a plain question at once is nearly always a list with
        // an unquoted space (`--l3 double submission,…`): the shell made the
        // rest a question, which would silently switch the search's mode.
        let question = args.query.join(" ");
        if let Some(words) = Some(question.as_str()).filter(|q| !q.trim().is_empty())
            && (!levels.l1.is_empty()
                || !levels.l2.is_empty()
                || !levels.l3.is_empty()
                || args.keywords.is_some())
        {
            return Err(Error::Usage(format!(
                "both --l1/--l2/--l3 (or --keywords) and a plain question {words:?}: \
                 quote a keyword list that holds a space (--l3 'double submission,二重サブミット'), \
                 or search the question on its own"
            )));
        }
        if let Some(path) = &args.keywords {
            let (name, text) = if path.as_os_str() == "-" {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| Error::io("<stdin>", "cannot read", e))?;
                ("<stdin>".to_owned(), text)
            } else {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| Error::io(path, "cannot read keywords", e))?;
                (display(path), text)
            };
            let file = Query::parse_levels(&name, &text)?;
            levels.l1.extend(file.l1);
            levels.l2.extend(file.l2);
            levels.l3.extend(file.l3);
        }
        let mut query = Query::from_levels(&levels);
        if let Some(question) = Some(question.as_str()).filter(|q| !q.trim().is_empty()) {
            query.add_question(question)?;
        }
        if query.is_empty() {
            return Err(Error::Usage(
                "nothing to search for: give a QUERY, --l1/--l2/--l3 keywords, or --keywords FILE"
                    .into(),
            ));
        }
        if args.top == 0 {
            return Err(Error::Usage("--top must be at least 1".into()));
        }
        let diversity = args.diversity.resolve(config)?;
        let flags_budget = Budget {
            max_chars: args.max_chars,
            max_tokens: args.max_tokens,
            max_chars_per_result: args.max_chars_per_result,
            max_tokens_per_result: args.max_tokens_per_result,
        };
        Ok(Self {
            query,
            knowledge,
            scoring: match args.scoring {
                ScoringArg::Default => Scoring::Default,
                ScoringArg::Seed => Scoring::Seed,
            },
            style: crate::output::Style {
                format: args.format,
                explain: args.explain,
                suggest: args.suggest,
                // Indented for a person at a terminal; one line for a program.
                pretty: std::io::IsTerminal::is_terminal(&std::io::stdout()),
            },
            top: args.top,
            min_score: args.min_score,
            // `--passages` asks for content; `hand_over` in kbidx.toml,
            // like its budgets, only shapes content when asked.
            with_content: args.with_content || flags_budget.is_set() || args.passages,
            budget: flags_budget.or(config.budget),
            hand_over: match (args.hand_over, args.passages, args.no_passages) {
                (Some(mode), _, _) => mode,
                (None, true, _) => crate::config::HandOver::Passages,
                (None, _, true) => crate::config::HandOver::Start,
                (None, false, false) => config.hand_over,
            },
            hierarchy: args.hierarchy.resolve(config)?,
            fallback: args.fallback.resolve(config),
            body: args.body.resolve(config)?,
            expand: args.expand,
            links: crate::links::path_for(args.index.as_deref().unwrap_or(&config.index)),
            diversity,
        })
    }
}

/// Loads the index file at `path`.
pub(crate) fn load_index(path: &std::path::Path) -> Result<Index> {
    let file = IndexFile::open(path)?;
    toon::decode(path, crate::index::file::index_text(path, file.bytes())?)
}

fn run_eval(
    config: &Config,
    args: EvalArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let diversity = args.diversity.resolve(config)?;
    let pg = args.pg.url(args.index.as_deref());
    if pg.is_some() && args.expand > 0 {
        return Err(Error::Usage(
            "--expand works with the index file (its links file), not with --pg".into(),
        ));
    }
    let cases = eval::load_cases(&args.eval)?;
    if let Some(url) = pg {
        if args.passages {
            // The PostgreSQL ranking returns content lengths, not the text
            // a passage is cut from.
            return Err(Error::Usage(
                "eval --passages works with the index file, not with --pg".into(),
            ));
        }
        let searcher = Searcher::sections(Box::new(crate::pg::PgSearcher::open(
            &url,
            &args.pg.pg_schema,
        )?))
        .with_weights(config.weights.clone());
        // PostgreSQL ranks one way: the default method's run only.
        let runs = eval::evaluate_searcher(
            &searcher,
            eval::Extras::default(),
            &cases,
            &args.mode,
            &[Method::Default],
            eval::Limits {
                top: args.top,
                chars: args.chars,
                chars_per_result: args.chars_per_result,
                passages: false,
                hand_over: crate::config::HandOver::Start,
                expand: 0,
                second_search: args.second_search,
                document: args.document_format,
            },
            &diversity,
        )?;
        return write_eval(&args, &cases, runs, out);
    }
    let knowledge = args
        .knowledge
        .clone()
        .unwrap_or_else(|| config.knowledge.clone());
    let (index, links) = match &args.index {
        Some(path) if args.expand > 0 => (
            load_index(path)?,
            crate::links::load(&crate::links::path_for(path))?,
        ),
        Some(path) => (load_index(path)?, Vec::new()),
        None => {
            let options = BuildOptions {
                knowledge: knowledge.clone(),
                filter: config.filter.clone(),
                include: config.include.clone(),
                exclude: config.exclude.clone(),
                strict: false,
                terms: args.terms.unwrap_or(config.terms),
            };
            let built = build::build_within(&options, config.build_timeout)?;
            (built.index, built.links)
        }
    };
    let settings = eval::Settings {
        body: args.body.resolve(config)?,
        hierarchy: args.hierarchy.resolve(config)?,
        fallback: args.fallback.resolve(config),
        weights: config.weights.clone(),
        body_limit: config.body_limit,
    };
    // Eval's searcher uses no search cache: over the cap its questions are
    // ranked on the index alone (see `search::limit`), said once here.
    if settings.body.is_some() || settings.fallback.enabled {
        let references = index.entries.iter().map(|e| &e.reference);
        if let Some(over) = crate::search::limit::check(references, &knowledge, config.body_limit) {
            writeln!(err, "note: {over}").map_err(stdio)?;
        }
    }
    let runs = eval::evaluate_with_links(
        &index,
        &links,
        Some(&knowledge),
        &cases,
        &args.mode,
        &args.scoring,
        eval::Limits {
            top: args.top,
            chars: args.chars,
            chars_per_result: args.chars_per_result,
            passages: args.passages,
            hand_over: match (args.hand_over, args.passages) {
                (Some(mode), _) => mode,
                (None, true) => crate::config::HandOver::Passages,
                (None, false) => config.hand_over,
            },
            expand: args.expand,
            second_search: args.second_search,
            document: args.document_format,
        },
        &diversity,
        settings,
    )?;
    write_eval(&args, &cases, runs, out)
}

/// Prints `kbidx eval`'s runs in the chosen format.
fn write_eval(
    args: &EvalArgs,
    cases: &[eval::Case],
    runs: Vec<eval::Run>,
    out: &mut dyn Write,
) -> Result<u8> {
    match args.format {
        DocFormat::Json => write_json(
            out,
            &eval::Report {
                eval: display(&args.eval),
                queries: cases.len(),
                top: args.top,
                runs,
            },
        )?,
        DocFormat::Text => out
            .write_all(eval::render_text(&runs, !args.summary).as_bytes())
            .map_err(stdio)?,
    }
    Ok(0)
}

fn run_search(
    options: &Request,
    searcher: &Searcher<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let report = crate::answer::answer(options, searcher)?;
    crate::timings::time("output", || report.render(options.style, out))?;
    for note in &report.notes {
        writeln!(err, "note: {note}").map_err(stdio)?;
    }
    Ok(if report.results.is_empty() { 1 } else { 0 })
}

/// Long on purpose: one command's sequence over the same built index
/// (warnings, left-out note, links file before the index, `--check`, then the
/// JSON or text message), each step a few lines that read what the one before made.
fn run_build(
    config: &Config,
    args: BuildArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let started = std::time::Instant::now();
    let options = BuildOptions {
        knowledge: args.knowledge.unwrap_or_else(|| config.knowledge.clone()),
        filter: args.filter.or_else(|| config.filter.clone()),
        include: config.include.clone(),
        exclude: config.exclude.clone(),
        strict: args.strict,
        terms: args.terms.unwrap_or(config.terms),
    };
    let target = args.out.unwrap_or_else(|| config.index.clone());
    let limit = args
        .timeout
        .map_or(config.build_timeout, std::time::Duration::from_secs);
    let mut built = build::build_within(&options, limit)?;
    let mut notes: Vec<String> = Vec::new();
    let json = args.format == DocFormat::Json;
    if !json {
        for warning in &built.warnings {
            writeln!(err, "warning: {warning}").map_err(stdio)?;
        }
        if built.left_out.total() > 0 && !args.quiet {
            let l = built.left_out;
            let fields = if l.fields > 0 {
                format!(", fields that are not indexed {}", l.fields)
            } else {
                String::new()
            };
            writeln!(
                err,
                "note: {} characters of the knowledge are in no index row \
                 (page text {}, sections {}, index entries {}{fields}) in {} files, \
                 e.g. {}; `kbidx lint` lists them",
                l.total(),
                l.page,
                l.sections,
                l.index,
                built.left_out_files.len(),
                built.left_out_files[0].0
            )
            .map_err(stdio)?;
        }
        if !built.left_out_fields.is_empty() && !args.quiet {
            // Named even when the rows hold their text: nothing is
            // dropped silently.
            let fields: Vec<String> = built
                .left_out_fields
                .iter()
                .map(|f| format!("{} ({} files)", f.name, f.files))
                .collect();
            writeln!(
                err,
                "note: top-level fields that are not indexed (neither page text nor structure): {}",
                fields.join(", ")
            )
            .map_err(stdio)?;
        }
    }
    // The links file goes with the index (see `crate::links`): checked and
    // written with it, links first, so an index never names links that
    // are not on disk yet.
    let links_target = crate::links::path_for(&target);
    let mut stale = Vec::new();
    let (status, diff) = if args.check {
        let mut diffs = String::new();
        for (path, text) in [(&target, &built.text), (&links_target, &built.links_text)] {
            if let Freshness::Stale(diff) = build::check(path, text)? {
                diffs.push_str(&diff);
                stale.push(display(path));
            }
        }
        if diffs.is_empty() {
            (Status::UpToDate, None)
        } else {
            (Status::Stale, Some(diffs))
        }
    } else {
        let links = build::write(&links_target, &built.links_text)?;
        let status = match (build::write(&target, &built.text)?, links) {
            (Written::Unchanged, Written::Unchanged) => (Status::Unchanged, None),
            _ => (Status::Written, None),
        };
        // The search cache entry the first search would build, written now
        // (skipped when a valid one is there). It is rebuildable, so a
        // failure is a warning and the build still succeeds.
        if let Some(cache) = (config.cache && !args.no_cache)
            .then(Cache::from_env)
            .flatten()
        {
            let knowledge = config.body.then_some(options.knowledge.as_path());
            match cache.prime(&target, &built.text, knowledge, config.body_limit) {
                Ok(primed) => {
                    if let Some(over) = primed.over {
                        // Said here too, not only by every search: the
                        // maintainer who runs the build can raise the cap.
                        if !json && !args.quiet {
                            writeln!(err, "note: {over}").map_err(stdio)?;
                        }
                        notes.push(over.to_string());
                    }
                }
                Err(e) => {
                    let warning = e.to_string();
                    if !json {
                        writeln!(err, "warning: {warning}").map_err(stdio)?;
                    }
                    built.warnings.push(warning);
                }
            }
        }
        status
    };
    let code = u8::from(diff.is_some());
    if json {
        let report = BuildReport {
            index: display(&target),
            knowledge: display(&options.knowledge),
            files: built.files,
            rows: built.index.len(),
            links_file: display(&links_target),
            links: built.links.len(),
            left_out: crate::output::build::LeftOutReport {
                chars: built.left_out.total(),
                by_reason: built.left_out,
                files: built
                    .left_out_files
                    .iter()
                    .take(20)
                    .map(|(f, _)| f.clone())
                    .collect(),
                fields: built.left_out_fields,
            },
            warnings: built.warnings,
            notes,
            status,
            changed: status.changed(),
            diff,
            seconds: (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        };
        write_json(out, &report)?;
        return Ok(code);
    }
    match (diff, args.quiet) {
        (Some(diff), _) => {
            writeln!(
                err,
                "{}: stale; run `kbidx build` to update",
                stale.join(", ")
            )
            .map_err(stdio)?;
            err.write_all(diff.as_bytes()).map_err(stdio)?;
        }
        (None, true) => {}
        (None, false) if args.check => writeln!(
            out,
            "{}: up to date ({} sections)",
            display(&target),
            built.index.len()
        )
        .map_err(stdio)?,
        (None, false) => {
            let unchanged = if status == Status::Unchanged {
                " (unchanged)"
            } else {
                ""
            };
            writeln!(
                out,
                "{}: {} sections from {} files{unchanged}",
                display(&target),
                built.index.len(),
                built.files
            )
            .map_err(stdio)?;
        }
    }
    Ok(code)
}

/// `kbidx read`: sections, or with no `#section` the list of a file's sections.
fn run_read(config: &Config, args: ReadArgs, out: &mut dyn Write) -> Result<u8> {
    let index_path = args.index.clone().unwrap_or_else(|| config.index.clone());
    let mut library = Library::new(args.knowledge.unwrap_or_else(|| config.knowledge.clone()))
        .with_index(&index_path);
    // References without `#section` name files: each is listed (its
    // sections, their sizes), before the sections read, in one call.
    let (files, sections): (Vec<&String>, Vec<&String>) =
        args.references.iter().partition(|r| !r.contains('#'));
    if args.links && sections.is_empty() {
        return Err(Error::Usage("--links needs a section: FILE#SECTION".into()));
    }
    let mut listings = Vec::with_capacity(files.len());
    if !files.is_empty() {
        let extractor = build::extractor(config.filter.as_deref())?;
        for file in &files {
            listings.push(FileListing::read(&mut library, &extractor, file)?);
        }
    }
    let json = args.format == DocFormat::Json;
    // The listings as printed: their text, or JSON (one file alone: its
    // listing; else `{"files": [...]}`, the field a sections' document gets).
    let listed = match listings.as_slice() {
        [] => String::new(),
        [listing] if json && sections.is_empty() => pretty(listing)?,
        _ if json => pretty(&serde_json::json!({ "files": listings }))?,
        _ => {
            let texts: Vec<String> = listings.iter().map(FileListing::to_text).collect();
            texts.join("\n")
        }
    };
    if sections.is_empty() {
        out.write_all(listed.as_bytes()).map_err(stdio)?;
        return Ok(if listings.iter().all(|l| l.sections.is_empty()) {
            1
        } else {
            0
        });
    }
    let mut docs = Vec::with_capacity(sections.len());
    // The links file and the index, read once for all the references.
    let linked = if args.links {
        Some((
            crate::links::load(&crate::links::path_for(&index_path))?,
            load_index(&index_path)?,
        ))
    } else {
        None
    };
    for reference in sections {
        let mut doc = SectionDoc::read(&mut library, reference)?;
        if let Some((links, index)) = &linked {
            doc = doc.with_links(links, index);
        }
        docs.push(doc);
    }
    // The listings printed first take their share of the budget.
    let budget = crate::output::budget::Budget {
        max_chars: args
            .max_chars
            .map(|n| n.saturating_sub(listed.chars().count() + 1)),
        max_tokens: args
            .max_tokens
            .map(|n| n.saturating_sub(crate::output::tokens::estimate(&listed) + 1)),
        ..Default::default()
    };
    let reading =
        crate::output::read::Reading::fit_headed(docs, budget, json, !listings.is_empty());
    if listings.is_empty() {
        out.write_all(reading.document.as_bytes()).map_err(stdio)?;
    } else if json {
        // The sections' document with the listings as its `files`.
        let mut doc: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&reading.document).map_err(|e| stdio(e.into()))?;
        doc.insert("files".into(), serde_json::json!(listings));
        write_json(out, &doc)?;
    } else {
        out.write_all(format!("{listed}\n{}", reading.document).as_bytes())
            .map_err(stdio)?;
    }
    Ok(0)
}

/// `kbidx lint`: exit 0 when nothing is found, 1 with findings.
fn run_lint(config: &Config, args: LintArgs, out: &mut dyn Write) -> Result<u8> {
    use crate::lint::Rule;
    let chosen: Vec<Rule> = args
        .rule
        .iter()
        .map(|id| Rule::parse(id))
        .collect::<Result<_>>()?;
    let skipped: Vec<Rule> = args
        .skip
        .iter()
        .map(|id| Rule::parse(id))
        .collect::<Result<_>>()?;
    let rules: Vec<Rule> = Rule::ALL
        .into_iter()
        .filter(|r| (chosen.is_empty() || chosen.contains(r)) && !skipped.contains(r))
        .collect();
    if rules.is_empty() {
        return Err(Error::Usage(
            "--rule and --skip leave no rule to run".into(),
        ));
    }
    let options = crate::lint::LintOptions {
        knowledge: args.knowledge.unwrap_or_else(|| config.knowledge.clone()),
        filter: args.filter.or_else(|| config.filter.clone()),
        include: config.include.clone(),
        exclude: config.exclude.clone(),
        rules,
        thresholds: config.lint,
    };
    let report = crate::lint::lint(&options)?;
    match args.format {
        DocFormat::Json => write_json(out, &report)?,
        DocFormat::Text => out.write_all(report.to_text().as_bytes()).map_err(stdio)?,
    }
    Ok(u8::from(!report.findings.is_empty()))
}

/// `doc` as pretty JSON and a newline.
fn pretty(doc: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string_pretty(doc)
        .map(|s| s + "\n")
        .map_err(|e| stdio(e.into()))
}

/// Writes `doc` as pretty JSON and a newline.
fn write_json(out: &mut dyn Write, doc: &impl serde::Serialize) -> Result<()> {
    out.write_all(pretty(doc)?.as_bytes()).map_err(stdio)
}

/// Parses a count that must be at least 1 (a budget of nothing is a mistake).
/// A reference as `kbidx search`'s text output writes it: as it is, or as a
/// JSON string when it holds white space, a comma or a double quote.
fn unquote_reference(text: &str) -> std::result::Result<String, String> {
    if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
        return serde_json::from_str(text).map_err(|e| format!("not a quoted reference: {e}"));
    }
    Ok(text.to_owned())
}

fn at_least_one(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn stdio(e: std::io::Error) -> Error {
    Error::io("<stdout>", "cannot write", e)
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
