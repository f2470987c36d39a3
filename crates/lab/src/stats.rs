//! The lab's latencies: recorded in nanoseconds by the measuring core
//! (brewput_measure::latency), reported in microseconds, the unit the lab's
//! reports carry to Python, as mean, max, the percentiles the caller asks for
//! and, asked for, the .hgrm rows.

use std::time::Instant;

use brewput_measure::latency::{Distribution, Latency};
use serde::Serialize;

/// Nanoseconds to the reports' microseconds.
fn us(ns: f64) -> f64 {
    ns / 1e3
}

/// A finished distribution, in microseconds (`None` when nothing was recorded).
#[derive(Debug, Clone, Serialize)]
pub struct Times {
    pub count: u64,
    pub mean_us: Option<f64>,
    pub max_us: Option<f64>,
    pub percentiles: Vec<(f64, Option<f64>)>,
    /// Asked for: the percentile distribution (.hgrm rows), in microseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
}

impl Times {
    /// Mean, max and `percentiles`, in the order asked; with `distribution`, the rows of an .hgrm file too.
    pub fn of(latency: &Latency, percentiles: &[f64], distribution: bool) -> Times {
        Times {
            count: latency.count(),
            mean_us: latency.mean_ns().map(us),
            max_us: latency.max_ns().map(us),
            percentiles: percentiles.iter().map(|&p| (p, latency.at(p).map(us))).collect(),
            distribution: distribution.then(|| latency.distribution().map(|d| d.per(us))).flatten(),
        }
    }
}

/// The three latencies of one request: from its intended start (when the
/// customer meant to order: queueing for the harness included, so a stalled
/// system cannot hide behind its own slowness), from the start of service,
/// and the wait between the two.
#[derive(Default)]
pub struct Latencies {
    pub response: Latency,
    pub service: Latency,
    pub waiting: Latency,
}

impl Latencies {
    pub fn record(&mut self, intended: Instant, started: Instant, ended: Instant) {
        self.response.record_duration(ended - intended);
        self.service.record_duration(ended - started);
        self.waiting.record_duration(started - intended);
    }

    pub fn merge(&mut self, other: &Latencies) {
        self.response.merge(&other.response);
        self.service.merge(&other.service);
        self.waiting.merge(&other.waiting);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_are_in_microseconds_in_the_order_asked() {
        let mut r = Latency::default();
        (1..=1000u64).for_each(|i| r.record_duration(Duration::from_nanos(1300 * i)));
        let t = Times::of(&r, &[99.0, 50.0], true);
        assert_eq!(t.count, 1000);
        assert!((t.mean_us.unwrap() - 650.65).abs() < 1e-9, "the mean is exact: {:?}", t.mean_us);
        assert_eq!(t.max_us, r.max_ns().map(|ns| ns / 1e3));
        assert_eq!(t.percentiles, [(99.0, r.at(99.0).map(|ns| ns / 1e3)), (50.0, r.at(50.0).map(|ns| ns / 1e3))]);
        assert!((t.percentiles[1].1.unwrap() - 650.0).abs() <= 650.0 * 1e-3);
        let d = t.distribution.unwrap();
        assert_eq!(d.rows.last().unwrap(), &(t.max_us.unwrap(), 1.0, 1000));
        assert!(Times::of(&r, &[50.0], false).distribution.is_none());
        let empty = Times::of(&Latency::default(), &[50.0], true);
        assert_eq!((empty.count, empty.mean_us, empty.max_us, empty.percentiles), (0, None, None, vec![(50.0, None)]));
        assert!(empty.distribution.is_none());
    }
}
