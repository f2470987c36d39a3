//! The run cut into equal slots of intended start time, for confidence
//! intervals by batch means (python/brewput/measured.py groups the slots into
//! batches and judges their correlation). Each slot keeps exact sums for the
//! means and a two-digit histogram of its response times, from which a batch's
//! own percentiles are read for theirs.
//!
//! The run's length is not known in advance (a `--requests` count, Ctrl-C),
//! so the slots adapt: they start 1 ms wide, and when a request falls beyond
//! the last of `MOST_SLOTS`, neighbours merge pairwise and the width doubles.
//! Memory stays fixed and a finished run of any length holds between half and
//! all of `MOST_SLOTS` slots, each an exact sum, aligned on the schedule's
//! clock (slot k covers [k w, (k + 1) w) seconds after the start).

use hdrhistogram::Histogram;
use serde::{Serialize, Serializer};

/// A power of two, so that merging pairs keeps the slots aligned.
pub const MOST_SLOTS: usize = 128;
const FIRST_WIDTH_NS: u64 = 1_000_000;
/// Two significant digits (1 % apart) are plenty for the spread of batch
/// percentiles, and keep 128 slots near 2 MB.
const SLOT_DIGITS: u8 = 2;
const HIGHEST_NS: u64 = 3_600_000_000_000;

#[derive(Debug, Clone, Serialize)]
pub struct Slot {
    /// Answers whose intended start fell in the slot.
    pub answered: u64,
    /// Sums of their response and service times, in seconds.
    pub response_sum: f64,
    pub service_sum: f64,
    /// Their response times as [seconds, count] pairs, one per recorded bucket
    /// (its highest equivalent value), ascending.
    #[serde(serialize_with = "buckets")]
    pub response: Histogram<u32>,
}

impl Default for Slot {
    fn default() -> Slot {
        let response = Histogram::new_with_bounds(1, HIGHEST_NS, SLOT_DIGITS).expect("constant bounds are valid");
        Slot { answered: 0, response_sum: 0.0, service_sum: 0.0, response }
    }
}

impl Slot {
    fn add(&mut self, other: &Slot) {
        self.answered += other.answered;
        self.response_sum += other.response_sum;
        self.service_sum += other.service_sum;
        self.response.add(&other.response).expect("the same bounds");
    }
}

fn buckets<S: Serializer>(h: &Histogram<u32>, serializer: S) -> Result<S::Ok, S::Error> {
    let pairs: Vec<(f64, u64)> = h
        .iter_recorded()
        .map(|v| (h.highest_equivalent(v.value_iterated_to()) as f64 * 1e-9, v.count_at_value() as u64))
        .collect();
    pairs.serialize(serializer)
}

pub struct Slots {
    width_ns: u64,
    slots: Vec<Slot>,
}

impl Default for Slots {
    fn default() -> Slots {
        Slots { width_ns: FIRST_WIDTH_NS, slots: (0..MOST_SLOTS).map(|_| Slot::default()).collect() }
    }
}

impl Slots {
    /// An answer intended `intended_ns` after the start, with its times in ns.
    pub fn answered(&mut self, intended_ns: u64, response_ns: u64, service_ns: u64) {
        while intended_ns / self.width_ns >= MOST_SLOTS as u64 && self.width_ns <= u64::MAX / 2 {
            self.merge_pairs();
        }
        let slot = &mut self.slots[((intended_ns / self.width_ns) as usize).min(MOST_SLOTS - 1)];
        slot.answered += 1;
        slot.response_sum += response_ns as f64 * 1e-9;
        slot.service_sum += service_ns as f64 * 1e-9;
        slot.response.saturating_record(response_ns.max(1));
    }

    fn merge_pairs(&mut self) {
        for k in 0..MOST_SLOTS / 2 {
            let second = std::mem::take(&mut self.slots[2 * k + 1]);
            let mut both = std::mem::take(&mut self.slots[2 * k]);
            both.add(&second);
            self.slots[k] = both;
        }
        for slot in &mut self.slots[MOST_SLOTS / 2..] {
            *slot = Slot::default();
        }
        self.width_ns *= 2;
    }

    /// The width and the slots up to the last with an answer.
    pub fn summary(&self) -> SlotsSummary {
        let used = self.slots.iter().rposition(|s| s.answered > 0).map_or(0, |k| k + 1);
        SlotsSummary { width_seconds: self.width_ns as f64 * 1e-9, slots: self.slots[..used].to_vec() }
    }
}

#[derive(Debug, Serialize)]
pub struct SlotsSummary {
    pub width_seconds: f64,
    pub slots: Vec<Slot>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn slots_widen_by_merging_pairs_and_keep_every_sum() {
        let mut s = Slots::default();
        // One answer every 10 ms for 10 s, each taking (k mod 7) ms.
        for k in 0..1000u64 {
            s.answered(k * 10 * MS, (k % 7) * MS, MS);
        }
        let summary = s.summary();
        // 10 s over at most 128 slots from 1 ms: 128 ms is the first power-of-two width that fits.
        assert_eq!(summary.width_seconds, 0.128);
        assert_eq!(summary.slots.len(), 79); // 9.99 s / 0.128 s, the last slot partly filled
        assert_eq!(summary.slots.iter().map(|s| s.answered).sum::<u64>(), 1000);
        let total: f64 = summary.slots.iter().map(|s| s.response_sum).sum();
        let want = (0..1000u64).map(|k| (k % 7) as f64 * 1e-3).sum::<f64>();
        assert!((total - want).abs() < 1e-9, "{total} {want}");
        // Slot 1 covers 128..256 ms: the answers intended at 130, 140 ... 250 ms.
        assert_eq!(summary.slots[1].answered, 13);
        let slot1: f64 = (13..26u64).map(|k| (k % 7) as f64 * 1e-3).sum();
        assert!((summary.slots[1].response_sum - slot1).abs() < 1e-12);
        assert!((summary.slots[1].service_sum - 0.013).abs() < 1e-12);
        // Its histogram holds the same 13 answers: 0..6 ms, each within the two digits' 1 %.
        let h = &summary.slots[1].response;
        assert_eq!(h.len(), 13);
        assert!((h.value_at_quantile(1.0) as f64 - 6e6).abs() <= 6e6 * 0.01, "{}", h.value_at_quantile(1.0));
        let pairs = serde_json::to_value(&summary.slots[1]).unwrap()["response"].clone();
        let counted: u64 = pairs.as_array().unwrap().iter().map(|p| p[1].as_u64().unwrap()).sum();
        assert_eq!(counted, 13);
    }

    #[test]
    fn no_answer_is_no_slot() {
        assert!(Slots::default().summary().slots.is_empty());
    }
}
