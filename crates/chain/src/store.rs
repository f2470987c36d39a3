//! The states found so far, each once, in the order found, by their encoding
//! (state.rs): the walk's index from a state to its number.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

/// FxHash (rustc's): a multiply and rotate per word, plenty for states of small
/// integers and several times quicker than the default SipHash on them.
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
        self.0
    }
}

#[derive(Default)]
pub struct Store {
    index: HashMap<Rc<[i32]>, u32, BuildHasherDefault<FxHasher>>,
    found: Vec<Rc<[i32]>>,
}

impl Store {
    pub fn len(&self) -> usize {
        self.found.len()
    }

    pub fn get(&self, i: usize) -> &[i32] {
        &self.found[i]
    }

    /// The number of the state encoded as `code`, added last if new (None when
    /// new and `room` is false).
    pub fn find(&mut self, code: &[i32], room: bool) -> Option<usize> {
        if let Some(&i) = self.index.get(code) {
            return Some(i as usize);
        }
        if !room {
            return None;
        }
        let code: Rc<[i32]> = code.into();
        let i = self.found.len();
        self.index.insert(code.clone(), i as u32);
        self.found.push(code);
        Some(i)
    }

    /// The states in order, as one list of integers and where each begins (and the
    /// end of the last): the index is dropped.
    pub fn into_flat(self) -> (Vec<i32>, Vec<u64>) {
        drop(self.index);
        let mut codes = Vec::with_capacity(self.found.iter().map(|c| c.len()).sum());
        let mut starts = Vec::with_capacity(self.found.len() + 1);
        starts.push(0);
        for code in self.found {
            codes.extend_from_slice(&code);
            starts.push(codes.len() as u64);
        }
        (codes, starts)
    }
}
