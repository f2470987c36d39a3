//! Fine-grained locking with the milk steamed on a second thread while the
//! customer grinds and presses, joined before making the latte (the talk's
//! parsteam). A second pair of hands cuts the latency when CPUs are spare, and
//! buys nothing when they are all busy.
//! Model: examples/coffee/parsteam.yaml (the model language has no fork/join:
//! see that file for what its prediction covers).

use super::{machines::Machines, Kitchen, Work};
use crate::error::joined;
use crate::recipe::{Latte, Stage};

pub struct ParallelSteam(Machines);

impl ParallelSteam {
    pub fn new(work: Work) -> ParallelSteam {
        ParallelSteam(Machines::new(work, 1))
    }
}

impl Kitchen for ParallelSteam {
    fn brew(&self, order: u64) -> Latte {
        let shop = &self.0;
        let (coffee, milk) = std::thread::scope(|s| {
            let milk = std::thread::Builder::new()
                .spawn_scoped(s, || {
                    let mut milk = Latte::new(order);
                    shop.steam(&mut milk);
                    milk
                })
                // A kitchen has no error to return mid-order: the harness makes this panic the run's error.
                .unwrap_or_else(|e| panic!("cannot start a steaming thread: {e}"));
            let mut coffee = Latte::new(order);
            shop.grind_and_press(&mut coffee);
            (coffee, joined(milk))
        });
        let mut latte = coffee.combine(milk);
        shop.work.make(Stage::Latte, &mut latte);
        latte
    }
}
