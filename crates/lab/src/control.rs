//! Stopping a lab run from another thread: the Python side turns Ctrl-C into a
//! cancel, and the harness stops at its next check (every few milliseconds).

use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Default)]
pub struct LabControl {
    cancelled: AtomicBool,
}

impl LabControl {
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}
