//! The thread pool all parallel work runs on.
//!
//! Rayon's global pool does not survive `fork()`: a child process would wait
//! forever on workers that no longer exist. Pools here are keyed by process
//! id, so a forked child builds its own on first use.

use std::sync::{Arc, Mutex};

use rayon::{ThreadPool, ThreadPoolBuilder};

type Pools = Vec<(u32, Option<usize>, Arc<ThreadPool>)>;

static POOLS: Mutex<Pools> = Mutex::new(Vec::new());

/// The pool with `threads` workers (None: `RAYON_NUM_THREADS`, else one per core).
pub fn pool(threads: Option<usize>) -> Arc<ThreadPool> {
    let pid = std::process::id();
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    // Pools of a parent process have no workers here: leak them, never join them.
    for stale in pools.extract_if(.., |(p, _, _)| *p != pid) {
        std::mem::forget(stale);
    }
    if let Some((_, _, pool)) = pools.iter().find(|(_, n, _)| *n == threads) {
        return Arc::clone(pool);
    }
    let mut builder = ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n.max(1));
    }
    let pool = Arc::new(
        builder
            .build()
            .or_else(|_| ThreadPoolBuilder::new().num_threads(1).build())
            .expect("a one-thread pool can always be built"),
    );
    pools.push((pid, threads, Arc::clone(&pool)));
    pool
}

/// Runs `f` inside the pool for `threads`.
pub fn install<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> T {
    pool(threads).install(f)
}
