//! The states found so far, each once, in the order found, by their encoding
//! (state.rs): the walk's index from a state to its number.

use std::hash::Hasher;

/// FxHash (rustc's): a multiply and rotate per word, several times quicker than the
/// default SipHash on states of small integers; finished by MurmurHash3's mix, as its
/// words leave the low bits (the table's buckets) poorly mixed.
#[derive(Default)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_i32(&mut self, word: i32) {
        self.write_u64(word as u32 as u64);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// The states' codes one after another in one list (a state is not an allocation of
/// its own: a million small ones left glibc's malloc spending most of the walk
/// searching its free lists), found by an open-addressed table of their numbers.
pub struct Store {
    codes: Vec<i32>,
    /// (states + 1) where each state's code begins, and where the last ends.
    bounds: Vec<u64>,
    /// Per state, its hash (to grow the table without hashing again).
    hashes: Vec<u64>,
    /// The table: a state's number, or EMPTY; probed linearly from its hash, at most half full.
    slots: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

fn hash_of(code: &[i32]) -> u64 {
    let mut hasher = FxHasher::default();
    for &word in code {
        hasher.write_i32(word);
    }
    hasher.finish()
}

impl Default for Store {
    fn default() -> Store {
        Store { codes: Vec::new(), bounds: vec![0], hashes: Vec::new(), slots: vec![EMPTY; 1024] }
    }
}

impl Store {
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn get(&self, i: usize) -> &[i32] {
        &self.codes[self.bounds[i] as usize..self.bounds[i + 1] as usize]
    }

    /// The number of the state encoded as `code`, added last if new (None when
    /// new and `room` is false).
    pub fn find(&mut self, code: &[i32], room: bool) -> Option<usize> {
        let hash = hash_of(code);
        let mask = self.slots.len() - 1;
        let mut slot = hash as usize & mask;
        loop {
            match self.slots[slot] {
                EMPTY => break,
                i if self.hashes[i as usize] == hash && self.get(i as usize) == code => return Some(i as usize),
                _ => slot = (slot + 1) & mask,
            }
        }
        if !room {
            return None;
        }
        let i = self.len();
        self.slots[slot] = i as u32;
        self.hashes.push(hash);
        self.codes.extend_from_slice(code);
        self.bounds.push(self.codes.len() as u64);
        if 2 * self.len() > self.slots.len() {
            self.grow();
        }
        Some(i)
    }

    fn grow(&mut self) {
        let mut slots = vec![EMPTY; 2 * self.slots.len()];
        let mask = slots.len() - 1;
        for (i, &hash) in self.hashes.iter().enumerate() {
            let mut slot = hash as usize & mask;
            while slots[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
            slots[slot] = i as u32;
        }
        self.slots = slots;
    }

    /// The states in order, as one list of integers and where each begins (and the
    /// end of the last): the table is dropped.
    pub fn into_flat(self) -> (Vec<i32>, Vec<u64>) {
        (self.codes, self.bounds)
    }
}
