//! The coffee-shop implementations of the talk, one file per idea. Each makes a
//! latte with the same four stages (`Work::make`); they differ only in how
//! customers share the machines and hand orders on, which is what the lab
//! measures and what each one's model (examples/coffee) describes.

mod ideal;
mod locking;
mod machines;
mod parsteam;
mod pipeline;

use crate::burn::Burner;
use crate::error::LabError;
use crate::recipe::{Latte, Recipe, Stage};

pub use pipeline::{linear_pipe, multi_pipe, split_pipe};

/// A coffee shop: customers call `brew` at once from many threads.
pub trait Kitchen: Send + Sync {
    /// Makes the latte for `order`, on the calling customer's thread and any
    /// threads the kitchen runs, and returns it when it is ready.
    fn brew(&self, order: u64) -> Latte;
}

/// How a stage is done: the recipe's time, burnt by the calibrated burner.
#[derive(Debug, Clone, Copy)]
pub struct Work {
    pub recipe: Recipe,
    pub burner: Burner,
}

impl Work {
    pub fn make(&self, stage: Stage, latte: &mut Latte) {
        self.recipe.make(&self.burner, stage, latte);
    }
}

/// The implementations by name, as `brewput lab coffee --impl` takes them.
pub const NAMES: &str = "ideal, locking, finelocking, parsteam, multi-N, linearpipe-N, splitpipe-N, multipipe-N";

/// Opens the kitchen called `name`; pipelines start their threads here and
/// stop them (joined) when the kitchen is dropped.
pub fn open(name: &str, work: Work) -> Result<Box<dyn Kitchen>, LabError> {
    let numbered = |prefix: &str, least: usize| -> Option<Result<usize, LabError>> {
        let n = name.strip_prefix(prefix)?;
        Some(match n.parse::<usize>() {
            // How many N may be is the Python side's to say (lab/options.py).
            Ok(n) if n >= least => Ok(n),
            _ => Err(LabError::Input(format!("implementation {name}: expected {prefix}N with N a whole number from {least}"))),
        })
    };
    let kitchen: Box<dyn Kitchen> = match name {
        "ideal" => Box::new(ideal::Ideal(work)),
        "locking" => Box::new(locking::Locking::new(work)),
        "finelocking" => Box::new(machines::Machines::new(work, 1)),
        "parsteam" => Box::new(parsteam::ParallelSteam::new(work)),
        _ => {
            if let Some(n) = numbered("multi-", 1) {
                Box::new(machines::Machines::new(work, n?))
            } else if let Some(n) = numbered("linearpipe-", 0) {
                Box::new(linear_pipe(work, n?)?)
            } else if let Some(n) = numbered("splitpipe-", 0) {
                Box::new(split_pipe(work, n?)?)
            } else if let Some(n) = numbered("multipipe-", 1) {
                Box::new(multi_pipe(work, n?)?)
            } else {
                return Err(LabError::Input(format!("implementation {name}: unknown (expected one of {NAMES})")));
            }
        }
    };
    Ok(kitchen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;

    const ALL: [&str; 13] = [
        "ideal", "locking", "finelocking", "parsteam", "multi-1", "multi-2", "linearpipe-0", "linearpipe-1",
        "linearpipe-10", "splitpipe-0", "splitpipe-1", "multipipe-1", "multipipe-2",
    ];

    fn quick_work() -> Work {
        Work { recipe: Recipe::uniform(std::time::Duration::from_micros(20)), burner: Burner::shared() }
    }

    /// `customers` threads order `orders` lattes in all from `kitchen`.
    fn order_all(kitchen: &dyn Kitchen, customers: usize, orders: u64) -> Vec<Latte> {
        let next = AtomicU64::new(0);
        let made = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..customers {
                s.spawn(|| loop {
                    let order = next.fetch_add(1, Ordering::Relaxed);
                    if order >= orders {
                        break;
                    }
                    let latte = kitchen.brew(order);
                    made.lock().unwrap().push(latte);
                });
            }
        });
        made.into_inner().unwrap()
    }

    #[test]
    fn every_kitchen_makes_each_ordered_latte_once_with_every_stage_once() {
        for name in ALL {
            for customers in [1, 3, 8] {
                let kitchen = open(name, quick_work()).unwrap();
                let made = order_all(kitchen.as_ref(), customers, 300);
                assert_eq!(made.len(), 300, "{name} with {customers} customers");
                let orders: HashSet<u64> = made.iter().map(|l| l.order).collect();
                assert_eq!(orders, (0..300).collect(), "{name}: lattes lost or doubled");
                assert!(made.iter().all(|l| l.stages == Latte::DONE && !l.repeated), "{name}: a stage missed or repeated");
                drop(kitchen); // pipelines join their threads here: a hang fails the test run
            }
        }
    }

    #[test]
    fn pipelines_stop_cleanly_with_orders_never_placed_or_in_flight() {
        for name in ["linearpipe-0", "linearpipe-10", "splitpipe-1", "multipipe-3"] {
            drop(open(name, quick_work()).unwrap());
            let kitchen = open(name, quick_work()).unwrap();
            assert_eq!(order_all(kitchen.as_ref(), 4, 50).len(), 50);
            drop(kitchen);
        }
    }

    #[test]
    fn names_are_checked() {
        for bad in ["espresso", "multi-0", "multi-x", "linearpipe-", "multipipe-0", "splitpipe--1"] {
            let err = open(bad, quick_work()).err().unwrap().to_string();
            assert!(err.starts_with(&format!("implementation {bad}:")), "{err}");
        }
    }
}
