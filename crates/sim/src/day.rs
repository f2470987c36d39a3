//! A day: the horizon of a time-varying model. Arrivals happen in `[0, length)`
//! (arrivals.rs), rotas change at the model's interval edges (rota.rs), and
//! figures are kept per reporting interval (intervals.rs). The run ends when
//! the day is over and its open customers have all left; closed customers
//! stop with it.
//!
//! The clock's ticks (a rota change, the end of a reporting interval) are
//! known before the run: they are one sorted list, and one `Tick` event is
//! pending at a time, naming the next.
//!
//! A day that repeats runs `warmup_days` whole days before the one measured:
//! rates and rotas start again at each day's start (the rota back to its
//! first interval's count), and figures are those of the measured day, which
//! starts at `origin`. The rota goes on into the day after it, as the
//! measured day's last customers are followed until they leave.

use crate::error::SimError;
use crate::model::{CompiledModel, Day, Discipline, OffShift, Preempt, Source};

/// What happens at a tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tick {
    /// Interval `i` of the model's day starts: the rotas change.
    Rota(usize),
    /// Reporting interval `i` ends: its figures are taken.
    Report(usize),
}

#[derive(Debug)]
pub struct DayPlan {
    pub length: f64,
    /// Days run, the measured one last (1 unless the day repeats).
    pub days: u32,
    /// When the measured day starts.
    pub origin: f64,
    /// Every tick in time order (a report before a rota change at the same time).
    ticks: Vec<(f64, Tick)>,
    /// The ticks already handled.
    next: usize,
    /// The day is over; the run goes on until its open customers have left.
    pub draining: bool,
}

impl DayPlan {
    /// The day's ticks: rota changes at the model's interval edges if a
    /// station has a rota, and the ends of reporting intervals `width` long
    /// in the measured day, the last of `warmup_days + 1` days (0 unless
    /// the day repeats).
    pub fn new(day: &Day, has_rota: bool, width: f64, warmup_days: u32) -> Self {
        let interval = day.length / day.intervals as f64;
        let origin = f64::from(warmup_days) * day.length;
        let mut ticks: Vec<(f64, Tick)> = Vec::new();
        let reports = report_edges(day.length, width);
        ticks.extend(reports[1..].iter().enumerate().map(|(i, &t)| (origin + t, Tick::Report(i))));
        if has_rota {
            ticks.extend((1..day.intervals as usize).map(|i| (i as f64 * interval, Tick::Rota(i))));
            // A repeating day's later days, and the day after the measured one.
            for k in (1..=warmup_days + 1).filter(|_| day.repeat) {
                let start = f64::from(k) * day.length;
                ticks.extend((0..day.intervals as usize).map(|i| (start + i as f64 * interval, Tick::Rota(i))));
            }
        }
        // Stable: a report sorts before a rota change at the same time.
        ticks.sort_by(|a, b| a.0.total_cmp(&b.0).then((matches!(a.1, Tick::Rota(_))).cmp(&matches!(b.1, Tick::Rota(_)))));
        DayPlan { length: day.length, days: warmup_days + 1, origin, ticks, next: 0, draining: false }
    }

    /// When arrivals stop: the end of the measured day.
    pub fn arrivals_end(&self) -> f64 {
        self.origin + self.length
    }

    /// The time of the next tick, if any is left.
    pub fn next_time(&self) -> Option<f64> {
        self.ticks.get(self.next).map(|&(t, _)| t)
    }

    /// The tick due now; the next one becomes pending.
    pub fn take(&mut self) -> Tick {
        let tick = self.ticks[self.next].1;
        self.next += 1;
        tick
    }
}

/// The reporting intervals' edges: every `width` from 0, the last at the day's end.
pub fn report_edges(length: f64, width: f64) -> Vec<f64> {
    let n = ((length / width) - 1e-9).ceil().max(1.0) as usize;
    (0..n).map(|i| i as f64 * width).chain(std::iter::once(length)).collect()
}

