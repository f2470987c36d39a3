//! What each state holds, per class and station, as sparse rows: the jobs
//! waiting, in service, blocked on a server, waiting outside a full station, and
//! the tokens held. The figures (figures.py, from_state.py) are their averages
//! under a law over the states, so the states themselves need not leave Rust.

use crate::dispatch::shared_queues;
use crate::floor::Floor;
use crate::state::{State, OUTSIDE};

/// A sparse matrix built a row at a time (compressed sparse rows, columns ascending).
#[derive(Default, Debug)]
pub struct SparseRows {
    pub indptr: Vec<i64>,
    pub indices: Vec<i32>,
    pub data: Vec<f64>,
}

impl SparseRows {
    fn new() -> SparseRows {
        SparseRows { indptr: vec![0], ..SparseRows::default() }
    }

    /// Adds the row whose dense values are `row`, and zeroes it.
    fn push(&mut self, row: &mut [f64]) {
        for (j, x) in row.iter_mut().enumerate() {
            if *x != 0.0 {
                self.indices.push(j as i32);
                self.data.push(*x);
                *x = 0.0;
            }
        }
        self.indptr.push(self.indices.len() as i64);
    }
}

/// Per state, its jobs: class c at station m in column c * stations + m.
#[derive(Debug)]
pub struct Counts {
    /// Waiting for a server.
    pub waiting: SparseRows,
    /// In service.
    pub busy: SparseRows,
    /// Blocked after service on a server at m (waiting for room at their next station).
    pub blocked: SparseRows,
    /// Per class (column c): waiting outside a full station, or in a shared dispatch queue.
    pub outside: SparseRows,
    /// Per resource (column r): tokens held.
    pub in_use: SparseRows,
    scratch: [Vec<f64>; 5],
}

impl Counts {
    pub fn new(floor: &Floor) -> Counts {
        let cells = floor.classes.len() * floor.stations();
        Counts {
            waiting: SparseRows::new(),
            busy: SparseRows::new(),
            blocked: SparseRows::new(),
            outside: SparseRows::new(),
            in_use: SparseRows::new(),
            scratch: [
                vec![0.0; cells],
                vec![0.0; cells],
                vec![0.0; cells],
                vec![0.0; floor.classes.len()],
                vec![0.0; floor.tokens.len()],
            ],
        }
    }

    /// Adds the rows of `state`, the next state in order.
    pub fn add(&mut self, floor: &Floor, state: &State) {
        let stations = floor.stations();
        let cell = |c: i32, m: usize| c as usize * stations + m;
        let [waiting, busy, blocked, outside, in_use] = &mut self.scratch;
        for q in &state.queue {
            waiting[cell(q.class, q.station as usize)] += 1.0;
        }
        for (m, serving) in state.serving.iter().enumerate() {
            for s in serving {
                busy[cell(s.class, m)] += 1.0;
                for &r in &floor.classes[s.class as usize].steps[s.step as usize].uses {
                    in_use[r] += 1.0;
                }
            }
        }
        for b in state.lines.iter().flatten() {
            if b.source == OUTSIDE {
                outside[b.class as usize] += 1.0;
            } else {
                blocked[cell(b.class, b.source as usize)] += 1.0;
            }
        }
        if floor.dispatch_slots > 0 {
            for (c, slot) in shared_queues(floor) {
                outside[c] += state.dispatchers[slot] as f64;
            }
        }
        self.waiting.push(waiting);
        self.busy.push(busy);
        self.blocked.push(blocked);
        self.outside.push(outside);
        self.in_use.push(in_use);
    }
}
