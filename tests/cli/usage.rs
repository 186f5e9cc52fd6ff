//! The command line itself: `--help` and usage errors.

use crate::common::{Sandbox, transcripts};

#[test]
fn help_lists_exit_codes() {
    let run = Sandbox::new().run(&["--help"]).success();
    let help = run.stdout.to_lowercase();
    assert!(
        help.contains("exit code"),
        "`kbidx --help` does not mention exit codes:\n{}",
        run.stdout
    );
    for code in ["0", "1", "2"] {
        assert!(
            help.contains(code),
            "`kbidx --help` does not mention exit code {code}:\n{}",
            run.stdout
        );
    }
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let sandbox = Sandbox::new();
    let top = sandbox.run(&["--no-such-flag"]);
    let sub = sandbox.run(&["search", "--no-such-flag", "x"]);
    let command = sandbox.run(&["frobnicate"]);
    assert_eq!((top.code, sub.code, command.code), (2, 2, 2));
    insta::assert_snapshot!("unknown_flag", transcripts(&[top, sub, command]));
}

/// docs/cli.md is the flag reference `kbidx man --format markdown` prints
/// from the clap definitions: it cannot drift from `--help`. Regenerate it
/// with `cargo run -- man --format markdown > docs/cli.md`.
#[test]
fn docs_cli_md_is_generated_from_the_flags() {
    let run = Sandbox::new()
        .run(&["man", "--format", "markdown"])
        .success();
    let committed = std::fs::read_to_string(crate::common::repo().join("docs/cli.md")).unwrap();
    assert!(
        run.stdout == committed,
        "docs/cli.md differs from `kbidx man --format markdown`; regenerate it with \
         `cargo run -- man --format markdown > docs/cli.md`"
    );
    // Every flag `search --help` lists is in the reference.
    let help = Sandbox::new().run(&["search", "--help"]).success().stdout;
    for flag in help.split_whitespace().filter(|w| w.starts_with("--")) {
        let flag = flag.trim_end_matches([',', '.', ')']);
        let flag = flag.split(['=', '<']).next().unwrap_or(flag);
        if flag.len() > 2
            && flag
                .chars()
                .skip(2)
                .all(|c| c.is_ascii_lowercase() || c == '-')
        {
            assert!(committed.contains(flag), "{flag} is not in docs/cli.md");
        }
    }
}

/// Completions for every shell clap_complete knows, and the man page, generate.
#[test]
fn completions_and_man_page_generate() {
    let sandbox = Sandbox::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = sandbox.run(&["completions", shell]).success();
        assert!(
            run.stdout.contains("kbidx") && run.stdout.contains("search"),
            "{shell}: {}",
            &run.stdout[..run.stdout.len().min(200)]
        );
    }
    let man = sandbox.run(&["man"]).success();
    assert!(man.stdout.contains(".TH kbidx 1"), "{}", &man.stdout[..200]);
    assert!(man.stdout.contains("search"));
    assert_eq!(sandbox.run(&["completions", "tcsh"]).code, 2);
}
