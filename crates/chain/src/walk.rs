//! The walk: breadth first from its start, every transition the simulator can
//! make from each state found (an arrival, the end of a phase of a service or
//! think time), each carried out by the simulator's rules (work.rs).

use crate::counts::Counts;
use crate::floor::Floor;
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
    /// What each state holds.
    pub counts: Counts,
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

    /// An event that changes more than a phase, at `rate`: carried out, its
    /// completions counted, and its outcomes added (unless it ends the tagged passage).
    fn event(&mut self, rate: f64, mut work: Work, done: &mut [f64]) -> Result<(), WalkError> {
        work.settle();
        for &c in &work.completed {
            done[c] += rate;
        }
        if self.floor.tagged.is_some_and(|t| work.completed.contains(&t)) {
            return Ok(());
        }
        for (p, state) in work.outcomes() {
            self.edge(&state, rate * p)?;
        }
        Ok(())
    }

    /// Every transition out of `state`, in the order of the simulator's events.
    fn expand(&mut self, state: &State, done: &mut [f64], lost: &mut [f64], cut: &mut [f64]) -> Result<(), WalkError> {
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
                            let mut work = Work::new(floor, state);
                            work.state.thinking[c][p] -= 1;
                            work.closed_arrival(c);
                            self.event(n as f64 * rate, work, done)?;
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
                cut[c] += rate;
                continue;
            }
            let mut work = Work::new(floor, state);
            if !work.has_room(floor.station_of(c, 0), false) {
                lost[c] += rate;
                continue;
            }
            work.depart(crate::state::OUTSIDE, c, Some(0));
            self.event(rate, work, done)?;
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
                    for &(next, p) in &plan.routes {
                        let mut work = Work::new(floor, state);
                        work.finish(m, entry, next);
                        self.event(n as f64 * rate * p, work, done)?;
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
/// completion ends the walk's paths there (its `completions` are the rates of absorption).
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
    let mut indptr = vec![0i64];
    let mut counts = Counts::new(floor);
    let mut s = 0;
    while s < walker.store.len() {
        let state = State::decode(floor, walker.store.get(s));
        let (mut done, mut lost, mut cut) = (vec![0.0; n_classes], vec![0.0; n_classes], vec![0.0; n_classes]);
        walker.expand(&state, &mut done, &mut lost, &mut cut)?;
        indptr.push(walker.indices.len() as i64);
        completions.extend(done);
        losses.extend(lost);
        truncated.extend(cut);
        counts.add(floor, &state);
        s += 1;
    }
    let Walker { store, indices, rates, .. } = walker;
    let (codes, bounds) = store.into_flat();
    Ok(Chain { codes, bounds, start: weights, indptr, indices, rates, completions, losses, truncated, counts })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::floor::{JobClass, PhaseType, Step};

    /// An M/M/1 holding at most `capacity` jobs.
    fn mm1(lam: f64, mu: f64, capacity: u64) -> Floor {
        let service = PhaseType { start: vec![1.0], moves: vec![vec![(None, mu)]] };
        let step = Step { station: 0, service, uses: vec![], routes: vec![(None, 1.0)] };
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
    fn beyond_the_limit_the_walk_is_refused_and_placed_jobs_beyond_room_too() {
        assert_eq!(walk(&mm1(0.5, 2.0, 3), 3, Start::Simulator).unwrap_err(), WalkError::TooManyStates(3));
        assert_eq!(walk(&mm1(0.5, 2.0, 3), 10, Start::Placed(&[(0, 0, 4)])).unwrap_err(), WalkError::NoRoom(0));
        assert_eq!(WalkError::TooManyStates(1_000_000).to_string(), "more than 1,000,000 states");
    }
}
