//! What a dispatch policy is to the engine: a type that chooses a branch
//! for each job arriving at a dispatch step ([`DispatchPolicy`]), made from
//! the model's step once its parameters are checked ([`NewPolicy`]).
//!
//! Why a file of its own: the engine reaches every policy through these two
//! traits only, so a new policy is one type implementing them (policies.rs)
//! and its word in the vocabulary (vocabulary.rs), which names the type.

use rand::RngCore;

use crate::model::Step;

/// What a policy may read when a job arrives, per branch (numbered in the
/// step's order): the jobs in it now, and how busy its first station is and
/// whether that station is open (a free server none of its waiting jobs
/// takes first; asked only of policies that read first stations).
pub struct Branches<'a> {
    in_branch: &'a [u32],
    busy_fraction: &'a dyn Fn(u32) -> f64,
    open: &'a dyn Fn(u32) -> bool,
}

impl<'a> Branches<'a> {
    pub fn new(in_branch: &'a [u32], busy_fraction: &'a dyn Fn(u32) -> f64, open: &'a dyn Fn(u32) -> bool) -> Self {
        Branches { in_branch, busy_fraction, open }
    }

    /// How many branches the step has.
    pub fn count(&self) -> u32 {
        self.in_branch.len() as u32
    }

    /// Jobs that took `branch` and have not ended it.
    pub fn jobs_in(&self, branch: u32) -> u32 {
        self.in_branch[branch as usize]
    }

    /// The fraction of `branch`'s first station's servers serving now.
    pub fn busy_fraction(&self, branch: u32) -> f64 {
        (self.busy_fraction)(branch)
    }

    /// Whether a job sent to `branch` now would start at once at its first station.
    pub fn open(&self, branch: u32) -> bool {
        (self.open)(branch)
    }
}

/// A dispatch step's policy during a run, with its own state (a turn, the
/// weights it draws by).
pub trait DispatchPolicy: std::fmt::Debug {
    /// The branch for a job arriving now, or `None` to have it wait in the
    /// step's queue (policies that `MAY_WAIT`): the queue's front job asks
    /// again whenever a branch's first station may have opened.
    fn choose(&mut self, branches: &Branches<'_>, rng: &mut dyn RngCore) -> Option<u32>;
}

/// How a policy is made from a model's dispatch step.
pub trait NewPolicy: DispatchPolicy + Sized + 'static {
    /// Whether it reads the branches' first stations (`busy_fraction`,
    /// `open`): each branch must then start at a station.
    const READS_FIRST_STATIONS: bool = false;
    /// Whether `choose` may leave a job waiting in front of the branches.
    const MAY_WAIT: bool = false;
    /// Whether it can find branches equal, and so reads the step's `tie`.
    const MAY_TIE: bool = false;

    /// The step's parameters the policy takes (`weights`, `d`), checked for
    /// a step of `branches` branches; why not, in a few words, otherwise.
    fn check(_step: &Step, _branches: u32) -> Result<(), String> {
        Ok(())
    }

    /// Its state for one run of a checked `step`.
    fn new(step: &Step) -> Self;
}

/// A policy type as the vocabulary names it (`Policy::implementation`): its
/// traits' constants and functions, the type erased.
#[derive(Clone, Copy)]
pub struct PolicyType {
    pub reads_first_stations: bool,
    pub may_wait: bool,
    pub may_tie: bool,
    pub check: fn(&Step, u32) -> Result<(), String>,
    pub new: fn(&Step) -> Box<dyn DispatchPolicy>,
}

impl PolicyType {
    pub fn of<P: NewPolicy>() -> Self {
        PolicyType {
            reads_first_stations: P::READS_FIRST_STATIONS,
            may_wait: P::MAY_WAIT,
            may_tie: P::MAY_TIE,
            check: P::check,
            new: |step| Box::new(P::new(step)),
        }
    }
}
