//! Drawing service, think and inter-arrival times from a compiled distribution.

use rand::Rng;
use rand_distr::{Distribution, Exp1, Gamma, LogNormal, Normal};

use crate::error::SimError;
use crate::model::Dist;

/// A distribution ready to sample: parameters checked and precomputed once.
#[derive(Debug, Clone)]
#[repr(u8)]
pub enum Sampler {
    Const(f64),
    Exp { mean: f64 },
    Erlang { k: u32, phase_mean: f64 },
    Gamma(Gamma<f64>),
    Lognormal(LogNormal<f64>),
    Uniform { low: f64, width: f64 },
    Normal(Normal<f64>),
    Hyperexp { p: f64, mean1: f64, mean2: f64 },
    Empirical(Vec<f64>),
}

impl Sampler {
    pub fn new(dist: &Dist) -> Result<Self, SimError> {
        let bad = |why: &str| Err(SimError::Input(format!("distribution {dist:?}: {why}")));
        let positive = |x: f64| x > 0.0 && x.is_finite();
        Ok(match *dist {
            Dist::Const { value } if value >= 0.0 && value.is_finite() => Sampler::Const(value),
            Dist::Exp { mean } if positive(mean) => Sampler::Exp { mean },
            Dist::Erlang { k, mean } if k > 0 && positive(mean) => {
                Sampler::Erlang { k, phase_mean: mean / k as f64 }
            }
            Dist::Gamma { shape, scale } => match Gamma::new(shape, scale) {
                Ok(g) if positive(shape) && positive(scale) => Sampler::Gamma(g),
                _ => return bad("shape and scale must be positive"),
            },
            Dist::Lognormal { mu, sigma } => match LogNormal::new(mu, sigma) {
                Ok(d) if mu.is_finite() && sigma >= 0.0 => Sampler::Lognormal(d),
                _ => return bad("sigma must be >= 0"),
            },
            Dist::Uniform { low, high } if low >= 0.0 && high >= low && high.is_finite() => {
                Sampler::Uniform { low, width: high - low }
            }
            Dist::Normal { mean, sd } => match Normal::new(mean, sd) {
                // Redrawing while negative must terminate: require a real chance of >= 0.
                Ok(d) if positive(mean) && sd >= 0.0 => Sampler::Normal(d),
                _ => return bad("mean must be positive and sd >= 0"),
            },
            Dist::Hyperexp { p, mean1, mean2 } if (0.0..=1.0).contains(&p) && positive(mean1) && positive(mean2) => {
                Sampler::Hyperexp { p, mean1, mean2 }
            }
            Dist::Empirical { ref values }
                if !values.is_empty() && values.iter().all(|v| *v >= 0.0 && v.is_finite()) =>
            {
                Sampler::Empirical(values.clone())
            }
            _ => return bad("parameters out of range"),
        })
    }

    // Always inlined: the engine draws at a handful of places, each usually
    // from one kind, and a call per draw cost more than the draw itself.
    #[inline(always)]
    pub fn sample<R: Rng>(&self, rng: &mut R) -> f64 {
        match self {
            Sampler::Const(v) => *v,
            Sampler::Exp { mean } => mean * exp1(rng),
            Sampler::Erlang { k, phase_mean } => phase_mean * (0..*k).map(|_| exp1(rng)).sum::<f64>(),
            Sampler::Gamma(g) => g.sample(rng),
            Sampler::Lognormal(d) => d.sample(rng),
            Sampler::Uniform { low, width } => low + width * rng.gen::<f64>(),
            Sampler::Normal(d) => loop {
                let x = d.sample(rng);
                if x >= 0.0 {
                    break x;
                }
            },
            Sampler::Hyperexp { p, mean1, mean2 } => {
                let mean = if rng.gen::<f64>() < *p { mean1 } else { mean2 };
                mean * exp1(rng)
            }
            Sampler::Empirical(values) => values[rng.gen_range(0..values.len())],
        }
    }
}

#[inline]
fn exp1<R: Rng>(rng: &mut R) -> f64 {
    // rand_distr's ziggurat for the unit exponential: faster than -ln(U).
    Exp1.sample(rng)
}


#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn moments(dist: Dist) -> (f64, f64) {
        let sampler = Sampler::new(&dist).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let n = 400_000;
        let xs: Vec<f64> = (0..n).map(|_| sampler.sample(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        (mean, var)
    }

    /// Sample mean within 4 standard errors of the truth: fails by chance once in ~16 000.
    fn assert_mean(dist: Dist, mean: f64, var: f64) {
        let (m, v) = moments(dist.clone());
        let se = (var / 400_000f64).sqrt();
        assert!((m - mean).abs() < 4.0 * se + 1e-12, "{dist:?}: mean {m}, want {mean}");
        assert!((v - var).abs() < 0.05 * var + 1e-12, "{dist:?}: variance {v}, want {var}");
    }

    #[test]
    fn samplers_have_their_moments() {
        assert_mean(Dist::Const { value: 2.5 }, 2.5, 0.0);
        assert_mean(Dist::Exp { mean: 2.0 }, 2.0, 4.0);
        assert_mean(Dist::Erlang { k: 4, mean: 2.0 }, 2.0, 1.0);
        assert_mean(Dist::Gamma { shape: 0.5, scale: 4.0 }, 2.0, 8.0);
        let (mu, sigma) = (0.3f64, 0.5f64);
        let ln_mean = (mu + sigma * sigma / 2.0).exp();
        assert_mean(Dist::Lognormal { mu, sigma }, ln_mean, ln_mean * ln_mean * ((sigma * sigma).exp() - 1.0));
        assert_mean(Dist::Uniform { low: 1.0, high: 3.0 }, 2.0, 4.0 / 12.0);
        assert_mean(Dist::Hyperexp { p: 0.25, mean1: 1.0, mean2: 3.0 }, 2.5, 2.0 * (0.25 + 0.75 * 9.0) - 6.25);
        assert_mean(Dist::Empirical { values: vec![1.0, 2.0, 6.0] }, 3.0, 14.0 / 3.0);
        // Truncation at zero is negligible 5 sd away.
        assert_mean(Dist::Normal { mean: 5.0, sd: 1.0 }, 5.0, 1.0);
    }

    #[test]
    fn truncated_normal_is_never_negative() {
        let sampler = Sampler::new(&Dist::Normal { mean: 0.1, sd: 1.0 }).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        assert!((0..10_000).all(|_| sampler.sample(&mut rng) >= 0.0));
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(Sampler::new(&Dist::Exp { mean: -1.0 }).is_err());
        assert!(Sampler::new(&Dist::Erlang { k: 0, mean: 1.0 }).is_err());
        assert!(Sampler::new(&Dist::Uniform { low: 2.0, high: 1.0 }).is_err());
        assert!(Sampler::new(&Dist::Empirical { values: vec![] }).is_err());
        assert!(Sampler::new(&Dist::Const { value: f64::NAN }).is_err());
    }
}
