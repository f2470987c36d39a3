//! Preemptive priority at a pool of servers: which job in service an arriving
//! job of higher priority displaces, and how much of its service it had.
//!
//! Kept beside the pool, only at stations with `preempt`: each job in service
//! with its priority key (smaller first, as in the wait queue), when its
//! current stint will end, and the order stints started in.

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stint {
    pub job: u32,
    pub key: f64,
    pub ends_at: f64,
    order: u64,
}

#[derive(Debug, Default)]
pub struct Stints {
    serving: Vec<Stint>,
    started: u64,
}

impl Stints {
    pub fn began(&mut self, job: u32, key: f64, ends_at: f64) {
        self.started += 1;
        self.serving.push(Stint { job, key, ends_at, order: self.started });
    }

    /// `job`'s service ended.
    pub fn ended(&mut self, job: u32) {
        if let Some(i) = self.serving.iter().position(|s| s.job == job) {
            self.serving.swap_remove(i);
        }
    }

    /// The stint a job of priority `key` displaces: the one of lowest
    /// priority, the most recently started among equals, if its priority is
    /// strictly lower; it is taken out.
    pub fn displace(&mut self, key: f64) -> Option<Stint> {
        let (i, victim) = self
            .serving
            .iter()
            .enumerate()
            .max_by(|(_, a), (_, b)| a.key.total_cmp(&b.key).then(a.order.cmp(&b.order)))?;
        (victim.key > key).then(|| self.serving.swap_remove(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_priority_latest_started_job_is_displaced_by_a_higher_one_only() {
        let mut stints = Stints::default();
        stints.began(1, -2.0, 5.0);
        stints.began(2, 0.0, 4.0);
        stints.began(3, 0.0, 6.0);
        assert_eq!(stints.displace(0.0), None, "equal priority does not preempt");
        let victim = stints.displace(-1.0).expect("a lower one serves");
        assert_eq!((victim.job, victim.ends_at), (3, 6.0));
        stints.ended(2);
        assert_eq!(stints.displace(-5.0).map(|s| s.job), Some(1));
        assert_eq!(stints.displace(-5.0), None, "nobody left in service");
    }
}
