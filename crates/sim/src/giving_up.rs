//! Customers who give up: why a customer is lost, whether one arriving at a
//! station joins its queue or balks at what it sees, and when its patience
//! for waiting there runs out.
//!
//! Why a file of its own: the decisions and their random draws are made here
//! and returned ([`Admission`], a deadline); the simulation schedules the
//! patience timer, takes a reneging job out of the queue and decides what the
//! customer does next. Invariant: a step with neither balking nor patience
//! draws nothing here, so models without them draw what they always drew.

use rand::Rng;

use crate::model::Balk;
use crate::plan::ServeStep;

/// What a customer arriving at a station's queue does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Join,
    /// It leaves at once (`LossReason::Balked`).
    Balk,
}

/// Whether a job arriving at step `serve` joins the queue or balks at it;
/// `waiting` counts the jobs waiting there, asked only if the step balks.
#[inline]
pub fn admission<R: Rng>(serve: &ServeStep, waiting: impl FnOnce() -> usize, rng: &mut R) -> Admission {
    match &serve.balk {
        Some(balk) if balks(balk, waiting(), rng) => Admission::Balk,
        _ => Admission::Join,
    }
}

/// When the patience of a job starting to wait `now` at step `serve` runs
/// out, if the step has patience: it reneges then unless its service started.
#[inline]
pub fn patience_ends<R: Rng>(serve: &ServeStep, now: f64, rng: &mut R) -> Option<f64> {
    serve.patience.as_ref().map(|patience| now + patience.sample(rng))
}

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
/// `rng` only when the answer is a chance, neither sure nor impossible.
#[inline]
fn balks<R: Rng>(balk: &Balk, waiting: usize, rng: &mut R) -> bool {
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

    use crate::model::Dist;
    use crate::sampler::Sampler;

    fn step(balk: Option<Balk>, patience: Option<Sampler>) -> ServeStep {
        ServeStep { station: 0, service: None, uses: vec![], served_by: vec![], balk, patience, plain: false }
    }

    #[test]
    fn a_step_without_balking_or_patience_admits_and_draws_nothing() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let untouched = rng.clone();
        let plain = step(None, None);
        assert_eq!(admission(&plain, || unreachable!("no balking: the queue is not looked at"), &mut rng), Admission::Join);
        assert_eq!(patience_ends(&plain, 2.0, &mut rng), None);
        assert_eq!(rng, untouched);
    }

    #[test]
    fn admission_balks_at_the_threshold_and_patience_ends_after_its_draw() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let constant = Sampler::new(&Dist::Const { value: 1.5 }).expect("a valid distribution");
        let impatient = step(Some(Balk::Threshold(2)), Some(constant));
        assert_eq!(admission(&impatient, || 1, &mut rng), Admission::Join);
        assert_eq!(admission(&impatient, || 2, &mut rng), Admission::Balk);
        assert_eq!(patience_ends(&impatient, 2.0, &mut rng), Some(3.5));
    }

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
