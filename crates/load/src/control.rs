//! A run's shared state with whoever watches it: a stop flag (Ctrl-C, or the
//! end of `--for`) and the latest figures for the live view. The generator
//! keeps its histograms to itself (no lock per request) and posts the
//! figures here a few times a second.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use serde::Serialize;

#[derive(Default)]
pub struct LoadControl {
    stopped: AtomicBool,
    posted: Mutex<Posted>,
}

/// What the generator last posted.
#[derive(Default, Clone, Copy)]
struct Posted {
    started: Option<Instant>,
    figures: Figures,
}

/// The run's figures so far, as the generator posts them.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Figures {
    pub sent: u64,
    pub answered: u64,
    pub in_flight: u64,
    pub response_p50: f64,
    pub response_p99: f64,
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

    fn posted(&self) -> MutexGuard<'_, Posted> {
        // A panic while posting leaves figures that are still figures.
        self.posted.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn start(&self, at: Instant) {
        *self.posted() = Posted { started: Some(at), figures: Figures::default() };
    }

    pub(crate) fn post(&self, figures: Figures) {
        self.posted().figures = figures;
    }

    pub fn progress(&self) -> Progress {
        let Posted { started, figures } = *self.posted();
        Progress {
            elapsed_seconds: started.map_or(0.0, |s| s.elapsed().as_secs_f64()),
            sent: figures.sent,
            answered: figures.answered,
            in_flight: figures.in_flight,
            response_p50: figures.response_p50,
            response_p99: figures.response_p99,
        }
    }
}
