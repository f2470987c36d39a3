//! Where a walk begins: the simulator's start, jobs placed at the start (a day's
//! `at_start`, `solve --from`), or a tagged customer arriving into the states of
//! the model's chain (python/brewput/analytic/chain/tagged.py's passage). Each is
//! a list of states with their weights, carried out by the simulator's moves.

use crate::chance::{each_way, Chances};
use crate::floor::Floor;
use crate::state::{Served, State, OUTSIDE};
use crate::work::Work;
use crate::WalkError;

/// The simulator's start, before first phases are drawn: every closed customer
/// begins a cycle, in class order (but those `held_back` per class, placed elsewhere),
/// its chances (a customer balking) falling by `chances`.
fn starting<'a>(floor: &'a Floor, held_back: &[u64], chances: Chances) -> Work<'a> {
    let mut work = Work::new(floor, &State::empty(floor), chances);
    for (c, job) in floor.classes.iter().enumerate() {
        for _ in 0..job.population.saturating_sub(held_back[c]) {
            work.complete(c);
            work.completed.pop();
        }
    }
    work
}

/// The simulator's start: where first phases are drawn at random (or a customer
/// balks by chance) it is one of several states, and the first will do (the steady
/// state does not depend on it).
pub fn simulator(floor: &Floor) -> Vec<(f64, State)> {
    let mut work = starting(floor, &vec![0; floor.classes.len()], Chances::default());
    work.settle();
    work.outcomes().into_iter().take(1).map(|(_, state)| (1.0, state)).collect()
}

/// The simulator's state with jobs placed at the start, as a day's `at_start` places
/// them (crates/sim/src/simulation.rs, start_day): every closed customer not placed
/// begins a cycle, then each (class, step, jobs) enters its step from outside, in
/// order, taking a free server or else waiting (a closed class's placed jobs are of
/// its population); NoRoom where a station cannot hold them.
pub fn placed(floor: &Floor, placed: &[(usize, usize, u64)]) -> Result<Vec<(f64, State)>, WalkError> {
    let mut held_back = vec![0; floor.classes.len()];
    for &(c, _, jobs) in placed {
        if !floor.classes[c].is_open() {
            held_back[c] += jobs;
        }
    }
    let mut states = Vec::new();
    each_way(|chances| {
        let mut work = starting(floor, &held_back, chances);
        work.settle();
        for &(c, step, jobs) in placed {
            let m = floor.station_of(c, step);
            for _ in 0..jobs {
                if !work.has_room(m, false) {
                    return Err(WalkError::NoRoom(m));
                }
                work.depart(OUTSIDE, c, Some(step));
            }
        }
        work.settle();
        let p = work.chances.probability();
        states.extend(work.outcomes().into_iter().map(|(q, state)| (p * q, state)));
        Ok(work.chances)
    })?;
    Ok(states)
}

/// The states class c's tagged customer (the floor's tagged class) arrives into,
/// weighted by pi(s) times the rate of its arrivals from each state s of the model's
/// chain (`model`, in order, pi over them), the arrival carried out with the
/// arriving customer tagged: each told to `arrived` as it is found.
pub fn arrivals(
    floor: &Floor,
    model: impl Iterator<Item = State>,
    pi: &[f64],
    c: usize,
    mut arrived: impl FnMut(f64, &State),
) {
    let tagged = floor.tagged.expect("a tagged floor");
    for (state, &p) in model.zip(pi) {
        if p > 0.0 {
            for (rate, arrival) in arriving(floor, c, &state) {
                let ways = each_way::<()>(|chances| {
                    let mut work = Work::new(floor, &state, chances);
                    arrival.carry_out(&mut work, c, tagged);
                    work.settle();
                    // one who balks at once is not timed: it never waits nor completes
                    if !work.gave_up.iter().any(|&(who, _)| who == tagged) {
                        let chance = work.chances.probability();
                        for (q, next) in work.outcomes() {
                            arrived(p * rate * chance * q, &next);
                        }
                    }
                    Ok(work.chances)
                });
                ways.expect("an arrival is never refused");
            }
        }
    }
}

/// A way class c's customer arrives, to be carried out with it tagged.
enum Arrival {
    /// An open class's arrival.
    Open,
    /// A closed customer's think ends in its phase.
    Thought(usize),
    /// A closed customer without a think completes the service of `entry` at a station.
    Back(usize, Served),
}

impl Arrival {
    fn carry_out(&self, work: &mut Work, c: usize, tagged: usize) {
        match *self {
            Arrival::Open => work.depart(OUTSIDE, tagged, Some(0)),
            Arrival::Thought(p) => {
                work.state.thinking[c][p] -= 1;
                work.closed_arrival(tagged);
            }
            Arrival::Back(m, entry) => {
                work.arrives_as[c] = Some(tagged);
                work.finish(m, entry, None);
            }
        }
    }
}

/// (rate, arrival) per way class c's customer arrives in `state` (its first phases
/// drawn by `outcomes` once carried out).
fn arriving(floor: &Floor, c: usize, state: &State) -> Vec<(f64, Arrival)> {
    let job = &floor.classes[c];
    let mut ways = Vec::new();
    if let Some(rate) = job.rate {
        let at_limit = floor.open_limit.is_some_and(|limit| state.open_jobs(floor) >= limit);
        if !at_limit && state.has_room(floor, floor.station_of(c, 0), false) {
            // only the admitted are timed
            ways.push((rate, Arrival::Open));
        }
        return ways;
    }
    if let Some(think) = &job.think {
        for (p, &n) in state.thinking[c].iter().enumerate() {
            if n == 0 {
                continue;
            }
            for &(target, rate) in &think.moves[p] {
                if target.is_none() {
                    ways.push((n as f64 * rate, Arrival::Thought(p)));
                }
            }
        }
        return ways;
    }
    // No think: a customer arrives again the moment it completes its cycle.
    for (m, entries) in state.serving.iter().enumerate() {
        for (entry, n) in distinct(entries) {
            if entry.class as usize != c {
                continue;
            }
            let plan = &job.steps[entry.step as usize];
            for &(target, rate) in &plan.service.moves[entry.phase as usize] {
                if target.is_some() {
                    continue;
                }
                for &(next, p) in &plan.routes {
                    if next.is_none() {
                        ways.push((n as f64 * rate * p, Arrival::Back(m, entry)));
                    }
                }
            }
        }
    }
    ways
}

/// A station's jobs in service (sorted, as a state keeps them), each distinct one
/// with how many there are.
pub fn distinct(entries: &[Served]) -> Vec<(Served, usize)> {
    let mut out: Vec<(Served, usize)> = Vec::new();
    for &entry in entries {
        match out.last_mut() {
            Some((last, n)) if *last == entry => *n += 1,
            _ => out.push((entry, 1)),
        }
    }
    out
}
