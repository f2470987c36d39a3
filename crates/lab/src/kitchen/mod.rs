//! The coffee-shop implementations of the talk, one file per idea. Each makes a
//! latte with the same four stages (`Work::make`); they differ only in how
//! customers share the machines and hand orders on, which is what the lab
//! measures and what each one's model (examples/coffee) describes. Each is
//! written once, as tasks that await channels and machines; the runtime
//! (crate::runtime) decides whether a task is a goroutine-like task or a thread.

mod ideal;
mod locking;
mod machines;
mod parsteam;
mod pipeline;

use crate::burn::Burner;
use crate::error::LabError;
use crate::recipe::{Latte, Recipe, Stage};
use crate::runtime::Runtime;

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

/// An implementation by name, checked before anything runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    Ideal,
    Locking,
    /// finelocking (one copy of each machine) and multi-N.
    Machines(usize),
    ParallelSteam,
    LinearPipe(usize),
    SplitPipe(usize),
    MultiPipe(usize),
}

impl Design {
    pub fn parse(name: &str) -> Result<Design, LabError> {
        let numbered = |prefix: &str, least: usize| -> Option<Result<usize, LabError>> {
            let n = name.strip_prefix(prefix)?;
            Some(match n.parse::<usize>() {
                // How many N may be is the Python side's to say (lab/options.py).
                Ok(n) if n >= least => Ok(n),
                _ => Err(LabError::Input(format!(
                    "implementation {name}: expected {prefix}N with N a whole number from {least}"
                ))),
            })
        };
        Ok(match name {
            "ideal" => Design::Ideal,
            "locking" => Design::Locking,
            "finelocking" => Design::Machines(1),
            "parsteam" => Design::ParallelSteam,
            _ => {
                if let Some(n) = numbered("multi-", 1) {
                    Design::Machines(n?)
                } else if let Some(n) = numbered("linearpipe-", 0) {
                    Design::LinearPipe(n?)
                } else if let Some(n) = numbered("splitpipe-", 0) {
                    Design::SplitPipe(n?)
                } else if let Some(n) = numbered("multipipe-", 1) {
                    Design::MultiPipe(n?)
                } else {
                    return Err(LabError::Input(format!("implementation {name}: unknown (expected one of {NAMES})")));
                }
            }
        })
    }

    /// Opens the kitchen on `runtime`; pipelines start their baristas here and
    /// stop them (waiting for each) when the kitchen is dropped.
    pub fn open(self, work: Work, runtime: &Runtime) -> Result<Kitchen, LabError> {
        Ok(match self {
            Design::Ideal => Kitchen::Ideal(ideal::Ideal(work)),
            Design::Locking => Kitchen::Locking(locking::Locking::new(work)),
            Design::Machines(copies) => Kitchen::Machines(machines::Machines::new(work, copies)),
            Design::ParallelSteam => Kitchen::ParallelSteam(parsteam::ParallelSteam::new(work, runtime)),
            Design::LinearPipe(buffer) => Kitchen::Pipelines(pipeline::Pipelines::linear(work, runtime, buffer)?),
            Design::SplitPipe(buffer) => Kitchen::Pipelines(pipeline::Pipelines::split(work, runtime, buffer)?),
            Design::MultiPipe(shops) => Kitchen::Pipelines(pipeline::Pipelines::multi(work, runtime, shops)?),
        })
    }
}

/// A coffee shop: customers' tasks call `brew` at once.
pub enum Kitchen {
    Ideal(ideal::Ideal),
    Locking(locking::Locking),
    Machines(machines::Machines),
    ParallelSteam(parsteam::ParallelSteam),
    Pipelines(pipeline::Pipelines),
}

