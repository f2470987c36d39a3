use serde::Deserialize;

use crate::asked::Asked;
use crate::error::SimError;

/// How a run is driven: its seed, its replications and when to stop.
#[derive(Debug, Clone, Deserialize)]
pub struct RunSettings {
    pub seed: u64,
    pub replications: u32,
    /// Worker threads; `None` uses every core. Results never depend on it.
    #[serde(default)]
    pub threads: Option<usize>,
    pub stop: Stop,
    pub warmup: Warmup,
    /// Also return each class's response-time percentile distribution (the
    /// rows of an .hgrm file); off by default to keep results small.
    #[serde(default)]
    pub distribution: bool,
    /// Quantiles and service levels of every time beyond the fixed list.
    #[serde(default)]
    pub asked: Asked,
    /// In a model with a day: the width of the reporting intervals (`None`:
    /// the model's own intervals).
    #[serde(default)]
    pub bins: Option<f64>,
    /// In a model with a day: also the law of what arrivals at each station
    /// find there, per interval (found.rs).
    #[serde(default)]
    pub found: bool,
}

/// When a replication ends, counted from the end of the warm-up.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Stop {
    /// After this many completed customers (all classes together).
    Customers { count: u64 },
    /// After this much model time.
    Horizon { time: f64 },
}

/// What is discarded before statistics are collected.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Warmup {
    Customers { count: u64 },
    Time { time: f64 },
}

impl RunSettings {
    pub fn from_json(text: &str) -> Result<Self, SimError> {
        let settings: Self =
            serde_json::from_str(text).map_err(|e| SimError::Input(format!("run settings: {e}")))?;
        settings.validate()?;
        Ok(settings)
    }

    pub fn validate(&self) -> Result<(), SimError> {
        self.asked.validate()?;
        if self.replications == 0 {
            return Err(SimError::Input("replications must be at least 1".into()));
        }
        match self.stop {
            Stop::Customers { count: 0 } => Err(SimError::Input("customers must be at least 1".into())),
            Stop::Horizon { time } if !(time > 0.0 && time.is_finite()) => {
                Err(SimError::Input(format!("horizon must be positive, got {time}")))
            }
            _ if self.bins.is_some_and(|w| !(w > 0.0 && w.is_finite())) => {
                Err(SimError::Input(format!("bins must be a positive width, got {:?}", self.bins)))
            }
            _ => match self.warmup {
                Warmup::Time { time } if !(time >= 0.0 && time.is_finite()) => {
                    Err(SimError::Input(format!("warm-up time must be >= 0, got {time}")))
                }
                _ => Ok(()),
            },
        }
    }
}
