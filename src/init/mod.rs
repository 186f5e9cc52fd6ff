//! `kbidx init`: set a knowledge repository up for kbidx in one step.
//!
//! The work is in three stages so that bad input never leaves half a setup:
//! [`plan`] finds the knowledge, reads all of it and builds its index in
//! memory (an invalid knowledge file stops here, with its `line:column`),
//! reads and parses every file it would touch and computes each one's new
//! text (`detect` and `files`); only then are the changed files written, each
//! atomically ([`crate::build::write`]: temp file and rename); then the index
//! is built and one search run through the same code as `kbidx build` and
//! `kbidx search`, so the user sees it work. `--dry-run` stops after the plan
//! and prints it as unified diffs.

mod detect;
mod files;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::DocFormat;
use crate::config::Config;
use crate::error::{Error, Result, display};
use files::{Example, Layout, Merged};

/// `kbidx init` flags.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// The repository to set up (its root: the files are written there).
    #[arg(value_name = "DIR", default_value = ".")]
    pub(crate) dir: PathBuf,
    /// Knowledge directory, inside DIR (default: DIR/kbidx.toml's, else DIR/knowledge, else the
    /// one directory named `knowledge` holding *.json files within four levels of DIR).
    #[arg(long, value_name = "PATH")]
    pub(crate) knowledge: Option<PathBuf>,
    /// Directory inside DIR for the skill's SKILL.md (default: DIR/.claude/skills/NAME, NAME
    /// being DIR's name).
    #[arg(long, value_name = "PATH")]
    pub(crate) skill_dir: Option<PathBuf>,
    /// Replace SKILL.md and the `kbidx` entries of the MCP client files when they differ, and a
    /// kbidx.toml naming other knowledge than --knowledge (without it no existing file is
    /// overwritten).
    #[arg(long)]
    pub(crate) force: bool,
    /// Write nothing: print what would be written as unified diffs (no build, no search).
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Output format (json: the summary, the files and their actions, the build and search
    /// documents).
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub(crate) format: DocFormat,
}

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Action {
    /// It does not exist: written.
    Create,
    /// It exists and gets kbidx's entry (or `--force` replaces it): written.
    Update,
    /// It already holds what init would write.
    Unchanged,
    /// It exists, differs, and is kept (no `--force`).
    Kept,
}

impl Action {
    fn writes(self) -> bool {
        matches!(self, Self::Create | Self::Update)
    }
}

/// One file of the plan.
#[derive(Debug, Serialize)]
struct Planned {
    /// Relative to the repository, `/`-separated.
    path: String,
    action: Action,
    /// The unified diff (dry run only).
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip)]
    old: String,
    #[serde(skip)]
    new: String,
}

/// Everything init will do, worked out before anything is written.
#[derive(Debug)]
struct Plan {
    summary: detect::Summary,
    files: Vec<Planned>,
    example: Example,
    /// Where `kbidx.toml` is or will be (the build and the search read it).
    config: PathBuf,
}

/// The JSON document of `kbidx init --format json`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    dir: String,
    knowledge: &'a detect::Summary,
    files: &'a [Planned],
    dry_run: bool,
    nothing_to_do: bool,
    example: &'a Example,
    /// `kbidx build --format json`'s document (null on a dry run or with nothing to do).
    build: Option<serde_json::Value>,
    /// `kbidx search --format json`'s document for the example question.
    search: Option<serde_json::Value>,
}

/// Results shown by init's search.
const TOP: usize = 5;

