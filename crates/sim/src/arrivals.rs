//! Non-stationary Poisson arrivals through a day, drawn exactly.
//!
//! Thinning (Lewis and Shedler 1979) against a bound that is constant on each
//! interval: from `t`, a candidate follows after an exponential gap at the
//! interval's bound; past the interval's end the draw starts again at the end
//! (the exponential forgets), so no candidate ever uses another interval's
//! bound; a candidate at `s` is kept with probability `rate(s) / bound`. A rate
//! given per interval is its own bound and every candidate is kept: that is
//! inversion of its integrated rate, with no uniform drawn. Arrivals happen in
//! `[0, length)` only, or on a day that repeats in each of its days, the rate
//! taken in the day's own time.

mod curve;

use rand::Rng;
use rand_distr::Exp1;

use crate::error::SimError;
use crate::model::{CurveToken, LinearRate};
use curve::Postfix;

#[derive(Debug, Clone)]
enum Shape {
    /// The rate is the bound on each interval.
    Steps,
    /// Through `(times, rates)`, held beyond the ends.
    Linear { times: Vec<f64>, rates: Vec<f64> },
    Curve(Postfix),
}

#[derive(Debug, Clone)]
pub struct VaryingArrivals {
    shape: Shape,
    /// An upper bound of the rate on each interval (for steps, the rate).
    bounds: Vec<f64>,
    interval: f64,
    length: f64,
}

impl VaryingArrivals {
    pub fn new(
        steps: &Option<Vec<f64>>,
        linear: &Option<LinearRate>,
        curve: &Option<Vec<CurveToken>>,
        bounds: &[f64],
        length: f64,
    ) -> Result<Self, SimError> {
        let bad = |what: &str| Err(SimError::Input(format!("a varying rate: {what}")));
        let ok = |x: &f64| x.is_finite() && *x >= 0.0;
        if bounds.is_empty() || !bounds.iter().all(ok) {
            return bad("needs a finite bound >= 0 per interval");
        }
        let shape = match (steps, linear, curve) {
            (Some(rates), None, None) => {
                if rates.len() != bounds.len() || rates.iter().zip(bounds).any(|(r, b)| r != b) {
                    return bad("a rate per interval is its own bound");
                }
                Shape::Steps
            }
            (None, Some(LinearRate { times, rates }), None) => {
                if times.len() < 2 || times.len() != rates.len() || !rates.iter().all(ok) {
                    return bad("linear needs two or more (time, rate) points, each rate >= 0");
                }
                if !times.windows(2).all(|w| w[0] < w[1]) {
                    return bad("linear's times must increase");
                }
                Shape::Linear { times: times.clone(), rates: rates.clone() }
            }
            (None, None, Some(tokens)) => Shape::Curve(Postfix::new(tokens).map_err(|e| SimError::Input(e))?),
            _ => return bad("give one of steps, linear or curve"),
        };
        Ok(VaryingArrivals { shape, interval: length / bounds.len() as f64, bounds: bounds.to_vec(), length })
    }

    /// The rate at `t` (within the day).
    fn rate(&self, t: f64) -> f64 {
        match &self.shape {
            Shape::Steps => self.bounds[self.interval_of(t)],
            Shape::Linear { times, rates } => linear_at(times, rates, t),
            Shape::Curve(curve) => curve.at(t).max(0.0),
        }
    }

    fn interval_of(&self, t: f64) -> usize {
        ((t / self.interval) as usize).min(self.bounds.len() - 1)
    }

    /// The first arrival after `now`, or `None` if none comes before the day ends.
    /// Errors if the rate exceeds its bound: the draw would not be exact.
    pub fn next_after<R: Rng>(&self, now: f64, rng: &mut R) -> Result<Option<f64>, SimError> {
        let mut t = now;
        while t < self.length {
            let i = self.interval_of(t);
            // The interval's end; the last ends with the day, whatever rounding did.
            let end = if i + 1 == self.bounds.len() { self.length } else { (i + 1) as f64 * self.interval };
            let bound = self.bounds[i];
            let candidate = if bound > 0.0 { t + rng.sample::<f64, _>(Exp1) / bound } else { f64::INFINITY };
            if candidate >= end || candidate <= t {
                // Past the interval (or a gap below the clock's resolution): start again at its end.
                t = if end > t { end } else { next_up(t) };
                continue;
            }
            if matches!(self.shape, Shape::Steps) {
                return Ok(Some(candidate));
            }
            let rate = self.rate(candidate);
            if rate > bound * (1.0 + 1e-9) {
                return Err(SimError::Input(format!(
                    "the arrival rate {rate} at t = {candidate} is above its bound {bound} for the interval"
                )));
            }
            if rng.gen::<f64>() * bound < rate {
                return Ok(Some(candidate));
            }
            t = candidate;
        }
        Ok(None)
    }
}

