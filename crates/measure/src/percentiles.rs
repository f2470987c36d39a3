//! Which percentiles every engine reports: the simulation's time summaries,
//! the lab's and the load generator's latencies. The one list: the Python
//! side reads it through the binding.

/// The named percentiles, in percent (each is also a point of `SPECTRUM`,
/// computed the same way, so the two agree exactly).
pub const PERCENTILES: [(&str, f64); 5] =
    [("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0), ("p999", 99.9)];

/// The percentile spectrum, in percent: dense enough to draw latency against
/// 1/(1-p) on a log axis from the body of the distribution to its far tail.
pub const SPECTRUM: [f64; 27] = [
    1.0, 5.0, 10.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0, 70.0, 75.0, 80.0, 90.0, 95.0, 97.0,
    98.0, 99.0, 99.5, 99.7, 99.8, 99.9, 99.95, 99.97, 99.98, 99.99, 99.995, 99.999,
];

/// The tail points measured latencies report beyond the spectrum (in percent),
/// each only when at least one sample lies above it: a load run's millions of
/// requests reach them, a simulation's summary stops at the spectrum.
pub const FAR_TAIL: [f64; 1] = [99.9999];
