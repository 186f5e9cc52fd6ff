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
