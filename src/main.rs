//! The `kbidx` binary: parse the command line, run it, map the result to an exit code.

use std::process::ExitCode;

use clap::Parser;

// jaq evaluation allocates heavily: see docs/benchmarks.md for what mimalloc
// changes in `kbidx build` and `kbidx search`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = kbidx::cli::Cli::parse_from(kbidx::cli::args(std::env::args_os()));
    // Buffered: a pretty-printed JSON report is hundreds of lines, and
    // stdout's line buffering would make each of them a write(2).
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut err = std::io::stderr().lock();
    let result = kbidx::cli::run(cli, &mut out, &mut err).and_then(|code| {
        use std::io::Write as _;
        out.flush()
            .map_err(|e| kbidx::Error::io("<stdout>", "cannot write", e))?;
        Ok(code)
    });
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            use std::io::Write as _;
            let _ = writeln!(err, "kbidx: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
