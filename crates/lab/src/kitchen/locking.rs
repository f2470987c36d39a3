//! One lock on the whole kitchen, held for all four stages: one customer in
//! the kitchen at a time. Model: examples/coffee/locking.yaml (one server).

use super::{ideal::Ideal, Kitchen, Work};
use crate::fifo::FifoLock;
use crate::recipe::Latte;

pub struct Locking {
    kitchen: FifoLock,
    inside: Ideal,
}

impl Locking {
    pub fn new(work: Work) -> Locking {
        Locking { kitchen: FifoLock::new(1), inside: Ideal(work) }
    }
}

impl Kitchen for Locking {
    fn brew(&self, order: u64) -> Latte {
        let _kitchen = self.kitchen.acquire();
        self.inside.brew(order)
    }
}
