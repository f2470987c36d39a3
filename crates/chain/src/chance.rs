//! Chance inside one event: where the simulator draws a random number in the
//! middle of an event (a customer balking with probability p), one event leads
//! to several outcomes, each with its probability.
//!
//! How: the event is carried out once per way its chances can fall. A run follows
//! a script of decisions, one per chance met in order; a chance the script does not
//! reach yet falls its first way (it happens) and is written down. After a run, the
//! next script is this run's with its last decision that happened turned to its
//! other way and those after it dropped: a depth-first walk of the tree of decisions,
//! which reaches every way once however many chances an event meets (a cascade of
//! admissions, each into a balking step). The event must be deterministic given its
//! script, as the simulator's rules are. Chances that are sure (1) or impossible (0)
//! are no decision and are not written.

/// The decisions of one run of an event, and its probability so far.
#[derive(Debug)]
pub struct Chances {
    script: Vec<bool>,
    met: usize,
    probability: f64,
}

impl Default for Chances {
    fn default() -> Chances {
        Chances { script: Vec::new(), met: 0, probability: 1.0 }
    }
}

impl Chances {
    /// Whether the run's next chance, of probability `p`, happens.
    pub fn happens(&mut self, p: f64) -> bool {
        if p >= 1.0 || p <= 0.0 {
            return p >= 1.0;
        }
        if self.met == self.script.len() {
            self.script.push(true);
        }
        let happens = self.script[self.met];
        self.met += 1;
        self.probability *= if happens { p } else { 1.0 - p };
        happens
    }

    /// The probability of the run: the product of its decisions'.
    pub fn probability(&self) -> f64 {
        self.probability
    }

    /// The script of the next run; None when every way has been run.
    fn next(mut self) -> Option<Chances> {
        debug_assert_eq!(self.met, self.script.len(), "a run follows its whole script");
        while let Some(happened) = self.script.pop() {
            if happened {
                self.script.push(false);
                return Some(Chances { script: self.script, met: 0, probability: 1.0 });
            }
        }
        None
    }
}

/// Runs an event once per way its chances can fall: `run` carries it out by the
/// script it is given (reading each chance with `happens`) and hands the script back.
pub fn each_way<E>(mut run: impl FnMut(Chances) -> Result<Chances, E>) -> Result<(), E> {
    let mut script = Some(Chances::default());
    while let Some(chances) = script {
        script = run(chances)?.next();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_of_a_tree_of_chances_is_run_once_with_its_probability() {
        // A first chance of 0.3; where it happens, a second of 0.5; a sure one never branches.
        let mut ways = Vec::new();
        each_way::<()>(|mut chances| {
            let first = chances.happens(0.3);
            let sure = chances.happens(1.0);
            let second = first && chances.happens(0.5);
            ways.push((first, sure, second, chances.probability()));
            Ok(chances)
        })
        .unwrap();
        assert_eq!(ways, vec![(true, true, true, 0.15), (true, true, false, 0.15), (false, true, false, 0.7)]);
    }
}
