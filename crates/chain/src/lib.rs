//! The state space of a floor (python/brewput/analytic/chain/floor.py), walked
//! breadth first from the simulator's start (or from placed jobs, or a tagged
//! customer's arrivals), with every transition the simulator can make, by the
//! simulator's own rules and in its order (crates/sim/src/simulation.rs,
//! deferred.rs, starts.rs). The result is plain arrays: the transitions as
//! compressed sparse rows, the completions, losses, truncation, balking and
//! reneging per state, the services ended per station, what each state holds,
//! and the states themselves encoded.
//!
//! Why Rust: the walk is the one step of `solve --method ctmc` that costs per
//! state (in Python 60 to 300 us and 2 to 4 KB a state); its input is the floor's
//! plain numbers, so it moved here behind the same Python interface (generate.py).

mod chance;
mod counts;
mod dispatch;
mod floor;
mod giving_up;
mod starts;
mod state;
mod store;
mod walk;
mod work;

use std::fmt;

pub use counts::{Counts, SparseRows};
pub use dispatch::{number_slots, Dispatch, Policy};
pub use floor::{Floor, JobClass, PhaseType, Step};
pub use giving_up::{Balk, GaveUp};
pub use state::{Blocked, Queued, Served, State, OUTSIDE};
pub use walk::{walk, Chain, Start};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkError {
    /// The walk reached more states than the limit.
    TooManyStates(usize),
    /// Jobs placed at a station (its index) beyond what it holds (its servers and buffer).
    NoRoom(usize),
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalkError::TooManyStates(limit) => write!(f, "more than {} states", thousands(*limit)),
            WalkError::NoRoom(station) => write!(f, "{station}"),
        }
    }
}

impl std::error::Error for WalkError {}

/// `n` with a comma every three digits, as Python's `{:,}`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}
