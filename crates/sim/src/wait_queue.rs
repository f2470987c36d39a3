//! The jobs waiting at a station, in the order its discipline serves them.
//!
//! Besides the head, a queue can be walked in service order (to find the
//! first job a free server can take) and a job removed from anywhere in it
//! (a customer who gives up waiting), by the [`Ticket`] its push returned.
//!
//! Invariants, checked by the tests below:
//! - jobs arrive with strictly increasing `seq` (the station's arrival order);
//! - `pop` returns the first job of `iter`, and popping until empty returns
//!   `iter`'s order: fifo by `seq`, lifo by `seq` reversed, keyed by the
//!   smallest `key`, equal keys first come first served (by `seq`);
//! - `remove` takes out exactly the ticket's job, if it still waits, and
//!   leaves the order of the others unchanged.
//!
//! Each discipline keeps the structure that is fastest for it (a deque, a
//! stack, an ordered set), so a search costs nothing to disciplines that never
//! search; fifo and lifo find a ticket by binary search on `seq`.

use std::cmp::Ordering;
use std::collections::{btree_set, vec_deque, BTreeSet, VecDeque};
use std::iter::Rev;
use std::slice;

use crate::model::Discipline;

#[derive(Debug)]
#[repr(u8)]
pub enum WaitQueue {
    /// First come, first served (also processor sharing, whose jobs wait only
    /// for resource tokens).
    Fifo(VecDeque<Entry>),
    /// Last come, first served: the head is the last entry.
    Lifo(Vec<Entry>),
    /// Smallest key first, ties first come first served: `priority` (key is the
    /// negated class priority) and `sjf` (key is the sampled service time).
    Keyed(BTreeSet<Keyed>),
}

#[derive(Debug, Clone, Copy)]
pub struct Entry {
    seq: u64,
    job: u32,
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
        self.key.total_cmp(&other.key).then(self.seq.cmp(&other.seq))
    }
}

/// Names a job's place in the queue, to remove it later: the `key` and `seq`
/// it was pushed with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ticket {
    pub key: f64,
    pub seq: u64,
}

impl WaitQueue {
    pub fn new(discipline: Discipline) -> Self {
        match discipline {
            Discipline::Fifo | Discipline::Ps => WaitQueue::Fifo(VecDeque::new()),
            Discipline::Lifo => WaitQueue::Lifo(Vec::new()),
            Discipline::Priority | Discipline::Sjf => WaitQueue::Keyed(BTreeSet::new()),
        }
    }

    /// `key` orders keyed queues (smaller first); `seq` is the job's arrival
    /// order, larger than any before it.
    #[inline(always)]
    pub fn push(&mut self, job: u32, key: f64, seq: u64) -> Ticket {
        match self {
            WaitQueue::Fifo(q) => {
                debug_assert!(q.back().is_none_or(|last| last.seq < seq), "seq increases");
                q.push_back(Entry { seq, job })
            }
            WaitQueue::Lifo(q) => {
                debug_assert!(q.last().is_none_or(|last| last.seq < seq), "seq increases");
                q.push(Entry { seq, job })
            }
            WaitQueue::Keyed(q) => {
                q.insert(Keyed { key, seq, job });
            }
        }
        Ticket { key, seq }
    }

    /// A job that waited here before (handed back by a server going off
    /// shift) waits again at its place by arrival `seq` (and `key`), ahead of
    /// those who came after it.
    pub fn push_in_line(&mut self, job: u32, key: f64, seq: u64) {
        match self {
            WaitQueue::Fifo(q) => q.insert(q.partition_point(|e| e.seq < seq), Entry { seq, job }),
            WaitQueue::Lifo(q) => q.insert(q.partition_point(|e| e.seq < seq), Entry { seq, job }),
            WaitQueue::Keyed(q) => {
                q.insert(Keyed { key, seq, job });
            }
        }
    }

