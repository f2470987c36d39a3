//! Latencies as the lab and the load generator measure them: wall-clock
//! durations recorded in nanoseconds in an HdrHistogram (three significant
//! digits from 1 ns to an hour, fixed memory for any run), with their exact
//! sum beside it for the mean. Every figure comes out in nanoseconds; each
//! report converts it once, into its own unit, where it is written.
//!
//! The simulation's times are model time (any unit the model chose, as
//! floats) and keep their own recorder (brewput_sim's `TimeRecorder`); what
//! they share with these is the list of percentiles (crate::percentiles).

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::percentiles::{FAR_TAIL, PERCENTILES, SPECTRUM};

pub const SIGNIFICANT_DIGITS: u8 = 3;
/// The largest latency told apart (an hour); longer ones count as an hour.
pub const HIGHEST_NS: u64 = 3_600_000_000_000;
/// wrk2's and HdrHistogram's reporting ticks per halving of the distance to 100 %.
const TICKS_PER_HALF_DISTANCE: u32 = 5;

/// An empty histogram of the recorder's bounds (the interval log's seconds use it too).
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_NS, SIGNIFICANT_DIGITS).expect("constant bounds are valid")
}

/// A latency distribution being recorded, in nanoseconds.
#[derive(Clone)]
pub struct Latency {
    histogram: Histogram<u64>,
    /// Kept apart so the mean is exact, not the buckets' (up to 0.1 % off).
    sum_ns: u128,
}

impl Default for Latency {
    fn default() -> Latency {
        Latency { histogram: histogram(), sum_ns: 0 }
    }
}

impl Latency {
    /// Records `ns`; beyond an hour it counts as an hour.
    pub fn record(&mut self, ns: u64) {
        self.histogram.saturating_record(ns);
        self.sum_ns += ns as u128;
    }

    pub fn record_duration(&mut self, d: Duration) {
        self.record(d.as_nanos().min(u64::MAX as u128) as u64);
    }

    pub fn merge(&mut self, other: &Latency) {
        // The same bounds on both sides: adding cannot fail.
        self.histogram.add(&other.histogram).expect("histograms of the same bounds");
        self.sum_ns += other.sum_ns;
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// The exact mean (None when nothing was recorded).
    pub fn mean_ns(&self) -> Option<f64> {
        let count = self.count();
        (count > 0).then(|| self.sum_ns as f64 / count as f64)
    }

    /// The value at `percent`: the highest value equivalent, to three
    /// significant digits, to the one that many percent of the values reach.
    pub fn at(&self, percent: f64) -> Option<f64> {
        (self.count() > 0).then(|| self.histogram.value_at_quantile(percent / 100.0) as f64)
    }

    /// The share of the values at or below `ns`, as HdrHistogram counts them:
    /// the bucket holding `ns` included, to three significant digits (None
    /// when nothing was recorded).
    pub fn share_at_or_below(&self, ns: u64) -> Option<f64> {
        (self.count() > 0).then(|| self.histogram.quantile_below(ns))
    }

    /// Standard deviation, min and max, as HdrHistogram reads them from its buckets.
    pub fn std_deviation_ns(&self) -> Option<f64> {
        (self.count() > 0).then(|| self.histogram.stdev())
    }

    pub fn min_ns(&self) -> Option<f64> {
        (self.count() > 0).then(|| self.histogram.min() as f64)
    }

    pub fn max_ns(&self) -> Option<f64> {
        (self.count() > 0).then(|| self.histogram.max() as f64)
    }

    /// The named percentiles (`p50` ... `p999`) that have a sample beyond them.
    pub fn named(&self) -> Vec<(&'static str, f64)> {
        self.beyond(PERCENTILES.iter().map(|&(name, p)| (name, p)))
    }

    /// `(percent, ns)` at the spectrum and the far tail, each point only when
    /// at least one sample lies above it.
    pub fn spectrum(&self) -> Vec<(f64, f64)> {
        self.beyond(SPECTRUM.iter().chain(FAR_TAIL.iter()).map(|&p| (p, p)))
    }

    fn beyond<K>(&self, points: impl Iterator<Item = (K, f64)>) -> Vec<(K, f64)> {
        let count = self.count();
        points
            .filter(|(_, p)| has_tail(count, *p))
            .map(|(k, p)| (k, self.histogram.value_at_quantile(p / 100.0) as f64))
            .collect()
    }

    /// The percentile distribution, row for row as an .hgrm file lists it (None when empty).
    pub fn distribution(&self) -> Option<Distribution> {
        let h = &self.histogram;
        if h.is_empty() {
            return None;
        }
        let mut up_to = 0;
        let rows = h
            .iter_quantiles(TICKS_PER_HALF_DISTANCE)
            .map(|v| {
                up_to += v.count_since_last_iteration();
                (v.value_iterated_to() as f64, v.quantile_iterated_to(), up_to)
            })
            .collect();
        Some(Distribution {
            rows,
            mean: h.mean(),
            std_deviation: h.stdev(),
            max: h.max() as f64,
            total_count: h.len(),
            buckets: h.buckets(),
            sub_buckets: sub_buckets(),
        })
    }

    /// The histogram itself, for what writes it out (the load's interval log).
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.histogram
    }
}

