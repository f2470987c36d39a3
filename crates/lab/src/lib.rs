//! brewput's live lab: the talk's coffee-shop implementations on real threads
//! burning real CPUs, and the harness that measures them (closed or open loop,
//! confined to K CPUs); and the thread-pool sizing experiment of seed 003.
//!
//! The interface the Python binding needs is two functions, JSON in, JSON out:
//! [`coffee_json`] and [`pool_json`].

mod burn;
mod control;
mod error;
mod fifo;
pub mod harness;
pub mod kitchen;
mod os;
pub mod pool;
mod recipe;
mod stats;

pub use burn::Burner;
pub use control::LabControl;
pub use error::LabError;
pub use harness::{run_coffee, CoffeeReport, CoffeeRun};
pub use pool::{run_pool, PoolReport, PoolRun};
pub use recipe::{Latte, Recipe, Stall};
pub use stats::Times;

fn from_json<'a, T: serde::Deserialize<'a>>(what: &str, json: &'a str) -> Result<T, LabError> {
    serde_json::from_str(json).map_err(|e| LabError::Input(format!("{what}: {e}")))
}

fn to_json<T: serde::Serialize>(report: &T) -> Result<String, LabError> {
    serde_json::to_string(report).map_err(|e| LabError::Input(format!("cannot encode results: {e}")))
}

/// Runs a coffee-shop measurement ([`CoffeeRun`] as JSON); the report as JSON.
pub fn coffee_json(run: &str, control: &LabControl) -> Result<String, LabError> {
    to_json(&run_coffee(&from_json("lab run", run)?, control)?)
}

/// Runs a thread-pool measurement ([`PoolRun`] as JSON); the report as JSON.
pub fn pool_json(run: &str, control: &LabControl) -> Result<String, LabError> {
    to_json(&run_pool(&from_json("pool run", run)?, control)?)
}
