//! Customers who give up: why a customer is lost, and whether one arriving
//! at a station balks at the queue it sees. Patience (reneging while waiting)
//! is a timer the simulation schedules; this file only decides and names.

use rand::Rng;

use crate::model::Balk;

/// Why a customer left without completing its route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossReason {
    /// A station with no room turned it away on arrival.
    Full = 0,
    /// It saw the queue and left at once.
    Balked = 1,
    /// Its patience ran out before its service started.
    Reneged = 2,
}

/// The reasons' names, indexed by `LossReason`: the one list (the Python side
/// reads it through the binding).
pub const LOSS_REASONS: [&str; 3] = ["full", "balked", "reneged"];

/// Whether a customer seeing `waiting` jobs in the queue balks. Draws from
/// `rng` only when the answer is a chance, neither sure nor impossible, so
/// models without balking draw exactly what they drew before.
#[inline]
pub fn balks<R: Rng>(balk: &Balk, waiting: usize, rng: &mut R) -> bool {
    match balk {
        Balk::Threshold(n) => waiting >= *n as usize,
        Balk::Probabilities(ps) => {
            let p = ps[waiting.min(ps.len() - 1)];
            p >= 1.0 || (p > 0.0 && rng.gen::<f64>() < p)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn a_threshold_counts_waiting_jobs_seen() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let balk = Balk::Threshold(2);
        assert_eq!([0, 1, 2, 3].map(|n| balks(&balk, n, &mut rng)), [false, false, true, true]);
        assert!(balks(&Balk::Threshold(0), 0, &mut rng), "threshold 0: everyone balks");
    }

    #[test]
    fn probabilities_by_jobs_seen_and_the_last_holds_beyond() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let balk = Balk::Probabilities(vec![0.0, 0.25, 1.0]);
        let share = |n: usize, rng: &mut Xoshiro256PlusPlus| {
            (0..100_000).filter(|_| balks(&balk, n, rng)).count() as f64 / 100_000.0
        };
        assert_eq!(share(0, &mut rng), 0.0);
        // binomial sd at p = 0.25 over 1e5 draws: 0.0014; 5 sd
        assert!((share(1, &mut rng) - 0.25).abs() < 0.007);
        assert_eq!(share(2, &mut rng), 1.0);
        assert_eq!(share(50, &mut rng), 1.0);
    }
}
