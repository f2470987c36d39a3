//! The stretches of a run that are reported, and predicted, each on its own:
//! every stage of a step schedule, and a ramp cut into equal slices, each
//! predicted at its mean rate and marked as not a steady state.
//!
//! A response belongs to the stretch its *intended* start fell in: the user it
//! stands for arrived then, at that stretch's rate, whenever it was sent.
//!
//! A day (`brewput load --day`) gives its own stretches, its intervals, which
//! need not meet the schedule's stages (a piecewise linear rate bends inside
//! an interval): they are reported as given, checked to lie end to end.

use brewput_measure::arrivals::ScheduleSpec;
use serde::Deserialize;

/// A ramp is reported in this many equal slices.
pub const RAMP_SLICES: usize = 10;
/// Most stretches a run reports: each keeps its own response HdrHistogram
/// (264 KiB), so this bounds the memory of any schedule.
pub const MAX_STAGES: usize = 100;

/// One reported stretch, in seconds from the start of the run.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Span {
    pub start_seconds: f64,
    /// Infinite for an open-ended last stage (a run that ends after `--requests`).
    pub end_seconds: f64,
    /// The mean target rate over the stretch (per second).
    pub target_rate: f64,
    /// Whether the target rate is constant across it (not a slice of a ramp).
    pub steady: bool,
}

/// The stretches of `spec`, in order, end to end.
pub fn spans(spec: &ScheduleSpec) -> Vec<Span> {
    let mut out = Vec::new();
    for (stage, (start, end)) in spec.stages.iter().zip(spec.stage_bounds()) {
        if stage.from == stage.to {
            out.push(Span { start_seconds: start, end_seconds: end, target_rate: stage.from, steady: true });
            continue;
        }
        let (slices, width) = (RAMP_SLICES as f64, end - start);
        out.extend((0..RAMP_SLICES).map(|k| {
            let k = k as f64;
            Span {
                start_seconds: start + width * k / slices,
                end_seconds: if k + 1.0 == slices { end } else { start + width * (k + 1.0) / slices },
                target_rate: stage.from + (stage.to - stage.from) * (k + 0.5) / slices,
                steady: false,
            }
        }));
    }
    out
}

/// The stretches reported: those `given` (a day's intervals), else the schedule's own.
pub fn reported(spec: &ScheduleSpec, given: Option<&[Span]>) -> Vec<Span> {
    given.map_or_else(|| spans(spec), <[Span]>::to_vec)
}

/// Refuses a schedule with more stretches than [`MAX_STAGES`], and given
/// stretches that do not run end to end from 0 over the schedule.
pub fn check(spec: &ScheduleSpec, given: Option<&[Span]>) -> Result<(), String> {
    if let Some(given) = given {
        return check_given(spec, given);
    }
    let count: usize = spec.stages.iter().map(|s| if s.from == s.to { 1 } else { RAMP_SLICES }).sum();
    if count > MAX_STAGES {
        return Err(format!(
            "the schedule has {count} stages (a ramp counts as {RAMP_SLICES}); at most {MAX_STAGES}"
        ));
    }
    Ok(())
}

fn check_given(spec: &ScheduleSpec, given: &[Span]) -> Result<(), String> {
    if given.is_empty() || given.len() > MAX_STAGES {
        return Err(format!("the intervals reported must be from 1 to {MAX_STAGES}, got {}", given.len()));
    }
    let mut start = 0.0;
    for (i, span) in given.iter().enumerate() {
        let rate_ok = span.target_rate.is_finite() && span.target_rate >= 0.0;
        if span.start_seconds != start || !(span.end_seconds > span.start_seconds) || !rate_ok {
            return Err(format!("interval {}: intervals run end to end from 0, each a rate >= 0", i + 1));
        }
        start = span.end_seconds;
    }
    match spec.total_seconds() {
        Some(total) if (start - total).abs() <= 1e-9 * total.max(1.0) => Ok(()),
        _ => Err("the intervals reported must end where the schedule does".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brewput_measure::arrivals::{Arrivals, Stage};

    fn spec(stages: Vec<Stage>) -> ScheduleSpec {
        ScheduleSpec { arrivals: Arrivals::Constant, stages, requests: None, warmup_seconds: 0.0, seed: 1 }
    }

    #[test]
    fn steps_are_one_stretch_each_and_a_ramp_ten_slices_at_their_mean_rates() {
        let s = spec(vec![
            Stage { from: 100.0, to: 100.0, seconds: Some(2.0) },
            Stage { from: 0.0, to: 1000.0, seconds: Some(10.0) },
        ]);
        let spans = spans(&s);
        assert_eq!(spans.len(), 11);
        assert_eq!(spans[0], Span { start_seconds: 0.0, end_seconds: 2.0, target_rate: 100.0, steady: true });
        for (k, span) in spans[1..].iter().enumerate() {
            assert!((span.start_seconds - (2.0 + k as f64)).abs() < 1e-12);
            assert!((span.end_seconds - (3.0 + k as f64)).abs() < 1e-12);
            // The slice's expected count over its second: ∫ of the rate = 100·(k + 0.5).
            assert!((span.target_rate - 100.0 * (k as f64 + 0.5)).abs() < 1e-9);
            assert!(!span.steady);
        }
        assert_eq!(spans[10].end_seconds, 12.0);
    }

    #[test]
    fn more_stretches_than_the_limit_are_refused() {
        let step = Stage { from: 1.0, to: 1.0, seconds: Some(1.0) };
        let ramp = Stage { from: 1.0, to: 2.0, seconds: Some(1.0) };
        assert!(check(&spec(vec![step; MAX_STAGES]), None).is_ok());
        assert!(check(&spec(vec![step; MAX_STAGES + 1]), None).is_err());
        assert!(check(&spec(vec![ramp; MAX_STAGES / RAMP_SLICES]), None).is_ok());
        assert!(check(&spec(vec![ramp; MAX_STAGES / RAMP_SLICES + 1]), None).unwrap_err().contains("a ramp counts as 10"));
    }

    #[test]
    fn given_intervals_are_reported_as_given_when_they_cover_the_schedule() {
        // A ramp over 2 s reported in two intervals of 1 s, not in ten slices.
        let s = spec(vec![Stage { from: 0.0, to: 200.0, seconds: Some(2.0) }]);
        let halves = [
            Span { start_seconds: 0.0, end_seconds: 1.0, target_rate: 50.0, steady: false },
            Span { start_seconds: 1.0, end_seconds: 2.0, target_rate: 150.0, steady: false },
        ];
        assert!(check(&s, Some(&halves)).is_ok());
        assert_eq!(reported(&s, Some(&halves)), halves.to_vec());
        assert_eq!(reported(&s, None).len(), RAMP_SLICES);
        assert!(check(&s, Some(&halves[..1])).unwrap_err().contains("end where the schedule does"));
        assert!(check(&s, Some(&[halves[1]])).unwrap_err().contains("end to end from 0"));
        assert!(check(&s, Some(&[])).is_err());
    }
}
