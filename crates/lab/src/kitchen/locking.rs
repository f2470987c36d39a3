//! One lock on the whole kitchen, held for all four stages: one customer in
//! the kitchen at a time. Model: examples/coffee/locking.yaml (one server).

use tokio::sync::Semaphore;

use super::{ideal::Ideal, Work};
use crate::recipe::Latte;

pub struct Locking {
    /// Fair (first come, first served) as the model's queue is; see machines.rs.
    kitchen: Semaphore,
    inside: Ideal,
}

impl Locking {
    pub fn new(work: Work) -> Locking {
        Locking { kitchen: Semaphore::new(1), inside: Ideal(work) }
    }

    pub async fn brew(&self, order: u64) -> Latte {
        let _kitchen = self.kitchen.acquire().await.expect("the kitchen's lock is never closed");
        self.inside.brew(order)
    }
}
