//! What a simulation reports while it runs, through its control
//! (`brewput_measure::control`): the customers completed so far, for the
//! Python side's progress bar.

use std::sync::atomic::{AtomicU64, Ordering};

use brewput_measure::control::Progress;
use serde::Serialize;

/// Customers completed so far, warm-up included, over all replications: each
/// replication adds its own every few thousand events.
#[derive(Debug, Default)]
pub struct Customers(AtomicU64);

/// What the watcher is shown.
#[derive(Debug, Serialize)]
pub struct CustomersShown {
    pub customers: u64,
}

impl Customers {
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    #[inline]
    pub(crate) fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
}

impl Progress for Customers {
    type Shown = CustomersShown;

    fn shown(&self) -> CustomersShown {
        CustomersShown { customers: self.get() }
    }
}
