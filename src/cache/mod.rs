//! The per-thread word caches (normalized words to their WordPiece pieces,
//! `word`), one per model: each starts as its model's seed (every vocabulary
//! token as a word) and belongs to one model (by its seed). A thread keeps the
//! caches of the last few models it used, so that two tokenizers used in
//! turn (a query's and a document's) do not copy their 4 MiB seed at every
//! call: that took about 100 us a call, 30 times the encoding of a short
//! text (`benches/test_bench.py -k in_turn`). A dropped model's cache goes
//! at the thread's next new model.

pub mod table;
pub mod word;

use std::cell::RefCell;
use std::sync::{Arc, Weak};

pub use table::prefetch_address;
pub use word::{Key, WordCache, MAX_WORD};

/// The cache of one thread, for one model.
pub struct Caches {
    /// The model's seed, which names the model (a `Weak` keeps its address
    /// taken while the cache lives) and is gone once the model is dropped.
    seed: Weak<WordCache>,
    pub words: WordCache,
}

/// The most models whose caches a thread keeps (4 MiB each).
pub const MODELS_PER_THREAD: usize = 4;

thread_local! {
    /// This thread's caches, the least recently used first.
    static CACHES: RefCell<Vec<Caches>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's caches for the model whose seed is `seed`
/// (each model has its own), which start as `seed`.
pub fn with_cache<T>(seed: &Arc<WordCache>, f: impl FnOnce(&mut Caches) -> T) -> T {
    CACHES.with(|c| {
        let mut caches = c.borrow_mut();
        match caches
            .iter()
            .position(|c| Weak::as_ptr(&c.seed) == Arc::as_ptr(seed))
        {
            Some(i) => caches[i..].rotate_left(1),
            None => {
                caches.retain(|c| c.seed.strong_count() > 0);
                if caches.len() == MODELS_PER_THREAD {
                    caches.remove(0);
                }
                caches.push(Caches {
                    seed: Arc::downgrade(seed),
                    words: (**seed).clone(),
                });
            }
        }
        let last = caches.len() - 1;
        f(&mut caches[last])
    })
}

/// How many models' caches this thread holds (for the tests).
pub fn models_cached_here() -> usize {
    CACHES.with(|c| c.borrow().len())
}
