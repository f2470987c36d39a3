//! Open-loop arrivals: every request's intended start time, fixed by the seed
//! before anything is sent, so that what the system under test does cannot
//! move it (the root of coordinated omission is a schedule that waits for
//! responses). The load generator's schedules (stages of steps and ramps) and
//! the lab's open loop (one steady rate) both draw their times here.
//!
//! Arrivals are points of a counting process in "expected-requests" space,
//! mapped to time through the inverse of the cumulative rate Λ(t): evenly
//! spaced points (constant) or unit-rate Poisson points (poisson) make, after
//! the map, evenly spaced or Poisson arrivals at whatever rate each stage asks,
//! constant or ramping linearly. The iterator is lazy: memory stays bounded for
//! any duration.

use rand::SeedableRng;
use rand_distr::{Distribution, Exp1};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    Constant,
    Poisson,
}

/// A stretch of the schedule whose rate (per second) runs linearly from
/// `from` to `to`; a step has `from == to`. Only the last stage may be
/// open-ended (`seconds: None`, the run then ends after `--requests`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Stage {
    pub from: f64,
    pub to: f64,
    pub seconds: Option<f64>,
}

impl Stage {
    /// Expected requests over the whole stage (infinite when open-ended).
    fn mass(&self) -> f64 {
        self.seconds.map_or(f64::INFINITY, |d| 0.5 * (self.from + self.to) * d)
    }

    /// The time into the stage by which `mass` requests are expected: the root
    /// of from·t + (to − from)·t²/(2d) = mass, in the form that stays exact
    /// when the rate is constant.
    fn time_of(&self, mass: f64) -> f64 {
        let slope = match self.seconds {
            Some(d) if d > 0.0 => (self.to - self.from) / d,
            _ => 0.0,
        };
        if mass <= 0.0 {
            return 0.0; // also where a ramp starts from rate 0 (the form below would be 0/0)
        }
        let root = (self.from * self.from + 2.0 * slope * mass).max(0.0).sqrt();
        2.0 * mass / (self.from + root)
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ScheduleSpec {
    pub arrivals: Arrivals,
    pub stages: Vec<Stage>,
    /// Measured requests to schedule at most (warm-up ones come on top).
    pub requests: Option<u64>,
    /// Requests intended before this many seconds are sent but not measured.
    pub warmup_seconds: f64,
    pub seed: u64,
}

impl ScheduleSpec {
    pub fn check(&self) -> Result<(), String> {
        if self.stages.is_empty() {
            return Err("the schedule has no stages".into());
        }
        if !self.stages.iter().any(|s| s.from + s.to > 0.0) {
            return Err("the schedule sends nothing: every stage's rates are 0".into());
        }
        for (i, s) in self.stages.iter().enumerate() {
            let last = i + 1 == self.stages.len();
            // A stage at rate 0 throughout is a pause (a day's closed interval); it must end.
            let pause = s.from == 0.0 && s.to == 0.0 && s.seconds.is_some();
            if !(s.from.is_finite() && s.to.is_finite() && s.from >= 0.0 && s.to >= 0.0 && (s.from + s.to > 0.0 || pause)) {
                return Err(format!("stage {}: rates must be finite, >= 0 and not both 0", i + 1));
            }
            match s.seconds {
                Some(d) if !(d.is_finite() && d > 0.0) => {
                    return Err(format!("stage {}: duration must be positive", i + 1))
                }
                None if !last || s.from != s.to || self.requests.is_none() => {
                    return Err("only a last constant stage with a request count may be open-ended".into())
                }
                _ => {}
            }
        }
        if !(self.warmup_seconds.is_finite() && self.warmup_seconds >= 0.0) {
            return Err("warm-up must be >= 0".into());
        }
        Ok(())
    }

    /// One steady `rate_per_s` for `seconds`, nothing warmed up or capped: the lab's open loop.
    pub fn steady(arrivals: Arrivals, rate_per_s: f64, seconds: f64, seed: u64) -> ScheduleSpec {
        let stage = Stage { from: rate_per_s, to: rate_per_s, seconds: Some(seconds) };
        ScheduleSpec { arrivals, stages: vec![stage], requests: None, warmup_seconds: 0.0, seed }
    }

    /// The mean target rate over the stages (the open-ended last stage's own rate).
    pub fn target_rate(&self) -> f64 {
        match self.total_seconds() {
            Some(total) => self.stages.iter().map(Stage::mass).sum::<f64>() / total,
            None => self.stages.last().map_or(0.0, |s| s.from),
        }
    }

    pub fn total_seconds(&self) -> Option<f64> {
        self.stages.iter().map(|s| s.seconds).sum()
    }

    /// Each stage's (start, end) in seconds from the start of the run.
    pub fn stage_bounds(&self) -> Vec<(f64, f64)> {
        let mut start = 0.0;
        self.stages
            .iter()
            .map(|s| {
                let end = start + s.seconds.unwrap_or(f64::INFINITY);
                let bounds = (start, end);
                start = end;
                bounds
            })
            .collect()
    }

    pub fn iter(&self) -> Schedule {
        Schedule {
            spec: self.clone(),
            rng: Xoshiro256PlusPlus::seed_from_u64(self.seed),
            next_mass: 0.0,
            stage: 0,
            stage_mass_start: 0.0,
            stage_time_start: 0.0,
            measured: 0,
        }
    }
}

/// One scheduled request: seconds from the start, and whether it is measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intended {
    pub seconds: f64,
    pub measured: bool,
}

pub struct Schedule {
    spec: ScheduleSpec,
    rng: Xoshiro256PlusPlus,
    next_mass: f64,
    stage: usize,
    stage_mass_start: f64,
    stage_time_start: f64,
    measured: u64,
}

impl Iterator for Schedule {
    type Item = Intended;

