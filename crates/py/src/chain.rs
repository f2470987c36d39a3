//! The chain's walk (crates/chain) as Python sees it: conversion only. The floor
//! (python/brewput/analytic/chain/floor.py's `Floor`) is read by its attributes
//! once; the chain comes back as a dict of native-endian buffers that numpy reads
//! without a copy (np.frombuffer), and its states as a `ChainStates`, which keeps
//! them in Rust (a tagged walk starts from them) and reads one back as the tuples
//! generate.py describes. The walk runs with the GIL released, a panic as
//! InternalError (guard.rs).

use std::collections::HashSet;

use brewput_chain::{number_slots, walk, Balk, Chain, Dispatch, Floor, JobClass, PhaseType, Policy, SparseRows, Start, State, Step};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyTuple};

use crate::errors::from_walk;
use crate::guard::without_gil;

#[derive(FromPyObject)]
struct Phases {
    start: Vec<f64>,
    moves: Vec<Vec<(Option<usize>, f64)>>,
}

#[derive(FromPyObject)]
struct StepOf {
    station: usize,
    service: Phases,
    uses: Vec<usize>,
    routes: Vec<(Option<usize>, f64)>,
    balk: Option<Vec<f64>>,
    patience: Option<f64>,
    dispatch: Option<DispatchOf>,
    scope: Option<(usize, usize)>,
}

/// floor.py's `Dispatch`.
#[derive(FromPyObject)]
struct DispatchOf {
    policy: String,
    branches: Vec<usize>,
    weights: Vec<f64>,
    d: usize,
    tie_random: bool,
}

impl From<DispatchOf> for Dispatch {
    fn from(d: DispatchOf) -> Dispatch {
        let policy = match d.policy.as_str() {
            "random" => Policy::Random(d.weights),
            "round_robin" => Policy::RoundRobin,
            "shortest_queue" => Policy::ShortestQueue,
            "power_of_d" => Policy::PowerOfD(d.d),
            "least_utilized" => Policy::LeastUtilized,
            "shared" => Policy::Shared,
            other => unreachable!("floor.py refuses policy {other}"),
        };
        Dispatch { policy, branches: d.branches, tie_random: d.tie_random, slot: None }
    }
}

#[derive(FromPyObject)]
struct ClassOf {
    priority: i64,
    rate: Option<f64>,
    population: u64,
    think: Option<Phases>,
    steps: Vec<StepOf>,
}

/// floor.py's `Floor`, read by its attributes (its cached properties too).
#[derive(FromPyObject)]
struct FloorOf {
    servers: Vec<Option<u64>>,
    capacity: Vec<Option<u64>>,
    discipline: Vec<String>,
    tokens: Vec<u64>,
    classes: Vec<ClassOf>,
    open_limit: Option<u64>,
    tagged: Option<usize>,
    arrivals: bool,
    tokens_bind: bool,
    token_stations: HashSet<usize>,
}

impl From<Phases> for PhaseType {
    fn from(p: Phases) -> PhaseType {
        PhaseType { start: p.start, moves: p.moves }
    }
}

impl From<FloorOf> for Floor {
    fn from(f: FloorOf) -> Floor {
        let stations = f.servers.len();
        let mut classes: Vec<JobClass> = f
            .classes
            .into_iter()
            .map(|c| JobClass {
                priority: c.priority,
                rate: c.rate,
                population: c.population,
                think: c.think.map(PhaseType::from),
                steps: c
                    .steps
                    .into_iter()
                    .map(|s| Step {
                        station: s.station,
                        service: s.service.into(),
                        uses: s.uses,
                        routes: s.routes,
                        balk: s.balk.map(Balk),
                        patience: s.patience,
                        dispatch: s.dispatch.map(|d| Box::new(Dispatch::from(d))),
                        scope: s.scope,
                    })
                    .collect(),
            })
            .collect();
        let (dispatch_slots, shared_at) = number_slots(&mut classes, stations);
        Floor {
            servers: f.servers,
            capacity: f.capacity,
            priority: f.discipline.iter().map(|d| d == "priority").collect(),
            tokens: f.tokens,
            classes,
            open_limit: f.open_limit,
            tagged: f.tagged,
            arrivals: f.arrivals,
            tokens_bind: f.tokens_bind,
            token_station: (0..stations).map(|m| f.token_stations.contains(&m)).collect(),
            dispatch_slots,
            shared_at,
        }
    }
}

/// The states of a walked chain, in the order found, kept in Rust.
#[pyclass(frozen, sequence)]
pub struct ChainStates {
    floor: Floor,
    codes: Vec<i32>,
    bounds: Vec<u64>,
}

impl ChainStates {
    fn state(&self, i: usize) -> State {
        State::decode(&self.floor, &self.codes[self.bounds[i] as usize..self.bounds[i + 1] as usize])
    }
}

#[pymethods]
impl ChainStates {
    fn __len__(&self) -> usize {
        self.bounds.len() - 1
    }

