//! The walk: breadth first from its start, every transition the simulator can
//! make from each state found (an arrival, the end of a phase of a service or
//! think time, a waiting job's patience), each carried out by the simulator's
//! rules (work.rs), once per way its chances fall (chance.rs).

use crate::chance::each_way;
use crate::counts::Counts;
use crate::floor::Floor;
use crate::giving_up::GaveUp;
use crate::starts::{self, distinct};
use crate::state::State;
use crate::store::Store;
use crate::work::Work;
use crate::WalkError;

/// Where the walk begins.
pub enum Start<'a> {
    /// The simulator's start.
    Simulator,
    /// Jobs placed at the start: (class, step, jobs), in order.
    Placed(&'a [(usize, usize, u64)]),
    /// The floor's tagged customer of class `class` arriving into the model's chain:
    /// its states (`states`, encoded, `bounds` where each begins and ends) weighted by
    /// their stationary law `pi`.
    Arrivals { codes: &'a [i32], bounds: &'a [u64], pi: &'a [f64], class: usize },
}

/// The chain found: S states, R classes.
#[derive(Debug)]
pub struct Chain {
    /// The states in the order found, encoded (state.rs), one after another.
    pub codes: Vec<i32>,
    /// (S + 1) where each state's code begins, and where the last ends.
    pub bounds: Vec<u64>,
    /// The walk's starts (the first states) with their weights.
    pub start: Vec<f64>,
    /// The transitions per state as found, compressed rows (a target may repeat and be
    /// the state itself: the caller sums them, and sets the diagonal).
    pub indptr: Vec<i64>,
    pub indices: Vec<i32>,
    pub rates: Vec<f64>,
    /// (S * R) per state, the rate at which customers of each class complete.
    pub completions: Vec<f64>,
    /// (S * R) per state, the rate at which arrivals of each open class are turned away (full).
    pub losses: Vec<f64>,
    /// (S * R) per state, the rate at which arrivals of each open class are cut off by the truncation.
    pub truncated: Vec<f64>,
    /// (S * R) per state, the rate at which customers of each class balk, and renege.
    pub balked: Vec<f64>,
    pub reneged: Vec<f64>,
    /// (S * R * M) per state, the rate at which services of class c end at station m
    /// (column c * M + m): where customers give up, not their completions times visits.
    pub served: Vec<f64>,
    /// What each state holds.
    pub counts: Counts,
}

/// The rates out of one state, per class, of what is counted rather than followed.
struct Rates {
    done: Vec<f64>,
    lost: Vec<f64>,
    cut: Vec<f64>,
    balked: Vec<f64>,
    reneged: Vec<f64>,
    served: Vec<f64>,
}

struct Walker<'a> {
    floor: &'a Floor,
    max_states: usize,
    store: Store,
    code: Vec<i32>,
    indices: Vec<i32>,
    rates: Vec<f64>,
}

