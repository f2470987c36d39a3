//! Typed groups of servers (two espresso machines and a drip station): each
//! server held by one job from the start of its service until it leaves, and
//! a step may be served by some types only.
//!
//! Servers of one type are interchangeable, so a type keeps only counts and
//! the times its idle servers became idle, oldest first: that is all that
//! choosing the longest-idle server across types needs, and all the
//! statistics per type depend on. A job holding a server is known by its
//! type (the job's server slot).
//!
//! Which waiting job a freed server takes, and which idle server an arriving
//! job takes, is decided here ([`TypedServers::startable`]); the simulation
//! moves the job. Under `first_fit` the invariant is that no idle server
//! waits beside a waiting job it may serve ([`TypedServers::first_fit_holds`],
//! checked after every start in debug builds and tests); under `head` the
//! head of the line waits for a server it may use, and everyone behind it.

use std::collections::VecDeque;

use super::Start;
use crate::model::{Assign, ServerType, Take};
use crate::stats::{ServerTypeStats, TimeAverage};

#[derive(Debug)]
struct ServerGroup {
    /// Servers in service or held by a job blocked after it.
    held: u32,
    serving: u32,
    /// When each idle server became idle, oldest first.
    idle_since: VecDeque<f64>,
    /// Servers a rota took off while they held a job: each goes when its job leaves.
    going_off: u32,
    busy_average: TimeAverage,
    /// Services completed by this type, per class, while measuring.
    served: Vec<u64>,
}

#[derive(Debug)]
pub struct TypedServers {
    groups: Vec<ServerGroup>,
    /// Which waiting job a freed server takes.
    take: Take,
    assign: Assign,
    servers: u32,
    held: u32,
    serving: u32,
}

impl TypedServers {
    pub fn new(types: &[ServerType], take: Take, assign: Assign, classes: usize) -> Self {
        let groups = types
            .iter()
            .map(|t| ServerGroup {
                held: 0,
                serving: 0,
                idle_since: std::iter::repeat_n(0.0, t.rota.as_ref().map_or(t.count, |r| r[0]) as usize).collect(),
                going_off: 0,
                busy_average: TimeAverage::default(),
                served: vec![0; classes],
            })
            .collect();
        let servers = types.iter().map(|t| t.rota.as_ref().map_or(t.count, |r| r[0])).sum();
        TypedServers { groups, take, assign, servers, held: 0, serving: 0 }
    }

    /// A rota puts `on` servers of type `t` on at `now` (day.rs): new ones are
    /// idle from now; of those taken off, idle ones go at once (the latest idle
    /// first) and busy ones when their jobs leave (off shift: finish).
    pub fn set_servers(&mut self, t: u32, on: u32, now: f64) {
        let group = &mut self.groups[t as usize];
        let present = group.held + group.idle_since.len() as u32;
        group.going_off = 0;
        if on >= present {
            group.idle_since.extend(std::iter::repeat_n(now, (on - present) as usize));
        } else {
            let idle_off = (present - on).min(group.idle_since.len() as u32);
            group.idle_since.truncate(group.idle_since.len() - idle_off as usize);
            group.going_off = present - on - idle_off;
        }
        // `servers` counts those present, held or idle: one is free exactly when one is idle.
        self.servers = self.servers - present + group.held + group.idle_since.len() as u32;
    }

    #[inline]
    pub fn servers(&self) -> u32 {
        self.servers
    }

    #[inline]
    pub fn has_free_server(&self) -> bool {
        self.held < self.servers
    }

    #[inline]
    pub fn serving(&self) -> u32 {
        self.serving
    }

    /// How many types there are.
    #[inline]
    pub fn types(&self) -> u32 {
        self.groups.len() as u32
    }

    /// Whether a server of type `t` is idle.
    #[inline]
    pub fn is_idle(&self, t: u32) -> bool {
        !self.groups[t as usize].idle_since.is_empty()
    }

    /// The type whose idle server a job that `can_serve` allows takes:
    /// under `longest_idle` the type of the server idle the longest (ties:
    /// file order), under `in_order` the first type in file order with an
    /// idle server. `None` if no allowed server is idle.
    pub fn pick(&self, can_serve: impl Fn(u32) -> bool) -> Option<u32> {
        self.pick_among(|t| self.groups[t as usize].idle_since.front().copied(), can_serve)
    }

