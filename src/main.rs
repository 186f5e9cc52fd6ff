//! The `kbidx` binary: parse the command line, run it, map the result to an exit code.

use std::process::ExitCode;

use clap::Parser;

// jaq evaluation allocates heavily; mimalloc makes `kbidx build` about twice as
// fast as glibc malloc here (see scripts/bench-build.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = kbidx::cli::Cli::parse();
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    match kbidx::cli::run(cli, &mut out, &mut err) {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            use std::io::Write as _;
            let _ = writeln!(err, "kbidx: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
