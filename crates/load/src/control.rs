//! A run's shared state with whoever watches it: a stop flag (Ctrl-C, or the
//! end of `--for`), the recorder the connections write into, and the
//! requests in flight.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use serde::Serialize;

use crate::record::Recorder;

pub struct LoadControl {
    stopped: AtomicBool,
    pub(crate) in_flight: AtomicU64,
    recorder: Mutex<Recorder>,
    started: Mutex<Option<Instant>>,
}

impl Default for LoadControl {
    fn default() -> Self {
        LoadControl {
            stopped: AtomicBool::new(false),
            in_flight: AtomicU64::new(0),
            recorder: Mutex::new(Recorder::default()),
            started: Mutex::new(None),
        }
    }
}

/// What the live view shows.
#[derive(Debug, Serialize)]
pub struct Progress {
    pub elapsed_seconds: f64,
    pub sent: u64,
    pub answered: u64,
    pub in_flight: u64,
    pub response_p50: f64,
    pub response_p99: f64,
}

impl LoadControl {
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }

    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    pub(crate) fn recorder(&self) -> MutexGuard<'_, Recorder> {
        // A panic while recording leaves counts that are still counts.
        self.recorder.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn start(&self, at: Instant) {
        *self.started.lock().unwrap_or_else(|e| e.into_inner()) = Some(at);
    }

    pub fn progress(&self) -> Progress {
        let started = *self.started.lock().unwrap_or_else(|e| e.into_inner());
        let (sent, answered, p50, p99) = self.recorder().progress();
        Progress {
            elapsed_seconds: started.map_or(0.0, |s| s.elapsed().as_secs_f64()),
            sent,
            answered,
            in_flight: self.in_flight.load(Ordering::Relaxed),
            response_p50: p50,
            response_p99: p99,
        }
    }
}
