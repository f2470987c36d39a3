//! Resource tokens (CPUs, connections): a step may hold some of each while
//! its job is served. Tokens are counted here; who gets freed tokens next is
//! the simulation's choice (the oldest startable job, across stations).

use crate::model::Resource;
use crate::stats::{ResourceStats, TimeAverage};

#[derive(Debug)]
struct Pool {
    tokens: u32,
    free: u32,
    in_use: TimeAverage,
}

impl Pool {
    fn in_use(&self) -> f64 {
        (self.tokens - self.free) as f64
    }
}

#[derive(Debug)]
pub struct Resources {
    pools: Vec<Pool>,
}

impl Resources {
    pub fn new(resources: &[Resource]) -> Self {
        Resources {
            pools: resources.iter().map(|r| Pool { tokens: r.tokens, free: r.tokens, in_use: TimeAverage::default() }).collect(),
        }
    }

    /// Whether a token of each of `uses` is free.
    #[inline]
    pub fn all_free(&self, uses: &[u32]) -> bool {
        uses.iter().all(|&r| self.pools[r as usize].free > 0)
    }

    /// Takes a token of each of `uses`; all must be free.
    #[inline]
    pub fn take(&mut self, uses: &[u32], now: f64) {
        for &r in uses {
            let pool = &mut self.pools[r as usize];
            pool.free -= 1;
            pool.in_use.change(1.0, now);
        }
    }

    /// Gives back a token of each of `uses`.
    #[inline]
    pub fn give_back(&mut self, uses: &[u32], now: f64) {
        for &r in uses {
            let pool = &mut self.pools[r as usize];
            pool.free += 1;
            pool.in_use.change(-1.0, now);
        }
    }

    pub fn restart_stats(&mut self, now: f64) {
        for pool in &mut self.pools {
            pool.in_use.restart(pool.in_use(), now);
        }
    }

    pub fn stats(&self, now: f64) -> Vec<ResourceStats> {
        self.pools.iter().map(|pool| ResourceStats { in_use_area: pool.in_use.area(pool.in_use(), now) }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_in_use_are_averaged_over_time() {
        let mut resources = Resources::new(&[Resource { name: "cpu".into(), tokens: 2 }]);
        resources.take(&[0, 0], 1.0);
        assert!(!resources.all_free(&[0]));
        resources.give_back(&[0], 3.0);
        assert!(resources.all_free(&[0]));
        // 2 tokens over [1, 3], then 1 over [3, 4].
        assert_eq!(resources.stats(4.0)[0].in_use_area, 5.0);
        resources.restart_stats(4.0);
        assert_eq!(resources.stats(6.0)[0].in_use_area, 2.0);
    }
}
