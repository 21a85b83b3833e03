//! The thread pools all parallel work runs on.
//!
//! Rayon's global pool does not survive `fork()`: a child process would wait
//! forever on workers that no longer exist. So each process has a registry
//! of its own pools, and a forked child starts a new one on first use. It
//! never touches its parent's: another thread of the parent may have held
//! that registry's lock at the fork, and no thread of the child would ever
//! release it. Each thread count asked for gets its own pool; only the few
//! used last are kept, so a caller that tries many counts does not pile up
//! idle threads.

use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Mutex};

use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::error::{Error, Result};

/// More workers than this is a mistake, not a setting: each is an OS thread.
pub const MAX_THREADS: usize = 1024;

/// Pools kept for reuse (most recently used last).
const KEPT: usize = 4;

/// One process's pools, by thread count asked for.
struct Registry {
    pid: u32,
    pools: Mutex<Vec<(Option<usize>, Arc<ThreadPool>)>>,
}

/// The registry of the process that made it last. Registries are leaked,
/// never freed: a parent's, seen by its child, holds pools without workers
/// (which must not be joined) and maybe a lock held for good.
static REGISTRY: AtomicPtr<Registry> = AtomicPtr::new(std::ptr::null_mut());

/// This process's registry, made on first use.
fn registry() -> &'static Registry {
    let pid = std::process::id();
    loop {
        let current = REGISTRY.load(Ordering::Acquire);
        // SAFETY: a non-null pointer here came from `Box::into_raw` below
        // and is never freed.
        if let Some(r) = unsafe { current.as_ref() } {
            if r.pid == pid {
                return r;
            }
        }
        let fresh = Box::into_raw(Box::new(Registry {
            pid,
            pools: Mutex::new(Vec::new()),
        }));
        match REGISTRY.compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire) {
            // SAFETY: just made, and never freed from now on.
            Ok(_) => return unsafe { &*fresh },
            // Another thread of this process made one first: use it.
            // SAFETY: `fresh` was never shared.
            Err(_) => drop(unsafe { Box::from_raw(fresh) }),
        }
    }
}

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
    let registry = registry();
    let mut pools = registry.pools.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = pools.iter().position(|(n, _)| *n == threads) {
        let entry = pools.remove(k);
        let pool = Arc::clone(&entry.1);
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
    pools.push((threads, Arc::clone(&pool)));
    if pools.len() > KEPT {
        // Its workers exit once the calls still running on it (if any) return.
        pools.remove(0);
    }
    Ok(pool)
}

thread_local! {
    /// Set while this thread runs work inline (`inline`).
    static INLINE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` on this thread alone: the work it calls sees one thread and
/// uses no pool ([`serial_here`]), whatever pool this thread belongs to.
/// For a call's small work, which a pool's handoff would cost more than.
pub fn inline<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            INLINE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(INLINE.with(|c| c.replace(true)));
    f()
}

/// Whether the work running here must stay on this thread (inside
/// [`inline`]): then it iterates where it would use a pool.
pub fn serial_here() -> bool {
    INLINE.with(std::cell::Cell::get)
}

/// The threads the work running here may use: 1 inline, else its pool's
/// (rayon's global pool off any pool, as for a Rust caller).
pub fn threads_here() -> usize {
    match serial_here() {
        true => 1,
        false => rayon::current_num_threads(),
    }
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
    fn inline_work_sees_one_thread_even_on_a_pool() {
        assert!(!serial_here());
        assert_eq!(install(Some(3), threads_here).unwrap(), 3);
        assert_eq!(install(Some(3), || inline(threads_here)).unwrap(), 1);
        assert!(inline(|| inline(serial_here)) && inline(serial_here));
        assert!(!serial_here(), "the flag goes with the call");
        let unwound = std::panic::catch_unwind(|| inline(|| panic!("in the work")));
        assert!(unwound.is_err() && !serial_here(), "and with a panic");
    }

    #[test]
    fn only_a_few_pools_are_kept() {
        for n in 1..=12 {
            assert_eq!(install(Some(n), rayon::current_num_threads).unwrap(), n);
        }
        let pools = registry().pools.lock().unwrap();
        assert!(pools.len() <= KEPT);
    }
}
