//! The jobs waiting at a station, in the order its discipline serves them.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use crate::model::Discipline;

#[derive(Debug)]
pub enum WaitQueue {
    /// First come, first served (also processor sharing, whose jobs wait only
    /// for resource tokens).
    Fifo(VecDeque<u32>),
    Lifo(Vec<u32>),
    /// Smallest key first, ties first come first served: `priority` (key is the
    /// negated class priority) and `sjf` (key is the sampled service time).
    Keyed(BinaryHeap<Keyed>),
}

#[derive(Debug, Clone, Copy)]
pub struct Keyed {
    key: f64,
    seq: u64,
    job: u32,
}

impl PartialEq for Keyed {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Keyed {}
impl PartialOrd for Keyed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Keyed {
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.total_cmp(&self.key).then(other.seq.cmp(&self.seq))
    }
}

impl WaitQueue {
    pub fn new(discipline: Discipline) -> Self {
        match discipline {
            Discipline::Fifo | Discipline::Ps => WaitQueue::Fifo(VecDeque::new()),
            Discipline::Lifo => WaitQueue::Lifo(Vec::new()),
            Discipline::Priority | Discipline::Sjf => WaitQueue::Keyed(BinaryHeap::new()),
        }
    }

    /// `key` orders keyed queues (smaller first); `seq` is the job's arrival order.
    #[inline]
    pub fn push(&mut self, job: u32, key: f64, seq: u64) {
        match self {
            WaitQueue::Fifo(q) => q.push_back(job),
            WaitQueue::Lifo(q) => q.push(job),
            WaitQueue::Keyed(q) => q.push(Keyed { key, seq, job }),
        }
    }

    #[inline]
    pub fn head(&self) -> Option<u32> {
        match self {
            WaitQueue::Fifo(q) => q.front().copied(),
            WaitQueue::Lifo(q) => q.last().copied(),
            WaitQueue::Keyed(q) => q.peek().map(|k| k.job),
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        match self {
            WaitQueue::Fifo(q) => q.pop_front(),
            WaitQueue::Lifo(q) => q.pop(),
            WaitQueue::Keyed(q) => q.pop().map(|k| k.job),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match self {
            WaitQueue::Fifo(q) => q.len(),
            WaitQueue::Lifo(q) => q.len(),
            WaitQueue::Keyed(q) => q.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(mut q: WaitQueue, jobs: &[(u32, f64)]) -> Vec<u32> {
        for (seq, &(job, key)) in jobs.iter().enumerate() {
            q.push(job, key, seq as u64);
        }
        std::iter::from_fn(|| q.pop()).collect()
    }

    #[test]
    fn each_discipline_serves_in_its_order() {
        let jobs = [(10, 3.0), (11, 1.0), (12, 2.0), (13, 1.0)];
        assert_eq!(drain(WaitQueue::new(Discipline::Fifo), &jobs), vec![10, 11, 12, 13]);
        assert_eq!(drain(WaitQueue::new(Discipline::Lifo), &jobs), vec![13, 12, 11, 10]);
        // Smallest key first; equal keys in arrival order.
        assert_eq!(drain(WaitQueue::new(Discipline::Sjf), &jobs), vec![11, 13, 12, 10]);
    }
}
