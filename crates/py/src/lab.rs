//! The lab's Python face: conversion only. A run's settings as JSON in, its
//! report as JSON out, errors as brewput's lab classes (errors.rs), a panic as
//! `InternalError` (guard.rs: none crosses into Python), the GIL released while
//! real threads burn real CPUs, and a control (control.rs) to cancel from
//! Python (Ctrl-C). Linux only (the lab pins threads with sched_setaffinity):
//! lib.rs registers it there, and elsewhere the module simply has no lab.

use pyo3::prelude::*;

use crate::control::Control;
use crate::errors::from_lab;
use crate::guard::without_gil;

/// Measures the coffee shop a run (JSON) describes; the report as JSON.
#[pyfunction]
pub fn lab_coffee(py: Python<'_>, run: &str, control: &Control) -> PyResult<String> {
    let control = control.quiet("lab")?;
    without_gil(py, || brewput_lab::coffee_json(run, &control).map_err(from_lab))
}

/// Measures a thread pool (or a thread per task) as a run (JSON) describes.
#[pyfunction]
pub fn lab_pool(py: Python<'_>, run: &str, control: &Control) -> PyResult<String> {
    let control = control.quiet("lab")?;
    without_gil(py, || brewput_lab::pool_json(run, &control).map_err(from_lab))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lab_coffee, m)?)?;
    m.add_function(wrap_pyfunction!(lab_pool, m)?)
}
