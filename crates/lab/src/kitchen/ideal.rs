//! The ideal shop: every customer has a kitchen of their own, so nothing is
//! shared but the CPUs. Model: examples/coffee/ideal.yaml (an infinite-server
//! station, four steps each holding a `cpu`).

use super::Work;
use crate::recipe::{Latte, Stage};

pub struct Ideal(pub Work);

impl Ideal {
    /// All four stages in a row on the customer's task, never waiting.
    pub fn brew(&self, order: u64) -> Latte {
        let mut latte = Latte::new(order);
        for stage in [Stage::Grind, Stage::Press, Stage::Steam, Stage::Latte] {
            self.0.make(stage, &mut latte);
        }
        latte
    }
}
