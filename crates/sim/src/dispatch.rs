//! Dispatch: a job at a dispatch step takes exactly one of its branches,
//! chosen by the step's policy (policy.rs; one type each, policies.rs) from
//! what it may read: the jobs now in each branch (their count is kept here),
//! and through `Occupancy` the branches' first stations. A policy may
//! instead leave the job waiting (`shared`) in one FIFO queue in front of
//! the branches until the first station of one of them is `open`: has a
//! free server that none of the jobs waiting there takes first (in a model
//! with resources a job may wait beside a free server for its tokens, or
//! until the event is settled, and so may many sent there in one event).
//!
//! Why a file of its own: each dispatch step's policy, the jobs counted in
//! each branch and the shared queues are kept here; each method returns the
//! branch (or the job admitted from a shared queue) and the simulation moves
//! the job there. Invariants: a branch's count is the jobs that took it and
//! have not ended it or left the system from inside it (`left`,
//! `left_all`); a shared queue is non-empty only while none of its
//! branches' first stations is open, once an event is settled.

pub mod policies;
mod policy;

use std::collections::VecDeque;

use rand::RngCore;

pub use policy::PolicyType;
use policy::{Branches, DispatchPolicy};

use crate::model::CompiledModel;
use crate::plan::{ClassPlan, DispatchStep, Occupancy, StepKind, StepPlan};

/// Every dispatch step's state during a run, and where the shared queues are.
#[derive(Debug, Default)]
pub struct Dispatchers {
    /// One per dispatch step of the model (`DispatchStep::id`).
    each: Vec<Dispatcher>,
    /// Per station, the dispatch steps `(class, step)` whose policy may
    /// leave jobs waiting (`shared`), with a branch starting there (empty
    /// without them): a departure from the station may let a job out of
    /// those queues.
    shared_at: Vec<Vec<(u32, u32)>>,
}

impl Dispatchers {
    /// For `model`, planned as `classes`: each dispatch step's policy made
    /// from its step in the model.
    pub fn new(model: &CompiledModel, classes: &[ClassPlan]) -> Self {
        let mut dispatchers = Dispatchers::default();
        for (class, plan) in classes.iter().enumerate() {
            for (step, s) in plan.steps.iter().enumerate() {
                let StepKind::Dispatch(d) = &s.kind else { continue };
                let spec = &model.classes[class].steps[step];
                let policy = spec.policy.implementation();
                dispatchers.each.push(Dispatcher::new(d.branches.len(), (policy.new)(spec)));
                if policy.may_wait {
                    dispatchers.shared_at.resize(model.stations.len(), Vec::new());
                    for &station in &d.first_stations {
                        dispatchers.shared_at[station as usize].push((class as u32, step as u32));
                    }
                }
            }
        }
        dispatchers
    }

    /// Whether a shared queue waits for `station` to open.
    #[inline]
    pub fn feeds_shared(&self, station: u32) -> bool {
        self.shared_at.get(station as usize).is_some_and(|shared| !shared.is_empty())
    }

    /// `job` arrives at dispatch step `step`: the first step of the branch it
    /// takes, or `None` when it waits in the step's shared queue (behind
    /// others already waiting there, or when no branch's first station is
    /// `open`: see the module's docs).
    pub fn enter(
        &mut self,
        step: &DispatchStep,
        job: u32,
        rng: &mut dyn RngCore,
        stations: &(impl Occupancy + ?Sized),
        open: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let dispatcher = &mut self.each[step.id as usize];
        let waiting_before = !dispatcher.shared.is_empty();
        match (!waiting_before).then(|| dispatcher.choose(step, rng, stations, open)).flatten() {
            Some(branch) => Some(step.branches[branch as usize]),
            None => {
                dispatcher.shared.push_back(job);
                None
            }
        }
    }

    /// The next job that can leave a shared queue feeding `station` now, and
    /// the first step of the branch it takes. The queues are served in turn,
    /// each while it can; `from` keeps the turn between calls (start at 0).
    pub fn admit_shared(
        &mut self,
        station: u32,
        from: &mut usize,
        classes: &[ClassPlan],
        rng: &mut dyn RngCore,
        stations: &(impl Occupancy + ?Sized),
        open: impl Fn(u32) -> bool,
    ) -> Option<(u32, u32)> {
        let shared = self.shared_at.get(station as usize)?;
        while let Some(&(class, step)) = shared.get(*from) {
            let StepKind::Dispatch(d) = &classes[class as usize].steps[step as usize].kind else {
                unreachable!("shared_at lists dispatch steps");
            };
            if let Some((job, branch)) = self.each[d.id as usize].admit_shared(d, rng, stations, &open) {
                return Some((job, d.branches[branch as usize]));
            }
            *from += 1;
        }
        None
    }

