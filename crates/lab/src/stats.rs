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

    /// Mean, max and `percentiles`; with `distribution`, the rows of an .hgrm file too.
    pub fn summary(&self, percentiles: &[f64], distribution: bool) -> Times {
        let empty = self.0.is_empty();
        let us = |ns: f64| if empty { None } else { Some(ns / 1e3) };
        Times {
            count: self.0.len(),
            mean_us: us(self.0.mean()),
            max_us: us(self.0.max() as f64),
            percentiles: percentiles.iter().map(|&p| (p, us(self.0.value_at_quantile(p / 100.0) as f64))).collect(),
            distribution: (distribution && !empty).then(|| self.distribution()),
        }
    }

    /// HdrHistogram's percentile distribution of what was recorded, in microseconds.
    fn distribution(&self) -> Distribution {
        let mut total = 0;
        let rows = self
            .0
            .iter_quantiles(TICKS_PER_HALF_DISTANCE)
            .map(|step| {
                total += step.count_since_last_iteration();
                (step.value_iterated_to() as f64 / 1e3, step.quantile_iterated_to(), total)
            })
            .collect();
        Distribution {
            rows,
            mean: self.0.mean() / 1e3,
            std_deviation: self.0.stdev() / 1e3,
            max: self.0.max() as f64 / 1e3,
            total_count: self.0.len(),
            buckets: self.0.buckets() as usize,
            sub_buckets: (2 * 10usize.pow(u32::from(self.0.sigfig()))).next_power_of_two(),
        }
    }
}

/// Reporting points per halving of the distance to 100 %: the .hgrm format
/// as wrk2 prints it (the simulator's distributions use the same).
const TICKS_PER_HALF_DISTANCE: u32 = 5;

/// The rows of an .hgrm file, as python/brewput/report/hgrm.py lays them out:
/// `(value, quantile, values up to it)` with HdrHistogram's footer figures.
#[derive(Debug, Clone, Serialize)]
pub struct Distribution {
    pub rows: Vec<(f64, f64, u64)>,
    pub mean: f64,
    pub std_deviation: f64,
    pub max: f64,
    pub total_count: u64,
    pub buckets: usize,
    pub sub_buckets: usize,
}

/// A finished distribution, in microseconds (`None` when nothing was recorded).
#[derive(Debug, Clone, Serialize)]
pub struct Times {
    pub count: u64,
    pub mean_us: Option<f64>,
    pub max_us: Option<f64>,
    pub percentiles: Vec<(f64, Option<f64>)>,
    /// Asked for: the percentile distribution (.hgrm rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
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
        let t = r.summary(&[50.0, 99.0], false);
        assert_eq!(t.count, 1000);
        // Three significant digits: within 0.1 % (values near 1 ms land in 1 us buckets).
        assert!((t.mean_us.unwrap() - 500.5).abs() < 0.5e-3 * 1000.0, "{:?}", t.mean_us);
        assert!((t.percentiles[0].1.unwrap() - 500.0).abs() <= 0.5);
        assert!((t.percentiles[1].1.unwrap() - 990.0).abs() <= 1.0);
        assert!((t.max_us.unwrap() - 1000.0).abs() <= 1.0);
        assert_eq!(Recorder::default().summary(&[50.0], false).mean_us, None);
    }

    #[test]
    fn the_distribution_agrees_with_the_summary_at_its_percentiles() {
        let mut r = Recorder::default();
        for us in 1..=1000u64 {
            r.record(Duration::from_micros(us));
        }
        let t = r.summary(&[50.0, 99.0], true);
        let d = t.distribution.unwrap();
        // p50 is a reporting level; p99 falls between two, and so does its value.
        let (p50, p99) = (t.percentiles[0].1.unwrap(), t.percentiles[1].1.unwrap());
        assert_eq!(d.rows.iter().find(|row| (row.1 - 0.5).abs() < 1e-9).unwrap().0, p50, "{:?}", d.rows);
        let above = d.rows.iter().position(|row| row.1 >= 0.99).unwrap();
        assert!(d.rows[above - 1].0 <= p99 && p99 <= d.rows[above].0, "{:?}", d.rows);
        assert_eq!(d.rows.first().unwrap().1, 0.0);
        // The last row: every value, up to the largest (to three significant digits).
        let last = *d.rows.last().unwrap();
        assert_eq!((last.1, last.2), (1.0, 1000));
        assert!((last.0 - 1000.0).abs() <= 1.0, "{last:?}");
        assert!(d.rows.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1 && w[0].2 <= w[1].2));
        assert_eq!((d.total_count, d.sub_buckets), (1000, 2048));
        assert!(Recorder::default().summary(&[50.0], true).distribution.is_none());
    }
}
