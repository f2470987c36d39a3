//! Pipelines: a thread per machine (a barista), each taking orders from a
//! bounded channel, doing its stage and handing the order on. A channel of
//! capacity N is N places on the counter between two baristas; capacity 0 is a
//! rendezvous (Go's unbuffered channel), so a barista who has finished holds
//! the order out, blocking the machine, until the next one takes it. Models:
//! stations of one server with `buffer: N`, which block after service the same
//! way (examples/coffee/linearpipe-N.yaml, splitpipe-N.yaml, multipipe-2.yaml).

use std::thread::{self, JoinHandle};

use crossbeam_channel::{bounded, Receiver, Sender};

use super::{Kitchen, Work};
use crate::error::LabError;
use crate::recipe::{Latte, Stage};

/// An order travelling down a line, with where to send the finished part.
struct Job {
    latte: Latte,
    done: Sender<Latte>,
}

/// Baristas in a row, one thread per stage; the last one sends the order's
/// part back to the customer. Dropping the line closes its entry, so each
/// barista finishes what is queued, closes the next channel and exits; the
/// drop joins them all.
pub struct Line {
    entry: Option<Sender<Job>>,
    baristas: Vec<JoinHandle<()>>,
}

impl Line {
    fn new(work: Work, stages: &[Stage], buffer: usize) -> Result<Line, LabError> {
        let (entry, orders) = bounded::<Job>(buffer);
        let mut line = Line { entry: Some(entry), baristas: Vec::with_capacity(stages.len()) };
        line.staff(work, stages, orders, buffer)?;
        Ok(line)
    }

    /// Starts a barista per stage, the first taking `orders`; channel i + 1 (of
    /// capacity `buffer`) carries stage i's work to stage i + 1, and the last replies.
    fn staff(&mut self, work: Work, stages: &[Stage], orders: Receiver<Job>, buffer: usize) -> Result<(), LabError> {
        let (feeds, inputs): (Vec<_>, Vec<_>) = stages[1..].iter().map(|_| bounded::<Job>(buffer)).unzip();
        let inputs = std::iter::once(orders).chain(inputs);
        let hand_ons = feeds.into_iter().map(Some).chain(std::iter::once(None));
        for ((&stage, orders), next) in stages.iter().zip(inputs).zip(hand_ons) {
            let barista = thread::Builder::new()
                .name(format!("{stage:?}").to_lowercase())
                .spawn(move || serve(work, stage, orders, next))
                .map_err(|e| LabError::Os(format!("cannot start a pipeline thread: {e}")))?;
            self.baristas.push(barista);
        }
        Ok(())
    }

    fn order(&self, latte: Latte, done: Sender<Latte>) {
        let entry = self.entry.as_ref().expect("the line is open until dropped");
        entry.send(Job { latte, done }).expect("the baristas run until the line is dropped");
    }
}

fn serve(work: Work, stage: Stage, orders: Receiver<Job>, next: Option<Sender<Job>>) {
    for mut job in orders {
        work.make(stage, &mut job.latte);
        match &next {
            Some(next) => next.send(job).expect("the next barista outlives this one"),
            // The customer waits on a channel with room for every part it expects.
            None => job.done.send(job.latte).expect("the customer waits for its order"),
        }
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        drop(self.entry.take());
        for barista in self.baristas.drain(..) {
            let _ = barista.join();
        }
    }
}

const COFFEE_AND_MILK: [Stage; 3] = [Stage::Grind, Stage::Press, Stage::Steam];

/// Places `order` on each line (in order), waits for every part, joins them
/// and makes the latte on the customer's thread.
fn brew_on(work: &Work, lines: &[&Line], order: u64) -> Latte {
    let (done, parts) = bounded(lines.len());
    for line in lines {
        line.order(Latte::new(order), done.clone());
    }
    let mut latte = parts.recv().expect("every line answers");
    for _ in 1..lines.len() {
        latte = latte.combine(parts.recv().expect("every line answers"));
    }
    work.make(Stage::Latte, &mut latte);
    latte
}

/// linearpipe-N: grinder -> presser -> steamer, channels of capacity N.
pub struct LinearPipe {
    work: Work,
    line: Line,
}

pub fn linear_pipe(work: Work, buffer: usize) -> Result<LinearPipe, LabError> {
    Ok(LinearPipe { work, line: Line::new(work, &COFFEE_AND_MILK, buffer)? })
}

impl Kitchen for LinearPipe {
    fn brew(&self, order: u64) -> Latte {
        brew_on(&self.work, &[&self.line], order)
    }
}

/// splitpipe-N: the milk is steamed on a line of its own (one barista) while
/// the coffee goes grinder -> presser; the customer joins the two.
pub struct SplitPipe {
    work: Work,
    coffee: Line,
    milk: Line,
}

pub fn split_pipe(work: Work, buffer: usize) -> Result<SplitPipe, LabError> {
    Ok(SplitPipe {
        work,
        coffee: Line::new(work, &[Stage::Grind, Stage::Press], buffer)?,
        milk: Line::new(work, &[Stage::Steam], buffer)?,
    })
}

impl Kitchen for SplitPipe {
    fn brew(&self, order: u64) -> Latte {
        brew_on(&self.work, &[&self.coffee, &self.milk], order)
    }
}

/// multipipe-N: N linear pipelines whose grinders all take orders from one
/// shared unbuffered channel, as the talk's code does (newMultiPipeline): the
/// order goes to whichever grinder is free first; inside each pipeline the
/// channels hold 10 (examples/coffee/multipipe-2.yaml: a shared dispatch).
pub struct MultiPipe {
    work: Work,
    shops: Line,
}

/// The talk's inner channels between the baristas of each of multipipe's pipelines.
const MULTIPIPE_INNER_BUFFER: usize = 10;

pub fn multi_pipe(work: Work, shops: usize) -> Result<MultiPipe, LabError> {
    let (entry, orders) = bounded::<Job>(0);
    let mut line = Line { entry: Some(entry), baristas: Vec::with_capacity(shops * COFFEE_AND_MILK.len()) };
    for _ in 0..shops {
        line.staff(work, &COFFEE_AND_MILK, orders.clone(), MULTIPIPE_INNER_BUFFER)?;
    }
    Ok(MultiPipe { work, shops: line })
}

impl Kitchen for MultiPipe {
    fn brew(&self, order: u64) -> Latte {
        brew_on(&self.work, &[&self.shops], order)
    }
}
