//! Fine-grained locking with the milk steamed by a second pair of hands (a
//! task of its own, the talk's goroutine) while the customer grinds and
//! presses, joined before making the latte (the talk's parsteam). A second
//! pair of hands cuts the latency when CPUs are spare, and buys nothing when
//! they are all busy. Model: examples/coffee/parsteam.yaml (a fork of grind +
//! press and steam, joined before the latte).

use std::sync::Arc;

use super::{machines::Machines, Work};
use crate::error::LabError;
use crate::recipe::{Latte, Stage};
use crate::runtime::Runtime;

pub struct ParallelSteam {
    shop: Arc<Machines>,
    runtime: Runtime,
}

impl ParallelSteam {
    pub fn new(work: Work, runtime: &Runtime) -> ParallelSteam {
        ParallelSteam { shop: Arc::new(Machines::new(work, 1)), runtime: runtime.clone() }
    }

    pub async fn brew(&self, order: u64) -> Result<Latte, LabError> {
        let shop = Arc::clone(&self.shop);
        let milk = self.runtime.spawn("a steaming", async move {
            let mut milk = Latte::new(order);
            shop.steam(&mut milk).await;
            milk
        })?;
        let mut coffee = Latte::new(order);
        self.shop.grind_and_press(&mut coffee).await;
        let mut latte = coffee.combine(milk.finished().await?);
        self.shop.work.make(Stage::Latte, &mut latte);
        Ok(latte)
    }
}