impl Kitchen {
    /// Makes the latte for `order`, on the calling customer's task and any
    /// tasks the kitchen runs, and returns it when it is ready; an error is a
    /// task the runtime could not start (parsteam's second pair of hands).
    pub async fn brew(&self, order: u64) -> Result<Latte, LabError> {
        Ok(match self {
            Kitchen::Ideal(kitchen) => kitchen.brew(order),
            Kitchen::Locking(kitchen) => kitchen.brew(order).await,
            Kitchen::Machines(kitchen) => kitchen.brew(order).await,
            Kitchen::ParallelSteam(kitchen) => kitchen.brew(order).await?,
            Kitchen::Pipelines(kitchen) => kitchen.brew(order).await,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::RuntimeKind;
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    const ALL: [&str; 13] = [
        "ideal", "locking", "finelocking", "parsteam", "multi-1", "multi-2", "linearpipe-0", "linearpipe-1",
        "linearpipe-10", "splitpipe-0", "splitpipe-1", "multipipe-1", "multipipe-2",
    ];

    fn quick_work() -> Work {
        Work { recipe: Recipe::uniform(std::time::Duration::from_micros(20)), burner: Burner::shared() }
    }

    fn runtimes() -> Vec<Runtime> {
        let cpus = crate::os::allowed_cpus().unwrap();
        let cpus = &cpus[..cpus.len().min(2)];
        [RuntimeKind::Tasks, RuntimeKind::Threads].map(|kind| Runtime::start(kind, cpus).unwrap()).into()
    }

    /// `customers` tasks order `orders` lattes in all from `kitchen`.
    fn order_all(runtime: &Runtime, kitchen: &Arc<Kitchen>, customers: usize, orders: u64) -> Vec<Latte> {
        let next = Arc::new(AtomicU64::new(0));
        let customers: Vec<_> = (0..customers)
            .map(|_| {
                let (kitchen, next) = (Arc::clone(kitchen), Arc::clone(&next));
                runtime
                    .spawn("a customer", async move {
                        let mut made = Vec::new();
                        loop {
                            let order = next.fetch_add(1, Ordering::Relaxed);
                            if order >= orders {
                                return made;
                            }
                            made.push(kitchen.brew(order).await.unwrap());
                        }
                    })
                    .unwrap()
            })
            .collect();
        customers.into_iter().flat_map(|customer| customer.join().unwrap()).collect()
    }

    #[test]
    fn every_kitchen_makes_each_ordered_latte_once_with_every_stage_once_in_both_runtimes() {
        for runtime in runtimes() {
            for name in ALL {
                for customers in [1, 3, 8] {
                    let kitchen = Arc::new(Design::parse(name).unwrap().open(quick_work(), &runtime).unwrap());
                    let made = order_all(&runtime, &kitchen, customers, 300);
                    assert_eq!(made.len(), 300, "{name} with {customers} customers");
                    let orders: HashSet<u64> = made.iter().map(|l| l.order).collect();
                    assert_eq!(orders, (0..300).collect(), "{name}: lattes lost or doubled");
                    assert!(made.iter().all(|l| l.stages == Latte::DONE && !l.repeated), "{name}: a stage missed or repeated");
                    drop(kitchen); // pipelines wait for their baristas here: a hang fails the test run
                }
            }
        }
    }

    #[test]
    fn pipelines_stop_cleanly_with_orders_never_placed_or_in_flight() {
        for runtime in runtimes() {
            for name in ["linearpipe-0", "linearpipe-10", "splitpipe-1", "multipipe-3"] {
                drop(Design::parse(name).unwrap().open(quick_work(), &runtime).unwrap());
                let kitchen = Arc::new(Design::parse(name).unwrap().open(quick_work(), &runtime).unwrap());
                assert_eq!(order_all(&runtime, &kitchen, 4, 50).len(), 50);
                drop(kitchen);
            }
        }
    }

    #[test]
    fn names_are_checked() {
        for bad in ["espresso", "multi-0", "multi-x", "linearpipe-", "multipipe-0", "splitpipe--1"] {
            let err = Design::parse(bad).err().unwrap().to_string();
            assert!(err.starts_with(&format!("implementation {bad}:")), "{err}");
        }
        assert_eq!(Design::parse("multi-4"), Ok(Design::Machines(4)));
    }
}
