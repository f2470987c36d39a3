//! Shared machines: `copies` grinders, espresso machines and steamers, each
//! taken only while in use (first come, first served); making the latte needs
//! no machine. One copy is the talk's fine-grained locking (a mutex per
//! machine), N copies its multi-N (a channel holding N machines).
//! Models: examples/coffee/finelocking.yaml and multi-N.yaml (a station of
//! `copies` servers per machine, each step holding a `cpu`).

use super::{Kitchen, Work};
use crate::fifo::FifoLock;
use crate::recipe::{Latte, Stage};

pub struct Machines {
    pub(super) work: Work,
    grinders: FifoLock,
    presses: FifoLock,
    steamers: FifoLock,
}

impl Machines {
    pub fn new(work: Work, copies: usize) -> Machines {
        Machines { work, grinders: FifoLock::new(copies), presses: FifoLock::new(copies), steamers: FifoLock::new(copies) }
    }

    pub(super) fn grind_and_press(&self, latte: &mut Latte) {
        self.on(&self.grinders, Stage::Grind, latte);
        self.on(&self.presses, Stage::Press, latte);
    }

    pub(super) fn steam(&self, latte: &mut Latte) {
        self.on(&self.steamers, Stage::Steam, latte);
    }

    fn on(&self, machines: &FifoLock, stage: Stage, latte: &mut Latte) {
        let _machine = machines.acquire();
        self.work.make(stage, latte);
    }
}

impl Kitchen for Machines {
    fn brew(&self, order: u64) -> Latte {
        let mut latte = Latte::new(order);
        self.grind_and_press(&mut latte);
        self.steam(&mut latte);
        self.work.make(Stage::Latte, &mut latte);
        latte
    }
}
