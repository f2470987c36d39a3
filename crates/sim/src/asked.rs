//! What a run asks of its times beyond the fixed list of percentiles: the
//! value at any percent (p80, p97.5) and the share at or below any time (the
//! service level P(wait <= 20 s)), answered from each replication's histogram
//! once it is over, so that nothing is added to the engine's hot path.

use serde::Deserialize;

use crate::error::SimError;
use crate::histogram::LogHistogram;

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Asked {
    /// Percents strictly between 0 and 100, in any order.
    #[serde(default)]
    pub quantiles: Vec<f64>,
    /// Times of at least 0, in model time, in any order.
    #[serde(default)]
    pub within: Vec<f64>,
}

/// The answers of one histogram: `(percent, value)` and `(time, share)`, in the order
/// asked, as the measuring core gives a latency's.
pub use brewput_measure::asked::Answers;

impl Asked {
    pub fn validate(&self) -> Result<(), SimError> {
        match brewput_measure::asked::problem(&self.quantiles, &self.within, "") {
            Some(problem) => Err(SimError::Input(problem)),
            None => Ok(()),
        }
    }

    /// The answers from `histogram`: each quantile as `values_at` gives the
    /// fixed list's (so p50 asked here is the p50 of the list, to the bit),
    /// each share by `share_at_or_below`.
    pub fn answers(&self, histogram: &LogHistogram) -> Answers {
        let mut order: Vec<usize> = (0..self.quantiles.len()).collect();
        order.sort_by(|&a, &b| self.quantiles[a].total_cmp(&self.quantiles[b]));
        let ascending: Vec<f64> = order.iter().map(|&i| self.quantiles[i]).collect();
        let mut values = vec![f64::NAN; ascending.len()];
        histogram.write_values_at(&ascending, &mut values);
        let mut quantiles = vec![(0.0, 0.0); values.len()];
        for (&i, value) in order.iter().zip(values) {
            quantiles[i] = (self.quantiles[i], value);
        }
        let within = self.within.iter().map(|&t| (t, histogram.share_at_or_below(t))).collect();
        Answers { quantiles, within }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::PERCENTILES;

    #[test]
    fn answers_come_in_the_order_asked_and_agree_with_the_fixed_list() {
        let mut h = LogHistogram::default();
        (1..=1000).for_each(|i| h.record(i as f64 * 0.37));
        let asked = Asked { quantiles: vec![99.0, 50.0, 97.5], within: vec![100.0, 0.0] };
        let answers = asked.answers(&h);
        let fixed = h.values_at(&PERCENTILES.map(|(_, p)| p));
        assert_eq!(answers.quantiles[0], (99.0, fixed[3]));
        assert_eq!(answers.quantiles[1], (50.0, fixed[0]));
        assert_eq!(answers.quantiles[2].0, 97.5);
        assert_eq!(answers.quantiles[2].1, h.values_at(&[97.5])[0]);
        assert_eq!(answers.within[1], (0.0, 0.0));
        assert!((answers.within[0].1 - 270.0 / 1000.0).abs() <= 1e-3, "{:?}", answers.within);
    }

    #[test]
    fn percents_and_times_out_of_range_are_refused() {
        for bad in [Asked { quantiles: vec![100.0], within: vec![] }, Asked { quantiles: vec![0.0], within: vec![] },
                    Asked { quantiles: vec![f64::NAN], within: vec![] }, Asked { quantiles: vec![], within: vec![-1.0] },
                    Asked { quantiles: vec![], within: vec![f64::INFINITY] }] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        assert!(Asked { quantiles: vec![0.1, 99.999], within: vec![0.0, 1e9] }.validate().is_ok());
    }
}
