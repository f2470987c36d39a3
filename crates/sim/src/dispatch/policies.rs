//! The dispatch policies, one type each (policy.rs says what a policy is;
//! the vocabulary, vocabulary.rs, names each type by its word).

use std::cmp::Ordering;

use rand::{Rng, RngCore};

use super::policy::{Branches, DispatchPolicy, NewPolicy};
use crate::model::Step;
use crate::vocabulary::Tie;

/// Of `candidates` (branches in file order), the one `order` ranks least; among
/// equals the first under `Tie::First`, each equally likely under `Tie::Random`:
/// the n-th equal found replaces the choice with probability 1/n (reservoir
/// sampling: one pass, no allocation, and no draw at all where nothing ties).
fn least(
    candidates: impl Iterator<Item = u32>,
    order: impl Fn(u32, u32) -> Ordering,
    tie: Tie,
    rng: &mut dyn RngCore,
) -> Option<u32> {
    let (mut chosen, mut equal) = (None, 0u32);
    for branch in candidates {
        match chosen.map(|c| order(branch, c)) {
            None | Some(Ordering::Less) => (chosen, equal) = (Some(branch), 1),
            Some(Ordering::Equal) => {
                equal += 1;
                if tie == Tie::Random && rng.gen_range(0..equal) == 0 {
                    chosen = Some(branch);
                }
            }
            Some(Ordering::Greater) => {}
        }
    }
    chosen
}

/// `random`: a branch drawn by the step's weights.
#[derive(Debug)]
pub struct Random {
    /// The weights, cumulated.
    cumulative: Vec<f64>,
}

impl NewPolicy for Random {
    fn check(step: &Step, branches: u32) -> Result<(), String> {
        let total: f64 = step.weights.iter().sum();
        if step.weights.len() as u32 != branches || step.weights.iter().any(|w| !(*w >= 0.0)) || (total - 1.0).abs() > 1e-6
        {
            return Err("random dispatch needs one weight per branch, summing to 1".into());
        }
        Ok(())
    }

    fn new(step: &Step) -> Self {
        Random { cumulative: step.weights.iter().scan(0.0, |acc, w| { *acc += w; Some(*acc) }).collect() }
    }
}

impl DispatchPolicy for Random {
    fn choose(&mut self, branches: &Branches<'_>, rng: &mut dyn RngCore) -> Option<u32> {
        let u: f64 = rng.gen();
        Some(self.cumulative.iter().position(|&c| u < c).unwrap_or(branches.count() as usize - 1) as u32)
    }
}

/// `round_robin`: the branches in turn.
#[derive(Debug)]
pub struct RoundRobin {
    /// The branch taken next.
    turn: u32,
}

impl NewPolicy for RoundRobin {
    fn new(_: &Step) -> Self {
        RoundRobin { turn: 0 }
    }
}

impl DispatchPolicy for RoundRobin {
    fn choose(&mut self, branches: &Branches<'_>, _: &mut dyn RngCore) -> Option<u32> {
        let branch = self.turn;
        self.turn = (self.turn + 1) % branches.count();
        Some(branch)
    }
}

/// `shortest_queue`: the branch with the fewest jobs, ties broken by `tie`.
#[derive(Debug)]
pub struct ShortestQueue {
    tie: Tie,
}

impl NewPolicy for ShortestQueue {
    const MAY_TIE: bool = true;

    fn new(step: &Step) -> Self {
        ShortestQueue { tie: step.tie }
    }
}

impl DispatchPolicy for ShortestQueue {
    fn choose(&mut self, branches: &Branches<'_>, rng: &mut dyn RngCore) -> Option<u32> {
        least(0..branches.count(), |a, b| branches.jobs_in(a).cmp(&branches.jobs_in(b)), self.tie, rng)
    }
}

/// `power_of_d`: of `d` branches drawn at random, the one with the fewest jobs.
#[derive(Debug)]
pub struct PowerOfD {
    d: u32,
}

impl NewPolicy for PowerOfD {
    fn check(step: &Step, branches: u32) -> Result<(), String> {
        if !matches!(step.d, Some(d) if (2..=branches).contains(&d)) {
            return Err(format!("power_of_d needs d from 2 to {branches}"));
        }
        Ok(())
    }

    fn new(step: &Step) -> Self {
        PowerOfD { d: step.d.unwrap_or(2) }
    }
}

impl DispatchPolicy for PowerOfD {
    fn choose(&mut self, branches: &Branches<'_>, rng: &mut dyn RngCore) -> Option<u32> {
        // d distinct branches by a partial Fisher-Yates shuffle; the first drawn wins ties.
        let mut order: Vec<u32> = (0..branches.count()).collect();
        for i in 0..self.d as usize {
            let j = rng.gen_range(i..order.len());
            order.swap(i, j);
        }
        order[..self.d as usize].iter().copied().min_by_key(|&b| branches.jobs_in(b))
    }
}

/// `least_utilized`: the branch whose first station is least busy, ties broken by `tie`.
#[derive(Debug)]
pub struct LeastUtilized {
    tie: Tie,
}

impl NewPolicy for LeastUtilized {
    const READS_FIRST_STATIONS: bool = true;
    const MAY_TIE: bool = true;

    fn new(step: &Step) -> Self {
        LeastUtilized { tie: step.tie }
    }
}

impl DispatchPolicy for LeastUtilized {
    fn choose(&mut self, branches: &Branches<'_>, rng: &mut dyn RngCore) -> Option<u32> {
        let busy = |b| branches.busy_fraction(b);
        least(0..branches.count(), |a, b| busy(a).total_cmp(&busy(b)), self.tie, rng)
    }
}