    #[inline]
    pub fn head(&self) -> Option<u32> {
        match self {
            WaitQueue::Fifo(q) => q.front().map(|e| e.job),
            WaitQueue::Lifo(q) => q.last().map(|e| e.job),
            WaitQueue::Keyed(q) => q.first().map(|k| k.job),
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        match self {
            WaitQueue::Fifo(q) => q.pop_front().map(|e| e.job),
            WaitQueue::Lifo(q) => q.pop().map(|e| e.job),
            WaitQueue::Keyed(q) => q.pop_first().map(|k| k.job),
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

    /// The waiting jobs in the order they would be served.
    pub fn iter(&self) -> Iter<'_> {
        match self {
            WaitQueue::Fifo(q) => Iter::Fifo(q.iter()),
            WaitQueue::Lifo(q) => Iter::Lifo(q.iter().rev()),
            WaitQueue::Keyed(q) => Iter::Keyed(q.iter()),
        }
    }

    /// Takes the ticket's job out of the queue; `None` if it no longer waits.
    pub fn remove(&mut self, ticket: Ticket) -> Option<u32> {
        match self {
            WaitQueue::Fifo(q) => {
                let i = q.binary_search_by_key(&ticket.seq, |e| e.seq).ok()?;
                q.remove(i).map(|e| e.job)
            }
            WaitQueue::Lifo(q) => {
                let i = q.binary_search_by_key(&ticket.seq, |e| e.seq).ok()?;
                Some(q.remove(i).job)
            }
            WaitQueue::Keyed(q) => {
                // The job is not part of the order, so any job finds the entry.
                q.take(&Keyed { key: ticket.key, seq: ticket.seq, job: 0 }).map(|k| k.job)
            }
        }
    }
}

/// Jobs in service order (`WaitQueue::iter`).
pub enum Iter<'a> {
    Fifo(vec_deque::Iter<'a, Entry>),
    Lifo(Rev<slice::Iter<'a, Entry>>),
    Keyed(btree_set::Iter<'a, Keyed>),
}

impl Iterator for Iter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Iter::Fifo(it) => it.next().map(|e| e.job),
            Iter::Lifo(it) => it.next().map(|e| e.job),
            Iter::Keyed(it) => it.next().map(|k| k.job),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DISCIPLINES: [Discipline; 5] =
        [Discipline::Fifo, Discipline::Lifo, Discipline::Priority, Discipline::Sjf, Discipline::Ps];

    fn drain(mut q: WaitQueue, jobs: &[(u32, f64)]) -> Vec<u32> {
        for (seq, &(job, key)) in jobs.iter().enumerate() {
            q.push(job, key, seq as u64);
        }
        let walked: Vec<u32> = q.iter().collect();
        let popped: Vec<u32> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(walked, popped, "iter walks the pop order");
        popped
    }

    #[test]
    fn each_discipline_serves_in_its_order() {
        let jobs = [(10, 3.0), (11, 1.0), (12, 2.0), (13, 1.0)];
        assert_eq!(drain(WaitQueue::new(Discipline::Fifo), &jobs), vec![10, 11, 12, 13]);
        assert_eq!(drain(WaitQueue::new(Discipline::Lifo), &jobs), vec![13, 12, 11, 10]);
        // Smallest key first; equal keys in arrival order.
        assert_eq!(drain(WaitQueue::new(Discipline::Sjf), &jobs), vec![11, 13, 12, 10]);
    }

    #[test]
    fn a_job_leaves_from_the_middle_and_the_rest_keep_their_order() {
        let jobs = [(10, 3.0), (11, 1.0), (12, 2.0), (13, 1.0)];
        for (discipline, expected) in [
            (Discipline::Fifo, vec![10, 11, 13]),
            (Discipline::Lifo, vec![13, 11, 10]),
            (Discipline::Priority, vec![11, 13, 10]),
        ] {
            let mut q = WaitQueue::new(discipline);
            let tickets: Vec<Ticket> =
                jobs.iter().enumerate().map(|(seq, &(job, key))| q.push(job, key, seq as u64)).collect();
            assert_eq!(q.remove(tickets[2]), Some(12), "{discipline:?}");
            assert_eq!(q.remove(tickets[2]), None, "{discipline:?}: removed once only");
            assert_eq!(q.len(), 3);
            assert_eq!(q.iter().collect::<Vec<_>>(), expected, "{discipline:?}");
            assert_eq!(q.pop(), Some(expected[0]));
            assert_eq!(q.remove(tickets[jobs.iter().position(|j| j.0 == expected[0]).unwrap()]), None,
                       "{discipline:?}: a served job no longer waits");
        }
    }

    /// Random pushes, pops and removals against a plain list sorted by the
    /// discipline's order: same jobs out, in the same order, every step.
    #[test]
    fn matches_a_sorted_list_under_random_operations() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for discipline in DISCIPLINES {
            let mut q = WaitQueue::new(discipline);
            // (order key, seq, job, ticket), kept sorted in service order.
            let mut reference: Vec<(f64, i64, u32, Ticket)> = Vec::new();
            for seq in 0..2000_u64 {
                match next(4) {
                    0 | 1 => {
                        let key = next(5) as f64;
                        let ticket = q.push(seq as u32, key, seq);
                        let order = match discipline {
                            Discipline::Priority | Discipline::Sjf => (key, seq as i64),
                            Discipline::Lifo => (0.0, -(seq as i64)),
                            _ => (0.0, seq as i64),
                        };
                        reference.push((order.0, order.1, seq as u32, ticket));
                        reference.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    }
                    2 => {
                        let expected = (!reference.is_empty()).then(|| reference.remove(0).2);
                        assert_eq!(q.pop(), expected, "{discipline:?}");
                    }
                    _ if !reference.is_empty() => {
                        let (_, _, job, ticket) = reference.remove(next(reference.len() as u64) as usize);
                        assert_eq!(q.remove(ticket), Some(job), "{discipline:?}");
                    }
                    _ => {}
                }
                assert_eq!(q.len(), reference.len());
                assert_eq!(q.head(), reference.first().map(|r| r.2));
            }
            assert!(q.iter().eq(reference.iter().map(|r| r.2)), "{discipline:?}");
        }
    }
}
