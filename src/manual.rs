//! The reference a shell user expects, generated from the clap definitions
//! so it cannot drift from `--help`: shell completions (clap_complete), the
//! man page (clap_mangen) and docs/cli.md (markdown, checked by a test).

use std::fmt::Write as _;

use clap::CommandFactory as _;

use crate::cli::Cli;

/// The `kbidx` command as clap describes it.
fn command() -> clap::Command {
    let mut command = Cli::command();
    command.build();
    command
}

/// The completion script for `shell`.
pub(crate) fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command(), "kbidx", &mut out);
    out
}

/// The man page (roff), `kbidx(1)`.
pub(crate) fn man() -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command()).render(&mut out)?;
    Ok(out)
}

/// The flag reference in markdown: every command with its usage, its long
/// help and each argument's long help, in the order `--help` lists them.
pub(crate) fn markdown() -> String {
    let mut out = String::from(
        "# kbidx command-line reference\n\n\
         Generated from the clap definitions (`kbidx man --format markdown > docs/cli.md`);\n\
         a test fails when it differs from `--help`.\n",
    );
    let mut root = command();
    write_command(&mut out, &mut root, "kbidx");
    out
}

fn write_command(out: &mut String, command: &mut clap::Command, path: &str) {
    let _ = write!(out, "\n## `{path}`\n\n");
    if let Some(about) = command.get_long_about().or_else(|| command.get_about()) {
        let _ = writeln!(out, "{about}\n");
    }
    let usage = command.render_usage().to_string();
    let usage = usage.trim_start_matches("Usage: ");
    let _ = writeln!(out, "```text\n{usage}\n```\n");
    let args: Vec<&clap::Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help" && a.get_id() != "version")
        .collect();
    for arg in args {
        let name = match (arg.get_long(), arg.get_short()) {
            (Some(long), Some(short)) => format!("-{short}, --{long}"),
            (Some(long), None) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => arg.get_id().as_str().to_uppercase(),
        };
        let value = arg
            .get_value_names()
            .map(|names| names.iter().map(|n| format!(" <{n}>")).collect::<String>())
            .filter(|_| {
                arg.get_action().takes_values()
                    && (arg.get_long().is_some() || arg.get_short().is_some())
            })
            .unwrap_or_default();
        // Flags (`--strict`) take no value: no value list, no default.
        let takes = arg.get_action().takes_values();
        let _ = write!(out, "- `{name}{value}`");
        if let Some(help) = arg.get_long_help().or_else(|| arg.get_help()) {
            let help = help.to_string().replace('\n', " ");
            let _ = write!(out, ": {help}");
        }
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|_| takes)
            .filter(|v| !v.is_hide_set())
            .map(|v| format!("`{}`", v.get_name()))
            .collect();
        if !values.is_empty() {
            let _ = write!(out, " (values: {})", values.join(", "));
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .filter(|_| takes)
            .map(|d| d.to_string_lossy().into_owned())
            .collect();
        if !defaults.is_empty() {
            let _ = write!(out, " [default: {}]", defaults.join(", "));
        }
        out.push('\n');
    }
    if let Some(after) = command
        .get_after_long_help()
        .or_else(|| command.get_after_help())
    {
        let _ = writeln!(out, "\n{after}");
    }
    let names: Vec<String> = command
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        if let Some(sub) = command.find_subcommand_mut(&name) {
            write_command(out, sub, &format!("{path} {name}"));
        }
    }
}
