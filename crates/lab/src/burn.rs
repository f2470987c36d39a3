//! Burning a CPU for a given time, as the talk's stages do: a loop of
//! arithmetic, calibrated on this machine when the lab first runs (never a
//! constant), run in chunks until the thread has used the time asked for in
//! CPU time. A burn is CPU work, not a wall-clock wait: when threads outnumber
//! CPUs it takes longer on the wall clock, just as a model's step that holds a
//! `cpu` token waits for one; and a loop that runs a little slower than at
//! calibration (a busy SMT sibling, a lower clock under sustained load) still
//! burns exactly its time.

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

use crate::os::thread_cpu_time;

/// Samples timed to find the loop's speed; the median is robust to the few a
/// context switch or an interrupt lands in.
const SAMPLES: usize = 21;
const SAMPLE_LENGTH: Duration = Duration::from_micros(500);
/// A burn checks the thread's CPU clock (a syscall of well under a
/// microsecond) after each chunk of this much calibrated work ...
const CHUNK: Duration = Duration::from_micros(100);
/// ... and stops when less than this is left.
const CLOSE_ENOUGH: Duration = Duration::from_micros(1);

#[derive(Debug, Clone, Copy)]
pub struct Burner {
    iterations_per_ns: f64,
}

impl Burner {
    /// The burner calibrated once for the whole process, on first use.
    pub fn shared() -> Burner {
        static SHARED: OnceLock<Burner> = OnceLock::new();
        *SHARED.get_or_init(Burner::calibrate)
    }

    /// Measures the loop's speed in CPU time of the calibrating thread, which
    /// does not count time spent waiting for a CPU: other processes busy on the
    /// machine do not skew it.
    pub fn calibrate() -> Burner {
        let mut iterations: u64 = 1_000;
        // Grow a first guess until one sample lasts long enough to time well.
        loop {
            let took = cpu_time_of(iterations);
            if took >= SAMPLE_LENGTH / 4 {
                iterations = (iterations as f64 * SAMPLE_LENGTH.as_secs_f64() / took.as_secs_f64()) as u64;
                break;
            }
            iterations *= 4;
        }
        let mut speeds: Vec<f64> = (0..SAMPLES)
            .map(|_| iterations as f64 / cpu_time_of(iterations).as_nanos().max(1) as f64)
            .collect();
        speeds.sort_by(f64::total_cmp);
        Burner { iterations_per_ns: speeds[SAMPLES / 2] }
    }

    pub fn iterations_per_us(&self) -> f64 {
        self.iterations_per_ns * 1e3
    }

    /// Keeps this thread's CPU busy for `d` of CPU time.
    pub fn burn(&self, d: Duration) {
        let until = thread_cpu_time() + d;
        loop {
            let left = until.saturating_sub(thread_cpu_time());
            if left < CLOSE_ENOUGH {
                return;
            }
            spin((left.min(CHUNK).as_nanos() as f64 * self.iterations_per_ns).ceil() as u64);
        }
    }
}

fn cpu_time_of(iterations: u64) -> Duration {
    let start = thread_cpu_time();
    spin(iterations);
    thread_cpu_time() - start
}

/// `n` dependent multiply-adds; `black_box` keeps the compiler from folding them.
fn spin(n: u64) {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..n {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407));
    }
    black_box(x);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The median CPU time of a few burns of `d` on this thread.
    fn median_burn(burner: &Burner, d: Duration) -> Duration {
        let mut took: Vec<Duration> = (0..15)
            .map(|_| {
                let start = thread_cpu_time();
                burner.burn(d);
                thread_cpu_time() - start
            })
            .collect();
        took.sort();
        took[took.len() / 2]
    }

    #[test]
    fn a_one_millisecond_burn_takes_one_millisecond_within_ten_percent() {
        let burner = Burner::calibrate();
        let took = median_burn(&burner, Duration::from_millis(1)).as_secs_f64();
        assert!((took - 1e-3).abs() < 1e-4, "1 ms burn took {took} s");
    }

    #[test]
    fn burns_scale_with_their_length() {
        let burner = Burner::shared();
        let short = median_burn(&burner, Duration::from_micros(200)).as_secs_f64();
        let long = median_burn(&burner, Duration::from_millis(2)).as_secs_f64();
        assert!((long / short - 10.0).abs() < 1.0, "2 ms / 200 us = {}", long / short);
    }
}
