//! The command line: clap definitions, turned into typed options, then run.
//!
//! [`Cli`] is parsed by clap; [`run`] resolves it against `kbidx.toml` into
//! the library's option types before doing any work, and returns the exit
//! code (0 success/results, 1 stale index or no results, 2 is an `Err`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::config::Config;
use crate::error::{Error, Result, display};
use crate::pipeline::{self, BuildOptions, Freshness};

/// Section index and L1/L2/L3 keyword search for JSON knowledge bases.
///
/// Exit codes: 0 success / results, 1 no results or stale index (`build --check`), 2 error.
#[derive(Debug, Parser)]
#[command(name = "kbidx", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    /// Configuration file (default: ./kbidx.toml if present).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build index/index.toon from the knowledge directory (or check it is up to date).
    Build(BuildArgs),
}

/// `kbidx build` flags.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Knowledge directory (default from kbidx.toml, else `knowledge`).
    #[arg(long, value_name = "DIR")]
    pub knowledge: Option<PathBuf>,
    /// Index file to write (default from kbidx.toml, else `index/index.toon`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// jq program replacing the built-in extraction (src/extract.jq).
    #[arg(long, value_name = "FILE")]
    pub filter: Option<PathBuf>,
    /// Treat warnings (e.g. a section with no index entry) as errors.
    #[arg(long)]
    pub strict: bool,
    /// Write nothing; exit 0 if the index is up to date, 1 with a diff if stale.
    #[arg(long)]
    pub check: bool,
    /// Print nothing but errors and warnings.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs a parsed command line; returns the exit code for success paths (0 or 1).
pub fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    let config = Config::load(cli.config.as_deref())?;
    match cli.command {
        Command::Build(args) => run_build(&config, args, out, err),
    }
}

fn run_build(config: &Config, args: BuildArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    let options = BuildOptions {
        knowledge: args.knowledge.unwrap_or_else(|| config.knowledge.clone()),
        filter: args.filter.or_else(|| config.filter.clone()),
        include: config.include.clone(),
        exclude: config.exclude.clone(),
        strict: args.strict,
    };
    let target = args.out.unwrap_or_else(|| config.index.clone());
    let built = pipeline::build(&options)?;
    for warning in &built.warnings {
        writeln!(err, "warning: {warning}").map_err(stdio)?;
    }
    if args.check {
        return match pipeline::check(&target, &built.text)? {
            Freshness::UpToDate => {
                if !args.quiet {
                    writeln!(out, "{}: up to date ({} sections)", display(&target), built.index.len()).map_err(stdio)?;
                }
                Ok(0)
            }
            Freshness::Stale(diff) => {
                writeln!(err, "{}: stale; run `kbidx build` to update", display(&target)).map_err(stdio)?;
                err.write_all(diff.as_bytes()).map_err(stdio)?;
                Ok(1)
            }
        };
    }
    pipeline::write(&target, &built.text)?;
    if !args.quiet {
        writeln!(
            out,
            "{}: {} sections from {} files",
            display(&target),
            built.index.len(),
            built.files
        )
        .map_err(stdio)?;
    }
    Ok(0)
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
