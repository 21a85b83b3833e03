//! Stopping long calls early and seeing how far they are: the caller (on
//! Ctrl-C) raises a flag that the work polls between small units (a
//! document, a block, a merge), so a call ends within milliseconds of being
//! told and leaves nothing half-built; work that knows its progress reports
//! it here, where the caller reads it when it likes.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::{Error, Result};

#[derive(Debug, Default)]
pub struct Cancel {
    stop: AtomicBool,
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Cancel {
    /// A flag nobody raises, for calls that are never interrupted.
    pub fn never() -> &'static Cancel {
        static NEVER: Cancel = Cancel::new();
        &NEVER
    }

    pub const fn new() -> Self {
        Self {
            stop: AtomicBool::new(false),
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
        }
    }

    /// Tells the work to stop.
    pub fn cancel(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// `Err(Error::Interrupted)` once the work has been told to stop.
    pub fn check(&self) -> Result<()> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    /// Records how far the work is (`done` steps, and a size it gives with
    /// them, such as the vocab so far), then [`Cancel::check`]s.
    pub fn report(&self, done: usize, total: usize) -> Result<()> {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(done, Ordering::Release);
        self.check()
    }

    /// The last `(done, total)` reported.
    pub fn progress(&self) -> (usize, usize) {
        let done = self.done.load(Ordering::Acquire);
        (done, self.total.load(Ordering::Relaxed))
    }
}