    /// `pick` among the idle servers `next_idle` offers: per type, when the
    /// idle server it would give became idle (`None`: none of that type).
    #[inline]
    fn pick_among(&self, next_idle: impl Fn(u32) -> Option<f64>, can_serve: impl Fn(u32) -> bool) -> Option<u32> {
        let idle = (0..self.types()).filter_map(|t| next_idle(t).map(|since| (t, since))).filter(|&(t, _)| can_serve(t));
        match self.assign {
            Assign::InOrder => idle.map(|(t, _)| t).next(),
            Assign::LongestIdle => idle.min_by(|(a, sa), (b, sb)| sa.total_cmp(sb).then(a.cmp(b))).map(|(t, _)| t),
        }
    }

    /// The idle servers none of `waiting` (in queue order) would take if
    /// every job were ready to start: each takes in turn the server `pick`
    /// would give it (under `head`, none behind a job no idle server may
    /// serve). A job waits beside an idle server it may use only for its
    /// tokens, so in a model without resources these are all the idle ones.
    pub fn unclaimed(&self, waiting: impl Iterator<Item = u32>, may_serve: impl Fn(u32, u32) -> bool) -> u32 {
        let mut taken = vec![0; self.groups.len()];
        let mut left = self.servers - self.held;
        for job in waiting {
            if left == 0 {
                break;
            }
            let next_idle = |t: u32| self.groups[t as usize].idle_since.get(taken[t as usize]).copied();
            match self.pick_among(next_idle, |t| may_serve(job, t)) {
                Some(t) => {
                    taken[t as usize] += 1;
                    left -= 1;
                }
                None if self.take == Take::Head => break,
                None => {}
            }
        }
        left
    }

    /// The job of `waiting` (in queue order) that starts now, and the type
    /// of idle server it takes: under `head` the head if a server may serve
    /// it, under `first_fit` the first job one may serve. `ready(job)`:
    /// whether it may start at all (its tokens are free); `may_serve(job, t)`:
    /// whether a server of type `t` may serve it.
    pub fn startable(
        &self,
        waiting: impl Iterator<Item = u32>,
        ready: impl Fn(u32) -> bool,
        may_serve: impl Fn(u32, u32) -> bool,
    ) -> Option<Start> {
        if !self.has_free_server() {
            return None;
        }
        for job in waiting {
            if ready(job) {
                if let Some(server_type) = self.pick(|t| may_serve(job, t)) {
                    return Some(Start { job, server_type });
                }
            }
            if self.take == Take::Head {
                return None;
            }
        }
        None
    }

    /// The first-fit invariant: under `first_fit`, no server is idle while a
    /// job of `waiting` that it `may_serve` waits.
    pub fn first_fit_holds(&self, mut waiting: impl Iterator<Item = u32>, may_serve: impl Fn(u32, u32) -> bool) -> bool {
        self.take != Take::FirstFit || waiting.all(|job| (0..self.types()).all(|t| !(self.is_idle(t) && may_serve(job, t))))
    }

    /// A job starts on an idle server of type `t`.
    #[inline]
    pub fn start(&mut self, t: u32, now: f64) {
        let group = &mut self.groups[t as usize];
        group.idle_since.pop_front().expect("a job starts only on an idle server");
        group.held += 1;
        group.serving += 1;
        group.busy_average.change(1.0, now);
        self.held += 1;
        self.serving += 1;
    }

    /// A service of `class` on type `t` ends; the job keeps the server until it leaves.
    #[inline]
    pub fn end(&mut self, t: u32, class: u32, now: f64, measuring: bool) {
        let group = &mut self.groups[t as usize];
        group.serving -= 1;
        group.busy_average.change(-1.0, now);
        group.served[class as usize] += u64::from(measuring);
        self.serving -= 1;
    }

    /// The job holding a server of type `t` leaves it: the server is idle from `now`.
    #[inline]
    pub fn leave(&mut self, t: u32, now: f64) {
        let group = &mut self.groups[t as usize];
        group.held -= 1;
        self.held -= 1;
        if group.going_off > 0 {
            group.going_off -= 1; // its shift ended while it served
            self.servers -= 1;
        } else {
            group.idle_since.push_back(now);
        }
    }

    pub fn restart_stats(&mut self, now: f64) {
        for group in &mut self.groups {
            group.busy_average.restart(group.serving as f64, now);
            group.served.iter_mut().for_each(|n| *n = 0);
        }
    }

