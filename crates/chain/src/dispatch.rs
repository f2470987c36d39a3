//! Dispatch steps: no station, a decision taken when a job reaches the step,
//! by the simulator's rules (crates/sim/src/dispatch.rs, dispatch/policies.rs).
//! The policy reads the state: the jobs in each branch (those whose step lies
//! in it: the jobs that took it and have not ended it), and each branch's first
//! station (how busy; whether open: a free server that none of its waiting jobs
//! takes first). Where the simulator draws (weights, power_of_d's d branches,
//! `tie: random`), the choice is the run's chances (chance.rs), each outcome
//! weighted by its probability.
//!
//! What a dispatch remembers lives in the state's `dispatchers`, one number per
//! remembering step (its `slot`): round_robin's branch next, and shared's jobs
//! waiting in its queue (all of its class, at its step, so a count is the queue).

use std::cmp::Ordering;

use crate::chance::Chances;
use crate::floor::{Floor, JobClass};
use crate::state::State;

#[derive(Clone, Debug)]
pub enum Policy {
    /// The weight of each branch (summing to 1).
    Random(Vec<f64>),
    RoundRobin,
    ShortestQueue,
    /// The branches drawn, without replacement.
    PowerOfD(usize),
    LeastUtilized,
    Shared,
}

#[derive(Clone, Debug)]
pub struct Dispatch {
    pub policy: Policy,
    /// The first step of each branch, in file order.
    pub branches: Vec<usize>,
    /// Among branches found equal: one drawn at random (else the first in file order).
    pub tie_random: bool,
    /// Where the state keeps what the step remembers (round_robin, shared); None: nothing.
    pub slot: Option<usize>,
}

impl Dispatch {
    /// Whether the step remembers something between jobs.
    pub fn remembers(&self) -> bool {
        matches!(self.policy, Policy::RoundRobin | Policy::Shared)
    }
}

/// Numbers the slots of the floor's remembering dispatch steps, and lists per
/// station the shared dispatch steps (class, step) with a branch starting there,
/// in the simulator's order (a departure there lets their queues' jobs go).
pub fn number_slots(classes: &mut [JobClass], stations: usize) -> (usize, Vec<Vec<(usize, usize)>>) {
    let mut slots = 0;
    let mut shared_at = vec![Vec::new(); stations];
    for c in 0..classes.len() {
        for s in 0..classes[c].steps.len() {
            let firsts: Vec<usize> = match &classes[c].steps[s].dispatch {
                Some(d) => d.branches.iter().map(|&b| classes[c].steps[b].station).collect(),
                None => continue,
            };
            let dispatch = classes[c].steps[s].dispatch.as_mut().expect("a dispatch step");
            if dispatch.remembers() {
                dispatch.slot = Some(slots);
                slots += 1;
            }
            if matches!(dispatch.policy, Policy::Shared) {
                firsts.into_iter().for_each(|m| shared_at[m].push((c, s)));
            }
        }
    }
    (slots, shared_at)
}

/// The shared dispatch queues of the floor: (class, slot) of each.
pub fn shared_queues(floor: &Floor) -> impl Iterator<Item = (usize, usize)> + '_ {
    floor.classes.iter().enumerate().flat_map(|(c, job)| {
        job.steps.iter().filter_map(move |step| match step.dispatch.as_deref() {
            Some(Dispatch { policy: Policy::Shared, slot: Some(slot), .. }) => Some((c, *slot)),
            _ => None,
        })
    })
}

/// What a policy reads of the state for class `class`'s dispatch step `step`.
pub struct Branches<'a> {
    pub floor: &'a Floor,
    pub state: &'a State,
    pub class: usize,
    pub step: usize,
}

