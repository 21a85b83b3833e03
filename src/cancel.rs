//! Stopping long calls early: the caller (on Ctrl-C) raises a flag that the
//! work polls between small units (a document, a block, a merge), so a call
//! ends within milliseconds of being told and leaves nothing half-built.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};

#[derive(Debug, Default)]
pub struct Cancel(AtomicBool);

impl Cancel {
    /// A flag nobody raises, for calls that are never interrupted.
    pub fn never() -> &'static Cancel {
        static NEVER: Cancel = Cancel::new();
        &NEVER
    }

    pub const fn new() -> Self {
        Self(AtomicBool::new(false))
    }

    /// Tells the work to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// `Err(Error::Interrupted)` once the work has been told to stop.
    pub fn check(&self) -> Result<()> {
        if self.0.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        Ok(())
    }
}