/// `shared`: one queue in front of the branches, first come, first served;
/// a job goes to a branch whose first station is open, the first in file
/// order or one drawn among them by `tie`.
#[derive(Debug)]
pub struct Shared {
    tie: Tie,
}

impl NewPolicy for Shared {
    const READS_FIRST_STATIONS: bool = true;
    const MAY_WAIT: bool = true;
    const MAY_TIE: bool = true;

    fn new(step: &Step) -> Self {
        Shared { tie: step.tie }
    }
}

impl DispatchPolicy for Shared {
    fn choose(&mut self, branches: &Branches<'_>, rng: &mut dyn RngCore) -> Option<u32> {
        let open = (0..branches.count()).filter(|&b| branches.open(b));
        match self.tie {
            Tie::First => open.take(1).next(),
            Tie::Random => least(open, |_, _| Ordering::Equal, Tie::Random, rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Two branches with `jobs` in them, their first stations `busy` and `free` as given.
    fn choose(policy: &mut impl DispatchPolicy, jobs: [u32; 2], busy: [f64; 2], free: [bool; 2], rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        let busy = |b: u32| busy[b as usize];
        let open = |b: u32| free[b as usize];
        policy.choose(&Branches::new(&jobs, &busy, &open), rng)
    }

    fn step(weights: Vec<f64>, d: Option<u32>) -> Step {
        Step { weights, d, ..Step::default() }
    }

    #[test]
    fn each_policy_picks_its_branch() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let (idle, none) = ([0.5, 0.0], [false, true]);
        let mut rr = RoundRobin::new(&step(vec![], None));
        let turns: Vec<_> = (0..4).map(|_| choose(&mut rr, [0, 0], idle, none, &mut rng)).collect();
        assert_eq!(turns, [Some(0), Some(1), Some(0), Some(1)]);
        let first = step(vec![], None);
        let mut shortest = ShortestQueue::new(&first);
        assert_eq!(choose(&mut shortest, [0, 0], idle, none, &mut rng), Some(0), "ties: file order");
        assert_eq!(choose(&mut shortest, [1, 0], idle, none, &mut rng), Some(1));
        assert_eq!(choose(&mut LeastUtilized::new(&first), [0, 0], idle, none, &mut rng), Some(1));
        let mut shared = Shared::new(&first);
        assert_eq!(choose(&mut shared, [0, 0], idle, none, &mut rng), Some(1));
        assert_eq!(choose(&mut shared, [0, 0], [1.0, 1.0], [false, false], &mut rng), None, "it waits");
        let mut random = Random::new(&step(vec![0.25, 0.75], None));
        let firsts = (0..20_000).filter(|_| choose(&mut random, [0, 0], idle, none, &mut rng) == Some(0)).count();
        // binomial(20000, 0.25): sd 61
        assert!((firsts as f64 - 5000.0).abs() < 300.0, "{firsts}");
    }

    /// How often each of 3 branches is chosen in 30,000 arrivals by `policy` when the
    /// first two tie (as short, as idle, as open) and the third does not qualify.
    fn shares(policy: &mut impl DispatchPolicy) -> [u32; 3] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let (jobs, busy, open) = ([1, 1, 2], |b: u32| [0.5, 0.5, 1.0][b as usize], |b: u32| b < 2);
        let mut counts = [0; 3];
        for _ in 0..30_000 {
            counts[policy.choose(&Branches::new(&jobs, &busy, &open), &mut rng).unwrap() as usize] += 1;
        }
        counts
    }

    #[test]
    fn a_random_tie_takes_each_equal_branch_alike_and_never_a_worse_one() {
        let random = Step { tie: Tie::Random, ..Step::default() };
        for counts in [shares(&mut ShortestQueue::new(&random)), shares(&mut LeastUtilized::new(&random)),
                       shares(&mut Shared::new(&random))] {
            // binomial(30000, 1/2): sd 87
            assert!((counts[0] as f64 - 15_000.0).abs() < 450.0 && counts[2] == 0, "{counts:?}");
        }
        let first = Step::default();
        assert_eq!(shares(&mut ShortestQueue::new(&first)), [30_000, 0, 0]);
        assert_eq!(shares(&mut Shared::new(&first)), [30_000, 0, 0]);
    }

    #[test]
    fn least_draws_nothing_where_nothing_ties() {
        // the same stream after choosing, whichever tie rule: no draw was made
        let (mut a, mut b) = (Xoshiro256PlusPlus::seed_from_u64(4), Xoshiro256PlusPlus::seed_from_u64(4));
        assert_eq!(least([3u32, 1, 2].into_iter(), |x, y| x.cmp(&y), Tie::Random, &mut a), Some(1));
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn power_of_d_takes_the_emptier_of_the_branches_it_draws() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut both = PowerOfD::new(&step(vec![], Some(2)));
        for _ in 0..100 {
            assert_eq!(choose(&mut both, [3, 1], [0.0; 2], [true; 2], &mut rng), Some(1), "d = 2 of 2 sees both");
        }
    }

    #[test]
    fn the_parameters_are_checked() {
        assert!(Random::check(&step(vec![0.5, 0.5], None), 2).is_ok());
        for weights in [vec![0.5], vec![0.5, 0.6], vec![-0.5, 1.5], vec![f64::NAN, 1.0]] {
            assert!(Random::check(&step(weights.clone(), None), 2).is_err(), "{weights:?}");
        }
        assert!(PowerOfD::check(&step(vec![], Some(3)), 3).is_ok());
        assert_eq!(PowerOfD::check(&step(vec![], Some(3)), 2), Err("power_of_d needs d from 2 to 2".into()));
        assert!(PowerOfD::check(&step(vec![], None), 2).is_err());
    }
}
