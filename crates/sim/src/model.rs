//! The compiled model: flat, numeric, indexed. Built by the Python side from a
//! validated model file (see docs/compiled-model.md); the engine trusts its shape
//! but re-checks the invariants it relies on in `validate`.

use serde::Deserialize;

use crate::error::SimError;

#[derive(Debug, Clone, Deserialize)]
pub struct CompiledModel {
    pub stations: Vec<Station>,
    #[serde(default)]
    pub resources: Vec<Resource>,
    pub classes: Vec<Class>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Station {
    pub name: String,
    /// `None` is infinitely many servers (a pure delay).
    pub servers: Option<u32>,
    /// Most jobs present (waiting + in service + blocked there); `None` is unbounded.
    pub capacity: Option<u32>,
    pub discipline: Discipline,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Discipline {
    Fifo,
    Lifo,
    Priority,
    Sjf,
    Ps,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Resource {
    pub name: String,
    pub tokens: u32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Class {
    pub name: String,
    #[serde(default)]
    pub priority: i64,
    pub source: Source,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Source {
    Open { interarrival: Dist },
    Closed { population: u32, think: Dist },
}

#[derive(Debug, Clone, Deserialize)]
pub struct Step {
    pub station: u32,
    pub service: Dist,
    #[serde(default)]
    pub uses: Vec<u32>,
    /// `(target step, probability)`; `None` is exit.
    pub next: Vec<(Option<u32>, f64)>,
}

/// A distribution by its sampling parameters (the model language's mean-based
/// forms are converted on the Python side).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Dist {
    Const { value: f64 },
    Exp { mean: f64 },
    Erlang { k: u32, mean: f64 },
    Gamma { shape: f64, scale: f64 },
    Lognormal { mu: f64, sigma: f64 },
    Uniform { low: f64, high: f64 },
    Normal { mean: f64, sd: f64 },
    Hyperexp { p: f64, mean1: f64, mean2: f64 },
    Empirical { values: Vec<f64> },
}

impl CompiledModel {
    pub fn from_json(text: &str) -> Result<Self, SimError> {
        let model: Self =
            serde_json::from_str(text).map_err(|e| SimError::Input(format!("compiled model: {e}")))?;
        model.validate()?;
        Ok(model)
    }

    /// The checks whose failure would make the engine index out of bounds or
    /// loop for ever; the Python side reports user errors before this.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |what: String| Err(SimError::Input(what));
        if self.classes.is_empty() {
            return bad("the model has no classes".into());
        }
        for station in &self.stations {
            if station.servers == Some(0) {
                return bad(format!("station {}: servers must be positive", station.name));
            }
            if let (Some(servers), Some(capacity)) = (station.servers, station.capacity) {
                if capacity < servers {
                    return bad(format!("station {}: capacity below servers", station.name));
                }
            }
        }
        for class in &self.classes {
            if class.steps.is_empty() {
                return bad(format!("class {}: empty route", class.name));
            }
            for (i, step) in class.steps.iter().enumerate() {
                let at = || format!("class {} step {}", class.name, i);
                if step.station as usize >= self.stations.len() {
                    return bad(format!("{}: no station {}", at(), step.station));
                }
                if step.uses.iter().any(|&r| r as usize >= self.resources.len()) {
                    return bad(format!("{}: unknown resource", at()));
                }
                if step.next.is_empty() {
                    return bad(format!("{}: no routing", at()));
                }
                let total: f64 = step.next.iter().map(|(_, p)| p).sum();
                if (total - 1.0).abs() > 1e-6 || step.next.iter().any(|(_, p)| !(*p >= 0.0)) {
                    return bad(format!("{}: routing probabilities must sum to 1", at()));
                }
                if step.next.iter().any(|(t, _)| matches!(t, Some(t) if *t as usize >= class.steps.len())) {
                    return bad(format!("{}: routes to a step that does not exist", at()));
                }
            }
        }
        Ok(())
    }
}
