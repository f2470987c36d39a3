//! A histogram's percentile distribution, row for row as HdrHistogram's
//! `outputPercentileDistribution` lists it: the .hgrm files wrk2 prints and
//! HdrHistogram's plotter reads. The Python side only formats the rows.

use serde::Serialize;

use crate::histogram::{LogHistogram, SUB_BUCKETS};

/// Reporting points per halving of the distance to 100 %, as wrk2 prints.
pub const TICKS_PER_HALF_DISTANCE: u32 = 5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PercentileDistribution {
    /// `(value, percentile as a fraction, count of values up to it)`, ascending;
    /// the last row is the largest value at percentile 1.
    pub rows: Vec<(f64, f64, u64)>,
    /// Mean and standard deviation of the histogram (each bucket at its middle),
    /// as HdrHistogram computes them for the file's footer.
    pub mean: f64,
    pub std_deviation: f64,
    pub max: f64,
    pub total_count: u64,
    /// Powers of two spanned, and equal sub-buckets in each.
    pub buckets: usize,
    pub sub_buckets: usize,
}

impl PercentileDistribution {
    pub fn of(histogram: &LogHistogram) -> PercentileDistribution {
        let total = histogram.total();
        let mut rows = Vec::new();
        let (mut level, mut up_to, mut last_value) = (0.0f64, 0u64, 0.0);
        // HdrHistogram's percentile iterator: a row for every reporting level a
        // bucket reaches, then one last row at 100 %.
        'buckets: for bucket in histogram.buckets() {
            up_to += bucket.count;
            last_value = bucket.low;
            while 100.0 * up_to as f64 / total as f64 >= level {
                rows.push((bucket.low, level / 100.0, up_to));
                if up_to == total {
                    break 'buckets;
                }
                let next = next_level(level);
                if next <= level {
                    break; // the level no longer moves in floating point
                }
                level = next;
            }
        }
        if total > 0 {
            rows.push((histogram.max().max(last_value), 1.0, total));
        }
        let middles = || histogram.buckets().map(|b| ((b.low + b.high) / 2.0, b.count as f64));
        let mean = middles().map(|(v, n)| v * n).sum::<f64>() / total as f64;
        let variance = middles().map(|(v, n)| (v - mean).powi(2) * n).sum::<f64>() / total as f64;
        PercentileDistribution {
            rows,
            mean,
            std_deviation: variance.sqrt(),
            max: histogram.max(),
            total_count: total,
            buckets: histogram.octaves(),
            sub_buckets: SUB_BUCKETS,
        }
    }
}

/// The next reporting level after `level` (both in percent): `TICKS_PER_HALF_DISTANCE`
/// steps to each halving of the distance to 100, computed as HdrHistogram does.
fn next_level(level: f64) -> f64 {
    let halvings = ((100.0 / (100.0 - level)).ln() / 2f64.ln()) as u32;
    let ticks = TICKS_PER_HALF_DISTANCE as f64 * 2f64.powi(halvings as i32 + 1);
    level + 100.0 / ticks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_halve_the_distance_in_five_steps() {
        let mut levels = vec![0.0];
        while levels.len() < 20 {
            levels.push(next_level(*levels.last().unwrap()));
        }
        let want = [
            0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 55.0, 60.0, 65.0, 70.0, 75.0, 77.5, 80.0, 82.5, 85.0, 87.5,
            88.75, 90.0, 91.25, 92.5,
        ];
        for (got, want) in levels.iter().zip(want) {
            assert!((got - want).abs() < 1e-9, "{levels:?}");
        }
    }

    #[test]
    fn rows_of_a_uniform_histogram() {
        let mut h = LogHistogram::default();
        (1..=1000).for_each(|i| h.record(i as f64));
        let d = PercentileDistribution::of(&h);
        assert_eq!(d.rows[0], (1.0, 0.0, 1));
        // the 50 % row: the 500th value
        let half = d.rows.iter().find(|r| r.1 == 0.5).unwrap();
        assert_eq!((half.0, half.2), (500.0, 500));
        assert_eq!(*d.rows.last().unwrap(), (1000.0, 1.0, 1000));
        assert!(d.rows.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1 && w[0].2 <= w[1].2));
        assert!((d.mean - 500.5).abs() < 500.5 * 1e-3);
        let sd = ((1000.0f64 * 1000.0 - 1.0) / 12.0).sqrt();
        assert!((d.std_deviation - sd).abs() < sd * 2e-3, "{}", d.std_deviation);
        assert_eq!((d.max, d.total_count, d.sub_buckets), (1000.0, 1000, SUB_BUCKETS));
        assert_eq!(d.buckets, 10); // 1 to 1000 spans 2^0 .. 2^9
    }

    #[test]
    fn a_constant_has_a_row_and_the_last_row() {
        let mut h = LogHistogram::default();
        (0..4).for_each(|_| h.record(3.7777));
        let d = PercentileDistribution::of(&h);
        assert_eq!(d.rows, vec![(3.7777, 0.0, 4), (3.7777, 1.0, 4)]);
        assert_eq!((d.mean, d.std_deviation), (3.7777, 0.0));
    }
}
