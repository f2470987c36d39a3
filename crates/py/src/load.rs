//! The load generator's and demo server's Python face: conversion only. JSON
//! settings in, JSON summaries out, errors as brewput's load classes
//! (errors.rs), the GIL released while requests fly, and a control (control.rs)
//! to watch progress and stop (Ctrl-C). Built on every platform (tokio and
//! hyper are portable; only the 1 ns timer slack is Linux's).

use std::sync::Mutex;

use brewput_load::LoadError;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::control::Control;
use crate::errors::from_load;
use crate::guard::without_gil;

/// Runs a load (settings as JSON); what it measured as JSON.
#[pyfunction]
fn load_run(py: Python<'_>, settings: &str, control: &Control) -> PyResult<String> {
    let control = control.load()?;
    without_gil(py, || brewput_load::run_json(settings, &control).map_err(from_load))
}

/// The first `most` intended start times (seconds) of a schedule (JSON).
#[pyfunction]
fn load_schedule(py: Python<'_>, spec: &str, most: usize) -> PyResult<Vec<f64>> {
    without_gil(py, || brewput_load::schedule_json(spec, most).map_err(from_load))
}

/// The demo server, bound on creation (so its address is known before it serves).
#[pyclass(frozen)]
pub struct DemoServer(Mutex<Option<brewput_load::Server>>);

#[pymethods]
impl DemoServer {
    #[new]
    fn new(settings: &str) -> PyResult<Self> {
        let settings: brewput_load::ServeSettings = serde_json::from_str(settings)
            .map_err(|e| from_load(LoadError::Input(format!("serve settings: {e}"))))?;
        Ok(DemoServer(Mutex::new(Some(brewput_load::Server::bind(settings).map_err(from_load)?))))
    }

    /// `host:port` it listens on.
    fn address(&self) -> PyResult<String> {
        let server = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let server = server.as_ref().ok_or_else(|| PyRuntimeError::new_err("the server has already run"))?;
        Ok(server.address().map_err(from_load)?.to_string())
    }

    /// Serves until `control` is cancelled or the settings' time is up; a summary as JSON.
    fn run(&self, py: Python<'_>, control: &Control) -> PyResult<String> {
        let control = control.quiet("serve")?;
        let server = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        let server = server.ok_or_else(|| PyRuntimeError::new_err("the server has already run"))?;
        without_gil(py, || {
            let summary = server.run(&control).map_err(from_load)?;
            Ok(serde_json::to_string(&summary).unwrap_or_default())
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DemoServer>()?;
    m.add("LOAD_FAR_TAIL", brewput_load::FAR_TAIL.to_vec())?;
    m.add("LOAD_LATE_SECONDS", brewput_load::LATE_NS as f64 * 1e-9)?;
    m.add("LOAD_MAX_CONNECTIONS", brewput_load::MAX_CONNECTIONS)?;
    m.add("LOAD_MAX_IN_FLIGHT", brewput_load::MAX_IN_FLIGHT)?;
    m.add("LOAD_MAX_STAGES", brewput_load::MAX_STAGES)?;
    m.add("LOAD_DEFAULT_TICK_SECONDS", brewput_load::DEFAULT_TICK_SECONDS)?;
    m.add("LOAD_MAX_TICK_SECONDS", brewput_load::MAX_TICK_SECONDS)?;
    m.add("SERVE_MAX_WORKERS", brewput_load::MAX_WORKERS)?;
    m.add("SERVE_MAX_QUEUE", brewput_load::MAX_QUEUE)?;
    m.add("SERVE_MAX_ROTA", brewput_load::MAX_ROTA)?;
    m.add_function(wrap_pyfunction!(load_run, m)?)?;
    m.add_function(wrap_pyfunction!(load_schedule, m)?)
}