/// Whether `count` samples put at least one above the `percent`-th percentile.
fn has_tail(count: u64, percent: f64) -> bool {
    count as f64 * (1.0 - percent / 100.0) >= 1.0 - 1e-9 // 1000 × 0.1 % is one sample, not 0.99999…
}

/// HdrHistogram's sub-buckets per power of two for the significant digits.
fn sub_buckets() -> u32 {
    (2.0 * 10f64.powi(SIGNIFICANT_DIGITS as i32)).log2().ceil().exp2() as u32
}

/// HdrHistogram's percentile distribution, row for row as an .hgrm file
/// lists it, in nanoseconds until [`Distribution::per`] converts it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Distribution {
    /// `(value, percentile as a fraction, count of values up to it)`, ascending.
    pub rows: Vec<(f64, f64, u64)>,
    /// The buckets' mean and standard deviation, as HdrHistogram writes them in the footer.
    pub mean: f64,
    pub std_deviation: f64,
    pub max: f64,
    pub total_count: u64,
    pub buckets: u8,
    pub sub_buckets: u32,
}

impl Distribution {
    /// The same distribution with every value converted by `unit` (nanoseconds to the report's unit).
    pub fn per(self, unit: impl Fn(f64) -> f64) -> Distribution {
        Distribution {
            rows: self.rows.into_iter().map(|(value, quantile, count)| (unit(value), quantile, count)).collect(),
            mean: unit(self.mean),
            std_deviation: unit(self.std_deviation),
            max: unit(self.max),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1.3 us, 2.6 us, ... 1300 us: values that fall inside buckets, not on their edges.
    fn steps_of_1_3_us() -> (Latency, Vec<u64>) {
        let mut r = Latency::default();
        let values: Vec<u64> = (1..=1000u64).map(|i| 1300 * i).collect();
        values.iter().for_each(|&ns| r.record_duration(Duration::from_nanos(ns)));
        (r, values)
    }

    /// The sorted values' truth at `percent`: the smallest value that many percent of them reach.
    fn truth(sorted: &[u64], percent: f64) -> f64 {
        let rank = ((percent / 100.0 * sorted.len() as f64).ceil() as usize).max(1);
        sorted[rank - 1] as f64
    }

    /// `got` stands for `want`: never below it, at most three significant digits above.
    fn within_resolution(got: f64, want: f64) -> bool {
        got >= want && got <= want * (1.0 + 1e-3)
    }

    #[test]
    fn percentiles_stand_for_the_sorted_values_to_three_significant_digits() {
        // Spread over six decades, in no order: what a sorted vector says each percentile is.
        let mut values: Vec<u64> = (1..=20_000u64).map(|i| (i * 7919 % 20_011) * (i % 977 + 1) * 13 + 1).collect();
        let mut r = Latency::default();
        values.iter().for_each(|&ns| r.record(ns));
        values.sort_unstable();
        for p in [0.1, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0] {
            let (got, want) = (r.at(p).unwrap(), truth(&values, p));
            assert!(within_resolution(got, want), "p{p}: {got} for {want}");
        }
        let exact = values.iter().map(|&v| v as f64).sum::<f64>() / values.len() as f64;
        assert!((r.mean_ns().unwrap() - exact).abs() < 1e-6 * exact, "the mean is exact");
        assert!(within_resolution(r.max_ns().unwrap(), *values.last().unwrap() as f64));
        assert!(r.min_ns().unwrap() <= values[0] as f64);
    }

    #[test]
    fn durations_are_recorded_in_nanoseconds_and_an_hour_at_most() {
        let mut r = Latency::default();
        r.record_duration(Duration::from_micros(1));
        r.record_duration(Duration::from_millis(1));
        assert_eq!((r.at(0.0), r.mean_ns()), (Some(1000.0), Some(500_500.0)));
        assert!(within_resolution(r.at(100.0).unwrap(), 1e6));
        let mut long = Latency::default();
        long.record_duration(Duration::from_secs(86_400));
        assert!(within_resolution(long.max_ns().unwrap(), HIGHEST_NS as f64), "{:?}", long.max_ns());
        let empty = Latency::default();
        assert_eq!((empty.count(), empty.mean_ns(), empty.at(50.0), empty.max_ns()), (0, None, None, None));
        assert!(empty.named().is_empty() && empty.spectrum().is_empty() && empty.distribution().is_none());
    }

    #[test]
    fn no_wait_is_zero_and_merging_is_recording_both() {
        let (mut waits, (mut more, _)) = (Latency::default(), steps_of_1_3_us());
        (0..1000).for_each(|_| waits.record_duration(Duration::ZERO));
        waits.merge(&more);
        more.merge(&waits);
        // `waits`: 1000 of none, then the steps; `more`: the steps twice, 1000 of none.
        assert_eq!(waits.at(50.0), Some(0.0));
        assert!(within_resolution(waits.at(75.0).unwrap(), 650_000.0));
        assert_eq!(more.count(), 3000);
        assert!((more.mean_ns().unwrap() - 2.0 * 650_650.0 * 1000.0 / 3000.0).abs() < 1e-6);
    }

    #[test]
    fn named_percentiles_and_the_spectrum_need_samples_beyond_them() {
        let (r, values) = steps_of_1_3_us();
        // 1000 samples reach 99.9 % (one above), not 99.95 %.
        assert_eq!(r.spectrum().last().unwrap().0, 99.9);
        let names: Vec<&str> = r.named().iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["p50", "p90", "p95", "p99", "p999"]);
        for ((_, got), (_, p)) in r.named().iter().zip(PERCENTILES) {
            assert!(within_resolution(*got, truth(&values, p)), "{p}: {got}");
        }
    }

    #[test]
    fn the_distribution_agrees_with_the_percentiles_and_converts_to_a_unit() {
        let (r, _) = steps_of_1_3_us();
        let d = r.distribution().unwrap();
        let p50 = d.rows.iter().find(|row| (row.1 - 0.5).abs() < 1e-9).unwrap().0;
        assert_eq!(p50, r.at(50.0).unwrap());
        assert_eq!(*d.rows.last().unwrap(), (r.max_ns().unwrap(), 1.0, 1000));
        assert!(d.rows.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1 && w[0].2 <= w[1].2));
        assert_eq!((d.total_count, d.sub_buckets), (1000, 2048));
        assert!((d.mean - 650_650.0).abs() <= 650_650.0 * 1e-3, "{}", d.mean);
        let us = d.clone().per(|ns| ns / 1e3);
        assert_eq!((us.rows[3].0, us.max, us.mean), (d.rows[3].0 / 1e3, d.max / 1e3, d.mean / 1e3));
        assert_eq!((us.rows[3].1, us.rows[3].2, us.buckets), (d.rows[3].1, d.rows[3].2, d.buckets));
    }
}
