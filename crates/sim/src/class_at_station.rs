//! One class's part of a station's figures (docs/results.md, "Per class at each
//! station"): the same time averages and departures as the station's totals,
//! changed where they change (station.rs), for the jobs of that class alone.
//! Kept only in a model of several classes, so that a model of one class pays a
//! test of an empty list at each change (its figures are the station's).

use serde::Serialize;

use crate::stats::TimeAverage;

/// One class's counts at a station and their time averages since the figures started.
#[derive(Debug, Clone, Default)]
pub struct ClassAtStation {
    present: u32,
    waiting: u32,
    /// Jobs of the class in service.
    serving: u32,
    /// The servers they keep busy: `serving` at a pool or typed servers, their
    /// share of the busy servers under processor sharing.
    busy: f64,
    present_average: TimeAverage,
    waiting_average: TimeAverage,
    busy_average: TimeAverage,
    departures: u64,
    response_sum: f64,
}

/// One class's figures at one station from one replication.
#[derive(Debug, Clone, Serialize)]
pub struct ClassAtStationStats {
    pub departures: u64,
    pub response_sum: f64,
    pub busy_area: f64,
    pub present_area: f64,
    pub waiting_area: f64,
}

impl ClassAtStation {
    /// A job of the class arrives, or leaves without service (`delta` -1).
    #[inline]
    pub fn present(&mut self, delta: i32, now: f64) {
        self.present = self.present.wrapping_add_signed(delta);
        self.present_average.change(delta as f64, now);
    }

    /// A job of the class starts waiting, or stops (`delta` -1).
    #[inline]
    pub fn waiting(&mut self, delta: i32, now: f64) {
        self.waiting = self.waiting.wrapping_add_signed(delta);
        self.waiting_average.change(delta as f64, now);
    }

    /// A job of the class starts service on a server, or leaves it (`delta` -1).
    #[inline]
    pub fn serving(&mut self, delta: i32, now: f64) {
        self.serving = self.serving.wrapping_add_signed(delta);
        self.busy_average.change(delta as f64, now);
        self.busy += delta as f64;
    }

    /// Under processor sharing: a job of the class joins the sharers, or leaves
    /// them (`delta` -1); its busy servers are then set by `share`.
    #[inline]
    pub fn sharing(&mut self, delta: i32) {
        self.serving = self.serving.wrapping_add_signed(delta);
    }

    /// Under processor sharing, the class's share of the `busy` servers the `sharers` keep busy.
    #[inline]
    pub fn share(&mut self, busy: f64, sharers: u32, now: f64) {
        let mine = if sharers == 0 { 0.0 } else { self.serving as f64 * busy / sharers as f64 };
        self.busy_average.change(mine - self.busy, now);
        self.busy = mine;
    }

    /// A job of the class leaves the station after `sojourn` there.
    #[inline]
    pub fn left(&mut self, sojourn: f64, now: f64, measuring: bool) {
        self.present(-1, now);
        if measuring {
            self.departures += 1;
            self.response_sum += sojourn;
        }
    }

    pub fn restart_stats(&mut self, now: f64) {
        self.present_average.restart(self.present as f64, now);
        self.waiting_average.restart(self.waiting as f64, now);
        self.busy_average.restart(self.busy, now);
        self.departures = 0;
        self.response_sum = 0.0;
    }

    pub fn stats(&self, now: f64) -> ClassAtStationStats {
        ClassAtStationStats {
            departures: self.departures,
            response_sum: self.response_sum,
            busy_area: self.busy_average.area(self.busy, now),
            present_area: self.present_average.area(self.present as f64, now),
            waiting_area: self.waiting_average.area(self.waiting as f64, now),
        }
    }
}
