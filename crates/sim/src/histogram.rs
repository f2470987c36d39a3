//! A histogram of non-negative times on a log-linear scale that spans every
//! double: the same shape as an HdrHistogram of three significant digits (1024
//! equal sub-buckets per power of two), but indexed by the bits of the `f64`
//! itself, so it has no unit, no smallest tick and no largest value. A time of
//! 1e-20 and one of 1e+20 are both kept to a relative 2^-10 (0.098 %).
//!
//! The bits of a non-negative double, read as an integer, grow with the value:
//! the exponent field picks the power of two (an "octave"), the top ten bits of
//! the mantissa the sub-bucket within it. Buckets are stored in chunks of 32,
//! made when a value first falls in them: the body of a distribution fills
//! whole octaves, its far ends (a few values in each of many octaves) only a
//! chunk here and there.

const SUB_BITS: u32 = 10;
const MANTISSA_BITS: u32 = 52;
/// Equal sub-buckets per power of two.
pub const SUB_BUCKETS: usize = 1 << SUB_BITS;
const CHUNK_BITS: u32 = 5;
const CHUNK: usize = 1 << CHUNK_BITS;

/// The most a bucket's lowest value can lie below any value in the bucket,
/// relative to that value: 2^-10. Subnormal times (below 2.2e-308) share the
/// lowest octave and are not resolved.
pub const RELATIVE_RESOLUTION: f64 = 1.0 / SUB_BUCKETS as f64;

#[derive(Debug, Clone, PartialEq)]
pub struct LogHistogram {
    /// Zeros apart: a time of 0 (no wait) is common, and as an octave of its
    /// own it would stretch the stored range over a thousand empty octaves.
    zeros: u64,
    /// The chunk number (bucket key / 32) of `chunks[0]`; only the chunks in
    /// which a value fell have their counts.
    first_chunk: usize,
    chunks: Vec<Option<Box<[u64; CHUNK]>>>,
    total: u64,
    /// Infinite while empty, so that the first value recorded is the smallest.
    min: f64,
    max: f64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram { zeros: 0, first_chunk: 0, chunks: Vec::new(), total: 0, min: f64::INFINITY, max: 0.0 }
    }
}

/// One non-empty bucket: the values in [`low`, `high`) were recorded `count` times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    pub low: f64,
    pub high: f64,
    pub count: u64,
}

impl LogHistogram {
    #[inline]
    pub fn record(&mut self, t: f64) {
        self.total += 1;
        if !(t > 0.0) {
            // Zero, and anything that is not a positive number, counts as zero.
            self.zeros += 1;
            self.min = 0.0;
            return;
        }
        let key = (t.to_bits() >> (MANTISSA_BITS - SUB_BITS)) as usize;
        let (chunk, slot) = (key >> CHUNK_BITS, key & (CHUNK - 1));
        match self.chunks.get_mut(chunk.wrapping_sub(self.first_chunk)) {
            Some(Some(counts)) => counts[slot] += 1,
            _ => self.counts_of(chunk)[slot] += 1,
        }
        self.min = self.min.min(t);
        self.max = self.max.max(t);
    }

    /// The counts of `chunk`, made on its first value.
    #[cold]
    fn counts_of(&mut self, chunk: usize) -> &mut [u64; CHUNK] {
        if self.chunks.is_empty() {
            self.first_chunk = chunk;
        } else if chunk < self.first_chunk {
            let mut grown: Vec<_> = (chunk..self.first_chunk).map(|_| None).collect();
            grown.append(&mut self.chunks);
            self.chunks = grown;
            self.first_chunk = chunk;
        }
        let index = chunk - self.first_chunk;
        if index >= self.chunks.len() {
            self.chunks.resize(index + 1, None);
        }
        self.chunks[index].get_or_insert_with(|| Box::new([0; CHUNK]))
    }

    /// Forgets everything recorded (keeps the memory).
    pub fn reset(&mut self) {
        self.chunks.iter_mut().flatten().for_each(|counts| counts.fill(0));
        self.zeros = 0;
        self.total = 0;
        self.min = f64::INFINITY;
        self.max = 0.0;
    }

