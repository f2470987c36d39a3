//! Latency distributions: HdrHistograms in nanoseconds (three significant
//! digits), summarised as mean, max and the percentiles the caller asks for.

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;

/// A latency distribution being recorded.
pub struct Recorder(Histogram<u64>);

impl Default for Recorder {
    fn default() -> Self {
        Recorder(Histogram::new(3).expect("3 significant digits is valid"))
    }
}

impl Recorder {
    pub fn record(&mut self, d: Duration) {
        // The histogram grows to fit (saturating_record would clamp to its current range).
        let ns = d.as_nanos().clamp(1, u64::MAX as u128 / 4) as u64;
        self.0.record(ns).expect("an auto-resizing histogram takes any value below u64::MAX / 2");
    }

    pub fn merge(&mut self, other: &Recorder) {
        self.0.add(&other.0).expect("auto-resizing histograms always merge");
    }

    pub fn count(&self) -> u64 {
        self.0.len()
    }

    pub fn summary(&self, percentiles: &[f64]) -> Times {
        let empty = self.0.is_empty();
        let us = |ns: f64| if empty { None } else { Some(ns / 1e3) };
        Times {
            count: self.0.len(),
            mean_us: us(self.0.mean()),
            max_us: us(self.0.max() as f64),
            percentiles: percentiles.iter().map(|&p| (p, us(self.0.value_at_quantile(p / 100.0) as f64))).collect(),
        }
    }
}

/// A finished distribution, in microseconds (`None` when nothing was recorded).
#[derive(Debug, Clone, Serialize)]
pub struct Times {
    pub count: u64,
    pub mean_us: Option<f64>,
    pub max_us: Option<f64>,
    pub percentiles: Vec<(f64, Option<f64>)>,
}

/// The three latencies of one request: from its intended start (when the
/// customer meant to order: queueing for the harness included, so a stalled
/// system cannot hide behind its own slowness), from the start of service,
/// and the wait between the two.
#[derive(Default)]
pub struct Latencies {
    pub response: Recorder,
    pub service: Recorder,
    pub waiting: Recorder,
}

impl Latencies {
    pub fn record(&mut self, intended: Instant, started: Instant, ended: Instant) {
        self.response.record(ended - intended);
        self.service.record(ended - started);
        self.waiting.record(started - intended);
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

    #[test]
    fn summaries_hold_three_significant_digits() {
        let mut r = Recorder::default();
        for us in 1..=1000u64 {
            r.record(Duration::from_micros(us));
        }
        let t = r.summary(&[50.0, 99.0]);
        assert_eq!(t.count, 1000);
        // Three significant digits: within 0.1 % (values near 1 ms land in 1 us buckets).
        assert!((t.mean_us.unwrap() - 500.5).abs() < 0.5e-3 * 1000.0, "{:?}", t.mean_us);
        assert!((t.percentiles[0].1.unwrap() - 500.0).abs() <= 0.5);
        assert!((t.percentiles[1].1.unwrap() - 990.0).abs() <= 1.0);
        assert!((t.max_us.unwrap() - 1000.0).abs() <= 1.0);
        assert_eq!(Recorder::default().summary(&[50.0]).mean_us, None);
    }
}
