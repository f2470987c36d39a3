//! What a replication measures and when: the warm-up, the stop, the
//! per-class figures, and progress and cancellation through the run's control.
//! It answers what a completion or a clock event means (the warm-up is over,
//! the run is done); the simulation acts on it.

use brewput_measure::control::Control;

use crate::asked::Asked;
use crate::error::SimError;
use crate::giving_up::{LossReason, LOSS_REASONS};
use crate::progress::Customers;
use crate::settings::{RunSettings, Stop, Warmup};
use crate::stats::{ClassStats, TimeRecorder};

/// Events between looks at the run's control (progress, cancellation): rare
/// enough to cost nothing, frequent enough to answer Ctrl-C at once.
const EVENTS_PER_CHECK: u64 = 1 << 16;

/// How measurement starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WarmupPlan {
    /// No warm-up: measure from the start.
    None,
    /// Measure from this time on.
    Until(f64),
    /// Measure once enough customers completed.
    Customers,
}

/// What a customer's completion means for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Milestone {
    Nothing,
    WarmupOver,
    Done,
}

#[derive(Debug, Default)]
struct ClassMeasures {
    completed: u64,
    offered: u64,
    lost: u64,
    lost_by: [u64; LOSS_REASONS.len()],
    /// One per measure of the class, between two of its marks.
    measures: Vec<TimeRecorder>,
    response: TimeRecorder,
    waiting: TimeRecorder,
}

#[derive(Debug)]
pub struct Measurement {
    stop: Stop,
    warmup: Warmup,
    /// Hand the response-time histograms back with the figures.
    keep_distribution: bool,
    measuring: bool,
    start: f64,
    /// Customers completed during warm-up, then after it.
    completed: u64,
    /// Customers completed in all, warm-up included, and how many of them the
    /// run's control has been told about.
    completed_in_all: u64,
    reported: u64,
    events: u64,
    classes: Vec<ClassMeasures>,
    /// Read only when the replication is over, for its summaries.
    asked: Asked,
}

impl Measurement {
    /// `measures`: how many measures each class has.
    pub fn new(settings: &RunSettings, measures: impl Iterator<Item = usize>) -> Self {
        Measurement {
            stop: settings.stop,
            warmup: settings.warmup,
            keep_distribution: settings.distribution,
            asked: settings.asked.clone(),
            measuring: false,
            start: 0.0,
            completed: 0,
            completed_in_all: 0,
            reported: 0,
            events: 0,
            classes: measures
                .map(|n| ClassMeasures { measures: vec![TimeRecorder::default(); n], ..ClassMeasures::default() })
                .collect(),
        }
    }

    pub fn warmup_plan(&self) -> WarmupPlan {
        match self.warmup {
            Warmup::Customers { count: 0 } => WarmupPlan::None,
            Warmup::Time { time } if time <= 0.0 => WarmupPlan::None,
            Warmup::Time { time } => WarmupPlan::Until(time),
            Warmup::Customers { .. } => WarmupPlan::Customers,
        }
    }

    /// Whether the run stops at a horizon (else by its completed customers).
    pub fn stops_by_time(&self) -> bool {
        matches!(self.stop, Stop::Horizon { .. })
    }

    #[inline]
    pub fn measuring(&self) -> bool {
        self.measuring
    }

    /// Forgets the warm-up: figures start at `now`. Returns when the run
    /// ends, if it stops by time.
    pub fn begin(&mut self, now: f64) -> Option<f64> {
        self.measuring = true;
        self.start = now;
        self.completed = 0;
        for c in &mut self.classes {
            c.completed = 0;
            c.offered = 0;
            c.lost = 0;
            c.lost_by = [0; LOSS_REASONS.len()];
            c.response.restart();
            c.measures.iter_mut().for_each(TimeRecorder::restart);
            c.waiting.restart();
        }
        match self.stop {
            Stop::Horizon { time } => Some(now + time),
            Stop::Customers { .. } => None,
        }
    }

    /// A customer of `class` arrived, and was let in or lost because the
    /// first station was full.
    #[inline]
    pub fn offered(&mut self, class: u32, admitted: bool) {
        if self.measuring {
            let c = &mut self.classes[class as usize];
            c.offered += 1;
            c.lost += u64::from(!admitted);
            c.lost_by[LossReason::Full as usize] += u64::from(!admitted);
        }
    }

    /// A customer of `class` let in earlier left without completing.
    #[inline]
    pub fn gave_up(&mut self, class: u32, reason: LossReason) {
        if self.measuring {
            let c = &mut self.classes[class as usize];
            c.lost += 1;
            c.lost_by[reason as usize] += 1;
        }
    }

    /// A customer of `class` leaves the system after `response`, of which it
    /// `waited` in queues.
    #[inline]
    pub fn completed(&mut self, class: u32, response: f64, waited: f64) -> Milestone {
        if self.measuring {
            let c = &mut self.classes[class as usize];
            c.completed += 1;
            c.response.record(response);
            c.waiting.record(waited);
        }
        self.completed += 1;
        self.completed_in_all += 1;
        match (self.measuring, self.warmup, self.stop) {
            (false, Warmup::Customers { count }, _) if self.completed >= count => Milestone::WarmupOver,
            (true, _, Stop::Customers { count }) if self.completed >= count => Milestone::Done,
            _ => Milestone::Nothing,
        }
    }

    /// A customer of `class` took `time` between the two marks of measure `measure`.
    #[inline]
    pub fn measured(&mut self, class: u32, measure: usize, time: f64) {
        if self.measuring {
            self.classes[class as usize].measures[measure].record(time);
        }
    }

    /// Counts an event; every `EVENTS_PER_CHECK` events, reports progress and
    /// looks for cancellation.
    #[inline]
    pub fn event(&mut self, control: &Control<Customers>) -> Result<(), SimError> {
        self.events += 1;
        if self.events.is_multiple_of(EVENTS_PER_CHECK) { self.report(control) } else { Ok(()) }
    }

    pub fn report(&mut self, control: &Control<Customers>) -> Result<(), SimError> {
        control.progress().add(self.completed_in_all - self.reported);
        self.reported = self.completed_in_all;
        if control.is_cancelled() {
            return Err(SimError::Cancelled);
        }
        Ok(())
    }

    /// The arrivals offered, customers completed and customers lost of
    /// `class` so far (intervals.rs tells intervals apart by these).
    pub fn running_counts(&self, class: usize) -> [u64; 3] {
        let c = &self.classes[class];
        [c.offered, c.completed, c.lost]
    }

    /// Model time measured until `now`.
    pub fn duration(&self, now: f64) -> f64 {
        now - self.start
    }

    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn class_stats(&self) -> Vec<ClassStats> {
        self.classes
            .iter()
            .map(|c| ClassStats {
                completed: c.completed,
                offered: c.offered,
                lost: c.lost,
                lost_by: c.lost_by,
                measures: c.measures.iter().map(|m| m.summary(&self.asked)).collect(),
                measure_counts: c.measures.iter().map(|m| m.histogram().total()).collect(),
                response: c.response.summary(&self.asked),
                waiting: c.waiting.summary(&self.asked),
                response_histogram: self.keep_distribution.then(|| c.response.histogram().clone()),
            })
            .collect()
    }
}
