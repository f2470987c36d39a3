//! A station's state during a run: its queue, its servers (busy or blocked
//! after service), the jobs waiting upstream to get in, and its statistics.
//! Counts change only through the methods here, which keep the time averages.

use std::collections::VecDeque;

use crate::model::{Discipline, Station};
use crate::stats::{StationStats, TimeAverage};
use crate::wait_queue::WaitQueue;

/// Stands for "infinitely many" in server and capacity counts.
pub const UNBOUNDED: u32 = u32::MAX;

#[derive(Debug)]
pub struct StationState {
    pub servers: u32,
    pub capacity: u32,
    pub discipline: Discipline,
    queue: WaitQueue,
    /// Servers serving (for processor sharing: jobs sharing them).
    busy: u32,
    /// Servers held by jobs whose service ended but whose next station is full.
    blocked: u32,
    /// Jobs at the station: waiting, in service and blocked.
    present: u32,
    /// Jobs that finished elsewhere (or their think time) and wait for room here.
    pub senders: VecDeque<u32>,
    /// Processor sharing: the jobs sharing the servers, and when their remaining
    /// work was last brought up to date.
    pub sharing: Vec<u32>,
    pub sharing_since: f64,
    /// Bumped whenever the next sharing departure is rescheduled, to recognise stale events.
    pub version: u32,
    busy_average: TimeAverage,
    present_average: TimeAverage,
    waiting_average: TimeAverage,
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
            busy_average: TimeAverage::default(),
            present_average: TimeAverage::default(),
            waiting_average: TimeAverage::default(),
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

    #[inline]
    pub fn head(&self) -> Option<u32> {
        self.queue.head()
    }

    /// A job arrives and waits; `key` orders it under priority and sjf.
    #[inline]
    pub fn arrive(&mut self, job: u32, key: f64, seq: u64, now: f64) {
        self.present += 1;
        self.present_average.change(1.0, now);
        self.queue.push(job, key, seq);
        self.waiting_average.change(1.0, now);
    }

    /// The head of the queue starts service.
    #[inline]
    pub fn start_head(&mut self, now: f64) -> u32 {
        let job = self.queue.pop().expect("start_head only when a job waits");
        self.waiting_average.change(-1.0, now);
        self.set_busy(self.busy + 1, now);
        job
    }

    /// A job's service ends; it holds its server until it can leave.
    #[inline]
    pub fn end_service(&mut self, now: f64) {
        self.set_busy(self.busy - 1, now);
        self.blocked += 1;
    }

    /// A job whose service ended leaves the station.
    #[inline]
    pub fn leave(&mut self, sojourn: f64, now: f64, measuring: bool) {
        self.blocked -= 1;
        self.present -= 1;
        self.present_average.change(-1.0, now);
        if measuring {
            self.departures += 1;
            self.response_sum += sojourn;
        }
    }

    /// Servers in use for the utilization: sharing jobs beyond the server count
    /// slow each other down rather than occupy more servers.
    fn busy_servers(busy: u32, servers: u32) -> f64 {
        busy.min(servers) as f64
    }

    #[inline]
    fn set_busy(&mut self, busy: u32, now: f64) {
        let delta = Self::busy_servers(busy, self.servers) - Self::busy_servers(self.busy, self.servers);
        self.busy_average.change(delta, now);
        self.busy = busy;
    }

    pub fn restart_stats(&mut self, now: f64) {
        self.busy_average.restart(Self::busy_servers(self.busy, self.servers), now);
        self.present_average.restart(self.present as f64, now);
        self.waiting_average.restart(self.queue.len() as f64, now);
        self.departures = 0;
        self.response_sum = 0.0;
    }

    /// Each sharing job's service rate when `n` share the servers.
    #[inline]
    pub fn sharing_rate(&self, n: usize) -> f64 {
        if self.servers == UNBOUNDED { 1.0 } else { (self.servers as f64 / n as f64).min(1.0) }
    }

    pub fn stats(&self, now: f64) -> StationStats {
        StationStats {
            departures: self.departures,
            response_sum: self.response_sum,
            busy_area: self.busy_average.area(Self::busy_servers(self.busy, self.servers), now),
            present_area: self.present_average.area(self.present as f64, now),
            waiting_area: self.waiting_average.area(self.queue.len() as f64, now),
        }
    }
}
