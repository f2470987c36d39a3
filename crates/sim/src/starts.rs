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

/// What the choice reads, borrowed from the simulation.
pub struct Starts<'a> {
    pub classes: &'a [ClassPlan],
    pub stations: &'a [StationState],
    pub jobs: &'a Jobs,
    /// The tokens, in a model that uses resources.
    pub resources: Option<&'a Resources>,
}

impl Starts<'_> {
    /// The step a waiting job is at.
    #[inline]
    fn step(&self, job: u32) -> &ServeStep {
        let j = &self.jobs[job];
        self.classes[j.class as usize].steps[j.step as usize].serve()
    }

    /// The job that can start at `station` now, if any.
    #[inline]
    pub fn at(&self, station: u32) -> Option<Start> {
        let s = &self.stations[station as usize];
        // A waiting job and a free server (at typed servers: of some type) come first.
        let job = s.head()?;
        if !s.has_free_server() {
            return None;
        }
        if !s.plain {
            if let Some(typed) = s.typed() {
                return self.typed(s, typed);
            }
        }
        if self.resources.is_some_and(|r| !r.all_free(&self.step(job).uses)) {
            return None;
        }
        Some(Start { job, server_type: 0 })
    }

    /// `at` at typed servers.
    #[cold]
    #[inline(never)]
    fn typed(&self, s: &StationState, typed: &TypedServers) -> Option<Start> {
        let ready = |job| self.resources.is_none_or(|r| r.all_free(&self.step(job).uses));
        typed.startable(s.queue(), ready, |job, t| self.step(job).can_be_served_by(t))
    }

    /// The first-fit invariant at `station` (service/typed.rs), where tokens
    /// cannot keep a job from starting beside an idle server.
    pub fn first_fit_holds(&self, station: u32) -> bool {
        let s = &self.stations[station as usize];
        s.typed().is_none_or(|typed| {
            self.resources.is_some() || typed.first_fit_holds(s.queue(), |job, t| self.step(job).can_be_served_by(t))
        })
    }

    /// Of the jobs that can start at some station now, the one that arrived
    /// first, and its station.
    pub fn oldest(&self) -> Option<(u32, Start)> {
        (0..self.stations.len() as u32)
            .filter_map(|s| self.at(s).map(|start| (s, start)))
            .min_by_key(|&(_, start)| self.jobs[start.job].seq)
    }
}
