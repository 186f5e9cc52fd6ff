//! `KBIDX_TIMINGS=1`: where one `kbidx search` spends its time, as one line
//! on stderr (docs/benchmarks.md). Phases run on two threads, so they need
//! not add up to the wall time, which the line gives too. Off, a phase costs
//! one check of a flag read once.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The phases recorded so far, in the order first seen, with their summed time.
static PHASES: Mutex<Vec<(&'static str, Duration)>> = Mutex::new(Vec::new());

/// Whether `KBIDX_TIMINGS` is set to something other than empty or `0`.
pub(crate) fn on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("KBIDX_TIMINGS").is_some_and(|v| !v.is_empty() && v != "0"))
}

/// Runs `f`, adding its wall time to `phase` when timings are on.
pub(crate) fn time<T>(phase: &'static str, f: impl FnOnce() -> T) -> T {
    if !on() {
        return f();
    }
    let start = Instant::now();
    let value = f();
    record(phase, start.elapsed());
    value
}

fn record(phase: &'static str, took: Duration) {
    let mut phases = PHASES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match phases.iter_mut().find(|(p, _)| *p == phase) {
        Some((_, total)) => *total += took,
        None => phases.push((phase, took)),
    }
}

/// The recorded phases and the wall time since `start` as one line (and
/// forgets them), or `None` when timings are off.
pub(crate) fn line(start: Instant) -> Option<String> {
    if !on() {
        return None;
    }
    let mut phases = PHASES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut line = format!("kbidx timings (ms): total {:.3}", ms(start.elapsed()));
    for (phase, took) in phases.drain(..) {
        line.push_str(&format!(", {phase} {:.3}", ms(took)));
    }
    Some(line)
}
