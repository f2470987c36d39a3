//! A latte and how it is made: four stages, each burning a CPU for its time.
//! Every implementation calls the same `Recipe::make` for each stage, so they
//! differ only in how they share machines and hand orders on.

use std::num::NonZeroU64;
use std::time::Duration;

use rand::Rng;
use serde::Deserialize;

use crate::burn::Burner;
use crate::error::LabError;
use crate::seconds::seconds;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Grind = 0,
    Press = 1,
    Steam = 2,
    Latte = 3,
}

/// A latte in the making: which order it is and which stages it has had (a bit
/// per stage), so tests can check that no work is lost or done twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latte {
    pub order: u64,
    pub stages: u8,
    /// A stage done twice on this latte: a bug the tests look for.
    pub repeated: bool,
}

impl Latte {
    pub const DONE: u8 = 0b1111;

    pub fn new(order: u64) -> Latte {
        Latte { order, stages: 0, repeated: false }
    }

    /// The parts of one order made on separate lines (split pipelines), joined.
    pub fn combine(self, other: Latte) -> Latte {
        debug_assert_eq!(self.order, other.order);
        Latte {
            order: self.order,
            stages: self.stages | other.stages,
            repeated: self.repeated || other.repeated || self.stages & other.stages != 0,
        }
    }
}

/// The recipe as a run's settings give it: stage times in microseconds; grind,
/// press and steam each last uniformly `time ± jitter/2` (the talk's
/// `--jitter`, the models' `jitter(mean, width)`), the latte exactly its time.
/// The bounds people may ask for are checked on the Python side
/// (python/brewput/lab/options.py); here the times only have to be times.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecipeSettings {
    pub grind_us: f64,
    pub press_us: f64,
    pub steam_us: f64,
    pub latte_us: f64,
    #[serde(default)]
    pub jitter_us: f64,
    #[serde(default)]
    pub stall: Option<StallSettings>,
}

/// A deliberate hiccup: every `every`-th order's grinding pauses (sleeps) for
/// `pause_us` on top of its work, holding whatever machine it holds. Used to
/// check that latency from the intended start shows a stall in the tail.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StallSettings {
    pub every: NonZeroU64,
    pub pause_us: f64,
}

/// A recipe ready to make lattes: its times converted once into Durations.
#[derive(Debug, Clone, Copy)]
pub struct Recipe {
    times: [Duration; 4],
    jitter: Duration,
    stall: Option<Stall>,
}

#[derive(Debug, Clone, Copy)]
struct Stall {
    every: NonZeroU64,
    pause: Duration,
}

impl RecipeSettings {
    /// The recipe these settings describe; a time that is not one (negative,
    /// NaN, beyond what a Duration holds) is an error naming its field.
    pub fn recipe(&self) -> Result<Recipe, LabError> {
        let us = |field: &str, us: f64| seconds(field, us * 1e-6);
        Ok(Recipe {
            times: [
                us("grind_us", self.grind_us)?,
                us("press_us", self.press_us)?,
                us("steam_us", self.steam_us)?,
                us("latte_us", self.latte_us)?,
            ],
            jitter: us("jitter_us", self.jitter_us)?,
            stall: match self.stall {
                Some(stall) => Some(Stall { every: stall.every, pause: us("stall.pause_us", stall.pause_us)? }),
                None => None,
            },
        })
    }
}

impl Recipe {
    /// Four stages of `stage` each, no jitter, no stall.
    pub fn uniform(stage: Duration) -> Recipe {
        Recipe { times: [stage; 4], jitter: Duration::ZERO, stall: None }
    }

    /// Does one stage of `latte` on the calling thread. A stall's pause
    /// blocks the thread (in the task runtime, its processor) with the machine.
    pub fn make(&self, burner: &Burner, stage: Stage, latte: &mut Latte) {
        burner.burn(self.time(stage, rand::thread_rng().gen()));
        if let (Stage::Grind, Some(stall)) = (stage, self.stall) {
            if latte.order % stall.every.get() == stall.every.get() - 1 {
                std::thread::sleep(stall.pause);
            }
        }
        let bit = 1 << stage as u8;
        latte.repeated |= latte.stages & bit != 0;
        latte.stages |= bit;
    }

    /// How long `stage` lasts given a uniform draw `u` from [0, 1): the talk's
    /// noise varies grind, press and steam by [-jitter/2, jitter/2), never the latte.
    fn time(&self, stage: Stage, u: f64) -> Duration {
        let time = self.times[stage as usize];
        if self.jitter.is_zero() || stage == Stage::Latte {
            return time;
        }
        let spread = Duration::try_from_secs_f64(u * self.jitter.as_secs_f64()).unwrap_or(self.jitter);
        time.saturating_add(spread).saturating_sub(self.jitter / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(grind_us: f64) -> RecipeSettings {
        RecipeSettings { grind_us, press_us: 1.0, steam_us: 1.0, latte_us: 1.0, jitter_us: 0.0, stall: None }
    }

    #[test]
    fn times_that_are_not_durations_are_errors_naming_the_field() {
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1e30 * 1e3] {
            let err = settings(bad).recipe().unwrap_err().to_string();
            assert!(err.starts_with("grind_us: "), "{err}");
        }
        assert_eq!(settings(2500.0).recipe().unwrap().times[0], Duration::from_micros(2500));
    }

    #[test]
    fn jitter_varies_grind_press_and_steam_over_their_time_plus_or_minus_half_of_it_and_never_the_latte() {
        let mut jittered = settings(1000.0);
        (jittered.press_us, jittered.steam_us, jittered.latte_us, jittered.jitter_us) = (1000.0, 1000.0, 1000.0, 500.0);
        let recipe = jittered.recipe().unwrap();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        for stage in [Stage::Grind, Stage::Press, Stage::Steam] {
            assert_eq!(us(recipe.time(stage, 0.0)), 750.0);
            assert_eq!(us(recipe.time(stage, 0.5)), 1000.0);
            assert!((us(recipe.time(stage, 0.999_999)) - 1250.0).abs() < 0.01); // to the nanosecond
        }
        for u in [0.0, 0.5, 0.999_999] {
            assert_eq!(us(recipe.time(Stage::Latte, u)), 1000.0);
        }
    }

    #[test]
    fn a_stall_every_zero_orders_is_refused_when_read() {
        let json = r#"{"grind_us": 1, "press_us": 1, "steam_us": 1, "latte_us": 1, "stall": {"every": 0, "pause_us": 1}}"#;
        assert!(serde_json::from_str::<RecipeSettings>(json).is_err());
    }
}
