//! The `kbidx` binary: parse the command line, run it, map the result to an exit code.

use std::process::ExitCode;

use clap::Parser;

// jaq evaluation allocates heavily; mimalloc makes `kbidx build` about twice as
// fast as glibc malloc here (see scripts/bench-build.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc v3 (libmimalloc-sys 0.1.49 names no
/// constant for it): the 16th entry of `mi_option_e` in `mimalloc.h`.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc never to give freed memory back to the OS while kbidx runs.
///
/// Purging is `madvise(MADV_DONTNEED)`, which takes the process's memory-map
/// lock: the other build thread, faulting in fresh pages, then sleeps until
/// it is released, and purged pages are faulted in again. In a `kbidx build`
/// of nabledge-6-large that was 4 to 59 cross-thread wake-ups per run
/// (`perf sched`); with purging off only the 4 hand-offs between the threads
/// remain. A process that lives tens of
/// milliseconds gains nothing from returning memory early; it all goes back
/// at exit.
#[allow(unsafe_code)]
fn keep_freed_memory() {
    // SAFETY: `mi_option_set` stores an integer option; it is called before
    // any other thread exists, and -1 ("no purging") is a documented value.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

fn main() -> ExitCode {
    keep_freed_memory();
    let cli = kbidx::cli::Cli::parse();
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

#[cfg(test)]
mod tests {
    /// The index still names `purge_delay` (an upgrade of mimalloc could
    /// renumber it): its default in mimalloc v3 is 1,000 ms, and no other
    /// option has that default.
    #[test]
    #[allow(unsafe_code)]
    fn purge_delay_option_index() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads an integer option.
        let value = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert_eq!(value, 1000);
    }
}
