//! The per-thread word cache (normalized words to their WordPiece pieces,
//! `word`), one per model: it starts as the model's seed (every vocabulary
//! token as a word) and belongs to one model (by id); it is reset to the
//! other model's seed when another model uses the thread.

pub mod table;
pub mod word;

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

pub use table::prefetch_address;
pub use word::{Key, WordCache, MAX_WORD};

static NEXT_MODEL_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh id for a model whose cached results may differ from any other's.
pub fn new_model_id() -> u64 {
    NEXT_MODEL_ID.fetch_add(1, Ordering::Relaxed)
}

/// The cache of one thread, for one model.
pub struct Caches {
    model: u64,
    pub words: WordCache,
}

thread_local! {
    static CACHE: RefCell<Option<Caches>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's caches for `model`, which start as `seed`.
pub fn with_cache<T>(model: u64, seed: &WordCache, f: impl FnOnce(&mut Caches) -> T) -> T {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        match c.as_mut() {
            Some(cache) if cache.model == model => {}
            Some(cache) => {
                cache.model = model;
                cache.words = seed.clone();
            }
            None => {
                *c = Some(Caches {
                    model,
                    words: seed.clone(),
                })
            }
        }
        f(c.as_mut().unwrap_or_else(|| unreachable!()))
    })
}
