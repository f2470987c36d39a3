//! Customers who give up (crates/sim/src/giving_up.rs): one entering a step may
//! balk at the queue it sees, one waiting may run out of patience. Either leaves
//! without completing: an open customer is lost, a closed one thinks again.

/// Whether a job entering a step balks: per number of jobs it sees waiting in the
/// station's queue, the probability it leaves at once, the last holding beyond (a
/// threshold of n is n zeros, then a one).
#[derive(Clone, Debug)]
pub struct Balk(pub Vec<f64>);

impl Balk {
    pub fn chance(&self, waiting: usize) -> f64 {
        self.0[waiting.min(self.0.len() - 1)]
    }
}

/// Why a customer gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// It saw the queue and left at once.
    Balked,
    /// Its patience ran out while it waited.
    Reneged,
}
