//! Shared machines: `copies` grinders, espresso machines and steamers, each
//! taken only while in use; making the latte needs no machine. One copy is the
//! talk's fine-grained locking (a mutex per machine), N copies its multi-N (a
//! channel holding N machines).
//! Models: examples/coffee/finelocking.yaml and multi-N.yaml (a station of
//! `copies` servers per machine, each step holding a `cpu`).
//!
//! A machine is a permit of tokio's semaphore because it is fair: waiters get
//! machines in the order they asked, as the models serve their queues. A lock
//! that lets its releaser take it straight back (std's Mutex, barging) leaves
//! throughput alone but starves the other waiters and bends the latency
//! percentiles away from FIFO.

use tokio::sync::Semaphore;

use super::Work;
use crate::recipe::{Latte, Stage};

pub struct Machines {
    pub(super) work: Work,
    grinders: Semaphore,
    presses: Semaphore,
    steamers: Semaphore,
}

impl Machines {
    pub fn new(work: Work, copies: usize) -> Machines {
        let machines = || Semaphore::new(copies);
        Machines { work, grinders: machines(), presses: machines(), steamers: machines() }
    }

    pub(super) async fn grind_and_press(&self, latte: &mut Latte) {
        self.on(&self.grinders, Stage::Grind, latte).await;
        self.on(&self.presses, Stage::Press, latte).await;
    }

    pub(super) async fn steam(&self, latte: &mut Latte) {
        self.on(&self.steamers, Stage::Steam, latte).await;
    }

    async fn on(&self, machines: &Semaphore, stage: Stage, latte: &mut Latte) {
        let _machine = machines.acquire().await.expect("machines are never closed");
        self.work.make(stage, latte);
    }

    pub async fn brew(&self, order: u64) -> Latte {
        let mut latte = Latte::new(order);
        self.grind_and_press(&mut latte).await;
        self.steam(&mut latte).await;
        self.work.make(Stage::Latte, &mut latte);
        latte
    }
}
