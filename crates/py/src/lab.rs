//! The lab's Python face: conversion only. A run's settings as JSON in, its
//! report as JSON out, errors as `ValueError`, a panic as the binding's
//! `InternalError` (guard.rs: none crosses into Python), the GIL released while
//! real threads burn real CPUs, and a handle to cancel from Python (Ctrl-C).
//! Linux only (the lab pins threads with sched_setaffinity): lib.rs registers
//! it there, and elsewhere the module simply has no lab.

use std::sync::Arc;

use brewput_lab::LabError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::guard::without_gil;

#[pyclass(frozen)]
#[derive(Default)]
pub struct LabControl(Arc<brewput_lab::LabControl>);

#[pymethods]
impl LabControl {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    fn cancel(&self) {
        self.0.cancel();
    }
}

fn lab_error(e: LabError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Measures the coffee shop a run (JSON) describes; the report as JSON.
#[pyfunction]
pub fn lab_coffee(py: Python<'_>, run: &str, control: &LabControl) -> PyResult<String> {
    let control = Arc::clone(&control.0);
    without_gil(py, || brewput_lab::coffee_json(run, &control).map_err(lab_error))
}

/// Measures a thread pool (or a thread per task) as a run (JSON) describes.
#[pyfunction]
pub fn lab_pool(py: Python<'_>, run: &str, control: &LabControl) -> PyResult<String> {
    let control = Arc::clone(&control.0);
    without_gil(py, || brewput_lab::pool_json(run, &control).map_err(lab_error))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LabControl>()?;
    m.add_function(wrap_pyfunction!(lab_coffee, m)?)?;
    m.add_function(wrap_pyfunction!(lab_pool, m)?)
}
