//! Work split over threads: one helper, shared by the index pass, the body
//! stage, the fallback and `pg push`, so none of them imports another for it.

/// `f` over every item, the first on this thread and each other one on its own
/// thread; results in item order.
pub(crate) fn in_parallel<I: Sync, T: Send>(items: &[I], f: impl Fn(&I) -> T + Sync) -> Vec<T> {
    match items {
        [] => Vec::new(),
        [one] => vec![f(one)],
        [first, rest @ ..] => std::thread::scope(|scope| {
            let f = &f;
            let handles: Vec<_> = rest.iter().map(|i| scope.spawn(move || f(i))).collect();
            let mut out = vec![f(first)];
            for handle in handles {
                // `f` does not panic on any input; if a thread did, re-raise it here.
                out.push(
                    handle
                        .join()
                        .unwrap_or_else(|e| std::panic::resume_unwind(e)),
                );
            }
            out
        }),
    }
}