    /// State i as tuples: (thinking per class and phase, the queue's (station, class,
    /// step), per station the jobs in service (class, step, phase), per station its
    /// line for room (source or -1 for outside, class, step)).
    fn __getitem__<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyTuple>> {
        if i >= self.__len__() {
            return Err(PyIndexError::new_err(format!("state {i} of {}", self.__len__())));
        }
        let s = self.state(i);
        let thinking = PyTuple::new(py, s.thinking.iter().map(|t| PyTuple::new(py, t).unwrap()))?;
        let queue = PyTuple::new(py, s.queue.iter().map(|q| (q.station, q.class, q.step)))?;
        let serving = PyTuple::new(
            py,
            s.serving.iter().map(|e| PyTuple::new(py, e.iter().map(|j| (j.class, j.step, j.phase))).unwrap()),
        )?;
        let lines = PyTuple::new(
            py,
            s.lines.iter().map(|l| PyTuple::new(py, l.iter().map(|b| (b.source, b.class, b.step))).unwrap()),
        )?;
        PyTuple::new(py, [thinking.into_any(), queue.into_any(), serving.into_any(), lines.into_any()])
    }
}

/// Values as native-endian bytes, which numpy reads as they are, written straight
/// into Python's buffer; `values` is dropped then (the walk's arrays are handed over
/// one at a time, not all copied at once).
fn bytes<T: Copy, const N: usize>(py: Python<'_>, values: Vec<T>, to_bytes: fn(T) -> [u8; N]) -> PyResult<Bound<'_, PyByteArray>> {
    PyByteArray::new_with(py, values.len() * N, |buffer| {
        for (chunk, &v) in buffer.chunks_exact_mut(N).zip(&values) {
            chunk.copy_from_slice(&to_bytes(v));
        }
        Ok(())
    })
}

fn floats(py: Python<'_>, values: Vec<f64>) -> PyResult<Bound<'_, PyByteArray>> {
    bytes(py, values, f64::to_ne_bytes)
}

type Buffers<'py> = (Bound<'py, PyByteArray>, Bound<'py, PyByteArray>, Bound<'py, PyByteArray>);

fn sparse(py: Python<'_>, rows: SparseRows) -> PyResult<Buffers<'_>> {
    Ok((bytes(py, rows.indptr, i64::to_ne_bytes)?, bytes(py, rows.indices, i32::to_ne_bytes)?, floats(py, rows.data)?))
}

/// The chain as a dict of buffers (generate.py reads it), its states a `ChainStates`.
fn chain_dict(py: Python<'_>, floor: Floor, chain: Chain) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("start", floats(py, chain.start)?)?;
    out.set_item("indptr", bytes(py, chain.indptr, i64::to_ne_bytes)?)?;
    out.set_item("indices", bytes(py, chain.indices, i32::to_ne_bytes)?)?;
    out.set_item("rates", floats(py, chain.rates)?)?;
    out.set_item("completions", floats(py, chain.completions)?)?;
    out.set_item("losses", floats(py, chain.losses)?)?;
    out.set_item("truncated", floats(py, chain.truncated)?)?;
    out.set_item("balked", floats(py, chain.balked)?)?;
    out.set_item("reneged", floats(py, chain.reneged)?)?;
    out.set_item("served", floats(py, chain.served)?)?;
    let counts = chain.counts;
    out.set_item("waiting", sparse(py, counts.waiting)?)?;
    out.set_item("busy", sparse(py, counts.busy)?)?;
    out.set_item("blocked", sparse(py, counts.blocked)?)?;
    out.set_item("outside", sparse(py, counts.outside)?)?;
    out.set_item("in_use", sparse(py, counts.in_use)?)?;
    out.set_item("states", ChainStates { floor, codes: chain.codes, bounds: chain.bounds })?;
    Ok(out)
}

/// The chain of `floor` from the simulator's start; TooManyStates beyond `max_states`.
#[pyfunction]
fn chain_walk<'py>(py: Python<'py>, floor: FloorOf, max_states: usize) -> PyResult<Bound<'py, PyDict>> {
    let floor = Floor::from(floor);
    let chain = without_gil(py, || walk(&floor, max_states, Start::Simulator).map_err(from_walk))?;
    chain_dict(py, floor, chain)
}

/// The chain of `floor` from jobs `placed` at the start, (class, step, jobs) in order
/// (its `start`: the weights of its first states); NoRoom(station) where they do not fit.
#[pyfunction]
fn chain_walk_placed<'py>(
    py: Python<'py>,
    floor: FloorOf,
    max_states: usize,
    placed: Vec<(usize, usize, u64)>,
) -> PyResult<Bound<'py, PyDict>> {
    let floor = Floor::from(floor);
    let chain = without_gil(py, || walk(&floor, max_states, Start::Placed(&placed)).map_err(from_walk))?;
    chain_dict(py, floor, chain)
}

/// The chain of the tagged `floor` from its tagged customer of class `class` arriving
/// into the model's chain (`model` its states, `pi` their stationary law): its
/// `start`, the weights of its first states.
#[pyfunction]
fn chain_walk_arrivals<'py>(
    py: Python<'py>,
    floor: FloorOf,
    max_states: usize,
    model: Bound<'py, ChainStates>,
    pi: Vec<f64>,
    class: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let floor = Floor::from(floor);
    let model = model.get();
    let chain = without_gil(py, || {
        let start = Start::Arrivals { codes: &model.codes, bounds: &model.bounds, pi: &pi, class };
        walk(&floor, max_states, start).map_err(from_walk)
    })?;
    chain_dict(py, floor, chain)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ChainStates>()?;
    m.add_function(wrap_pyfunction!(chain_walk, m)?)?;
    m.add_function(wrap_pyfunction!(chain_walk_placed, m)?)?;
    m.add_function(wrap_pyfunction!(chain_walk_arrivals, m)?)
}