    /// Adds everything `other` recorded: exact, and the same in any order.
    pub fn merge(&mut self, other: &LogHistogram) {
        for (i, counts) in other.chunks.iter().enumerate() {
            let Some(counts) = counts else { continue };
            if counts.iter().any(|&n| n > 0) {
                let mine = self.counts_of(other.first_chunk + i);
                mine.iter_mut().zip(counts.iter()).for_each(|(a, b)| *a += b);
            }
        }
        self.zeros += other.zeros;
        self.total += other.total;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// The smallest value recorded (0 when empty).
    pub fn min(&self) -> f64 {
        if self.total == 0 { 0.0 } else { self.min }
    }

    pub fn max(&self) -> f64 {
        self.max
    }

    /// Powers of two the recorded positive values span.
    pub fn octaves(&self) -> usize {
        let octave = |chunk: usize| chunk >> (SUB_BITS - CHUNK_BITS);
        match self.chunks.len() {
            0 => 0,
            n => octave(self.first_chunk + n - 1) - octave(self.first_chunk) + 1,
        }
    }

    /// The non-empty buckets, ascending (zeros first), their bounds narrowed to
    /// the smallest and largest value recorded.
    pub fn buckets(&self) -> impl Iterator<Item = Bucket> + '_ {
        let zeros = (self.zeros > 0).then_some(Bucket { low: 0.0, high: 0.0, count: self.zeros });
        let positive = self.chunks.iter().enumerate().filter_map(|(i, counts)| Some((i, counts.as_ref()?)));
        zeros.into_iter().chain(positive.flat_map(move |(i, counts)| {
            let first_key = ((self.first_chunk + i) << CHUNK_BITS) as u64;
            counts.iter().enumerate().filter(|(_, &n)| n > 0).map(move |(slot, &count)| {
                let bound = |key: u64| f64::from_bits(key << (MANTISSA_BITS - SUB_BITS));
                let key = first_key + slot as u64;
                Bucket { low: bound(key).max(self.min), high: bound(key + 1).min(self.max), count }
            })
        }))
    }

    /// The values at `percents` (ascending, in percent), in one pass: for each,
    /// the lowest value of the bucket that holds the value of rank
    /// ceil(p/100 x total), so never above the value it stands for, never below
    /// the smallest value recorded, and at most `RELATIVE_RESOLUTION` low; the
    /// largest rank is the largest value, exactly.
    /// NaN when nothing was recorded.
    pub fn values_at<const N: usize>(&self, percents: &[f64; N]) -> [f64; N] {
        let mut values = [f64::NAN; N];
        self.write_values_at(percents, &mut values);
        values
    }

    /// [`values_at`](Self::values_at) for a list of `percents` (ascending) known
    /// only at run time: their values into `values`, one for each (left as they
    /// are when nothing was recorded).
    pub fn write_values_at(&self, percents: &[f64], values: &mut [f64]) {
        debug_assert_eq!(percents.len(), values.len(), "a value for each percent");
        if self.total == 0 {
            return;
        }
        let mut buckets = self.buckets();
        let mut current = buckets.next().expect("a histogram with a count has a bucket");
        let mut below_next = current.count;
        for (value, &percent) in values.iter_mut().zip(percents) {
            let rank = rank(percent, self.total);
            while below_next < rank {
                current = buckets.next().expect("ranks are at most the total");
                below_next += current.count;
            }
            *value = if rank == self.total { self.max } else { current.low };
        }
    }

    /// The share of the values recorded at or below `t`: every bucket wholly
    /// at or below `t`, and of the bucket that holds `t` the part below it,
    /// as if its values were spread evenly over its bounds (narrowed to the
    /// smallest and largest value recorded), so at most one bucket's share
    /// (`RELATIVE_RESOLUTION` of the value, relatively) from the truth; zeros
    /// count exactly. NaN when nothing was recorded.
    pub fn share_at_or_below(&self, t: f64) -> f64 {
        if self.total == 0 {
            return f64::NAN;
        }
        let mut below = 0.0;
        for bucket in self.buckets() {
            if bucket.high <= t {
                below += bucket.count as f64;
            } else if bucket.low <= t {
                below += bucket.count as f64 * (t - bucket.low) / (bucket.high - bucket.low);
            } else {
                break;
            }
        }
        below / self.total as f64
    }
}