    pub fn stats(&self, now: f64) -> Vec<ServerTypeStats> {
        self.groups
            .iter()
            .map(|g| ServerTypeStats { busy_area: g.busy_average.area(g.serving as f64, now), served: g.served.clone() })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(assign: Assign) -> TypedServers {
        bar_taking(Take::FirstFit, assign)
    }

    fn bar_taking(take: Take, assign: Assign) -> TypedServers {
        let types = [
            ServerType { name: "espresso".into(), count: 2, rota: None },
            ServerType { name: "drip".into(), count: 1, rota: None },
        ];
        TypedServers::new(&types, take, assign, 1)
    }

    /// Jobs 10 and 11 want espresso (type 0) only, job 12 drip (type 1) only.
    fn wants(job: u32, t: u32) -> bool {
        t == u32::from(job == 12)
    }

    #[test]
    fn strict_order_blocks_behind_its_head_and_first_fit_takes_the_first_that_fits() {
        let anyone = |_| true;
        for take in [Take::Head, Take::FirstFit] {
            let mut servers = bar_taking(take, Assign::LongestIdle);
            servers.start(0, 0.0);
            servers.start(0, 0.0);
            // Both espresso machines busy, the drip station idle.
            let chosen = servers.startable([10, 12].into_iter(), anyone, wants);
            let holds = servers.first_fit_holds([10, 12].into_iter(), wants);
            if take == Take::Head {
                assert_eq!(chosen, None, "the head waits for espresso, and drip behind it");
                assert!(holds, "only first fit promises no idle server beside a job it may serve");
            } else {
                assert_eq!(chosen, Some(Start { job: 12, server_type: 1 }));
                assert!(!holds);
            }
            assert_eq!(servers.startable([12, 10].into_iter(), anyone, wants), Some(Start { job: 12, server_type: 1 }));
            assert_eq!(servers.startable([12].into_iter(), |_| false, wants), None, "not ready: its tokens are taken");
            servers.start(1, 0.0);
            assert_eq!(servers.startable([10, 11].into_iter(), anyone, wants), None, "no server free");
            assert!(servers.first_fit_holds([10, 11, 12].into_iter(), wants));
        }
    }

    #[test]
    fn waiting_jobs_claim_the_idle_servers_they_would_take() {
        for take in [Take::Head, Take::FirstFit] {
            let mut servers = bar_taking(take, Assign::LongestIdle);
            assert_eq!(servers.unclaimed([].into_iter(), wants), 3);
            assert_eq!(servers.unclaimed([10, 12].into_iter(), wants), 1, "an espresso machine left");
            assert_eq!(servers.unclaimed([10, 11, 12, 10].into_iter(), wants), 0);
            servers.start(0, 0.0);
            servers.start(0, 0.0);
            // Only the drip station idle, and job 10 waits for espresso.
            let behind_the_head = if take == Take::Head { 1 } else { 0 };
            assert_eq!(servers.unclaimed([10, 12].into_iter(), wants), behind_the_head);
            assert_eq!(servers.unclaimed([10, 11].into_iter(), wants), 1, "no espresso machine idle");
        }
    }

    #[test]
    fn the_longest_idle_server_is_taken_whatever_its_type() {
        let mut servers = bar(Assign::LongestIdle);
        let anyone = |_| true;
        // All idle since 0: file order breaks the tie.
        assert_eq!(servers.pick(anyone), Some(0));
        servers.start(0, 0.0);
        servers.start(0, 0.0);
        servers.start(1, 0.0);
        assert_eq!(servers.pick(anyone), None);
        assert!(!servers.has_free_server());
        // The drip station frees at 1, an espresso machine at 2: drip idle longer.
        servers.end(1, 0, 1.0, true);
        servers.leave(1, 1.0);
        servers.end(0, 0, 2.0, true);
        servers.leave(0, 2.0);
        assert_eq!(servers.pick(anyone), Some(1));
        assert_eq!(servers.pick(|t| t == 0), Some(0), "only the types allowed");
        let mut in_order = bar(Assign::InOrder);
        in_order.start(0, 0.0);
        in_order.end(0, 0, 1.0, true);
        in_order.leave(0, 1.0);
        assert_eq!(in_order.pick(anyone), Some(0), "file order, however long the drip station idled");
    }

    #[test]
    fn busy_time_and_services_are_counted_per_type() {
        let mut servers = bar(Assign::LongestIdle);
        servers.start(0, 0.0);
        servers.start(1, 1.0);
        servers.end(0, 0, 3.0, true);
        assert_eq!(servers.serving(), 1);
        servers.leave(0, 4.0);
        let stats = servers.stats(5.0);
        assert_eq!(stats[0].busy_area, 3.0, "busy while serving, not while blocked");
        assert_eq!(stats[1].busy_area, 4.0);
        assert_eq!((stats[0].served[0], stats[1].served[0]), (1, 0));
    }
}
