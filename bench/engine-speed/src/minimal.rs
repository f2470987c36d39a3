//! The practical ceiling: the smallest honest M/M/3 FCFS event loop we can write.
//!
//! No general event list: with Poisson arrivals and three identical servers the
//! only pending events are the next arrival and up to three service completions,
//! so the loop keeps one arrival time plus three completion times, and a linear
//! scan over three slots is cheaper than any heap. Waiting customers are a FIFO of
//! their arrival times. It draws its random numbers the way brewput does
//! (Xoshiro256++, rand_distr's ziggurat Exp), so the comparison is of the event
//! machinery, not of the samplers.

use std::collections::VecDeque;

use rand::SeedableRng;
use rand_distr::{Distribution, Exp};
use rand_xoshiro::Xoshiro256PlusPlus;

pub const SERVERS: usize = 3;

/// Runs until `warmup + count` customers have left and returns the mean response
/// time of the last `count`, which also keeps the optimiser from deleting the work.
pub fn run(rate: f64, mean_service: f64, seed: u64, warmup: u64, count: u64) -> f64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let interarrival = Exp::new(rate).unwrap();
    let service = Exp::new(1.0 / mean_service).unwrap();

    // done[i]: when server i finishes (infinity while idle); arrived[i]: when the
    // customer it serves arrived.
    let mut done = [f64::INFINITY; SERVERS];
    let mut arrived = [0.0f64; SERVERS];
    let mut waiting: VecDeque<f64> = VecDeque::with_capacity(1024);
    let mut next_arrival = interarrival.sample(&mut rng);

    let total = warmup + count;
    let mut left = 0u64;
    let mut sum = 0.0f64;
    while left < total {
        let mut k = 0;
        for i in 1..SERVERS {
            if done[i] < done[k] {
                k = i;
            }
        }
        if next_arrival < done[k] {
            let now = next_arrival;
            next_arrival = now + interarrival.sample(&mut rng);
            // A customer who finds a server idle starts at once; if any is idle
            // nobody is waiting, so FCFS holds.
            match done.iter().position(|d| *d == f64::INFINITY) {
                Some(i) => {
                    done[i] = now + service.sample(&mut rng);
                    arrived[i] = now;
                }
                None => waiting.push_back(now),
            }
        } else {
            let now = done[k];
            left += 1;
            if left > warmup {
                sum += now - arrived[k];
            }
            match waiting.pop_front() {
                Some(a) => {
                    done[k] = now + service.sample(&mut rng);
                    arrived[k] = a;
                }
                None => done[k] = f64::INFINITY,
            }
        }
    }
    sum / count as f64
}

/// Mean response time of M/M/c from Erlang's C formula: W = 1/mu + C(c, a) / (c mu - lambda).
pub fn erlang_c_response(rate: f64, mean_service: f64, servers: usize) -> f64 {
    let a = rate * mean_service; // offered load in erlangs
    // Erlang B by its stable recursion, then C from B.
    let mut b = 1.0;
    for k in 1..=servers {
        b = a * b / (k as f64 + a * b);
    }
    let c = servers as f64;
    let erlang_c = c * b / (c - a * (1.0 - b));
    mean_service + erlang_c * mean_service / (c - a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erlang_c_reduces_to_mm1() {
        // M/M/1: W = 1 / (mu - lambda) = 1 / (1 - 0.5).
        assert!((erlang_c_response(0.5, 1.0, 1) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn erlang_c_matches_a_hand_computed_mm3() {
        // a = 2.7: B(3) = 0.308793..., C = 3B / (3 - a(1 - B)) = 0.817055..., W = 1 + C / 0.3.
        assert!((erlang_c_response(2.7, 1.0, 3) - 3.723536737).abs() < 1e-8);
    }

    #[test]
    fn the_minimal_loop_agrees_with_erlang_c_at_light_load() {
        // Light load mixes fast, so a short run is already within 2 %.
        let (rate, servers) = (1.5, SERVERS);
        let w = run(rate, 1.0, 7, 10_000, 400_000);
        assert!((w / erlang_c_response(rate, 1.0, servers) - 1.0).abs() < 0.02, "{w}");
    }
}
