//! The stretches of a run that are reported, and predicted, each on its own:
//! every stage of a step schedule, and a ramp cut into equal slices, each
//! predicted at its mean rate and marked as not a steady state.
//!
//! A response belongs to the stretch its *intended* start fell in: the user it
//! stands for arrived then, at that stretch's rate, whenever it was sent.

use brewput_measure::arrivals::ScheduleSpec;

/// A ramp is reported in this many equal slices.
pub const RAMP_SLICES: usize = 10;
/// Most stretches a run reports: each keeps its own response HdrHistogram
/// (264 KiB), so this bounds the memory of any schedule.
pub const MAX_STAGES: usize = 100;

/// One reported stretch, in seconds from the start of the run.
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// Refuses a schedule with more stretches than [`MAX_STAGES`].
pub fn check(spec: &ScheduleSpec) -> Result<(), String> {
    let count: usize = spec.stages.iter().map(|s| if s.from == s.to { 1 } else { RAMP_SLICES }).sum();
    if count > MAX_STAGES {
        return Err(format!(
            "the schedule has {count} stages (a ramp counts as {RAMP_SLICES}); at most {MAX_STAGES}"
        ));
    }
    Ok(())
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
        assert!(check(&spec(vec![step; MAX_STAGES])).is_ok());
        assert!(check(&spec(vec![step; MAX_STAGES + 1])).is_err());
        assert!(check(&spec(vec![ramp; MAX_STAGES / RAMP_SLICES])).is_ok());
        assert!(check(&spec(vec![ramp; MAX_STAGES / RAMP_SLICES + 1])).unwrap_err().contains("a ramp counts as 10"));
    }
}