    /// A job ended `branch` of dispatch step `step`.
    #[inline]
    pub fn left(&mut self, step: &DispatchStep, branch: u32) {
        self.each[step.id as usize].left(branch);
    }

    /// A job at `step` of a route of `steps` leaves the system from there: it
    /// leaves every dispatch branch it is in.
    pub fn left_all(&mut self, steps: &[StepPlan], mut step: u32) {
        while let Some((scope, branch)) = steps[step as usize].scope {
            if let StepKind::Dispatch(d) = &steps[scope as usize].kind {
                self.left(d, branch);
            }
            step = scope;
        }
    }
}

/// One dispatch step's state during a run.
#[derive(Debug)]
struct Dispatcher {
    policy: Box<dyn DispatchPolicy>,
    /// Jobs that took each branch and have not ended it.
    in_branch: Vec<u32>,
    /// `shared`: the jobs waiting for a branch, first come first served.
    shared: VecDeque<u32>,
}

impl Dispatcher {
    fn new(branches: usize, policy: Box<dyn DispatchPolicy>) -> Self {
        Dispatcher { policy, in_branch: vec![0; branches], shared: VecDeque::new() }
    }

    /// The branch for a job arriving now, by the step's policy; `None` when
    /// the policy has it wait in `shared`.
    fn choose(
        &mut self,
        step: &DispatchStep,
        rng: &mut dyn RngCore,
        stations: &(impl Occupancy + ?Sized),
        open: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let first = |b: u32| step.first_stations[b as usize];
        let busy_fraction = |b| stations.busy_fraction(first(b));
        let open = |b| open(first(b));
        let branch = self.policy.choose(&Branches::new(&self.in_branch, &busy_fraction, &open), rng)?;
        self.in_branch[branch as usize] += 1;
        Some(branch)
    }

    /// The job at the front of `shared` and the branch the policy chooses
    /// for it now, if it chooses one.
    fn admit_shared(
        &mut self,
        step: &DispatchStep,
        rng: &mut dyn RngCore,
        stations: &(impl Occupancy + ?Sized),
        open: impl Fn(u32) -> bool,
    ) -> Option<(u32, u32)> {
        let &job = self.shared.front()?;
        let branch = self.choose(step, rng, stations, open)?;
        self.shared.pop_front();
        Some((job, branch))
    }

    /// A job that took `branch` ended it (or left the system from inside it).
    fn left(&mut self, branch: u32) {
        self.in_branch[branch as usize] -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use crate::model::Step;

    /// Two stations: busy fractions and open ones as given.
    struct Fixed {
        busy: [f64; 2],
        free: [bool; 2],
    }

    impl Fixed {
        fn open(&self) -> impl Fn(u32) -> bool + '_ {
            |station| self.free[station as usize]
        }
    }

    impl Occupancy for Fixed {
        fn present(&self, _: u32) -> u32 {
            0
        }
        fn waiting(&self, _: u32) -> u32 {
            0
        }
        fn busy_fraction(&self, station: u32) -> f64 {
            self.busy[station as usize]
        }
        fn has_room(&self, _: u32, _: bool) -> bool {
            true
        }
    }

    fn step() -> DispatchStep {
        DispatchStep { branches: vec![5, 6], id: 0, first_stations: vec![0, 1] }
    }

