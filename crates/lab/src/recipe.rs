//! A latte and how it is made: four stages, each burning a CPU for its time.
//! Every implementation calls the same `Recipe::make` for each stage, so they
//! differ only in how they share machines and hand orders on.

use std::time::Duration;

use rand::Rng;
use serde::Deserialize;

use crate::burn::Burner;

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

/// A deliberate hiccup: every `every`-th order's grinding pauses (sleeps) for
/// `pause_us` on top of its work, holding whatever machine it holds. Used to
/// check that latency from the intended start shows a stall in the tail.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stall {
    pub every: u64,
    pub pause_us: f64,
}

/// Stage times in microseconds; each stage lasts uniformly `time ± jitter/2`
/// (the models' `jitter(mean, width)`).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    pub grind_us: f64,
    pub press_us: f64,
    pub steam_us: f64,
    pub latte_us: f64,
    #[serde(default)]
    pub jitter_us: f64,
    #[serde(default)]
    pub stall: Option<Stall>,
}

impl Recipe {
    /// The talk's default: four 1 ms stages, no jitter.
    pub fn talk() -> Recipe {
        Recipe { grind_us: 1000.0, press_us: 1000.0, steam_us: 1000.0, latte_us: 1000.0, jitter_us: 0.0, stall: None }
    }

    pub fn uniform(stage_us: f64) -> Recipe {
        Recipe { grind_us: stage_us, press_us: stage_us, steam_us: stage_us, latte_us: stage_us, ..Recipe::talk() }
    }

    pub fn check(&self) -> Result<(), String> {
        let times = [("grind", self.grind_us), ("press", self.press_us), ("steam", self.steam_us), ("latte", self.latte_us)];
        for (name, t) in times {
            if !(t.is_finite() && t >= 0.0) {
                return Err(format!("{name}: expected a non-negative time, got {t} us"));
            }
            if self.jitter_us > 2.0 * t {
                return Err(format!("jitter {} us is more than twice the {name} stage ({t} us)", self.jitter_us));
            }
        }
        if !(self.jitter_us.is_finite() && self.jitter_us >= 0.0) {
            return Err(format!("jitter: expected a non-negative time, got {} us", self.jitter_us));
        }
        if let Some(stall) = self.stall {
            if stall.every == 0 || !(stall.pause_us.is_finite() && stall.pause_us >= 0.0) {
                return Err("stall: expected every >= 1 and a non-negative pause".into());
            }
        }
        Ok(())
    }

    fn time_us(&self, stage: Stage) -> f64 {
        match stage {
            Stage::Grind => self.grind_us,
            Stage::Press => self.press_us,
            Stage::Steam => self.steam_us,
            Stage::Latte => self.latte_us,
        }
    }

    /// Does one stage of `latte` on the calling thread.
    pub fn make(&self, burner: &Burner, stage: Stage, latte: &mut Latte) {
        let mut us = self.time_us(stage);
        if self.jitter_us > 0.0 {
            us += rand::thread_rng().gen_range(-0.5..0.5) * self.jitter_us;
        }
        burner.burn(Duration::from_secs_f64(us.max(0.0) * 1e-6));
        if let (Stage::Grind, Some(stall)) = (stage, self.stall) {
            if latte.order % stall.every == stall.every - 1 {
                std::thread::sleep(Duration::from_secs_f64(stall.pause_us * 1e-6));
            }
        }
        let bit = 1 << stage as u8;
        latte.repeated |= latte.stages & bit != 0;
        latte.stages |= bit;
    }
}
