//! Watching and stopping a run from another thread, whichever engine runs it:
//! the Python side shows progress and turns Ctrl-C (or the end of a load's
//! `--for`) into a cancel while the engine works with the GIL released.
//!
//! The stop is the same everywhere; what progress means is each engine's own
//! (customers completed, a load's live figures, nothing for the lab), so it is
//! a type parameter: the engine reports through its own `P` with no dynamic
//! call, and the watcher reads any `P` the same way, as a [`Progress`].

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

/// A run's stop flag and its progress `P`, shared between the thread running
/// it and whoever watches it.
#[derive(Debug, Default)]
pub struct Control<P = ()> {
    cancelled: AtomicBool,
    progress: P,
}

/// What an engine reports as it goes, as its watcher sees it. `Default` is
/// the progress before the run starts: what a watcher sees until then.
pub trait Progress: Default + Send + Sync {
    /// The figures so far, as the watcher is shown them.
    type Shown: Serialize;

    fn shown(&self) -> Self::Shown;
}

/// A run that reports no progress, only stops (the lab, the demo server).
impl Progress for () {
    type Shown = ();

    fn shown(&self) {}
}

impl<P> Control<P> {
    /// Asks the run to stop at its next check; every thread of it sees it.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Checked in the engines' loops: one relaxed load, as cheap as a flag
    /// can be read across threads.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Where the engine reports its progress.
    #[inline]
    pub fn progress(&self) -> &P {
        &self.progress
    }
}

impl<P: Progress> Control<P> {
    /// The progress so far, as the watcher is shown it.
    pub fn shown(&self) -> P::Shown {
        self.progress.shown()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    use super::*;

    #[derive(Default)]
    struct Done(AtomicU64);

    impl Progress for Done {
        type Shown = u64;

        fn shown(&self) -> u64 {
            self.0.load(Ordering::Relaxed)
        }
    }

    #[test]
    fn a_cancel_from_one_thread_is_seen_by_another() {
        let control = Arc::new(Control::<()>::default());
        assert!(!control.is_cancelled());
        let watcher = Arc::clone(&control);
        std::thread::spawn(move || watcher.cancel()).join().unwrap();
        assert!(control.is_cancelled());
    }

    #[test]
    fn the_watcher_sees_what_the_engine_reports() {
        let control = Control::<Done>::default();
        assert_eq!(control.shown(), 0, "before the run: the progress's default");
        control.progress().0.fetch_add(7, Ordering::Relaxed);
        assert_eq!(control.shown(), 7);
        assert!(!control.is_cancelled(), "progress is not a stop");
    }
}
