//! Per-thread caches, one set per model: the chunk caches (raw text between
//! whitespace to ids, `chunk`) and, behind them, the word cache (normalized
//! words to their WordPiece pieces, `word`), which a new chunk's words
//! usually hit. The caches belong to one model (by id) and are emptied when
//! another model uses the thread.

pub mod chunk;
pub mod table;
pub mod word;

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

pub use chunk::{ChunkCache, ChunkHit, MAX_CHUNK, MAX_LONG_CHUNK};
pub use table::prefetch_address;
pub use word::{Key, WordCache, MAX_WORD};

static NEXT_MODEL_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh id for a model whose cached results may differ from any other's.
pub fn new_model_id() -> u64 {
    NEXT_MODEL_ID.fetch_add(1, Ordering::Relaxed)
}

/// Both caches of one thread, for one model.
pub struct Caches {
    model: u64,
    pub words: WordCache,
    /// Chunks of up to 15 bytes (almost all).
    pub chunks: ChunkCache<2>,
    /// Chunks of 16 to 31 bytes.
    pub long_chunks: ChunkCache<4>,
}

thread_local! {
    static CACHE: RefCell<Option<Caches>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's caches for `model`.
pub fn with_cache<T>(model: u64, f: impl FnOnce(&mut Caches) -> T) -> T {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        match c.as_mut() {
            Some(cache) if cache.model == model => {}
            Some(cache) => {
                cache.model = model;
                cache.words.table.clear();
                cache.chunks.clear();
                cache.long_chunks.clear();
            }
            None => {
                *c = Some(Caches {
                    model,
                    words: WordCache::new(),
                    // 32 + 16 MiB at most. Twice that was slower on a first
                    // pass over en 103 MB (65 against 72 MB/s, one thread):
                    // fresh pages cost more than the extra hits gained.
                    chunks: ChunkCache::new(MAX_CHUNK, 1 << 20),
                    long_chunks: ChunkCache::new(MAX_LONG_CHUNK, 1 << 18),
                })
            }
        }
        f(c.as_mut().unwrap_or_else(|| unreachable!()))
    })
}
