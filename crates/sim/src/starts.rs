//! Which waiting job starts service now, at which station and on which server.
//!
//! Why a file of its own: the choice reads the stations (queues, free and
//! typed servers), the steps the waiting jobs are at and the free tokens,
//! and is returned as a [`Start`]; the simulation carries it out. Nothing
//! here changes state, so the choice can be asked again after every start.
//!
//! Invariants: a job starts only beside a free server, and at typed servers
//! only on an idle server of a type its step allows (service/typed.rs: strict
//! order or first fit); a job that uses resources starts only when a token of
//! each is free; with resources, tokens are handed out across all stations in
//! the order the jobs arrived (their `seq`).

use crate::job::Jobs;
use crate::plan::{ClassPlan, ServeStep};
use crate::resources::Resources;
use crate::service::{Start, TypedServers};
use crate::station::StationState;

/// What the choice reads, through accessors the simulation implements: so
/// asking costs nothing to set up on the engine's hottest path (a view built
/// for each ask cost 4 % of its instructions), and only what a choice needs
/// is read.
pub trait Floor {
    fn classes(&self) -> &[ClassPlan];
    fn stations(&self) -> &[StationState];
    fn jobs(&self) -> &Jobs;
    /// The tokens, in a model whose steps use resources.
    fn resources(&self) -> Option<&Resources>;
}

/// The step a waiting job is at.
#[inline]
fn step(floor: &impl Floor, job: u32) -> &ServeStep {
    step_of(floor.classes(), floor.jobs(), job)
}

#[inline]
fn step_of<'a>(classes: &'a [ClassPlan], jobs: &Jobs, job: u32) -> &'a ServeStep {
    let j = &jobs[job];
    classes[j.class as usize].steps[j.step as usize].serve()
}

/// Whether a job sent to `station` now would find a free server that none
/// of the jobs waiting there takes first (`StationState::has_unclaimed_server`):
/// what a `shared` dispatch waits for. Asked of the floor's parts, so that
/// the simulation can ask while it changes its dispatchers.
pub fn has_unclaimed_server(stations: &[StationState], classes: &[ClassPlan], jobs: &Jobs, station: u32) -> bool {
    stations[station as usize].has_unclaimed_server(|job, t| step_of(classes, jobs, job).can_be_served_by(t))
}

/// The job that can start at `station` now, if any.
#[inline]
pub fn at(floor: &impl Floor, station: u32) -> Option<Start> {
    let s = &floor.stations()[station as usize];
    // A waiting job and a free server (at typed servers: of some type) come first.
    let job = s.head()?;
    if !s.has_free_server() {
        return None;
    }
    if !s.plain {
        if let Some(typed) = s.typed() {
            return at_typed(floor, s, typed);
        }
    }
    if floor.resources().is_some_and(|r| !r.all_free(&step(floor, job).uses)) {
        return None;
    }
    Some(Start { job, server_type: 0 })
}

/// `at` at typed servers.
#[cold]
#[inline(never)]
fn at_typed(floor: &impl Floor, s: &StationState, typed: &TypedServers) -> Option<Start> {
    let ready = |job| floor.resources().is_none_or(|r| r.all_free(&step(floor, job).uses));
    typed.startable(s.queue(), ready, |job, t| step(floor, job).can_be_served_by(t))
}

/// The first-fit invariant at `station` (service/typed.rs), where tokens
/// cannot keep a job from starting beside an idle server.
pub fn first_fit_holds(floor: &impl Floor, station: u32) -> bool {
    let s = &floor.stations()[station as usize];
    s.typed().is_none_or(|typed| {
        floor.resources().is_some() || typed.first_fit_holds(s.queue(), |job, t| step(floor, job).can_be_served_by(t))
    })
}

/// Of the jobs that can start at some station now, the one that arrived
/// first, and its station.
pub fn oldest(floor: &impl Floor) -> Option<(u32, Start)> {
    (0..floor.stations().len() as u32)
        .filter_map(|s| at(floor, s).map(|start| (s, start)))
        .min_by_key(|&(_, start)| floor.jobs()[start.job].seq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CompiledModel;
    use crate::plan::plan_classes;

    /// Two one-server stations, a then b, each step holding the one cpu token.
    struct Fixture {
        classes: Vec<ClassPlan>,
        stations: Vec<StationState>,
        jobs: Jobs,
        resources: Resources,
        uses_resources: bool,
    }

    impl Floor for Fixture {
        fn classes(&self) -> &[ClassPlan] {
            &self.classes
        }
        fn stations(&self) -> &[StationState] {
            &self.stations
        }
        fn jobs(&self) -> &Jobs {
            &self.jobs
        }
        fn resources(&self) -> Option<&Resources> {
            self.uses_resources.then_some(&self.resources)
        }
    }

    fn fixture(uses_resources: bool) -> Fixture {
        let station = |name| serde_json::json!({"name": name, "servers": 1, "capacity": null, "discipline": "fifo"});
        let step = |station, next| serde_json::json!({"station": station, "service": {"kind": "const", "value": 1.0},
                                                      "uses": [0], "next": [[next, 1.0]]});
        let text = serde_json::json!({
            "stations": [station("a"), station("b")],
            "resources": [{"name": "cpu", "tokens": 1}],
            "classes": [{"name": "c", "priority": 0, "source": {"kind": "closed", "population": 2, "think": {"kind": "const", "value": 0.0}},
                         "steps": [step(0, Some(1)), step(1, None)]}]
        });
        let model = CompiledModel::from_json(&text.to_string()).expect("a valid model");
        let classes = plan_classes(&model).expect("a valid plan");
        let stations = model.stations.iter().map(|s| StationState::new(s, 1)).collect();
        Fixture { classes, stations, jobs: Jobs::default(), resources: Resources::new(&model.resources), uses_resources }
    }

    /// A job arriving `seq`-th at the station of `step`.
    fn waiting(floor: &mut Fixture, step: u32, seq: u64) -> u32 {
        let job = floor.jobs.admit(0, 0.0);
        (floor.jobs[job].step, floor.jobs[job].seq) = (step, seq);
        floor.stations[step as usize].arrive(job, 0, 0.0, 1.0, seq, 0.0);
        job
    }

    #[test]
    fn across_stations_the_job_that_arrived_first_gets_the_token_first() {
        let mut floor = fixture(true);
        let later = waiting(&mut floor, 0, 2);
        let first = waiting(&mut floor, 1, 1);
        assert_eq!(at(&floor, 0), Some(Start { job: later, server_type: 0 }));
        assert_eq!(oldest(&floor), Some((1, Start { job: first, server_type: 0 })));
        floor.resources.take(&[0], 0.0);
        assert_eq!((at(&floor, 0), oldest(&floor)), (None, None), "the token is taken");
        floor.uses_resources = false;
        assert_eq!(at(&floor, 0), Some(Start { job: later, server_type: 0 }), "a model without resources ignores them");
        assert!(first_fit_holds(&floor, 0), "untyped servers promise nothing more");
    }

    #[test]
    fn nothing_starts_without_a_waiting_job_or_a_free_server() {
        let mut floor = fixture(false);
        assert_eq!(at(&floor, 0), None);
        let job = waiting(&mut floor, 0, 1);
        floor.stations[0].take_head(0.0);
        floor.stations[0].serve(job, 0, 0, 1.0, 0.0);
        waiting(&mut floor, 0, 2);
        assert_eq!(at(&floor, 0), None, "its one server is busy");
    }
}