impl Walker<'_> {
    /// The number of `state`, found anew if it is new (TooManyStates beyond the limit).
    fn find(&mut self, state: &State) -> Result<usize, WalkError> {
        state.encode(&mut self.code);
        let room = self.store.len() < self.max_states;
        self.store.find(&self.code, room).ok_or(WalkError::TooManyStates(self.max_states))
    }

    fn edge(&mut self, state: &State, rate: f64) -> Result<(), WalkError> {
        let target = self.find(state)?;
        self.indices.push(target as i32);
        self.rates.push(rate);
        Ok(())
    }

    /// An event that changes more than a phase, at `rate`, from `state`: carried out by
    /// `carry_out` once per way its chances fall, each way's completions and givings up
    /// counted, and its outcomes added (unless it ends the tagged passage).
    fn event(
        &mut self,
        rate: f64,
        state: &State,
        carry_out: impl Fn(&mut Work),
        out: &mut Rates,
    ) -> Result<(), WalkError> {
        let floor = self.floor;
        each_way(|chances| {
            let mut work = Work::new(floor, state, chances);
            carry_out(&mut work);
            work.settle();
            let rate = rate * work.chances.probability();
            for &c in &work.completed {
                out.done[c] += rate;
            }
            for &(c, why) in &work.gave_up {
                match why {
                    GaveUp::Balked => out.balked[c] += rate,
                    GaveUp::Reneged => out.reneged[c] += rate,
                }
            }
            let ends = |c: usize| floor.tagged == Some(c);
            if !(work.completed.iter().any(|&c| ends(c)) || work.gave_up.iter().any(|&(c, _)| ends(c))) {
                for (p, next) in work.outcomes() {
                    self.edge(&next, rate * p)?;
                }
            }
            Ok(work.chances)
        })
    }

    /// Every transition out of `state`, in the order of the simulator's events.
    fn expand(&mut self, state: &State, out: &mut Rates) -> Result<(), WalkError> {
        let floor = self.floor;
        for (c, phases) in state.thinking.iter().enumerate() {
            for (p, &n) in phases.iter().enumerate() {
                if n == 0 {
                    continue;
                }
                let think = floor.classes[c].think.as_ref().expect("a thinking class has a think time");
                for &(target, rate) in &think.moves[p] {
                    match target {
                        Some(target) => {
                            let mut moved = state.clone();
                            moved.thinking[c][p] -= 1;
                            moved.thinking[c][target] += 1;
                            self.edge(&moved, n as f64 * rate)?;
                        }
                        None => {
                            let arrive = |work: &mut Work| {
                                work.state.thinking[c][p] -= 1;
                                work.closed_arrival(c);
                            };
                            self.event(n as f64 * rate, state, arrive, out)?;
                        }
                    }
                }
            }
        }
        let at_limit = floor.open_limit.is_some_and(|limit| state.open_jobs(floor) >= limit);
        for (c, job) in floor.classes.iter().enumerate() {
            let Some(rate) = job.rate else { continue };
            if !floor.arrivals {
                continue;
            }
            if at_limit {
                out.cut[c] += rate;
                continue;
            }
            let first_full = job.steps[0].dispatch.is_none() && !state.has_room(floor, floor.station_of(c, 0), false);
            if first_full {
                out.lost[c] += rate;
                continue;
            }
            self.event(rate, state, |work| work.depart(crate::state::OUTSIDE, c, Some(0)), out)?;
        }
        let mut i = 0;
        while i < state.queue.len() {
            // a run of equal waiting jobs: any of them leaving leaves the same state
            let q = state.queue[i];
            let run = state.queue[i..].iter().take_while(|&&other| other == q).count();
            if let Some(rate) = floor.classes[q.class as usize].steps[q.step as usize].patience {
                self.event(run as f64 * rate, state, |work| work.renege(i), out)?;
            }
            i += run;
        }
        for (m, entries) in state.serving.iter().enumerate() {
            for (entry, n) in distinct(entries) {
                let plan = &floor.classes[entry.class as usize].steps[entry.step as usize];
                for &(target, rate) in &plan.service.moves[entry.phase as usize] {
                    if let Some(target) = target {
                        let mut moved = state.clone();
                        let serving = &mut moved.serving[m];
                        let at = serving.iter().position(|s| *s == entry).expect("the entry is in service");
                        serving.remove(at);
                        serving.push(crate::state::Served { phase: target as i32, ..entry });
                        serving.sort();
                        self.edge(&moved, n as f64 * rate)?;
                        continue;
                    }
                    out.served[entry.class as usize * floor.stations() + m] += n as f64 * rate;
                    for &(next, p) in &plan.routes {
                        self.event(n as f64 * rate * p, state, |work| work.finish(m, entry, next), out)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The chain of `floor` walked from `start`, or TooManyStates once more than
/// `max_states` are found (the starts themselves always count), NoRoom where jobs
/// are placed beyond what a station holds. Where the floor has a tagged class, its
/// completion or giving up ends the walk's paths there (its `completions`, `balked`
/// and `reneged` are the rates of absorption).
pub fn walk(floor: &Floor, max_states: usize, start: Start) -> Result<Chain, WalkError> {
    if floor.classes.iter().any(|c| c.population > i32::MAX as u64) {
        return Err(WalkError::TooManyStates(max_states)); // a customer count per state beyond its encoding
    }
    let mut walker =
        Walker { floor, max_states, store: Store::default(), code: Vec::new(), indices: Vec::new(), rates: Vec::new() };
    let mut weights: Vec<f64> = Vec::new();
    let mut begin = |walker: &mut Walker, p: f64, state: &State| {
        state.encode(&mut walker.code);
        let i = walker.store.find(&walker.code, true).expect("a start is always kept");
        if i == weights.len() {
            weights.push(0.0);
        }
        weights[i] += p;
    };
    match start {
        Start::Simulator => starts::simulator(floor).iter().for_each(|(p, s)| begin(&mut walker, *p, s)),
        Start::Placed(placed) => starts::placed(floor, placed)?.iter().for_each(|(p, s)| begin(&mut walker, *p, s)),
        Start::Arrivals { codes, bounds, pi, class } => {
            let model = bounds.windows(2).map(|b| State::decode(floor, &codes[b[0] as usize..b[1] as usize]));
            starts::arrivals(floor, model, pi, class, |p, s| begin(&mut walker, p, s));
        }
    }
    let n_classes = floor.classes.len();
    let (mut completions, mut losses, mut truncated) = (Vec::new(), Vec::new(), Vec::new());
    let (mut balked, mut reneged, mut served) = (Vec::new(), Vec::new(), Vec::new());
    let mut indptr = vec![0i64];
    let mut counts = Counts::new(floor);
    let mut s = 0;
    while s < walker.store.len() {
        let state = State::decode(floor, walker.store.get(s));
        let zero = || vec![0.0; n_classes];
        let cells = vec![0.0; n_classes * floor.stations()];
        let mut out = Rates { done: zero(), lost: zero(), cut: zero(), balked: zero(), reneged: zero(), served: cells };
        walker.expand(&state, &mut out)?;
        indptr.push(walker.indices.len() as i64);
        completions.extend(out.done);
        losses.extend(out.lost);
        truncated.extend(out.cut);
        balked.extend(out.balked);
        reneged.extend(out.reneged);
        served.extend(out.served);
        counts.add(floor, &state);
        s += 1;
    }
    let Walker { store, indices, rates, .. } = walker;
    let (codes, bounds) = store.into_flat();
    Ok(Chain {
        codes,
        bounds,
        start: weights,
        indptr,
        indices,
        rates,
        completions,
        losses,
        truncated,
        balked,
        reneged,
        served,
        counts,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::dispatch::{number_slots, Dispatch, Policy};
    use crate::floor::{JobClass, PhaseType, Step};
    use crate::giving_up::Balk;
    use crate::state::{Blocked, Queued, Served};

    /// An M/M/1 holding at most `capacity` jobs.
    fn mm1(lam: f64, mu: f64, capacity: u64) -> Floor {
        let service = PhaseType { start: vec![1.0], moves: vec![vec![(None, mu)]] };
        let step = Step { station: 0, service, uses: vec![], routes: vec![(None, 1.0)], balk: None, patience: None, dispatch: None, scope: None };
        let class = JobClass { priority: 0, rate: Some(lam), population: 0, think: None, steps: vec![step] };
        Floor {
            servers: vec![Some(1)],
            capacity: vec![Some(capacity)],
            priority: vec![false],
            tokens: vec![],
            classes: vec![class],
            open_limit: None,
            tagged: None,
            arrivals: true,
            tokens_bind: false,
            token_station: vec![false],
            dispatch_slots: 0,
            shared_at: vec![],
        }
    }

    #[test]
    fn an_mm1k_is_a_birth_death_chain_in_the_order_found() {
        let chain = walk(&mm1(0.5, 2.0, 3), 10, Start::Simulator).unwrap();
        assert_eq!(chain.bounds.len() - 1, 4);
        assert_eq!(chain.indptr, vec![0, 1, 3, 5, 6]);
        assert_eq!(chain.indices, vec![1, 2, 0, 3, 1, 2]);
        assert_eq!(chain.rates, vec![0.5, 0.5, 2.0, 0.5, 2.0, 2.0]);
        assert_eq!(chain.completions, vec![0.0, 2.0, 2.0, 2.0]);
        assert_eq!(chain.losses, vec![0.0, 0.0, 0.0, 0.5]);
        assert_eq!(chain.counts.waiting.data, vec![1.0, 2.0]);
    }

    #[test]
    fn a_departure_admits_blocked_jobs_in_a_cascade_each_balking_by_chance() {
        // Station 0 (two servers) feeds station 1 (one server, at most 3 jobs), whose step
        // balks with probability 0.4 at one job or more waiting. Station 1 is full (one in
        // service, two waiting) and both of station 0's servers are blocked on it.
        let service = PhaseType { start: vec![1.0], moves: vec![vec![(None, 1.0)]] };
        let routes = vec![(Some(1), 1.0)];
        let first = Step { station: 0, service: service.clone(), uses: vec![], routes, balk: None, patience: None, dispatch: None, scope: None };
        let balking = Balk(vec![0.0, 0.4]);
        let routes = vec![(None, 1.0)];
        let second = Step { station: 1, service, uses: vec![], routes, balk: Some(balking), patience: None, dispatch: None, scope: None };
        let class = JobClass { priority: 0, rate: Some(1.0), population: 0, think: None, steps: vec![first, second] };
        let mut floor = mm1(1.0, 1.0, 3);
        floor.servers = vec![Some(2), Some(1)];
        floor.capacity = vec![Some(2), Some(3)];
        floor.priority = vec![false, false];
        floor.token_station = vec![false, false];
        floor.classes = vec![class];
        let waiting = Queued { station: 1, class: 0, step: 1 };
        let served = Served { class: 0, step: 1, phase: 0 };
        let blocked = Blocked { source: 0, class: 0, step: 1 };
        let state = State {
            thinking: vec![vec![]],
            queue: vec![waiting, waiting],
            serving: vec![vec![], vec![served]],
            lines: vec![VecDeque::new(), VecDeque::from([blocked, blocked])],
            dispatchers: vec![],
        };
        let (store, code, indices, rates) = (Store::default(), Vec::new(), Vec::new(), Vec::new());
        let mut walker = Walker { floor: &floor, max_states: 10, store, code, indices, rates };
        let zero = || vec![0.0];
        let ends = vec![0.0; 2];
        let mut out = Rates { done: zero(), lost: zero(), cut: zero(), balked: zero(), reneged: zero(), served: ends };
        walker.event(1.0, &state, |work| work.finish(1, served, None), &mut out).unwrap();
        // The first admitted balks (0.4) or joins (0.6, and the second stays blocked: no room);
        // after a balk the second, seeing one waiting still, balks (0.4) or joins (0.6).
        let found = |i: i32| State::decode(&floor, walker.store.get(i as usize));
        let reached: Vec<(f64, State)> =
            walker.indices.iter().zip(&walker.rates).map(|(&i, &p)| (p, found(i))).collect();
        let lines = vec![VecDeque::new(); 2];
        let both_balk = State { queue: vec![waiting], serving: vec![vec![], vec![served]], lines, ..state.clone() };
        let second_joins = State { queue: vec![waiting, waiting], ..both_balk.clone() };
        let first_joins = State { lines: vec![VecDeque::new(), VecDeque::from([blocked])], ..second_joins.clone() };
        assert_eq!(reached.len(), 3);
        let expected = [(0.16, both_balk), (0.24, second_joins), (0.6, first_joins)];
        for ((p, reached), (q, expected)) in reached.iter().zip(expected) {
            assert!((p - q).abs() < 1e-15, "{p} against {q}");
            assert_eq!(*reached, expected);
        }
        assert_eq!(out.done, vec![1.0]);
        assert!((out.balked[0] - (2.0 * 0.16 + 0.24)).abs() < 1e-15);
    }

    #[test]
    fn a_waiting_job_reneges_at_its_patience_and_is_counted() {
        // M/M/1 with at most 2 jobs, patience at rate 0.25: from one in service and one
        // waiting, the waiting one leaves at 0.25.
        let mut floor = mm1(0.5, 2.0, 2);
        floor.classes[0].steps[0].patience = Some(0.25);
        let chain = walk(&floor, 10, Start::Simulator).unwrap();
        assert_eq!(chain.bounds.len() - 1, 3);
        assert_eq!(chain.reneged, vec![0.0, 0.0, 0.25]);
        assert_eq!(chain.indptr, vec![0, 1, 3, 5]);
        assert_eq!(chain.indices, vec![1, 2, 0, 1, 1]);
        assert_eq!(chain.rates, vec![0.5, 0.5, 2.0, 0.25, 2.0]);
    }

    #[test]
    fn a_shared_dispatch_keeps_its_queue_as_a_count_and_a_freed_server_takes_its_head() {
        // Two one-server stations behind a shared queue, at most 3 open jobs: (a busy, b busy,
        // waiting) is 000, 100 (a first), 110, 111, 010 (a freed, nobody waiting), in the
        // order found (arrivals first).
        let mut floor = mm1(1.0, 1.0, 1);
        floor.servers = vec![Some(1), Some(1)];
        floor.capacity = vec![None, None];
        floor.priority = vec![false, false];
        floor.token_station = vec![false, false];
        floor.open_limit = Some(3);
        let serve = floor.classes[0].steps[0].clone();
        let dispatch = Dispatch { policy: Policy::Shared, branches: vec![1, 2], tie_random: false, slot: None };
        let choose = Step { dispatch: Some(Box::new(dispatch)), ..serve.clone() };
        let a = Step { scope: Some((0, 0)), ..serve.clone() };
        let b = Step { station: 1, scope: Some((0, 1)), ..serve };
        floor.classes[0].steps = vec![choose, a, b];
        (floor.dispatch_slots, floor.shared_at) = number_slots(&mut floor.classes, 2);
        assert_eq!(floor.shared_at, vec![vec![(0, 0)], vec![(0, 0)]]);
        let chain = walk(&floor, 10, Start::Simulator).unwrap();
        let held = |i: usize| {
            let s = State::decode(&floor, &chain.codes[chain.bounds[i] as usize..chain.bounds[i + 1] as usize]);
            (s.serving[0].len(), s.serving[1].len(), s.dispatchers[0])
        };
        let found: Vec<_> = (0..chain.bounds.len() - 1).map(held).collect();
        assert_eq!(found, vec![(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1), (0, 1, 0)]);
        // from 111 either departure lets the head of the queue in: back to 110
        assert_eq!(&chain.indices[chain.indptr[3] as usize..chain.indptr[4] as usize], &[2, 2]);
        assert_eq!(chain.counts.outside.data, vec![1.0]);
    }

    #[test]
    fn beyond_the_limit_the_walk_is_refused_and_placed_jobs_beyond_room_too() {
        assert_eq!(walk(&mm1(0.5, 2.0, 3), 3, Start::Simulator).unwrap_err(), WalkError::TooManyStates(3));
        assert_eq!(walk(&mm1(0.5, 2.0, 3), 10, Start::Placed(&[(0, 0, 4)])).unwrap_err(), WalkError::NoRoom(0));
        assert_eq!(WalkError::TooManyStates(1_000_000).to_string(), "more than 1,000,000 states");
    }
}