/// The checks of a compiled day the engine relies on (the Python side tells
/// the user first, with the file's line).
pub fn validate(model: &CompiledModel) -> Result<(), SimError> {
    let bad = |what: String| Err(SimError::Input(format!("day: {what}")));
    let Some(day) = &model.day else {
        if model.classes.iter().any(|c| matches!(c.source, Source::Varying { .. }))
            || model.stations.iter().any(|s| s.rota.is_some() || s.server_types.iter().any(|t| t.rota.is_some()))
        {
            return bad("a varying rate or a rota needs a day".into());
        }
        return Ok(());
    };
    if !(day.length > 0.0 && day.length.is_finite()) || day.intervals == 0 {
        return bad("a positive finite length and at least one interval".into());
    }
    let n = day.intervals as usize;
    for station in &model.stations {
        let at = |what: &str| bad(format!("station {}: {what}", station.name));
        let rotas = station.rota.iter().chain(station.server_types.iter().filter_map(|t| t.rota.as_ref()));
        let mut any = false;
        for rota in rotas {
            any = true;
            if rota.len() != n {
                return at("a rota gives one count per interval");
            }
        }
        if station.rota.is_some() && !station.server_types.is_empty() {
            return at("a rota is for the station or for its server types, not both");
        }
        if station.rota.as_ref().is_some_and(|r| station.servers != r.iter().max().copied()) {
            return at("servers must be the rota's most");
        }
        if station.server_types.iter().any(|t| t.rota.as_ref().is_some_and(|r| r.iter().max() != Some(&t.count))) {
            return at("a server type's count must be its rota's most");
        }
        if any && (station.discipline == Discipline::Ps || station.capacity.is_some()) {
            return at("a rota is simulated at a pool or typed servers with an unbounded buffer");
        }
        if station.off_shift != OffShift::Finish && (!any || station.preempt != Preempt::None || !station.server_types.is_empty()) {
            return at("off_shift resume or restart needs an untyped rota and no preempt");
        }
    }
    for start in &day.at_start {
        let Some(class) = model.classes.get(start.class as usize) else { return bad("at_start: no such class".into()) };
        match class.steps.get(start.step as usize) {
            Some(step) if step.station.is_some() && step.scope.is_none() => {}
            _ => return bad(format!("at_start: class {}'s step {} is not a station step of its route", class.name, start.step)),
        }
    }
    for class in &model.classes {
        if let Source::Varying { bounds, .. } = &class.source {
            if bounds.len() != n {
                return bad(format!("class {}: a bound per interval", class.name));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_and_rota_changes_are_one_list_in_time_order() {
        let day = Day { length: 60.0, intervals: 4, repeat: false, at_start: vec![] };
        let mut plan = DayPlan::new(&day, true, 30.0, 0);
        let mut seen = vec![];
        while let Some(t) = plan.next_time() {
            seen.push((t, plan.take()));
        }
        assert_eq!(
            seen,
            [(15.0, Tick::Rota(1)), (30.0, Tick::Report(0)), (30.0, Tick::Rota(2)), (45.0, Tick::Rota(3)), (60.0, Tick::Report(1))]
        );
        assert_eq!(report_edges(60.0, 25.0), [0.0, 25.0, 50.0, 60.0]);
        assert_eq!(report_edges(60.0, 15.0), [0.0, 15.0, 30.0, 45.0, 60.0]);
    }

    #[test]
    fn a_repeating_day_changes_rotas_every_day_and_reports_only_the_measured_one() {
        let day = Day { length: 60.0, intervals: 2, repeat: true, at_start: vec![] };
        let mut plan = DayPlan::new(&day, true, 30.0, 2);
        assert_eq!((plan.days, plan.origin, plan.arrivals_end()), (3, 120.0, 180.0));
        let mut seen = vec![];
        while let Some(t) = plan.next_time() {
            seen.push((t, plan.take()));
        }
        assert_eq!(
            seen,
            [
                (30.0, Tick::Rota(1)),
                (60.0, Tick::Rota(0)),
                (90.0, Tick::Rota(1)),
                (120.0, Tick::Rota(0)),
                (150.0, Tick::Report(0)),
                (150.0, Tick::Rota(1)),
                (180.0, Tick::Report(1)),
                (180.0, Tick::Rota(0)),
                (210.0, Tick::Rota(1)),
            ]
        );
    }
}
