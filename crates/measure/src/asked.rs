//! What a measured run is asked of its latencies beyond the fixed list of
//! percentiles (crate::percentiles): the value at any percent (p80, p97.5) and
//! the share at or below any time (P(response <= 250 ms)), answered once the
//! run is over, from its histogram.

use serde::{Deserialize, Serialize};

use crate::latency::Latency;

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Asked {
    /// Percents strictly between 0 and 100.
    #[serde(default)]
    pub quantiles: Vec<f64>,
    /// Times in seconds, at least 0.
    #[serde(default)]
    pub within_seconds: Vec<f64>,
}

/// The first of `quantiles` (percents) and `within` (times, in a unit written
/// ` seconds`, or none) that no histogram can answer, said in a line: the one rule
/// of what may be asked, for the simulator's times and the measured latencies alike.
pub fn problem(quantiles: &[f64], within: &[f64], unit: &str) -> Option<String> {
    if let Some(p) = quantiles.iter().find(|p| !(**p > 0.0 && **p < 100.0)) {
        return Some(format!("quantiles: each is a percent above 0 and below 100, got {p}"));
    }
    within.iter().find(|t| !(**t >= 0.0 && t.is_finite())).map(|t| format!("within: each is a time of at least 0{unit}, got {t}"))
}

/// A histogram's answers, in the order asked: `(percent, seconds)` and `(seconds, share)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Answers {
    pub quantiles: Vec<(f64, f64)>,
    pub within: Vec<(f64, f64)>,
}

impl Asked {
    pub fn is_empty(&self) -> bool {
        self.quantiles.is_empty() && self.within_seconds.is_empty()
    }

    /// The first thing asked that no latency can answer, said in a line.
    pub fn problem(&self) -> Option<String> {
        problem(&self.quantiles, &self.within_seconds, " seconds")
    }

    /// The answers of `latency` (None when it recorded nothing): each quantile
    /// as its named percentiles are read (`Latency::at`), each share as
    /// HdrHistogram counts the values at or below a value (its bucket included,
    /// to three significant digits).
    pub fn answers(&self, latency: &Latency) -> Option<Answers> {
        let ns = |seconds: f64| (seconds * 1e9).round() as u64;
        Some(Answers {
            quantiles: self.quantiles.iter().map(|&p| latency.at(p).map(|v| (p, v * 1e-9))).collect::<Option<_>>()?,
            within: self.within_seconds.iter().map(|&t| latency.share_at_or_below(ns(t)).map(|s| (t, s))).collect::<Option<_>>()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_agree_with_the_named_percentiles_and_count_whole_buckets() {
        let mut latency = Latency::default();
        (1..=1000u64).for_each(|i| latency.record(i * 1_000_000)); // 1 ms to 1 s
        let asked = Asked { quantiles: vec![99.0, 97.5], within_seconds: vec![0.25, 0.0, 2.0] };
        let answers = asked.answers(&latency).unwrap();
        let p99 = latency.named().iter().find(|(name, _)| *name == "p99").unwrap().1;
        assert_eq!(answers.quantiles[0], (99.0, p99 * 1e-9));
        assert_eq!(answers.quantiles[1], (97.5, latency.at(97.5).unwrap() * 1e-9));
        assert_eq!(answers.within, vec![(0.25, 0.25), (0.0, 0.0), (2.0, 1.0)]);
        assert_eq!(Asked::default().answers(&Latency::default()), Some(Answers::default()));
        assert_eq!(asked.answers(&Latency::default()), None);
    }

    #[test]
    fn out_of_range_is_a_problem() {
        assert!(Asked { quantiles: vec![100.0], within_seconds: vec![] }.problem().is_some());
        assert!(Asked { quantiles: vec![], within_seconds: vec![-1.0] }.problem().is_some());
        assert!(Asked { quantiles: vec![0.5], within_seconds: vec![0.0] }.problem().is_none());
    }
}
