//! Figures per reporting interval of a day (the model's intervals, or
//! `simulate --bins`), each with its interval across replications.
//!
//! Two kinds of figure, as docs/results.md says: those of the interval's
//! time (arrivals, completions, servers busy, jobs waiting) are differences of
//! running totals taken at the interval's edges, which costs the engine
//! nothing between edges; those of the customers who arrived in the interval
//! (their waits, how many gave up) are recorded when each customer leaves,
//! under the interval it arrived in. On a day that repeats, only the measured
//! day is reported: its time and the customers who arrived in it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::asked::Asked;
use crate::day::report_edges;
use crate::found::{self, Found};
use crate::model::{CompiledModel, Day, Station};
use crate::stats::{TimeRecorder, TimeSummary, PERCENTILES, SPECTRUM};
use crate::summary::{Estimate, TimesEstimate};

/// The running totals at an edge: per class (arrivals offered, completed,
/// lost), per station (`StationState::running_totals`).
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub classes: Vec<[u64; 3]>,
    pub stations: Vec<[f64; 4]>,
}

/// The customers of a class who arrived in one interval.
#[derive(Debug, Clone, Default)]
struct Arrived {
    lost: u64,
    /// The waits of those who completed.
    waits: TimeRecorder,
}

#[derive(Debug)]
pub struct IntervalRecorder {
    /// When the measured day starts (0 unless the day repeats).
    origin: f64,
    edges: Vec<f64>,
    width: f64,
    /// `[interval][class]`
    arrived: Vec<Vec<Arrived>>,
    /// At each edge passed, the first at 0.
    totals: Vec<Totals>,
    /// The quantiles and service levels the run asked for, of each interval's waits too.
    asked: Asked,
    /// What arrivals at each station found there, where the run asked (found.rs).
    found: Option<Found>,
}

impl IntervalRecorder {
    /// The running totals start from zero at `origin` (measurement starts there).
    /// `found`: also keep what arrivals at each station find there.
    pub fn new(origin: f64, length: f64, width: f64, classes: usize, stations: usize, asked: Asked, found: bool) -> Self {
        let edges = report_edges(length, width);
        let first = Totals { classes: vec![[0; 3]; classes], stations: vec![[0.0; 4]; stations] };
        IntervalRecorder {
            found: found.then(|| Found::new(edges.len() - 1, stations)),
            arrived: vec![vec![Arrived::default(); classes]; edges.len() - 1],
            origin,
            edges,
            width,
            totals: vec![first],
            asked,
        }
    }

    /// Whether a customer who arrived at `t` is one of the measured day's.
    pub fn is_measured(&self, t: f64) -> bool {
        t >= self.origin
    }

    fn interval_of(&self, t: f64) -> usize {
        (((t - self.origin) / self.width) as usize).min(self.arrived.len() - 1)
    }

    /// A customer of `class` who arrived at `arrived` completed after waiting
    /// `waited`; one who arrived before the measured day is not recorded.
    pub fn completed(&mut self, class: u32, arrived: f64, waited: f64) {
        if self.is_measured(arrived) {
            let i = self.interval_of(arrived);
            self.arrived[i][class as usize].waits.record(waited);
        }
    }

    /// A customer of `class` who arrived at `arrived` was lost (turned away,
    /// balked or reneged); one who arrived before the measured day is not recorded.
    pub fn lost(&mut self, class: u32, arrived: f64) {
        if self.is_measured(arrived) {
            let i = self.interval_of(arrived);
            self.arrived[i][class as usize].lost += 1;
        }
    }

    /// A customer arriving at `station` at `t` found `present` there; recorded
    /// where the run asked, for the measured day's arrivals.
    pub fn found(&mut self, station: u32, present: u32, t: f64) {
        if self.found.is_some() && self.is_measured(t) {
            let i = self.interval_of(t);
            if let Some(found) = &mut self.found {
                found.record(i, station, present);
            }
        }
    }

    /// The running totals at the end of the next interval.
    pub fn close(&mut self, totals: Totals) {
        self.totals.push(totals);
    }

    /// The replication's figures per interval (intervals not reached: none).
    pub fn stats(&self) -> Vec<IntervalStats> {
        self.totals
            .windows(2)
            .zip(&self.arrived)
            .zip(self.edges.windows(2))
            .enumerate()
            .map(|(i, ((t, arrived), edges))| IntervalStats {
                classes: arrived
                    .iter()
                    .enumerate()
                    .map(|(c, a)| {
                        let (before, after) = (t[0].classes[c], t[1].classes[c]);
                        IntervalClassStats {
                            arrivals: after[0] - before[0],
                            completions: after[1] - before[1],
                            lost: a.lost,
                            waited: a.waits.histogram().total(),
                            waiting: a.waits.summary(&self.asked),
                        }
                    })
                    .collect(),
                stations: t[0].stations.iter().zip(&t[1].stations).map(|(a, b)| std::array::from_fn(|k| b[k] - a[k])).collect(),
                width: edges[1] - edges[0],
                found: self.found.as_ref().map(|f| (0..t[0].stations.len()).map(|s| f.at(i, s).to_vec()).collect()),
            })
            .collect()
    }
}

