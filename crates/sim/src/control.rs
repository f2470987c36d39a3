//! Watching and stopping a run from another thread: the Python side shows a
//! progress bar and turns Ctrl-C into a clean stop while the engine runs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

#[derive(Debug, Default)]
pub struct RunControl {
    cancelled: AtomicBool,
    customers: AtomicU64,
}

impl RunControl {
    /// Asks every replication to stop at its next check.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Customers completed so far, warm-up included, over all replications.
    pub fn customers(&self) -> u64 {
        self.customers.load(Ordering::Relaxed)
    }

    pub(crate) fn add_customers(&self, n: u64) {
        self.customers.fetch_add(n, Ordering::Relaxed);
    }
}
