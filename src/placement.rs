//! Where helper threads start: not on the CPU of the thread that spawns them.
//!
//! Linux often queues a new thread on its parent's CPU. On a small VM the
//! CPU next door may then stay idle for a whole scheduler tick (4 ms at
//! HZ=250) while the two threads take turns on one: `perf sched` showed it
//! in about a third of the `kbidx build` runs on nabledge-6-large, which
//! then took 21-25 ms instead of 15-17. [`Cpus::move_off_caller`] lets a
//! new thread run only on the process's other CPUs, so the kernel puts it
//! there at once, and [`Cpus::restore_here`], called by that thread once it
//! runs, gives it back every CPU, so it is never pinned for longer than its
//! start. Off Linux, or when a call fails, nothing changes.

/// A set of CPUs a thread may run on.
#[derive(Clone, Copy)]
pub struct Cpus {
    #[cfg(target_os = "linux")]
    set: libc::cpu_set_t,
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
impl Cpus {
    /// The CPUs the calling thread may run on (`None` if unknown).
    pub fn of_this_thread() -> Option<Self> {
        // SAFETY: fills a zeroed `cpu_set_t` of the size passed.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            (libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &raw mut set) == 0)
                .then_some(Self { set })
        }
    }

    /// Lets `thread` run only on these CPUs minus the one the calling
    /// thread is on now; does nothing if that leaves none.
    pub fn move_off_caller<T>(&self, thread: &std::thread::JoinHandle<T>) {
        use std::os::unix::thread::JoinHandleExt as _;
        // SAFETY: `thread` is not joined (we borrow its handle), so its
        // pthread_t is valid; the set is a copy of ours.
        unsafe {
            let Ok(here) = usize::try_from(libc::sched_getcpu()) else {
                return;
            };
            let mut others = self.set;
            libc::CPU_CLR(here, &mut others);
            if libc::CPU_COUNT(&others) > 0 {
                libc::pthread_setaffinity_np(
                    thread.as_pthread_t(),
                    size_of::<libc::cpu_set_t>(),
                    &raw const others,
                );
            }
        }
    }

    /// Lets the calling thread run on all of these CPUs (again).
    pub fn restore_here(&self) {
        // SAFETY: sets the calling thread's own CPU set from a valid one.
        unsafe {
            libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &raw const self.set);
        }
    }
}

#[cfg(not(target_os = "linux"))]
impl Cpus {
    /// No placement off Linux.
    pub fn of_this_thread() -> Option<Self> {
        None
    }

    /// No placement off Linux.
    pub fn move_off_caller<T>(&self, _thread: &std::thread::JoinHandle<T>) {}

    /// No placement off Linux.
    pub fn restore_here(&self) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[allow(unsafe_code)]
    fn count() -> usize {
        let cpus = Cpus::of_this_thread().expect("sched_getaffinity");
        // SAFETY: reads a valid set.
        usize::try_from(unsafe { libc::CPU_COUNT(&cpus.set) }).unwrap_or(0)
    }

    /// A moved thread may use one CPU fewer (when there are two or more),
    /// and all of them again after `restore_here`.
    #[test]
    fn a_moved_thread_leaves_the_callers_cpu_until_it_restores() {
        let cpus = Cpus::of_this_thread().expect("sched_getaffinity");
        let all = count();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let helper = std::thread::spawn(move || {
            wait.recv().expect("go");
            let moved = count();
            cpus.restore_here();
            (moved, count())
        });
        cpus.move_off_caller(&helper);
        go.send(()).expect("send");
        let (moved, restored) = helper.join().expect("helper");
        assert_eq!(moved, if all >= 2 { all - 1 } else { all });
        assert_eq!(restored, all);
    }
}