/// One interval of one replication.
#[derive(Debug, Clone, Serialize)]
pub struct IntervalStats {
    pub width: f64,
    pub classes: Vec<IntervalClassStats>,
    /// Per station, over the interval: busy area, present area, waiting area, departures.
    pub stations: Vec<[f64; 4]>,
    /// Per station, what its arrivals found (found.rs), where the run asked.
    pub found: Option<Vec<Vec<u64>>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntervalClassStats {
    /// Arrivals and completions in the interval's time.
    pub arrivals: u64,
    pub completions: u64,
    /// Of those who arrived in it: how many were lost, how many completed (and waited).
    pub lost: u64,
    pub waited: u64,
    pub waiting: TimeSummary,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntervalSummary {
    pub start: f64,
    pub end: f64,
    pub classes: Vec<IntervalClassSummary>,
    pub stations: Vec<IntervalStationSummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntervalClassSummary {
    pub name: String,
    pub arrivals: Estimate,
    pub completions: Estimate,
    /// Of those who arrived in the interval: how many gave up or were turned
    /// away, and that share of them.
    pub abandoned: Estimate,
    pub abandonment: Estimate,
    /// The waits of those who arrived in the interval and completed; over the
    /// replications where someone did.
    pub waiting_time: TimesEstimate,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntervalStationSummary {
    pub name: String,
    /// Servers on (the rota's, averaged over the interval); `None`: infinitely many.
    pub servers: Option<f64>,
    pub busy_servers: Estimate,
    /// Busy servers per server on (above 1 while servers a rota took off finish their jobs).
    pub utilization: Option<Estimate>,
    pub queue_length: Estimate,
    pub waiting: Estimate,
    pub completions: Estimate,
    /// The share of the interval's arrivals who found n present, n = 0, 1, ...
    /// (found.rs), where the run asked and someone arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<Vec<f64>>,
}

/// The area under the servers `station` has on from the day's start to
/// `until` after it (after the day, its last interval's; a repeating day's
/// rota goes on through the next day first, day.rs), if it has a rota: what
/// its utilization over a run is busy servers per.
pub fn rota_area(station: &Station, day: Option<&Day>, until: f64) -> Option<f64> {
    let day = day?;
    if station.rota.is_none() && station.server_types.iter().all(|t| t.rota.is_none()) {
        return None;
    }
    let last = on_in(station, day.intervals as usize - 1)?;
    let on = |a: f64, b: f64| servers_on(station, day.length, day.intervals, a, b);
    if day.repeat && until > day.length {
        let next = (until - day.length).min(day.length);
        let held = (until - 2.0 * day.length).max(0.0);
        return Some(on(0.0, day.length)? * day.length + on(0.0, next)? * next + last * held);
    }
    let within = until.min(day.length);
    Some(on(0.0, within)? * within + last * (until - within).max(0.0))
}

/// The servers `station` has on in interval `i` of the day; `None`: infinitely many.
fn on_in(station: &Station, i: usize) -> Option<f64> {
    match (&station.rota, station.server_types.is_empty()) {
        (Some(rota), _) => Some(f64::from(rota[i])),
        (None, false) => Some(station.server_types.iter().map(|t| f64::from(t.rota.as_ref().map_or(t.count, |r| r[i]))).sum()),
        (None, true) => station.servers.map(f64::from),
    }
}

/// The servers on at `station` over `[a, b)`, averaged (the rota is constant
/// on each of the day's intervals); `None`: infinitely many.
fn servers_on(station: &Station, length: f64, intervals: u32, a: f64, b: f64) -> Option<f64> {
    let width = length / intervals as f64;
    let mut area = 0.0;
    for i in 0..intervals as usize {
        let overlap = (b.min((i + 1) as f64 * width) - a.max(i as f64 * width)).max(0.0);
        if overlap > 0.0 {
            area += overlap * on_in(station, i)?;
        }
    }
    Some(area / (b - a))
}

/// The mean and interval of the finite values of `xs` (a replication where
/// nobody was measured gives none).
fn over_finite(xs: impl Iterator<Item = f64>) -> Estimate {
    let finite: Vec<f64> = xs.filter(|x| x.is_finite()).collect();
    if finite.is_empty() {
        return Estimate { mean: f64::NAN, ci: None };
    }
    Estimate::from_samples(&finite)
}

/// Each asked point (the same in every replication) and its estimate over the
/// replications where someone was measured.
fn asked(reps: &[&TimeSummary], answers: impl Fn(&TimeSummary) -> &Vec<(f64, f64)>) -> Vec<(f64, Estimate)> {
    reps.first().map_or_else(Vec::new, |first| {
        let measured = || reps.iter().filter(|s| s.mean.is_finite());
        answers(first).iter().enumerate().map(|(i, &(at, _))| (at, over_finite(measured().map(|s| answers(s)[i].1)))).collect()
    })
}

/// A figure per customer who waited (`per(s)`, NaN where none did) over the
/// replications, each weighted by its customers `counts` (`Estimate::ratio`).
fn per_customer(reps: &[&TimeSummary], counts: &[f64], per: impl Fn(&TimeSummary) -> f64) -> Estimate {
    let parts: Vec<f64> = reps.iter().zip(counts).map(|(s, &n)| if n > 0.0 { per(s) * n } else { 0.0 }).collect();
    Estimate::ratio(&parts, counts)
}

/// The waits of those who arrived in an interval: the mean and the shares within
/// each asked time are per customer over all replications (weighted by `counts`,
/// each replication's customers who waited); the percentiles the mean of each
/// replication's.
fn times(reps: &[&TimeSummary], counts: &[f64]) -> TimesEstimate {
    let within = reps.first().map_or_else(Vec::new, |first| {
        (0..first.asked.within.len())
            .map(|i| (first.asked.within[i].0, per_customer(reps, counts, |s| s.asked.within[i].1)))
            .collect()
    });
    TimesEstimate {
        mean: per_customer(reps, counts, |s| s.mean),
        percentiles: PERCENTILES
            .iter()
            .enumerate()
            .map(|(i, &(name, _))| (name, over_finite(reps.iter().filter(|s| s.mean.is_finite()).map(|s| s.percentiles[i]))))
            .collect::<BTreeMap<_, _>>(),
        spectrum: SPECTRUM
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, over_finite(reps.iter().filter(|s| s.mean.is_finite()).map(|s| s.spectrum[i]))))
            .collect(),
        max: reps.iter().filter(|s| s.mean.is_finite()).map(|s| s.max).fold(0.0, f64::max),
        quantiles: asked(reps, |s| &s.asked.quantiles),
        within,
        distribution: None,
    }
}

/// Each interval's figures over the replications (`reps[r]`: replication r's intervals).
pub fn summarise(model: &CompiledModel, reps: &[&[IntervalStats]]) -> Vec<IntervalSummary> {
    let Some(day) = &model.day else { return Vec::new() };
    let intervals = reps.iter().map(|r| r.len()).min().unwrap_or(0);
    let mut start = 0.0;
    (0..intervals)
        .map(|i| {
            let width = reps[0][i].width;
            let (a, b) = (start, start + width);
            start = b;
            let over = |f: &dyn Fn(&IntervalStats) -> f64| Estimate::from_samples(&reps.iter().map(|r| f(&r[i])).collect::<Vec<_>>());
            let classes = model
                .classes
                .iter()
                .enumerate()
                .map(|(c, class)| {
                    let waits: Vec<&TimeSummary> = reps.iter().map(|r| &r[i].classes[c].waiting).collect();
                    IntervalClassSummary {
                        name: class.name.clone(),
                        arrivals: over(&|s| s.classes[c].arrivals as f64),
                        completions: over(&|s| s.classes[c].completions as f64),
                        abandoned: over(&|s| s.classes[c].lost as f64),
                        abandonment: Estimate::ratio(
                            &reps.iter().map(|r| r[i].classes[c].lost as f64).collect::<Vec<_>>(),
                            &reps.iter().map(|r| (r[i].classes[c].lost + r[i].classes[c].waited) as f64).collect::<Vec<_>>(),
                        ),
                        waiting_time: times(&waits, &reps.iter().map(|r| r[i].classes[c].waited as f64).collect::<Vec<_>>()),
                    }
                })
                .collect();
            let stations = model
                .stations
                .iter()
                .enumerate()
                .map(|(s, station)| {
                    let servers = servers_on(station, day.length, day.intervals, a, b);
                    let per_time = |k: usize| over(&|x| x.stations[s][k] / width);
                    IntervalStationSummary {
                        name: station.name.clone(),
                        servers,
                        busy_servers: per_time(0),
                        utilization: servers.map(|on| over_finite(reps.iter().map(|r| r[i].stations[s][0] / width / on))),
                        queue_length: per_time(1),
                        waiting: per_time(2),
                        completions: over(&|x| x.stations[s][3]),
                        found: found::pooled(reps.iter().filter_map(|r| r[i].found.as_ref()).map(|f| f[s].as_slice())),
                    }
                })
                .collect();
            IntervalSummary { start: a, end: b, classes, stations }
        })
        .collect()
}
