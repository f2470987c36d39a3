//! The future-event list: a binary heap ordered by time, ties broken by the order
//! in which events were scheduled so that runs are reproducible.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The next open arrival of a class.
    Arrival { class: u32 },
    /// A job's service at a non-sharing station ends.
    ServiceEnd { job: u32 },
    /// A closed customer's think time ends.
    ThinkEnd { job: u32 },
    /// The next departure from a processor-sharing station; stale unless
    /// `version` still matches the station's.
    SharingEnd { station: u32, version: u32 },
    /// Warm-up by time is over: statistics start.
    WarmupEnd,
    /// The horizon is reached: the replication ends.
    HorizonEnd,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    time: f64,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so that std's max-heap pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.total_cmp(&self.time).then(other.seq.cmp(&self.seq))
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    scheduled: u64,
}

impl EventQueue {
    pub fn schedule(&mut self, time: f64, event: Event) {
        self.scheduled += 1;
        self.heap.push(Entry { time, seq: self.scheduled, event });
    }

    pub fn pop(&mut self) -> Option<(f64, Event)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_and_ties_in_schedule_order() {
        let mut q = EventQueue::default();
        q.schedule(2.0, Event::HorizonEnd);
        q.schedule(1.0, Event::Arrival { class: 1 });
        q.schedule(1.0, Event::Arrival { class: 2 });
        q.schedule(0.5, Event::WarmupEnd);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (0.5, Event::WarmupEnd),
                (1.0, Event::Arrival { class: 1 }),
                (1.0, Event::Arrival { class: 2 }),
                (2.0, Event::HorizonEnd)
            ]
        );
    }
}
