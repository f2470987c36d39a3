//! brewput's measuring core. The simulation, the lab and the load generator each
//! watch a run, record times and draw arrivals; what they have in common lives
//! here once, so that a figure means the same thing whichever engine made it.

pub mod arrivals;
pub mod asked;
pub mod control;
pub mod latency;
pub mod percentiles;