/// Runs `kbidx init`; returns the exit code (0; errors are exit 2).
pub(crate) fn run(args: InitArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    let plan = plan(&args)?;
    let nothing_to_do = !plan.files.iter().any(|f| f.action.writes());
    let dir = &args.dir;
    let json = args.format == DocFormat::Json;
    let mut files = plan.files;
    let report = |files, dry_run, build, search| Report {
        dir: display(dir),
        knowledge: &plan.summary,
        files,
        dry_run,
        nothing_to_do,
        example: &plan.example,
        build,
        search,
    };
    if args.dry_run {
        for file in &mut files {
            if file.action.writes() {
                file.diff = Some(unified_diff(&file.path, &file.old, &file.new));
            }
        }
    }
    if !json {
        let mut text = plan.summary.to_text();
        for file in &files {
            let action = match file.action {
                Action::Create if args.dry_run => "would create",
                Action::Update if args.dry_run => "would update",
                Action::Create => "created",
                Action::Update => "updated",
                Action::Unchanged => "unchanged",
                Action::Kept => "kept (exists and differs; --force replaces it)",
            };
            text.push_str(&format!("{}  {action}\n", file.path));
        }
        out.write_all(text.as_bytes()).map_err(stdout)?;
    }
    if args.dry_run {
        if !json {
            for file in &files {
                if let Some(diff) = &file.diff {
                    out.write_all(diff.as_bytes()).map_err(stdout)?;
                }
            }
            writeln!(
                out,
                "dry run: nothing written{}",
                if nothing_to_do {
                    " (nothing to do)".to_owned()
                } else {
                    format!(
                        "; then `kbidx build` and `kbidx search {}`",
                        shell_quote(&plan.example.question)
                    )
                }
            )
            .map_err(stdout)?;
        }
        return finish(json, &report(&files, true, None, None), out);
    }
    for file in files.iter().filter(|f| f.action.writes()) {
        crate::build::write(&detect::join(dir, &file.path), &file.new)?;
    }
    if nothing_to_do {
        if !json {
            writeln!(
                out,
                "nothing to do: every file is in place (search with `kbidx search \"<question>\"`)"
            )
            .map_err(stdout)?;
        }
        return finish(json, &report(&files, false, None, None), out);
    }
    let config = plan.config.as_os_str();
    let question = plan.example.question.as_str();
    let top = TOP.to_string();
    // `kbidx --config FILE` and the subcommand's arguments.
    let command = |args: &[&str]| -> Vec<std::ffi::OsString> {
        ["kbidx", "--config"]
            .into_iter()
            .map(std::ffi::OsString::from)
            .chain([config.to_owned()])
            .chain(args.iter().map(std::ffi::OsString::from))
            .collect()
    };
    let build = |format: &str| command(&["build", "--format", format]);
    // The question after `--`: a title may start with `-`.
    let search =
        |format: &str| command(&["search", "--format", format, "--top", &top, "--", question]);
    if json {
        let build = capture(&build("json"), err)?;
        let search = capture(&search("json"), err)?;
        return finish(json, &report(&files, false, Some(build), Some(search)), out);
    }
    writeln!(out, "\n$ kbidx build").map_err(stdout)?;
    crate::cli::run(parse(&build("text"))?, out, err)?;
    writeln!(
        out,
        "\n$ kbidx search {} --top {TOP}",
        shell_quote(question)
    )
    .map_err(stdout)?;
    crate::cli::run(parse(&search("text"))?, out, err)?;
    writeln!(
        out,
        "\nkbidx is set up: commit these files, run `pre-commit install`, and ask your agent."
    )
    .map_err(stdout)?;
    Ok(0)
}

/// Prints `report` as JSON when asked (`json`); returns exit code 0.
fn finish(json: bool, report: &Report<'_>, out: &mut dyn Write) -> Result<u8> {
    if json {
        serde_json::to_writer_pretty(&mut *out, report).map_err(|e| stdout(e.into()))?;
        writeln!(out).map_err(stdout)?;
    }
    Ok(0)
}

/// A command line as the `kbidx` binary would parse it.
fn parse(args: &[std::ffi::OsString]) -> Result<crate::cli::Cli> {
    use clap::Parser as _;
    crate::cli::Cli::try_parse_from(args).map_err(|e| Error::Usage(e.to_string()))
}

/// Runs a command line (one with `--format json`) and returns its document.
fn capture(args: &[std::ffi::OsString], err: &mut dyn Write) -> Result<serde_json::Value> {
    let mut buffer = Vec::new();
    crate::cli::run(parse(args)?, &mut buffer, err)?;
    serde_json::from_slice(&buffer).map_err(|e| Error::data("<stdout>", e.to_string()))
}

