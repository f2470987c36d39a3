//! What one replication measures: counts, exact sums, response-time histograms
//! and time-weighted averages, all restarted when the warm-up ends.

use serde::Serialize;

use crate::asked::{Answers, Asked};
pub use crate::class_at_station::ClassAtStationStats;
use crate::giving_up::LOSS_REASONS;
use crate::histogram::LogHistogram;
use crate::intervals::IntervalStats;
pub use brewput_measure::percentiles::{PERCENTILES, SPECTRUM};

/// A count that changes at events (jobs present, servers busy, tokens held),
/// averaged over time. Instead of adding level x interval at every event it
/// keeps the sum of -delta x time over the changes, since
/// integral = sum(-delta_i t_i) + level_end t_end - level_start t_start:
/// one addition per change on the engine's hottest path.
#[derive(Debug, Clone, Copy, Default)]
pub struct TimeAverage {
    changes: f64,
    start_level: f64,
    start: f64,
}

impl TimeAverage {
    #[inline]
    pub fn change(&mut self, delta: f64, now: f64) {
        self.changes -= delta * now;
    }

    /// Forgets the past: the average starts at `now`, at `level`.
    pub fn restart(&mut self, level: f64, now: f64) {
        *self = TimeAverage { changes: 0.0, start_level: level, start: now };
    }

    /// The area under the level since the restart, given the level at `now`.
    pub fn area(&self, level: f64, now: f64) -> f64 {
        self.changes + level * now - self.start_level * self.start
    }
}

/// A distribution of times: exact mean, min and max, percentiles from a
/// log-linear histogram that keeps three significant digits at every scale
/// (`histogram.rs`), in bounded memory for any run length.
#[derive(Debug, Clone, Default)]
pub struct TimeRecorder {
    histogram: LogHistogram,
    sum: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimeSummary {
    pub mean: f64,
    /// Values at `PERCENTILES`, in that order.
    pub percentiles: [f64; PERCENTILES.len()],
    /// Values at `SPECTRUM`, in that order.
    pub spectrum: [f64; SPECTRUM.len()],
    pub max: f64,
    /// What the run asked beyond the fixed list.
    pub asked: Answers,
}

impl TimeRecorder {
    #[inline]
    pub fn record(&mut self, t: f64) {
        self.histogram.record(t);
        self.sum += t;
    }

    pub fn restart(&mut self) {
        self.histogram.reset();
        self.sum = 0.0;
    }

    pub fn histogram(&self) -> &LogHistogram {
        &self.histogram
    }