/// The rank of the `percent` point among `total` values: ceil(p/100 x total),
/// at least 1. p/100 may round up (99.9 / 100 = 0.99900000000000001): stepping
/// back a relative 1e-12 lets a whole p/100 x total pick its own rank.
pub fn rank(percent: f64, total: u64) -> u64 {
    ((percent / 100.0 * (1.0 - 1e-12) * total as f64).ceil() as u64).clamp(1, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scale_keeps_three_digits() {
        for scale in [1e-300, 1e-20, 2.7e-8, 1e-3, 1.0, 3.7777, 1e6, 1e300] {
            let mut h = LogHistogram::default();
            for i in 1..=1000 {
                h.record(i as f64 * scale);
            }
            let got = h.values_at(&[1.0, 50.0, 99.0, 100.0]);
            for (got, want) in got.iter().zip([10.0, 500.0, 990.0, 1000.0]) {
                let want = want * scale;
                assert!(*got <= want && *got >= want * (1.0 - RELATIVE_RESOLUTION), "{got} vs {want}");
            }
            assert_eq!(h.min(), scale);
            assert_eq!(h.max(), 1000.0 * scale);
        }
    }

    #[test]
    fn a_constant_is_exact() {
        let mut h = LogHistogram::default();
        (0..7).for_each(|_| h.record(3.7777));
        assert_eq!(h.values_at(&[1.0, 50.0, 100.0]), [3.7777; 3]);
    }

    #[test]
    fn zero_is_zero() {
        let mut h = LogHistogram::default();
        (0..3).for_each(|_| h.record(0.0));
        h.record(2.0);
        assert_eq!(h.values_at(&[50.0, 75.0, 100.0]), [0.0, 0.0, 2.0]);
        assert_eq!(h.min(), 0.0);
    }

    #[test]
    fn octaves_are_added_below_and_above() {
        let mut h = LogHistogram::default();
        for t in [1.0, 1e-5, 1e5, 0.5] {
            h.record(t);
        }
        assert_eq!(h.values_at(&[25.0, 50.0, 75.0, 100.0]), [1e-5, 0.5, 1.0, 1e5]);
        assert_eq!(h.buckets().map(|b| b.count).collect::<Vec<_>>(), [1, 1, 1, 1]);
    }

    #[test]
    fn merging_is_recording_both() {
        let (mut a, mut b, mut both) = Default::default();
        for i in 0..5000 {
            let t = (i as f64 * 0.37).sin().abs() * 10f64.powi(i % 9 - 4);
            let one: &mut LogHistogram = if i % 3 == 0 { &mut a } else { &mut b };
            one.record(t);
            LogHistogram::record(&mut both, t);
        }
        let mut merged = LogHistogram::default();
        merged.merge(&b);
        merged.merge(&a);
        assert_eq!(merged.buckets().collect::<Vec<_>>(), both.buckets().collect::<Vec<_>>());
        assert_eq!((merged.total(), merged.min(), merged.max()), (both.total(), both.min(), both.max()));
    }

    #[test]
    fn zeros_stretch_nothing() {
        let mut h = LogHistogram::default();
        (0..5).for_each(|_| h.record(0.0));
        h.record(1e-300);
        h.record(1.0);
        assert_eq!(h.octaves(), 998, "1e-300 (2^-997 and a bit) to 1 spans 998 powers of two");
        assert_eq!(h.chunks.iter().flatten().count(), 2, "only two chunks hold values");
        let mut zeros_and_one = LogHistogram::default();
        (0..5).for_each(|_| zeros_and_one.record(0.0));
        zeros_and_one.record(1.0);
        assert_eq!(zeros_and_one.octaves(), 1);
        assert_eq!(zeros_and_one.values_at(&[50.0, 90.0]), [0.0, 1.0]);
    }

    #[test]
    fn shares_at_or_below_count_whole_buckets_and_spread_the_one_split() {
        let mut h = LogHistogram::default();
        (0..3).for_each(|_| h.record(0.0));
        (1..=1000).for_each(|i| h.record(i as f64));
        assert_eq!(h.share_at_or_below(0.0), 3.0 / 1003.0, "the zeros, exactly");
        assert_eq!(h.share_at_or_below(1000.0), 1.0);
        assert_eq!(h.share_at_or_below(5000.0), 1.0);
        // each integer below 1024 has a bucket of its own, so a share is the
        // integers below, and part of the one at or below t
        for t in [0.5f64, 17.25, 333.3, 500.0, 999.9] {
            let want = (3.0 + t.floor()) / 1003.0;
            let got = h.share_at_or_below(t);
            assert!((got - want).abs() <= 1.0 / 1003.0, "{t}: {got} vs {want}");
        }
        let mut constant = LogHistogram::default();
        (0..4).for_each(|_| constant.record(3.7777));
        assert_eq!((constant.share_at_or_below(3.7776), constant.share_at_or_below(3.7777)), (0.0, 1.0));
        assert!(LogHistogram::default().share_at_or_below(1.0).is_nan());
    }

    #[test]
    fn reset_forgets() {
        let mut h = LogHistogram::default();
        h.record(5.0);
        h.reset();
        h.record(2.0);
        assert_eq!((h.total(), h.min(), h.max()), (1, 2.0, 2.0));
    }
}