/// Works out every file's new text, reading and checking everything first.
fn plan(args: &InitArgs) -> Result<Plan> {
    let dir = &args.dir;
    let meta = std::fs::metadata(dir).map_err(|e| Error::io(dir, "cannot open", e))?;
    if !meta.is_dir() {
        return Err(Error::data(dir, "not a directory"));
    }
    let config_rel = "kbidx.toml";
    let config_path = detect::join(dir, config_rel);
    let existing_config = config_path
        .exists()
        .then(|| Config::load(Some(&config_path)))
        .transpose()?;
    let configured = existing_config.as_ref().map(|c| c.knowledge.clone());
    let knowledge =
        detect::knowledge_dir(dir, args.knowledge.as_deref().or(configured.as_deref()))?;
    let config = existing_config.clone().unwrap_or_default();
    let index = match &existing_config {
        Some(c) => relative_to(dir, &c.index),
        None => "index/index.toon".to_owned(),
    };
    let layout = Layout {
        knowledge: knowledge.clone(),
        index,
        filter: config.filter.as_deref().map(|f| relative_to(dir, f)),
    };
    let options = crate::build::BuildOptions {
        knowledge: detect::join(dir, &knowledge),
        filter: config.filter.clone(),
        include: config.include.clone(),
        exclude: config.exclude.clone(),
        strict: false,
        terms: config.terms,
    };
    let found =
        crate::knowledge::discover_some(&options.knowledge, &options.include, &options.exclude)?;
    let mut summary = detect::summarize(&found.files)?;
    let built = crate::build::build_within(&options, config.build_timeout)?;
    summary.knowledge = knowledge.clone();
    summary.sections = built.index.len();
    let entries = &built.index.entries;
    let example = entries
        .iter()
        // A section's own title (file / section) reads best as a question; one starting with
        // `-` would read as an option in the skill's example.
        .filter(|e| !e.title.starts_with('-') && !e.title.trim().is_empty())
        .min_by_key(|e| !e.title.contains(" / "))
        .map(|e| Example {
            question: e.title.clone(),
            reference: e.reference.clone(),
        })
        .ok_or_else(|| Error::data(&options.knowledge, "the knowledge files hold no sections"))?;
    let topics = topics(&summary.titles);

    let name = detect::skill_name(dir);
    let skill_rel = match &args.skill_dir {
        Some(skill_dir) => {
            let at = inside_lexically(dir, skill_dir)?;
            if at == "." {
                "SKILL.md".to_owned()
            } else {
                format!("{at}/SKILL.md")
            }
        }
        None => format!(".claude/skills/{name}/SKILL.md"),
    };
    let mut files = Vec::new();
    // An existing kbidx.toml is the user's and is kept as it is (init reads
    // its paths); only --force replaces it, when it names other knowledge.
    match &existing_config {
        Some(c) if relative_to(dir, &c.knowledge) == knowledge => {
            let old = read_existing(&config_path)?.unwrap_or_default();
            files.push(Planned {
                path: config_rel.to_owned(),
                action: Action::Unchanged,
                diff: None,
                new: old.clone(),
                old,
            });
        }
        Some(c) if !args.force => {
            return Err(Error::data(
                &config_path,
                format!(
                    "names the knowledge directory {}, not {knowledge}; --force replaces the file",
                    relative_to(dir, &c.knowledge)
                ),
            ));
        }
        _ => files.push(planned_whole(
            dir,
            config_rel,
            files::config(&layout),
            args.force,
        )?),
    }
    let pre_commit_rel = ".pre-commit-config.yaml";
    let pre_commit_path = detect::join(dir, pre_commit_rel);
    let old = read_existing(&pre_commit_path)?;
    files.push(planned_merge(pre_commit_rel, old, |old| {
        files::pre_commit(&pre_commit_path, old, &layout)
    })?);
    let skill = files::skill(&name, &topics, &layout, &example);
    files.push(planned_whole(dir, &skill_rel, skill, args.force)?);
    for (rel, key, entry) in [
        (
            ".mcp.json",
            "mcpServers",
            // Claude Code starts project servers in the project root.
            serde_json::json!({"command": "kbidx", "args": ["mcp", "--config", "kbidx.toml"]}),
        ),
        (
            ".vscode/mcp.json",
            "servers",
            serde_json::json!({
                "type": "stdio",
                "command": "kbidx",
                "args": ["mcp", "--config", "${workspaceFolder}/kbidx.toml"],
            }),
        ),
    ] {
        let path = detect::join(dir, rel);
        let old = read_existing(&path)?;
        files.push(planned_merge(rel, old, |old| {
            files::mcp(&path, old, key, entry, args.force)
        })?);
    }
    Ok(Plan {
        summary,
        files,
        example,
        config: config_path,
    })
}

