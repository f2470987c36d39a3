//! A station's state during a run: its queue, its servers (busy or blocked
//! after service), the jobs waiting upstream to get in, and its statistics.

use std::collections::VecDeque;

use crate::model::{Discipline, Station};
use crate::stats::{Area, StationStats};
use crate::wait_queue::WaitQueue;

/// Stands for "infinitely many" in server and capacity counts.
pub const UNBOUNDED: u32 = u32::MAX;

#[derive(Debug)]
pub struct StationState {
    pub servers: u32,
    pub capacity: u32,
    pub discipline: Discipline,
    pub queue: WaitQueue,
    /// Servers serving (for processor sharing: jobs sharing them).
    pub busy: u32,
    /// Servers held by jobs whose service ended but whose next station is full.
    pub blocked: u32,
    /// Jobs at the station: waiting, in service and blocked.
    pub present: u32,
    /// Jobs that finished elsewhere (or their think time) and wait for room here.
    pub senders: VecDeque<u32>,
    /// Processor sharing: the jobs sharing the servers, and when their remaining
    /// work was last brought up to date.
    pub sharing: Vec<u32>,
    pub sharing_since: f64,
    /// Bumped whenever the next sharing departure is rescheduled, to recognise stale events.
    pub version: u32,
    busy_area: Area,
    present_area: Area,
    waiting_area: Area,
    pub departures: u64,
    pub response_sum: f64,
}

impl StationState {
    pub fn new(station: &Station) -> Self {
        StationState {
            servers: station.servers.unwrap_or(UNBOUNDED),
            capacity: station.capacity.unwrap_or(UNBOUNDED),
            discipline: station.discipline,
            queue: WaitQueue::new(station.discipline),
            busy: 0,
            blocked: 0,
            present: 0,
            senders: VecDeque::new(),
            sharing: Vec::new(),
            sharing_since: 0.0,
            version: 0,
            busy_area: Area::default(),
            present_area: Area::default(),
            waiting_area: Area::default(),
            departures: 0,
            response_sum: 0.0,
        }
    }

    pub fn is_sharing(&self) -> bool {
        self.discipline == Discipline::Ps
    }

    /// Whether a job may arrive; `already_here` when it moves within the station.
    #[inline]
    pub fn has_room(&self, already_here: bool) -> bool {
        self.capacity == UNBOUNDED || self.present - u32::from(already_here) < self.capacity
    }

    #[inline]
    pub fn has_free_server(&self) -> bool {
        self.is_sharing() || self.servers == UNBOUNDED || self.busy + self.blocked < self.servers
    }

    /// Servers in use for the utilization: sharing jobs beyond the server count
    /// slow each other down rather than occupy more servers.
    fn busy_servers(&self) -> f64 {
        self.busy.min(self.servers) as f64
    }

    /// Brings the time averages up to `now`; call before any count changes.
    #[inline]
    pub fn touch(&mut self, now: f64) {
        self.busy_area.advance(self.busy_servers(), now);
        self.present_area.advance(self.present as f64, now);
        self.waiting_area.advance(self.queue.len() as f64, now);
    }

    pub fn restart_stats(&mut self, now: f64) {
        self.busy_area.restart(now);
        self.present_area.restart(now);
        self.waiting_area.restart(now);
        self.departures = 0;
        self.response_sum = 0.0;
    }

    /// Each sharing job's service rate when `n` share the servers.
    #[inline]
    pub fn sharing_rate(&self, n: usize) -> f64 {
        if self.servers == UNBOUNDED { 1.0 } else { (self.servers as f64 / n as f64).min(1.0) }
    }

    pub fn stats(&self) -> StationStats {
        StationStats {
            departures: self.departures,
            response_sum: self.response_sum,
            busy_area: self.busy_area.area,
            present_area: self.present_area.area,
            waiting_area: self.waiting_area.area,
        }
    }
}
