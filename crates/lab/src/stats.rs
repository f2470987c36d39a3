//! Latency distributions in microseconds: the simulator's log-linear histogram
//! (`brewput_sim::LogHistogram`: three significant digits at any scale, never
//! outside the smallest and largest value) with an exact sum for the mean,
//! summarised as mean, max and the percentiles the caller asks for, and the
//! simulator's .hgrm rows (`PercentileDistribution`).

use std::time::{Duration, Instant};

use brewput_sim::{LogHistogram, PercentileDistribution};
use serde::Serialize;

/// A latency distribution being recorded, in microseconds.
#[derive(Default)]
pub struct Recorder {
    histogram: LogHistogram,
    /// Kept apart so the mean is exact, not the buckets' (up to 0.1 % low).
    sum_us: f64,
}

impl Recorder {
    pub fn record(&mut self, d: Duration) {
        let us = d.as_nanos() as f64 / 1e3;
        self.histogram.record(us);
        self.sum_us += us;
    }

    pub fn merge(&mut self, other: &Recorder) {
        self.histogram.merge(&other.histogram);
        self.sum_us += other.sum_us;
    }

    pub fn count(&self) -> u64 {
        self.histogram.total()
    }

    /// Mean, max and `percentiles`; with `distribution`, the rows of an .hgrm file too.
    pub fn summary(&self, percentiles: &[f64], distribution: bool) -> Times {
        let count = self.count();
        let recorded = |us: f64| (count > 0).then_some(us);
        Times {
            count,
            mean_us: recorded(self.sum_us / count as f64),
            max_us: recorded(self.histogram.max()),
            percentiles: percentiles.iter().zip(self.values_at(percentiles)).map(|(&p, us)| (p, recorded(us))).collect(),
            distribution: (distribution && count > 0).then(|| PercentileDistribution::of(&self.histogram)),
        }
    }

    /// The values at `percentiles` in the order asked; the histogram reads them ascending.
    fn values_at(&self, percentiles: &[f64]) -> Vec<f64> {
        let mut order: Vec<usize> = (0..percentiles.len()).collect();
        order.sort_by(|&a, &b| percentiles[a].total_cmp(&percentiles[b]));
        let ascending: Vec<f64> = order.iter().map(|&i| percentiles[i]).collect();
        let mut ascending_values = vec![f64::NAN; ascending.len()];
        self.histogram.write_values_at(&ascending, &mut ascending_values);
        let mut values = vec![f64::NAN; percentiles.len()];
        order.into_iter().zip(ascending_values).for_each(|(i, value)| values[i] = value);
        values
    }
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
    pub distribution: Option<PercentileDistribution>,
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
    use brewput_sim::RELATIVE_RESOLUTION;

    /// 1.3 us, 2.6 us, ... 1300 us: values that fall inside buckets, not on their edges.
    fn steps_of_1_3_us() -> Recorder {
        let mut r = Recorder::default();
        (1..=1000u64).for_each(|i| r.record(Duration::from_nanos(1300 * i)));
        r
    }

    /// `got` stands for `want`: never above it, at most the histogram's resolution below.
    fn within_resolution(got: Option<f64>, want: f64) -> bool {
        got.is_some_and(|got| got <= want && got >= want * (1.0 - RELATIVE_RESOLUTION))
    }

    #[test]
    fn summaries_hold_three_significant_digits() {
        let r = steps_of_1_3_us();
        // Asked out of order: answered in the order asked.
        let t = r.summary(&[99.0, 50.0, 1.0], false);
        assert_eq!(t.count, 1000);
        assert!((t.mean_us.unwrap() - 650.65).abs() < 1e-9, "the mean is exact: {:?}", t.mean_us);
        assert_eq!(t.max_us, Some(1300.0), "the max is exact");
        // The 990th, 500th and 10th values.
        for ((p, got), want) in t.percentiles.iter().zip([1287.0, 650.0, 13.0]) {
            assert!(within_resolution(*got, want), "p{p}: {got:?} for {want}");
        }
        let empty = Recorder::default().summary(&[50.0], false);
        assert_eq!((empty.count, empty.mean_us, empty.max_us, empty.percentiles), (0, None, None, vec![(50.0, None)]));
    }

    #[test]
    fn no_wait_is_zero_and_merging_is_recording_both() {
        let (mut waits, mut more) = (Recorder::default(), steps_of_1_3_us());
        (0..1000).for_each(|_| waits.record(Duration::ZERO));
        waits.merge(&more);
        more.merge(&waits);
        // `waits`: 1000 of none, then the steps; `more`: the steps twice, 1000 of none.
        let t = waits.summary(&[50.0, 75.0], false);
        assert_eq!(t.percentiles[0], (50.0, Some(0.0)));
        assert!(within_resolution(t.percentiles[1].1, 650.0), "{t:?}");
        let both = more.summary(&[50.0, 75.0], false);
        assert_eq!((both.count, both.max_us), (3000, Some(1300.0)));
        assert!((both.mean_us.unwrap() - 2.0 * 650.65 * 1000.0 / 3000.0).abs() < 1e-9);
    }

    #[test]
    fn the_distribution_agrees_with_the_summary_at_its_percentiles() {
        let t = steps_of_1_3_us().summary(&[50.0, 99.0], true);
        let d = t.distribution.unwrap();
        // p50 is a reporting level; p99 falls between two, and so does its value.
        let (p50, p99) = (t.percentiles[0].1.unwrap(), t.percentiles[1].1.unwrap());
        assert_eq!(d.rows.iter().find(|row| (row.1 - 0.5).abs() < 1e-9).unwrap().0, p50, "{:?}", d.rows);
        let above = d.rows.iter().position(|row| row.1 >= 0.99).unwrap();
        assert!(d.rows[above - 1].0 <= p99 && p99 <= d.rows[above].0, "{:?}", d.rows);
        assert_eq!(*d.rows.first().unwrap(), (1.3, 0.0, 1), "the smallest value, in us");
        assert_eq!(*d.rows.last().unwrap(), (1300.0, 1.0, 1000), "every value, up to the largest, in us");
        assert!(d.rows.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1 && w[0].2 <= w[1].2));
        // The footer: the buckets' mean, to their resolution; 1.3 to 1300 spans 2^0 .. 2^10.
        assert!((d.mean - 650.65).abs() <= 650.65 * RELATIVE_RESOLUTION, "{}", d.mean);
        assert_eq!((d.max, d.total_count, d.buckets), (1300.0, 1000, 11));
        assert_eq!(d.sub_buckets as f64, 1.0 / RELATIVE_RESOLUTION);
        assert!(Recorder::default().summary(&[50.0], true).distribution.is_none());
    }
}