impl Branches<'_> {
    fn first_station(&self, dispatch: &Dispatch, branch: usize) -> usize {
        self.floor.station_of(self.class, dispatch.branches[branch])
    }

    /// The jobs that took `branch` and have not ended it.
    fn jobs_in(&self, branch: usize) -> usize {
        let job = &self.floor.classes[self.class];
        let inside = |c: i32, step: i32| c as usize == self.class && job.steps[step as usize].scope == Some((self.step, branch));
        self.state.queue.iter().filter(|q| inside(q.class, q.step)).count()
            + self.state.serving.iter().flatten().filter(|s| inside(s.class, s.step)).count()
            + self.state.lines.iter().flatten().filter(|b| inside(b.class, b.step)).count()
    }

    fn busy_fraction(&self, m: usize) -> f64 {
        let servers = self.floor.servers[m].map_or(u32::MAX as f64, |s| s as f64);
        self.state.serving[m].len() as f64 / servers
    }

    /// Whether a job sent to station m now would start at once: a free server that
    /// none of the jobs waiting there takes first.
    fn open(&self, m: usize) -> bool {
        let Some(servers) = self.floor.servers[m] else { return true };
        let held = self.state.serving[m].len() + self.state.blocked_on(m);
        let waiting = self.state.queue.iter().filter(|q| q.station == m as i32).count();
        servers as usize > held + waiting
    }

    /// The branch a job arriving now takes, or None where it waits in the shared
    /// queue; round_robin's turn moves on in `dispatchers`.
    pub fn choose(&self, dispatchers: &mut [i32], chances: &mut Chances) -> Option<usize> {
        let dispatch = self.floor.classes[self.class].steps[self.step].dispatch.as_ref().expect("a dispatch step");
        let n = dispatch.branches.len();
        let tie = dispatch.tie_random;
        match &dispatch.policy {
            Policy::Random(weights) => Some(pick(weights, chances)),
            Policy::RoundRobin => {
                let slot = dispatch.slot.expect("round_robin remembers its turn");
                let turn = dispatchers[slot] as usize;
                dispatchers[slot] = ((turn + 1) % n) as i32;
                Some(turn)
            }
            Policy::ShortestQueue => least(0..n, |b| self.jobs_in(b) as f64, tie, chances),
            Policy::PowerOfD(d) => {
                // the simulator's partial Fisher-Yates shuffle; the first drawn wins ties
                let mut order: Vec<usize> = (0..n).collect();
                for i in 0..*d {
                    let j = i + pick(&vec![1.0; n - i], chances);
                    order.swap(i, j);
                }
                least(order[..*d].iter().copied(), |b| self.jobs_in(b) as f64, false, chances)
            }
            Policy::LeastUtilized => least(0..n, |b| self.busy_fraction(self.first_station(dispatch, b)), tie, chances),
            Policy::Shared => {
                let open = (0..n).filter(|&b| self.open(self.first_station(dispatch, b)));
                least(open, |_| 0.0, tie, chances)
            }
        }
    }
}

/// Of `candidates`, one `value` ranks least: the first found, or (`tie_random`)
/// one of the equals, each alike.
fn least(candidates: impl Iterator<Item = usize>, value: impl Fn(usize) -> f64, tie_random: bool, chances: &mut Chances) -> Option<usize> {
    let mut equals: Vec<usize> = Vec::new();
    let mut best = f64::INFINITY;
    for b in candidates {
        match value(b).total_cmp(&best) {
            Ordering::Less => (best, equals) = (value(b), vec![b]),
            Ordering::Equal => equals.push(b),
            Ordering::Greater => {}
        }
    }
    match equals.len() {
        0 => None,
        _ if !tie_random => Some(equals[0]),
        k => Some(equals[pick(&vec![1.0; k], chances)]),
    }
}

/// An index drawn by `weights` (not all 0), as a run of chances: the first with
/// probability w0 / total, else the next of those left, and so on; the last
/// weighted one is sure, so a draw never lands where there is no weight.
pub fn pick(weights: &[f64], chances: &mut Chances) -> usize {
    let last = weights.iter().rposition(|&w| w > 0.0).expect("a draw has some weight");
    let mut left: f64 = weights.iter().sum();
    for (i, &w) in weights[..last].iter().enumerate() {
        if chances.happens(w / left) {
            return i;
        }
        left -= w;
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chance::each_way;

    #[test]
    fn a_draw_by_weights_reaches_each_weighted_index_with_its_weight() {
        let mut ways = Vec::new();
        each_way::<()>(|mut chances| {
            ways.push((pick(&[0.2, 0.0, 0.5, 0.3, 0.0], &mut chances), chances.probability()));
            Ok(chances)
        })
        .unwrap();
        let expected = [(0, 0.2), (2, 0.5), (3, 0.3)];
        assert_eq!(ways.len(), 3);
        for ((i, p), (j, q)) in ways.iter().zip(expected) {
            assert_eq!(*i, j);
            assert!((p - q).abs() < 1e-15, "{p} against {q}");
        }
    }

    #[test]
    fn the_least_is_the_first_of_equals_or_each_alike() {
        let values = [2.0, 1.0, 3.0, 1.0];
        let mut first = Vec::new();
        each_way::<()>(|mut chances| {
            first.push(least(0..4, |b| values[b], false, &mut chances));
            Ok(chances)
        })
        .unwrap();
        assert_eq!(first, vec![Some(1)]);
        let mut drawn = Vec::new();
        each_way::<()>(|mut chances| {
            drawn.push((least(0..4, |b| values[b], true, &mut chances), chances.probability()));
            Ok(chances)
        })
        .unwrap();
        assert_eq!(drawn, vec![(Some(1), 0.5), (Some(3), 0.5)]);
    }
}
