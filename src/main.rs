//! The `kbidx` binary: parse the command line, run it, map the result to an exit code.

use std::process::ExitCode;

use clap::Parser;

// jaq evaluation allocates heavily; mimalloc makes `kbidx build` about twice as
// fast as glibc malloc here (see scripts/bench-build.sh).
#[global_allocator]
static GLOBAL: Mimalloc = Mimalloc;

/// mimalloc as the global allocator, through `mi_malloc` wherever the
/// alignment is one `malloc` already guarantees.
///
/// `mimalloc::MiMalloc` sends every request through `mi_malloc_aligned`,
/// whose alignment bookkeeping cost about 9 M of the 125 M instructions of a
/// `kbidx build` of nabledge-6-large (callgrind); Rust asks for alignments
/// above 16 bytes almost never. mimalloc hands out blocks aligned to 16 bytes,
/// or to their size when that is smaller (the rule `std`'s own `System`
/// allocator relies on for `malloc`).
struct Mimalloc;

/// Whether `mi_malloc` of `size` bytes is aligned enough for `align`.
const fn plain(align: usize, size: usize) -> bool {
    align <= 16 && align <= size
}

// SAFETY: every path hands the request to mimalloc, with `mi_malloc_aligned`
// and friends whenever the plain functions would not guarantee the alignment;
// `mi_free` frees blocks from either family.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_malloc, mi_malloc_aligned};
        // SAFETY: forwarded to mimalloc (see the impl).
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi_malloc(layout.size()).cast()
            } else {
                mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_zalloc, mi_zalloc_aligned};
        // SAFETY: forwarded to mimalloc (see the impl).
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi_zalloc(layout.size()).cast()
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator (see the impl).
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys::{mi_realloc, mi_realloc_aligned};
        // SAFETY: `ptr` came from this allocator (see the impl).
        unsafe {
            if plain(layout.align(), new_size) {
                mi_realloc(ptr.cast(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

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
