//! What a load run shows whoever watches it, through its control
//! (`brewput_measure::control`): the latest figures for the live view. The
//! generator keeps its histograms to itself (no lock per request) and posts
//! the figures here a few times a second.

use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use brewput_measure::control::Progress;
use serde::Serialize;

/// The figures the generator last posted, and when its run started.
#[derive(Default)]
pub struct LiveFigures {
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
pub struct LiveView {
    pub elapsed_seconds: f64,
    pub sent: u64,
    pub answered: u64,
    pub in_flight: u64,
    pub response_p50: f64,
    pub response_p99: f64,
}

impl LiveFigures {
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
}

impl Progress for LiveFigures {
    type Shown = LiveView;

    fn shown(&self) -> LiveView {
        let Posted { started, figures } = *self.posted();
        LiveView {
            elapsed_seconds: started.map_or(0.0, |s| s.elapsed().as_secs_f64()),
            sent: figures.sent,
            answered: figures.answered,
            in_flight: figures.in_flight,
            response_p50: figures.response_p50,
            response_p99: figures.response_p99,
        }
    }
}