    fn next(&mut self) -> Option<Intended> {
        if self.spec.requests.is_some_and(|n| self.measured >= n) {
            return None;
        }
        let mass = match self.spec.arrivals {
            Arrivals::Constant => self.next_mass,
            Arrivals::Poisson => self.next_mass + Distribution::<f64>::sample(&Exp1, &mut self.rng),
        };
        self.next_mass = match self.spec.arrivals {
            Arrivals::Constant => mass + 1.0,
            Arrivals::Poisson => mass,
        };
        loop {
            let stage = self.spec.stages.get(self.stage)?;
            let inside = mass - self.stage_mass_start;
            if inside < stage.mass() {
                let seconds = self.stage_time_start + stage.time_of(inside);
                let measured = seconds >= self.spec.warmup_seconds;
                self.measured += measured as u64;
                return Some(Intended { seconds, measured });
            }
            self.stage_mass_start += stage.mass();
            self.stage_time_start += stage.seconds.unwrap_or(f64::INFINITY);
            self.stage += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(arrivals: Arrivals, stages: Vec<Stage>, requests: Option<u64>) -> ScheduleSpec {
        let s = ScheduleSpec { arrivals, stages, requests, warmup_seconds: 0.0, seed: 3 };
        s.check().unwrap();
        s
    }

    fn step(rate: f64, seconds: f64) -> Stage {
        Stage { from: rate, to: rate, seconds: Some(seconds) }
    }

    #[test]
    fn constant_is_evenly_spaced_from_zero() {
        let times: Vec<f64> = spec(Arrivals::Constant, vec![step(200.0, 1.0)], None).iter().map(|i| i.seconds).collect();
        assert_eq!(times.len(), 200);
        for (k, t) in times.iter().enumerate() {
            assert!((t - k as f64 / 200.0).abs() < 1e-12, "{k}: {t}");
        }
    }

    #[test]
    fn poisson_count_and_gaps_match_the_rate() {
        // 10,000 s at 10/s: the count is Poisson(100,000), sd 316; 4 sd bounds.
        let times: Vec<f64> = spec(Arrivals::Poisson, vec![step(10.0, 10_000.0)], None).iter().map(|i| i.seconds).collect();
        let n = times.len() as f64;
        assert!((n - 100_000.0).abs() < 4.0 * 100_000f64.sqrt(), "{n}");
        // Exponential gaps: mean 0.1 and coefficient of variation 1 (sd of the
        // sample cv ≈ 1/√n ≈ 0.003).
        let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
        assert!((mean - 0.1).abs() < 4.0 * 0.1 / n.sqrt(), "{mean}");
        assert!((sd / mean - 1.0).abs() < 0.015, "{}", sd / mean);
    }

    #[test]
    fn ramp_counts_follow_the_integral_of_the_rate() {
        // 0 -> 1000/s over 10 s, constant spacing in Λ: second i holds
        // Λ(i+1) − Λ(i) = 100·(i + 0.5) requests, ±1 for where the points fall.
        let times: Vec<f64> = spec(Arrivals::Constant, vec![Stage { from: 0.0, to: 1000.0, seconds: Some(10.0) }], None)
            .iter()
            .map(|i| i.seconds)
            .collect();
        assert_eq!(times.len(), 5000);
        assert_eq!(times[0], 0.0);
        assert!(times.windows(2).all(|w| w[0] < w[1] && w[1] < 10.0), "finite and increasing");
        for second in 0..10 {
            let count = times.iter().filter(|t| t.floor() as usize == second).count() as f64;
            assert!((count - 100.0 * (second as f64 + 0.5)).abs() <= 1.0, "second {second}: {count}");
        }
    }

    #[test]
    fn steps_run_in_order_and_requests_stop_early() {
        let s = spec(Arrivals::Constant, vec![step(100.0, 1.0), step(300.0, 2.0)], None);
        let times: Vec<f64> = s.iter().map(|i| i.seconds).collect();
        assert_eq!(times.len(), 700);
        assert_eq!(times.iter().filter(|t| **t < 1.0).count(), 100);
        assert!((times[100] - 1.0).abs() < 1e-12 && (times[101] - (1.0 + 1.0 / 300.0)).abs() < 1e-12);
        assert!((s.target_rate() - 700.0 / 3.0).abs() < 1e-9);
        let capped = spec(Arrivals::Constant, vec![step(100.0, 1.0)], Some(10));
        assert_eq!(capped.iter().count(), 10);
    }

    #[test]
    fn a_pause_at_rate_0_sends_nothing_and_moves_what_follows() {
        // A day's closed interval: 100/s for 1 s, nothing for 1 s, 100/s for 1 s.
        let s = spec(Arrivals::Constant, vec![step(100.0, 1.0), step(0.0, 1.0), step(100.0, 1.0)], None);
        let times: Vec<f64> = s.iter().map(|i| i.seconds).collect();
        assert_eq!(times.len(), 200);
        assert!(times.iter().all(|t| *t < 1.0 || *t >= 2.0));
        assert!((times[100] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn warmup_requests_come_on_top_of_the_measured_count() {
        let mut s = spec(Arrivals::Constant, vec![Stage { from: 10.0, to: 10.0, seconds: None }], Some(5));
        s.warmup_seconds = 1.0;
        let all: Vec<Intended> = s.iter().collect();
        assert_eq!(all.len(), 15);
        assert_eq!(all.iter().filter(|i| i.measured).count(), 5);
        assert!(all[9].seconds < 1.0 && all[10].measured);
    }

    #[test]
    fn the_seed_fixes_the_schedule() {
        let a: Vec<f64> = spec(Arrivals::Poisson, vec![step(50.0, 2.0)], None).iter().map(|i| i.seconds).collect();
        let b: Vec<f64> = spec(Arrivals::Poisson, vec![step(50.0, 2.0)], None).iter().map(|i| i.seconds).collect();
        assert_eq!(a, b);
        let mut other = spec(Arrivals::Poisson, vec![step(50.0, 2.0)], None);
        other.seed += 1;
        assert_ne!(a, other.iter().map(|i| i.seconds).collect::<Vec<f64>>(), "another seed, another schedule");
    }

    #[test]
    fn a_steady_rate_holds_its_rate_for_its_time() {
        let even: Vec<Intended> = ScheduleSpec::steady(Arrivals::Constant, 400.0, 0.5, 1).iter().collect();
        assert_eq!(even.len(), 200);
        assert!(even.iter().all(|i| i.measured) && even.last().unwrap().seconds < 0.5);
        // 1,000 s at 100/s: the count is Poisson(100,000); 4 sd bounds.
        let poisson = ScheduleSpec::steady(Arrivals::Poisson, 100.0, 1000.0, 7).iter().count() as f64;
        assert!((poisson - 100_000.0).abs() < 4.0 * 100_000f64.sqrt(), "{poisson}");
        assert_eq!(ScheduleSpec::steady(Arrivals::Poisson, 100.0, 0.0, 7).iter().count(), 0, "no time, no arrivals");
    }

    #[test]
    fn bad_stages_are_refused() {
        let bad = |stages: Vec<Stage>, requests| {
            ScheduleSpec { arrivals: Arrivals::Constant, stages, requests, warmup_seconds: 0.0, seed: 1 }.check().is_err()
        };
        assert!(bad(vec![], None));
        assert!(bad(vec![step(0.0, 1.0)], None));
        assert!(bad(vec![step(1.0, 1.0), Stage { from: 0.0, to: 0.0, seconds: None }], Some(5)));
        assert!(bad(vec![step(f64::NAN, 1.0)], None));
        assert!(bad(vec![step(1.0, -1.0)], None));
        assert!(bad(vec![Stage { from: 1.0, to: 1.0, seconds: None }], None));
    }
}
