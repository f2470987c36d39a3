//! Pipelines: a task per machine (a barista), each taking orders from a
//! bounded channel, doing its stage and handing the order on. A channel of
//! capacity N is N places on the counter between two baristas; capacity 0 is a
//! rendezvous (Go's unbuffered channel), so a barista who has finished holds
//! the order out, blocking the machine, until the next one takes it. Models:
//! stations of one server with `buffer: N`, which block after service the same
//! way (examples/coffee/linearpipe-N.yaml, splitpipe-N.yaml, multipipe-2.yaml).
//!
//! The channels are flume's: bounded at any capacity including 0 (a
//! rendezvous: the sender returns only once a receiver has the order), with
//! many receivers (multipipe's grinders share one), awaited by tasks and by
//! threads alike. async-channel and tokio's channels refuse capacity 0.

use flume::{bounded, Receiver, Sender};

use super::Work;
use crate::error::LabError;
use crate::recipe::{Latte, Stage};
use crate::runtime::{Joined, Runtime};

/// An order travelling down a line, with where to send the finished part.
struct Job {
    latte: Latte,
    done: Sender<Latte>,
}

/// Baristas in a row, one task per stage; the last one sends the order's part
/// back to the customer. Dropping the line closes its entry, so each barista
/// finishes what is queued, closes the next channel and ends; the drop waits
/// for them all.
pub struct Line {
    entry: Option<Sender<Job>>,
    baristas: Vec<Joined<()>>,
}

impl Line {
    fn new(work: Work, runtime: &Runtime, stages: &[Stage], buffer: usize) -> Result<Line, LabError> {
        let (entry, orders) = bounded::<Job>(buffer);
        let mut line = Line { entry: Some(entry), baristas: Vec::with_capacity(stages.len()) };
        line.staff(work, runtime, stages, orders, buffer)?;
        Ok(line)
    }

    /// Starts a barista per stage, the first taking `orders`; channel i + 1 (of
    /// capacity `buffer`) carries stage i's work to stage i + 1, and the last replies.
    fn staff(
        &mut self,
        work: Work,
        runtime: &Runtime,
        stages: &[Stage],
        orders: Receiver<Job>,
        buffer: usize,
    ) -> Result<(), LabError> {
        let (feeds, inputs): (Vec<_>, Vec<_>) = stages[1..].iter().map(|_| bounded::<Job>(buffer)).unzip();
        let inputs = std::iter::once(orders).chain(inputs);
        let hand_ons = feeds.into_iter().map(Some).chain(std::iter::once(None));
        for ((&stage, orders), next) in stages.iter().zip(inputs).zip(hand_ons) {
            let name = format!("{stage:?}").to_lowercase();
            self.baristas.push(runtime.spawn(&name, serve(work, stage, orders, next))?);
        }
        Ok(())
    }

    async fn order(&self, latte: Latte, done: Sender<Latte>) {
        let entry = self.entry.as_ref().expect("the line is open until dropped");
        entry.send_async(Job { latte, done }).await.expect("the baristas run until the line is dropped");
    }
}

async fn serve(work: Work, stage: Stage, orders: Receiver<Job>, next: Option<Sender<Job>>) {
    while let Ok(mut job) = orders.recv_async().await {
        work.make(stage, &mut job.latte);
        match &next {
            Some(next) => next.send_async(job).await.expect("the next barista outlives this one"),
            // The customer waits on a channel with room for every part it expects.
            None => job.done.send_async(job.latte).await.expect("the customer waits for its order"),
        }
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        drop(self.entry.take());
        for barista in self.baristas.drain(..) {
            let _ = barista.join(); // a barista that panicked has already failed its customer's order
        }
    }
}

const COFFEE_AND_MILK: [Stage; 3] = [Stage::Grind, Stage::Press, Stage::Steam];

/// The talk's inner channels between the baristas of each of multipipe's pipelines.
const MULTIPIPE_INNER_BUFFER: usize = 10;

/// Lines of baristas the customer sends each order to, all at once; the
/// customer joins the parts and makes the latte.
pub struct Pipelines {
    work: Work,
    lines: Vec<Line>,
}

impl Pipelines {
    /// linearpipe-N: grinder -> presser -> steamer, channels of capacity N.
    pub fn linear(work: Work, runtime: &Runtime, buffer: usize) -> Result<Pipelines, LabError> {
        Ok(Pipelines { work, lines: vec![Line::new(work, runtime, &COFFEE_AND_MILK, buffer)?] })
    }

    /// splitpipe-N: the milk is steamed on a line of its own (one barista)
    /// while the coffee goes grinder -> presser.
    pub fn split(work: Work, runtime: &Runtime, buffer: usize) -> Result<Pipelines, LabError> {
        let coffee = Line::new(work, runtime, &[Stage::Grind, Stage::Press], buffer)?;
        let milk = Line::new(work, runtime, &[Stage::Steam], buffer)?;
        Ok(Pipelines { work, lines: vec![coffee, milk] })
    }

    /// multipipe-N: N linear pipelines whose grinders all take orders from one
    /// shared unbuffered channel, as the talk's code does (newMultiPipeline):
    /// the order goes to whichever grinder is free first; inside each pipeline
    /// the channels hold 10 (examples/coffee/multipipe-2.yaml: a shared dispatch).
    pub fn multi(work: Work, runtime: &Runtime, shops: usize) -> Result<Pipelines, LabError> {
        let (entry, orders) = bounded::<Job>(0);
        let mut line = Line { entry: Some(entry), baristas: Vec::with_capacity(shops * COFFEE_AND_MILK.len()) };
        for _ in 0..shops {
            line.staff(work, runtime, &COFFEE_AND_MILK, orders.clone(), MULTIPIPE_INNER_BUFFER)?;
        }
        Ok(Pipelines { work, lines: vec![line] })
    }

    /// Places `order` on each line (in order), waits for every part, joins
    /// them and makes the latte on the customer's task.
    pub async fn brew(&self, order: u64) -> Latte {
        let (done, parts) = bounded(self.lines.len());
        for line in &self.lines {
            line.order(Latte::new(order), done.clone()).await;
        }
        let mut latte = parts.recv_async().await.expect("every line answers");
        for _ in 1..self.lines.len() {
            latte = latte.combine(parts.recv_async().await.expect("every line answers"));
        }
        self.work.make(Stage::Latte, &mut latte);
        latte
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::RuntimeKind;
    use std::time::Duration;

    #[test]
    fn a_rendezvous_holds_the_sender_until_a_receiver_takes_the_order_in_both_runtimes() {
        let cpus = crate::os::allowed_cpus().unwrap();
        for kind in [RuntimeKind::Tasks, RuntimeKind::Threads] {
            let runtime = Runtime::start(kind, &cpus[..1]).unwrap();
            let (counter, barista) = bounded::<u32>(0);
            let (handed, handed_on) = bounded::<()>(1);
            let sender = runtime
                .spawn("a sender", async move {
                    counter.send_async(7).await.unwrap();
                    handed.send_async(()).await.unwrap();
                })
                .unwrap();
            std::thread::sleep(Duration::from_millis(50));
            assert!(handed_on.try_recv().is_err(), "{kind:?}: the send returned with nobody to take the order");
            assert_eq!(barista.recv_timeout(Duration::from_secs(5)), Ok(7));
            assert_eq!(handed_on.recv_timeout(Duration::from_secs(5)), Ok(()), "{kind:?}: the sender stayed blocked");
            sender.join().unwrap();
        }
    }
}
