//! The floor as the walk reads it: python/brewput/analytic/chain/floor.py's
//! `Floor`, field for field, in plain numbers (the binding converts it once).

use crate::dispatch::Dispatch;
use crate::giving_up::Balk;

/// A time law as phases: start in phase i with probability `start[i]`; from
/// phase i move by `moves[i]`, each to another phase or out of the law (None)
/// at its rate.
#[derive(Clone, Debug)]
pub struct PhaseType {
    pub start: Vec<f64>,
    pub moves: Vec<Vec<(Option<usize>, f64)>>,
}

impl PhaseType {
    /// (phase, probability) of the phases a draw may start in.
    pub fn starts(&self) -> Vec<(usize, f64)> {
        self.start.iter().enumerate().filter(|(_, &p)| p > 0.0).map(|(i, &p)| (i, p)).collect()
    }
}

#[derive(Clone, Debug)]
pub struct Step {
    pub station: usize,
    pub service: PhaseType,
    /// The resources whose tokens the step holds while served (a resource may repeat).
    pub uses: Vec<usize>,
    /// (next step or None for the exit, probability above 0).
    pub routes: Vec<(Option<usize>, f64)>,
    /// Whether a job entering the step balks at the queue it sees; None: it always joins.
    pub balk: Option<Balk>,
    /// The rate at which a job waiting at the step runs out of patience (exponential); None: never.
    pub patience: Option<f64>,
    /// A dispatch step (dispatch.rs; boxed, so that a station step stays small): it
    /// holds no job, and its `station` and `service` are its first branch's first
    /// step's; its `routes` are where a job goes after its branch. None for a station step.
    pub dispatch: Option<Box<Dispatch>>,
    /// The dispatch step and branch the step lies in; None outside any branch. Inside
    /// a branch a route to None ends the branch, not the customer.
    pub scope: Option<(usize, usize)>,
}

#[derive(Clone, Debug)]
pub struct JobClass {
    pub priority: i64,
    /// Open: arrivals per time unit (Poisson); None for a closed class.
    pub rate: Option<f64>,
    /// Closed: customers; 0 for an open class.
    pub population: u64,
    /// Closed: the think time as phases; None for a think of 0 (back at once).
    pub think: Option<PhaseType>,
    pub steps: Vec<Step>,
}

impl JobClass {
    pub fn is_open(&self) -> bool {
        self.rate.is_some()
    }

    /// The phases of its think time (0 without one): its places in a state.
    pub fn think_phases(&self) -> usize {
        self.think.as_ref().map_or(0, |t| t.start.len())
    }
}

#[derive(Clone, Debug)]
pub struct Floor {
    /// Servers per station; None for infinitely many.
    pub servers: Vec<Option<u64>>,
    /// Most jobs present per station; None when unbounded.
    pub capacity: Vec<Option<u64>>,
    /// Per station, whether it serves by priority (else first come first served).
    pub priority: Vec<bool>,
    pub tokens: Vec<u64>,
    pub classes: Vec<JobClass>,
    /// The most jobs of open classes in the system at once (an arrival beyond is cut off).
    pub open_limit: Option<u64>,
    /// The class of the tagged customer, whose completion ends the walk's paths.
    pub tagged: Option<usize>,
    /// Whether open classes arrive.
    pub arrivals: bool,
    /// Whether a job can ever wait for tokens (Floor.tokens_bind).
    pub tokens_bind: bool,
    /// Per station, whether a step there holds tokens (Floor.token_stations).
    pub token_station: Vec<bool>,
    /// The numbers the dispatch steps remember in a state (dispatch.rs `number_slots`).
    pub dispatch_slots: usize,
    /// Per station, the shared dispatch steps (class, step) with a branch starting
    /// there; empty without shared dispatch steps.
    pub shared_at: Vec<Vec<(usize, usize)>>,
}

impl Floor {
    pub fn stations(&self) -> usize {
        self.servers.len()
    }

    pub fn station_of(&self, class: usize, step: usize) -> usize {
        self.classes[class].steps[step].station
    }

    /// Whether a shared dispatch queue waits for station m's servers.
    pub fn feeds_shared(&self, m: usize) -> bool {
        self.shared_at.get(m).is_some_and(|steps| !steps.is_empty())
    }

    pub fn uses_tokens(&self) -> bool {
        self.tokens.iter().any(|&t| t > 0)
    }
}