impl VaryingArrivals {
    /// The first arrival after `now` in `days` days one after the other, the
    /// rate starting again at each day's start; `None` after the last day.
    /// Each day is drawn in its own time (from its start `k * length`): a
    /// day's draw that ends with none starts the next day at its start, as
    /// the exponential forgets.
    pub fn next_after_in_days<R: Rng>(&self, now: f64, days: u32, rng: &mut R) -> Result<Option<f64>, SimError> {
        let mut day = ((now / self.length).floor() as u32).min(days);
        if day > 0 && now < f64::from(day) * self.length {
            day -= 1; // rounding put `now` in the next day
        }
        while day < days {
            let start = f64::from(day) * self.length;
            // Exact (Sterbenz) for day >= 1, and start + (now - start) == now.
            if let Some(at) = self.next_after((now - start).max(0.0), rng)? {
                return Ok(Some((start + at).max(now)));
            }
            day += 1;
        }
        Ok(None)
    }
}

/// The smallest float above `t` (t >= 0).
fn next_up(t: f64) -> f64 {
    f64::from_bits(t.to_bits() + 1)
}

/// Linear interpolation through `(times, rates)`, held beyond the ends.
fn linear_at(times: &[f64], rates: &[f64], t: f64) -> f64 {
    let last = times.len() - 1;
    if t <= times[0] {
        return rates[0];
    }
    if t >= times[last] {
        return rates[last];
    }
    let i = times.partition_point(|&x| x <= t) - 1;
    let share = (t - times[i]) / (times[i + 1] - times[i]);
    rates[i] + share * (rates[i + 1] - rates[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn counts(arrivals: &VaryingArrivals, days: usize, bins: usize) -> Vec<f64> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut n = vec![0.0; bins];
        for _ in 0..days {
            let mut t = 0.0;
            while let Some(next) = arrivals.next_after(t, &mut rng).unwrap() {
                assert!((0.0..arrivals.length).contains(&next) && next > t);
                n[((next / arrivals.length * bins as f64) as usize).min(bins - 1)] += 1.0;
                t = next;
            }
        }
        n.iter().map(|c| c / days as f64).collect()
    }

    #[test]
    fn steps_give_each_interval_its_rate_times_its_width() {
        let rates = vec![2.0, 0.0, 5.0, 1.0];
        let a = VaryingArrivals::new(&Some(rates.clone()), &None, &None, &rates, 4.0).unwrap();
        let got = counts(&a, 20_000, 4);
        for (g, want) in got.iter().zip(&rates) {
            // Poisson: the mean of 20,000 days has sd sqrt(want / 20,000).
            assert!((g - want).abs() <= 5.0 * (want / 20_000.0f64).sqrt() + 1e-12, "{got:?}");
        }
    }

    #[test]
    fn a_linear_ramp_thinned_gives_its_integral_per_bin() {
        // 0 to 10 over [0, 1), bounds 5 and 10 on the halves: quarter bins hold 10 t^2 / 2 differences.
        let linear = LinearRate { times: vec![0.0, 1.0], rates: vec![0.0, 10.0] };
        let a = VaryingArrivals::new(&None, &Some(linear), &None, &[5.0, 10.0], 1.0).unwrap();
        let got = counts(&a, 40_000, 4);
        for (i, g) in got.iter().enumerate() {
            let (lo, hi) = (i as f64 / 4.0, (i + 1) as f64 / 4.0);
            let want = 5.0 * (hi * hi - lo * lo);
            assert!((g - want).abs() <= 5.0 * (want / 40_000.0f64).sqrt(), "bin {i}: {g} vs {want}");
        }
    }

    #[test]
    fn a_repeating_day_gives_each_day_the_rate_in_its_own_time() {
        // 0 then 4 on the halves of a day 2 long, three days: each day's second half holds 4 on average.
        let rates = vec![0.0, 4.0];
        let a = VaryingArrivals::new(&Some(rates.clone()), &None, &None, &rates, 2.0).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let (runs, mut n) = (20_000, [0.0; 6]);
        for _ in 0..runs {
            let mut t = 0.0;
            while let Some(next) = a.next_after_in_days(t, 3, &mut rng).unwrap() {
                assert!(next > t && next < 6.0);
                n[next as usize] += 1.0;
                t = next;
            }
        }
        for (bin, count) in n.iter().enumerate() {
            let want = if bin % 2 == 1 { 4.0 } else { 0.0 };
            assert!((count / runs as f64 - want).abs() <= 5.0 * (want / runs as f64).sqrt() + 1e-12, "{n:?}");
        }
    }

    #[test]
    fn a_rate_above_its_bound_is_refused_not_drawn() {
        let linear = LinearRate { times: vec![0.0, 1.0], rates: vec![0.0, 10.0] };
        let a = VaryingArrivals::new(&None, &Some(linear), &None, &[1.0], 1.0).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut t = 0.0;
        let refused = loop {
            match a.next_after(t, &mut rng) {
                Ok(Some(next)) => t = next,
                Ok(None) => t = 0.0,
                Err(e) => break e,
            }
        };
        assert!(refused.to_string().contains("above its bound"));
    }
}