/// A file init writes whole: created, or replaced only with `force`.
fn planned_whole(dir: &Path, rel: &str, new: String, force: bool) -> Result<Planned> {
    let old = read_existing(&detect::join(dir, rel))?;
    let action = match &old {
        None => Action::Create,
        Some(old) if *old == new => Action::Unchanged,
        Some(_) if force => Action::Update,
        Some(_) => Action::Kept,
    };
    Ok(Planned {
        path: rel.to_owned(),
        action,
        diff: None,
        old: old.unwrap_or_default(),
        new,
    })
}

/// A file init merges its entry into.
fn planned_merge(
    rel: &str,
    old: Option<String>,
    merge: impl FnOnce(Option<&str>) -> Result<Merged>,
) -> Result<Planned> {
    let (action, new) = match merge(old.as_deref())? {
        Merged::Present(false) => (Action::Unchanged, old.clone().unwrap_or_default()),
        Merged::Present(true) => (Action::Kept, old.clone().unwrap_or_default()),
        Merged::Text(new) if old.as_deref() == Some(new.as_str()) => (Action::Unchanged, new),
        Merged::Text(new) if old.is_some() => (Action::Update, new),
        Merged::Text(new) => (Action::Create, new),
    };
    Ok(Planned {
        path: rel.to_owned(),
        action,
        diff: None,
        old: old.unwrap_or_default(),
        new,
    })
}

/// The file's text, `None` when it does not exist.
fn read_existing(path: &Path) -> Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|e| {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
            Error::syntax_at(path, text, valid, "invalid UTF-8")
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, "cannot read", e)),
    }
}

/// `path` (as `kbidx.toml` resolved it: joined to the repository) relative to `dir`.
fn relative_to(dir: &Path, path: &Path) -> String {
    let stripped = if dir == Path::new(".") {
        path
    } else {
        path.strip_prefix(dir).unwrap_or(path)
    };
    detect::slashed(stripped)
}

/// `path` (which may not exist yet) relative to `dir`, without `..`; an
/// error naming it when it lies outside.
fn inside_lexically(dir: &Path, path: &Path) -> Result<String> {
    let absolute = |p: &Path| std::path::absolute(p).map_err(|e| Error::io(p, "cannot resolve", e));
    let root = absolute(dir)?;
    let target = absolute(path)?;
    match target.strip_prefix(&root) {
        Ok(rel)
            if rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_))) =>
        {
            Ok(detect::slashed(rel))
        }
        _ => Err(Error::data(
            path,
            format!(
                "not inside {}: kbidx init sets up one repository",
                display(dir)
            ),
        )),
    }
}

/// Up to five distinct file titles (at most 40 characters each), spread over
/// the files, for the skill's description.
fn topics(titles: &[String]) -> Vec<String> {
    let mut distinct: Vec<String> = Vec::new();
    for title in titles {
        let title: String = title.chars().take(40).collect();
        if !distinct.contains(&title) {
            distinct.push(title);
        }
    }
    let n = distinct.len();
    let wanted = n.min(5);
    (0..wanted)
        .map(|i| distinct[i * n / wanted].clone())
        .collect()
}

/// A unified diff of one file, `a/PATH` to `b/PATH` (`/dev/null` when new).
fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let from = if old.is_empty() {
        "/dev/null".to_owned()
    } else {
        format!("a/{path}")
    };
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&from, &format!("b/{path}"))
        .to_string()
}

/// `text` as one double-quoted shell word.
fn shell_quote(text: &str) -> String {
    files::quoted(text)
}

fn stdout(e: std::io::Error) -> Error {
    Error::io("<stdout>", "cannot write", e)
}
