//! The future-event list: a binary heap ordered by time.
//!
//! Each entry is one `u128`: the time's bits above the packed event. Times are
//! never negative, so their IEEE bits sort like the numbers; simultaneous events
//! then pop in the order of their packed form, which depends only on the model
//! and seed, so runs stay reproducible. Sixteen-byte keys compared as integers
//! keep the heap, the engine's hottest structure, small and fast.

use std::cmp::Reverse;
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

/// Bits for `SharingEnd`'s version: it only has to differ from recent ones.
pub const VERSION_BITS: u32 = 29;
pub const VERSION_MASK: u32 = (1 << VERSION_BITS) - 1;

impl Event {
    /// Kind in bits 61..64, second field in 32..61, first in 0..32.
    fn pack(self) -> u64 {
        let (kind, a, b) = match self {
            Event::WarmupEnd => (0, 0, 0),
            Event::Arrival { class } => (1, class, 0),
            Event::ServiceEnd { job } => (2, job, 0),
            Event::ThinkEnd { job } => (3, job, 0),
            Event::SharingEnd { station, version } => (4, station, version & VERSION_MASK),
            Event::HorizonEnd => (5, 0, 0),
        };
        (kind << 61) | (u64::from(b) << 32) | u64::from(a)
    }

    fn unpack(bits: u64) -> Event {
        let a = bits as u32;
        let b = (bits >> 32) as u32 & VERSION_MASK;
        match bits >> 61 {
            0 => Event::WarmupEnd,
            1 => Event::Arrival { class: a },
            2 => Event::ServiceEnd { job: a },
            3 => Event::ThinkEnd { job: a },
            4 => Event::SharingEnd { station: a, version: b },
            _ => Event::HorizonEnd,
        }
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<u128>>,
}

impl EventQueue {
    #[inline]
    pub fn schedule(&mut self, time: f64, event: Event) {
        debug_assert!(time >= 0.0, "event times are never negative");
        self.heap.push(Reverse((u128::from(time.to_bits()) << 64) | u128::from(event.pack())));
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(f64, Event)> {
        self.heap.pop().map(|Reverse(key)| (f64::from_bits((key >> 64) as u64), Event::unpack(key as u64)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::default();
        q.schedule(2.0, Event::HorizonEnd);
        q.schedule(1.0, Event::Arrival { class: 1 });
        q.schedule(0.0, Event::ThinkEnd { job: 9 });
        q.schedule(1.5, Event::SharingEnd { station: 3, version: 77 });
        q.schedule(0.5, Event::WarmupEnd);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (0.0, Event::ThinkEnd { job: 9 }),
                (0.5, Event::WarmupEnd),
                (1.0, Event::Arrival { class: 1 }),
                (1.5, Event::SharingEnd { station: 3, version: 77 }),
                (2.0, Event::HorizonEnd)
            ]
        );
    }

    #[test]
    fn simultaneous_events_pop_in_a_fixed_order() {
        let mut q = EventQueue::default();
        for job in [5, 1, 3] {
            q.schedule(1.0, Event::ServiceEnd { job });
        }
        q.schedule(1.0, Event::WarmupEnd);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::WarmupEnd,
                Event::ServiceEnd { job: 1 },
                Event::ServiceEnd { job: 3 },
                Event::ServiceEnd { job: 5 }
            ]
        );
    }
}
