//! What arrivals find at each station, per interval of a day: the law of the
//! number present that a customer arriving there sees (before it joins),
//! asked by `RunSettings::found`. It is what the iterative staffing algorithm
//! (planning/rota_simulated.py; Feldman, Mandelbaum, Massey & Whitt 2008)
//! staffs from: an arrival finding n present waits if n >= the servers on, so
//! the servers an interval needs are read off this law.
//!
//! Counts, not shares: replications pool by adding them (each arrival weighs
//! the same, as the interval's service level does), and a share is taken once
//! at the end. The law is bounded: an arrival finding `FOUND_BINS - 1` or more
//! is counted in the last bin, so memory stays intervals x stations x bins
//! whatever the queue does.

use serde::Serialize;

/// Bins per station per interval: n = 0 .. FOUND_BINS - 2, and "that many or more".
pub const FOUND_BINS: usize = 2048;

/// One replication's counts: `[interval][station][n]`, each station's vector
/// as long as its largest n found (plus one).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Found {
    counts: Vec<Vec<Vec<u64>>>,
}

impl Found {
    pub fn new(intervals: usize, stations: usize) -> Self {
        Found { counts: vec![vec![Vec::new(); stations]; intervals] }
    }

    /// An arrival in `interval` at `station` found `present` there.
    pub fn record(&mut self, interval: usize, station: u32, present: u32) {
        let bins = &mut self.counts[interval][station as usize];
        let n = (present as usize).min(FOUND_BINS - 1);
        if bins.len() <= n {
            bins.resize(n + 1, 0);
        }
        bins[n] += 1;
    }

    /// The counts of `interval` at `station`.
    pub fn at(&self, interval: usize, station: usize) -> &[u64] {
        &self.counts[interval][station]
    }
}

/// The share of all replications' arrivals in an interval at a station who
/// found n present, n = 0, 1, ... (the last: that many or more); `None` where
/// no arrival came.
pub fn pooled<'a>(replications: impl Iterator<Item = &'a [u64]>) -> Option<Vec<f64>> {
    let mut total: Vec<u64> = Vec::new();
    for counts in replications {
        if total.len() < counts.len() {
            total.resize(counts.len(), 0);
        }
        total.iter_mut().zip(counts).for_each(|(t, c)| *t += c);
    }
    let arrivals: u64 = total.iter().sum();
    (arrivals > 0).then(|| total.iter().map(|&c| c as f64 / arrivals as f64).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_pool_over_replications_and_the_last_bin_holds_the_rest() {
        let mut a = Found::new(2, 1);
        let mut b = Found::new(2, 1);
        a.record(0, 0, 0);
        a.record(0, 0, 2);
        b.record(0, 0, 2);
        b.record(0, 0, 1_000_000);
        assert_eq!(b.at(0, 0).len(), FOUND_BINS);
        let law = pooled([a.at(0, 0), b.at(0, 0)].into_iter()).unwrap();
        assert_eq!(law.len(), FOUND_BINS);
        assert_eq!((law[0], law[1], law[2], law[FOUND_BINS - 1]), (0.25, 0.0, 0.5, 0.25));
        assert!(pooled([a.at(1, 0), b.at(1, 0)].into_iter()).is_none());
    }
}
