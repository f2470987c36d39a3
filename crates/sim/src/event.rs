//! The future-event list: a binary heap ordered by time.
//!
//! Each entry is one `u128`: the time's bits above the packed event. Times are
//! never negative, so their IEEE bits sort like the numbers; simultaneous events
//! then pop in the order of their packed form, which depends only on the model
//! and seed, so runs stay reproducible. Sixteen-byte keys compared as integers
//! keep the heap, the engine's hottest structure, small and fast.
//!
//! The packed form fixes the order of simultaneous events, which results
//! depend on (constant service times make ties common): kind first, then the
//! job, class or station. A job's generation sits below its id, so it never
//! reorders the events of live jobs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::job::{JobRef, GENERATION_BITS, GENERATION_MASK};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Event {
    /// The next open arrival of a class.
    Arrival { class: u32 },
    /// A job's service at a non-sharing station ends.
    ServiceEnd { job: JobRef },
    /// A closed customer's think time ends.
    ThinkEnd { job: JobRef },
    /// The next departure from a processor-sharing station; stale unless
    /// `version` still matches the station's.
    SharingEnd { station: u32, version: u32 },
    /// Warm-up by time is over: statistics start.
    WarmupEnd,
    /// The horizon is reached: the replication ends.
    HorizonEnd,
    /// A waiting job's patience runs out; stale once its service started
    /// (the job's generation moved on).
    Patience { job: JobRef },
    /// The day's next tick (day.rs): a rota change or the end of a reporting interval.
    Tick,
}

/// Bits for `SharingEnd`'s version: it only has to differ from recent ones.
pub const VERSION_BITS: u32 = 29;
pub const VERSION_MASK: u32 = (1 << VERSION_BITS) - 1;

impl Event {
    /// Kind in bits 61..64. Job events: the job's id in 29..61, its
    /// generation in 0..29. Others: second field in 32..61, first in 0..32.
    fn pack(self) -> u64 {
        let job = |kind: u64, job: JobRef| {
            (kind << 61) | (u64::from(job.id) << GENERATION_BITS) | u64::from(job.generation & GENERATION_MASK)
        };
        let (kind, a, b) = match self {
            Event::WarmupEnd => (0, 0, 0),
            Event::Arrival { class } => (1, class, 0),
            Event::ServiceEnd { job: j } => return job(2, j),
            Event::ThinkEnd { job: j } => return job(3, j),
            Event::SharingEnd { station, version } => (4, station, version & VERSION_MASK),
            Event::HorizonEnd => (5, 0, 0),
            Event::Patience { job: j } => return job(6, j),
            Event::Tick => (7, 0, 0),
        };
        (kind << 61) | (u64::from(b) << 32) | u64::from(a)
    }

    fn unpack(bits: u64) -> Event {
        let a = bits as u32;
        let b = (bits >> 32) as u32 & VERSION_MASK;
        let job = JobRef { id: (bits >> GENERATION_BITS) as u32, generation: bits as u32 & GENERATION_MASK };
        match bits >> 61 {
            0 => Event::WarmupEnd,
            1 => Event::Arrival { class: a },
            2 => Event::ServiceEnd { job },
            3 => Event::ThinkEnd { job },
            4 => Event::SharingEnd { station: a, version: b },
            5 => Event::HorizonEnd,
            6 => Event::Patience { job },
            _ => Event::Tick,
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
        q.schedule(0.0, Event::ThinkEnd { job: JobRef { id: 9, generation: 4 } });
        q.schedule(1.5, Event::SharingEnd { station: 3, version: 77 });
        q.schedule(0.5, Event::WarmupEnd);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (0.0, Event::ThinkEnd { job: JobRef { id: 9, generation: 4 } }),
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
        let job = |id, generation| JobRef { id, generation };
        // Jobs by id whatever their generation: the generation only breaks
        // ties between a job's own timers.
        for (id, generation) in [(5, 0), (1, GENERATION_MASK), (3, 7), (u32::MAX, 2)] {
            q.schedule(1.0, Event::ServiceEnd { job: job(id, generation) });
        }
        q.schedule(1.0, Event::WarmupEnd);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::WarmupEnd,
                Event::ServiceEnd { job: job(1, GENERATION_MASK) },
                Event::ServiceEnd { job: job(3, 7) },
                Event::ServiceEnd { job: job(5, 0) },
                Event::ServiceEnd { job: job(u32::MAX, 2) }
            ]
        );
    }
}
