//! Progress on stderr for long work: a build over many files, the first
//! search of an index (it builds the search cache), `pg push`. A push of a
//! million sections takes minutes; a terminal should show that something is
//! happening. Only a terminal: agents, pre-commit hooks, CI and
//! `--format json` read stderr through a pipe, and get nothing extra.
//!
//! The line (`build: 120/935 files`) is rewritten in place at most every
//! 100 ms and cleared when the work ends, so the command's own output
//! follows on a clean line. It is written to a duplicate of the stderr file
//! descriptor, not through `std::io::stderr()`: the command holds the
//! stderr lock while work runs on other threads, which would wait on it.

use std::io::{IsTerminal as _, Write as _};
#[cfg(unix)]
use std::os::fd::AsFd as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How often the line is rewritten at most.
const EVERY: Duration = Duration::from_millis(100);

/// A counter of work done, shown on a terminal's stderr.
#[derive(Debug)]
pub(crate) struct Progress {
    label: &'static str,
    unit: &'static str,
    total: usize,
    done: AtomicUsize,
    /// When the line was last written (`None`: never) and where it goes;
    /// `None` when stderr is not a terminal.
    shown: Option<Mutex<(Option<Instant>, std::fs::File)>>,
}

impl Progress {
    /// Progress of `total` `unit`s of `label` work (`build`, `files`).
    pub(crate) fn new(label: &'static str, total: usize, unit: &'static str) -> Self {
        Self {
            label,
            unit,
            total,
            done: AtomicUsize::new(0),
            shown: terminal().map(|file| Mutex::new((None, file))),
        }
    }

    /// `n` more units are done.
    pub(crate) fn advance(&self, n: usize) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let Some(shown) = &self.shown else { return };
        // A thread that finds the line being written skips its update.
        let Ok(mut state) = shown.try_lock() else {
            return;
        };
        let (last, file) = &mut *state;
        let now = Instant::now();
        if last.is_none_or(|at| now.duration_since(at) >= EVERY) {
            *last = Some(now);
            let _ = write!(
                file,
                "\r{}: {done}/{} {}",
                self.label, self.total, self.unit
            );
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(shown) = &self.shown
            && let Ok(mut state) = shown.lock()
            && state.0.is_some()
        {
            // Clear the line: the command's own output starts on it.
            let _ = write!(state.1, "\r\x1b[2K");
        }
    }
}

/// Stderr as a file of its own, when it is a terminal.
#[cfg(unix)]
fn terminal() -> Option<std::fs::File> {
    let stderr = std::io::stderr();
    if !stderr.is_terminal() {
        return None;
    }
    stderr
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .map(std::fs::File::from)
}

/// No progress where stderr cannot be duplicated as a file.
#[cfg(not(unix))]
fn terminal() -> Option<std::fs::File> {
    None
}
