//! The thread pools all parallel work runs on.
//!
//! Rayon's global pool does not survive `fork()`: a child process would wait
//! forever on workers that no longer exist. Pools here are keyed by process
//! id, so a forked child builds its own on first use. Each thread count asked
//! for gets its own pool; only the few used last are kept, so a caller that
//! tries many counts does not pile up idle threads.

use std::sync::{Arc, Mutex};

use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::error::{Error, Result};

/// More workers than this is a mistake, not a setting: each is an OS thread.
pub const MAX_THREADS: usize = 1024;

/// Pools kept for reuse (most recently used last).
const KEPT: usize = 4;

type Pools = Vec<(u32, Option<usize>, Arc<ThreadPool>)>;

static POOLS: Mutex<Pools> = Mutex::new(Vec::new());

/// Checks a thread count asked for by a caller.
pub fn check_threads(threads: Option<usize>) -> Result<()> {
    match threads {
        Some(n) if n == 0 || n > MAX_THREADS => Err(Error::Value(format!(
            "num_threads must be from 1 to {MAX_THREADS}, got {n}"
        ))),
        _ => Ok(()),
    }
}

/// The pool with `threads` workers (None: `RAYON_NUM_THREADS`, else one per core).
pub fn pool(threads: Option<usize>) -> Result<Arc<ThreadPool>> {
    check_threads(threads)?;
    let pid = std::process::id();
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    // Pools of a parent process have no workers here: leak them, never join them.
    for stale in pools.extract_if(.., |(p, _, _)| *p != pid) {
        std::mem::forget(stale);
    }
    if let Some(k) = pools.iter().position(|(_, n, _)| *n == threads) {
        let entry = pools.remove(k);
        let pool = Arc::clone(&entry.2);
        pools.push(entry);
        return Ok(pool);
    }
    let mut builder = ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    let pool = Arc::new(builder.build().map_err(|e| {
        Error::Io(format!(
            "cannot start {} worker threads: {e}",
            threads.map_or_else(|| "the".to_owned(), |n| n.to_string())
        ))
    })?);
    pools.push((pid, threads, Arc::clone(&pool)));
    if pools.len() > KEPT {
        // Its workers exit once the calls still running on it (if any) return.
        pools.remove(0);
    }
    Ok(pool)
}

/// Runs `f` inside the pool for `threads`.
pub fn install<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    Ok(pool(threads)?.install(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_thread_counts_are_refused() {
        assert!(install(Some(0), || ()).is_err());
        assert!(install(Some(MAX_THREADS + 1), || ()).is_err());
        assert_eq!(install(Some(2), rayon::current_num_threads).unwrap(), 2);
    }

    #[test]
    fn only_a_few_pools_are_kept() {
        for n in 1..=12 {
            assert_eq!(install(Some(n), rayon::current_num_threads).unwrap(), n);
        }
        let pools = POOLS.lock().unwrap();
        assert!(pools.len() <= KEPT);
    }
}
