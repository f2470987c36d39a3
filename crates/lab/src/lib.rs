//! brewput's live lab: the talk's coffee-shop implementations on real threads
//! burning real CPUs, and the harness that measures them (closed or open loop,
//! confined to K CPUs); and the thread-pool sizing experiment of seed 003.
//!
//! The interface the Python binding needs is two functions, JSON in, JSON out:
//! [`coffee_json`] and [`pool_json`].
//!
//! Linux only: confining a run to K CPUs needs sched_setaffinity. Elsewhere the
//! crate is empty, so the workspace (the simulator, the binding without its
//! lab) still builds on macOS and Windows.
#![cfg(target_os = "linux")]

mod burn;
mod error;
pub mod harness;
pub mod kitchen;
mod os;
pub mod pool;
mod recipe;
pub mod runtime;
mod seconds;
mod stats;

pub use brewput_measure::control::Control;
pub use burn::Burner;
pub use error::LabError;
pub use harness::{run_coffee, CoffeeReport, CoffeeRun};
pub use pool::{run_pool, PoolReport, PoolRun};
pub use recipe::{Latte, Recipe, RecipeSettings, StallSettings};
pub use runtime::RuntimeKind;
pub use stats::Times;

fn from_json<'a, T: serde::Deserialize<'a>>(what: &str, json: &'a str) -> Result<T, LabError> {
    serde_json::from_str(json).map_err(|e| LabError::Input(format!("{what}: {e}")))
}

fn to_json<T: serde::Serialize>(report: &T) -> Result<String, LabError> {
    serde_json::to_string(report).map_err(|e| LabError::Input(format!("cannot encode results: {e}")))
}

/// Runs a coffee-shop measurement ([`CoffeeRun`] as JSON); the report as JSON.
pub fn coffee_json(run: &str, control: &Control) -> Result<String, LabError> {
    to_json(&run_coffee(&from_json("lab run", run)?, control)?)
}

/// Runs a thread-pool measurement ([`PoolRun`] as JSON); the report as JSON.
pub fn pool_json(run: &str, control: &Control) -> Result<String, LabError> {
    to_json(&run_pool(&from_json("pool run", run)?, control)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short valid run with `changes` (a JSON object) laid over it.
    fn coffee(changes: &str) -> Result<String, LabError> {
        let mut run = serde_json::json!({"kitchen": "ideal", "runtime": "tasks", "cpus": 1, "par": 1, "repetitions": 1,
            "percentiles": [50.0], "duration_ms": 5.0, "warmup_ms": 0.0,
            "recipe": {"grind_us": 10.0, "press_us": 10.0, "steam_us": 10.0, "latte_us": 10.0}});
        let changes: serde_json::Value = serde_json::from_str(changes).unwrap();
        for (key, value) in changes.as_object().unwrap() {
            run[key] = value.clone();
        }
        coffee_json(&run.to_string(), &Control::default())
    }

    #[test]
    fn times_beyond_a_duration_are_errors_naming_the_field_not_panics() {
        for (changes, field) in [
            (r#"{"duration_ms": 1e30}"#, "duration_ms"),
            (r#"{"warmup_ms": -1}"#, "warmup_ms"),
            (r#"{"recipe": {"grind_us": 1e40, "press_us": 1, "steam_us": 1, "latte_us": 1}}"#, "grind_us"),
            (r#"{"load": {"kind": "open", "rate_per_s": 1e-300, "arrivals": "constant", "queue": 1, "seed": 1}}"#, "rate_per_s"),
            (r#"{"load": {"kind": "open", "rate_per_s": 0, "arrivals": "poisson", "queue": 1, "seed": 1}}"#, "rate_per_s"),
        ] {
            let err = coffee(changes).unwrap_err().to_string();
            assert!(err.starts_with(field), "{changes}: {err}");
        }
        let pool = r#"{"tasks": 1, "work_us": 1e30, "threads": 1, "cpus": 1, "repetitions": 1, "percentiles": [50]}"#;
        assert!(pool_json(pool, &Control::default()).unwrap_err().to_string().starts_with("work_us"));
    }

    #[test]
    fn a_panic_in_any_thread_of_a_run_is_an_error_with_its_message() {
        let run = harness::on_cpus(1, None, || -> Result<(), LabError> {
            std::thread::scope(|s| error::joined(s.spawn(|| -> () { panic!("no milk") })));
            Ok(())
        });
        assert_eq!(run.unwrap_err(), LabError::Os("no milk".into()));
    }

    #[test]
    fn a_rate_too_slow_to_arrive_in_the_window_measures_nothing() {
        let open = r#"{"load": {"kind": "open", "rate_per_s": 1e-6, "arrivals": "poisson", "queue": 1, "seed": 1}}"#;
        let report: serde_json::Value = serde_json::from_str(&coffee(open).unwrap()).unwrap();
        assert_eq!(report["response"]["count"], 0);
    }
}
