//! Stopping long calls early and seeing how far they are: the caller (on
//! Ctrl-C) raises a flag that the work polls between small units (a
//! document, a block, a merge), so a call ends within milliseconds of being
//! told and leaves nothing half-built; work that knows its progress reports
//! it here, where the caller reads it when it likes.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

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

thread_local! {
    /// The flag of the call this thread works for, seen by deep loops that
    /// take no `Cancel` of their own (building a vocabulary's tables while a
    /// tokenizer loads).
    static AMBIENT: RefCell<Option<Arc<Cancel>>> = const { RefCell::new(None) };
}

/// Runs `work` with `cancel` as this thread's ambient flag (see
/// [`checkpoint`]); the flag before is back once `work` returns or unwinds.
pub fn with_ambient<T>(cancel: &Arc<Cancel>, work: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<Cancel>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            AMBIENT.with(|a| *a.borrow_mut() = prev);
        }
    }
    let _restore = Restore(AMBIENT.with(|a| a.replace(Some(Arc::clone(cancel)))));
    work()
}

/// `Err(Error::Interrupted)` once the ambient flag of this thread's call is
/// raised (never, outside [`with_ambient`]). Cheap, but a thread-local
/// read: loops call it every few thousand steps.
pub fn checkpoint() -> Result<()> {
    AMBIENT.with(|a| a.borrow().as_ref().map_or(Ok(()), |c| c.check()))
}

/// Whether this thread's call is told to stop: for loops that cannot return
/// an error (normalizing one huge word), which then end early. What they
/// leave is never seen: the call fails with `Interrupted` (its caller looks
/// at the flag when they return, and `run` drops any result of a stopped
/// call).
pub fn stopping() -> bool {
    checkpoint().is_err()
}

/// How many steps a loop takes between two [`checkpoint`]s.
pub const CHECKPOINT_STEPS: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ambient_flag_holds_inside_its_call_only() {
        let cancel = Arc::new(Cancel::new());
        cancel.cancel();
        assert!(checkpoint().is_ok());
        let inside = with_ambient(&cancel, checkpoint);
        assert!(matches!(inside, Err(Error::Interrupted)));
        assert!(checkpoint().is_ok());
        let unwound = std::panic::catch_unwind(|| with_ambient(&cancel, || panic!("x")));
        assert!(unwound.is_err() && checkpoint().is_ok());
    }
}