    pub fn summary(&self, asked: &Asked) -> TimeSummary {
        let count = self.histogram.total();
        TimeSummary {
            mean: if count == 0 { f64::NAN } else { self.sum / count as f64 },
            percentiles: self.histogram.values_at(&PERCENTILES.map(|(_, p)| p)),
            spectrum: self.histogram.values_at(&SPECTRUM),
            max: self.histogram.max(),
            asked: asked.answers(&self.histogram),
        }
    }
}

/// One class's figures from one replication.
#[derive(Debug, Clone, Serialize)]
pub struct ClassStats {
    pub completed: u64,
    pub offered: u64,
    pub lost: u64,
    /// `lost` by reason, indexed by `LossReason`.
    pub lost_by: [u64; LOSS_REASONS.len()],
    /// Per measure of the class: the times between its marks, and how many.
    pub measures: Vec<TimeSummary>,
    pub measure_counts: Vec<u64>,
    pub response: TimeSummary,
    pub waiting: TimeSummary,
    /// The response times themselves, kept only when the run asks for their
    /// percentile distribution.
    #[serde(skip)]
    pub response_histogram: Option<LogHistogram>,
}

/// One station's time-averaged and per-departure figures from one replication.
#[derive(Debug, Clone, Serialize)]
pub struct StationStats {
    pub departures: u64,
    pub response_sum: f64,
    pub busy_area: f64,
    pub present_area: f64,
    pub waiting_area: f64,
    /// Per server type, at a typed station; empty otherwise.
    pub server_types: Vec<ServerTypeStats>,
    /// The same figures per class, indexed by class.
    pub classes: Vec<ClassAtStationStats>,
}

/// One server type's figures at a typed station.
#[derive(Debug, Clone, Serialize)]
pub struct ServerTypeStats {
    pub busy_area: f64,
    /// Services completed by servers of this type, per class.
    pub served: Vec<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ResourceStats {
    pub in_use_area: f64,
}

/// Everything one replication measured, over `duration` model time after warm-up.
#[derive(Debug, Clone, Serialize)]
pub struct ReplicationStats {
    pub duration: f64,
    pub events: u64,
    pub classes: Vec<ClassStats>,
    pub stations: Vec<StationStats>,
    pub resources: Vec<ResourceStats>,
    /// In a model with a day: the figures per reporting interval.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<IntervalStats>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_average_area_is_level_times_duration() {
        // Level 0 until 1, 2 until 4, 1 until 5: area 7.
        let mut a = TimeAverage::default();
        a.change(2.0, 1.0);
        a.change(-1.0, 4.0);
        assert_eq!(a.area(1.0, 5.0), 7.0);
        // Restarted at 5 with level 1, then 3 from 5.5 until 6: area 0.5 + 1.5.
        a.restart(1.0, 5.0);
        a.change(2.0, 5.5);
        assert_eq!(a.area(3.0, 6.0), 2.0);
    }

    #[test]
    fn percentiles_are_within_three_digits() {
        let mut r = TimeRecorder::default();
        for i in 1..=1000 {
            r.record(i as f64 * 0.01);
        }
        let s = r.summary(&Asked::default());
        assert!((s.mean - 5.005).abs() < 1e-9);
        assert_eq!(s.max, 10.0);
        for (&(_, p), &got) in PERCENTILES.iter().zip(&s.percentiles) {
            let want = (p * 10.0f64).ceil() * 0.01;
            assert!((got - want).abs() <= want * 1e-3, "p{p}: {got} vs {want}");
        }
    }

    #[test]
    fn deterministic_times_are_exact() {
        let mut r = TimeRecorder::default();
        (0..10).for_each(|_| r.record(24.0));
        assert_eq!(r.summary(&Asked::default()).percentiles, [24.0; 5]);
        assert_eq!(r.summary(&Asked::default()).spectrum, [24.0; SPECTRUM.len()]);
    }

    #[test]
    fn spectrum_follows_an_exponential_closed_form() {
        // Record the exponential(rate 0.2) quantile function on a fine grid of
        // probabilities: the p-quantile of what was recorded is -ln(1 - p) / 0.2,
        // up to the grid step and the histogram's three significant digits.
        let (n, rate) = (1_000_000, 0.2);
        let mut r = TimeRecorder::default();
        for i in 0..n {
            r.record(-(1.0 - (i as f64 + 0.5) / n as f64).ln() / rate);
        }
        let s = r.summary(&Asked::default());
        assert!(SPECTRUM.windows(2).all(|w| w[0] < w[1]), "spectrum points ascend");
        for (&p, &got) in SPECTRUM.iter().zip(&s.spectrum) {
            let q = p / 100.0;
            let want = -(1.0 - q).ln() / rate;
            // one grid step in probability moves the quantile by 1/(n rate (1-q))
            let grid = 1.0 / (n as f64 * rate * (1.0 - q));
            assert!((got - want).abs() <= want * 1e-3 + grid + 0.001, "p{p}: {got} vs {want}");
        }
        for (&(_, p), &named) in PERCENTILES.iter().zip(&s.percentiles) {
            let i = SPECTRUM.iter().position(|&q| q == p).expect("named percentile in spectrum");
            assert_eq!(s.spectrum[i], named, "the spectrum agrees with the named percentile p{p}");
        }
    }
}