    #[test]
    fn the_shared_queue_is_first_come_first_served() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut d = Dispatcher::new(2, Box::new(<policies::Shared as policy::NewPolicy>::new(&Step::default())));
        d.shared.extend([7, 8]);
        let full = Fixed { busy: [1.0, 1.0], free: [false, false] };
        assert_eq!(d.admit_shared(&step(), &mut rng, &full, full.open()), None);
        let second_free = Fixed { busy: [1.0, 0.0], free: [false, true] };
        assert_eq!(d.admit_shared(&step(), &mut rng, &second_free, second_free.open()), Some((7, 1)));
        assert_eq!((d.shared.len(), d.in_branch.as_slice()), (1, [0, 1].as_slice()));
    }

    #[test]
    fn a_branch_counts_its_jobs_for_the_policy() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let idle = Fixed { busy: [0.0, 0.0], free: [true, true] };
        let mut d = Dispatcher::new(2, Box::new(<policies::ShortestQueue as policy::NewPolicy>::new(&Step::default())));
        let mut choose = |d: &mut Dispatcher| d.choose(&step(), &mut rng, &idle, idle.open());
        assert_eq!([choose(&mut d), choose(&mut d), choose(&mut d)], [Some(0), Some(1), Some(0)]);
        d.left(0);
        d.left(0);
        assert_eq!(choose(&mut d), Some(0), "branch 0 emptied");
    }

    /// `population` customers with no think time at a shared dispatch over
    /// `branches` pipelines of `steps` one-server stations (buffers of
    /// `buffer`), each step serving for exactly 1 and holding one of `cpus`
    /// tokens.
    fn pipelines(branches: u32, steps: u32, buffer: u32, cpus: u32, population: u32) -> crate::CompiledModel {
        let stations: Vec<_> = (0..branches * steps)
            .map(|s| serde_json::json!({"name": format!("s{s}"), "servers": 1, "capacity": 1 + buffer, "discipline": "fifo"}))
            .collect();
        let mut route = vec![serde_json::json!({"kind": "dispatch", "policy": "shared", "next": [[null, 1.0]],
                                                "branches": (0..branches).map(|b| 1 + b * steps).collect::<Vec<_>>()})];
        for station in 0..branches * steps {
            let next = if (station + 1) % steps == 0 { None } else { Some(station + 2) };
            route.push(serde_json::json!({"station": station, "service": {"kind": "const", "value": 1.0}, "uses": [0],
                                          "next": [[next, 1.0]], "scope": 0}));
        }
        let model = serde_json::json!({
            "stations": stations,
            "resources": [{"name": "cpu", "tokens": cpus}],
            "classes": [{"name": "c", "priority": 0, "steps": route,
                         "source": {"kind": "closed", "population": population, "think": {"kind": "const", "value": 0.0}}}]
        });
        crate::CompiledModel::from_json(&model.to_string()).expect("a valid model")
    }

    /// Throughput, mean and longest response and the stations'
    /// utilizations; every service is deterministic, so after the warmup
    /// each is exact.
    fn measured(model: &crate::CompiledModel) -> (f64, [f64; 2], Vec<f64>) {
        let settings = crate::RunSettings {
            seed: 1,
            replications: 2,
            threads: Some(1),
            stop: crate::Stop::Customers { count: 20_000 },
            warmup: crate::Warmup::Customers { count: 2_000 },
            distribution: false,
            asked: Default::default(),
            bins: None,
            found: false,
        };
        let summary = crate::run(model, &settings).expect("the run ends");
        let class = &summary.classes[0];
        let busy = summary.stations.iter().map(|s| s.utilization.as_ref().expect("finite servers").mean).collect();
        (class.throughput.mean, [class.response_time.mean.mean, class.response_time.max], busy)
    }

    fn assert_near(what: &str, got: f64, truth: f64) {
        assert!((got - truth).abs() <= 1e-3 * truth, "{what}: {got}, truth {truth}");
    }

    /// First come, first served from one queue, at the same pace: every
    /// customer's response is the mean.
    fn assert_every_response(what: &str, [mean, longest]: [f64; 2], truth: f64) {
        assert_near(&format!("{what}: mean response"), mean, truth);
        assert_near(&format!("{what}: longest response"), longest, truth);
    }

    #[test]
    fn steps_holding_tokens_leave_no_branch_of_a_shared_queue_idle() {
        // Two single servers from one queue, 100 customers: 2 a time unit,
        // and each waits for the 99 ahead of it, 50 time units (Little).
        let (throughput, response, busy) = measured(&pipelines(2, 1, 0, 100, 100));
        assert_near("throughput", throughput, 2.0);
        assert_every_response("100 cpus", response, 100.0 / 2.0);
        assert_near("busy a", busy[0], 1.0);
        assert_near("busy b", busy[1], 1.0);
        // One token: the token is the single server.
        let (throughput, response, _) = measured(&pipelines(2, 1, 0, 1, 100));
        assert_near("throughput, 1 cpu", throughput, 1.0);
        assert_every_response("1 cpu", response, 100.0);
    }

    #[test]
    fn pipelines_of_several_steps_with_buffers_behind_a_shared_queue() {
        // Three pipelines of two steps, each 1 a time unit.
        let (throughput, response, busy) = measured(&pipelines(3, 2, 5, 100, 60));
        assert_near("throughput", throughput, 3.0);
        assert_every_response("100 cpus", response, 60.0 / 3.0);
        busy.iter().for_each(|&b| assert_near("busy", b, 1.0));
        // Two tokens for two token-time-units a customer: 1 a time unit.
        let (throughput, response, _) = measured(&pipelines(3, 2, 5, 2, 60));
        assert_near("throughput, 2 cpus", throughput, 1.0);
        assert_near("response, 2 cpus", response[0], 60.0);
    }
}
