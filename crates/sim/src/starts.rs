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
    let j = &floor.jobs()[job];
    floor.classes()[j.class as usize].steps[j.step as usize].serve()
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
