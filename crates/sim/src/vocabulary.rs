//! The model language's vocabulary: the words a model may choose from (disciplines,
//! take and assignment rules, preempt modes, dispatch policies and their ties), what each means as
//! a feature an engine must model, what the language refuses as not modelled, the
//! marks every class has, and the bounds the language sets. This is their
//! one home: the words are the compiled model's enums as serde reads them, and the
//! Python side (validation, features, JSON Schema, solve's allow-list) reads them
//! from here through `brewput._native.VOCABULARY`; tests/test_vocabulary.py proves
//! the two sides agree.
//!
//! A new word is a new variant of its enum in model.rs; the compiler then asks
//! for its feature below, and Python accepts it with no change of its own.

use serde::de::value::{Error as ValueError, StrDeserializer};
use serde::de::{DeserializeOwned, IntoDeserializer};
use serde::Deserialize;
use serde_aux::serde_introspection::serde_introspect;

use crate::dispatch::{policies, PolicyType};
use crate::model::{Assign, Discipline, OffShift, Preempt, Take};

/// Deepest nesting of forks and dispatches inside branches of forks and dispatches.
pub const MAX_BRANCH_DEPTH: usize = 8;

/// Most balking probabilities a step may list.
pub const MAX_BALK_PROBABILITIES: usize = 10_000;

/// The marks every class has: its response time runs from the first to the second.
pub const MARKED: [&str; 2] = ["arrived", "done"];

/// The largest seed of a run (the engine's, the lab's and the load generator's
/// random streams are seeded with a u64).
pub const MAX_SEED: u64 = u64::MAX;

/// A combination of fields that the model language refuses as not modelled (it
/// has no one meaning): the Python side refuses it in a file, with the file's
/// line, and the engine again in a compiled model, both in these words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotModelled {
    pub name: &'static str,
    /// What is refused, said after the field that asks for it.
    pub what: &'static str,
    /// Why it has no one meaning.
    pub why: &'static str,
}

impl NotModelled {
    /// The refusal of `subject` (the field as written, `preempt: resume`).
    pub fn refusal(&self, subject: &str) -> String {
        format!("{subject} {} is not modelled ({})", self.what, self.why)
    }
}

pub const PREEMPT_AT_TYPED_SERVERS: NotModelled = NotModelled {
    name: "preempt-at-typed-servers",
    what: "at typed servers",
    why: "which type's job to displace has no one answer",
};

pub const PREEMPT_WITH_RESOURCES: NotModelled = NotModelled {
    name: "preempt-with-resources",
    what: "in a model with resources",
    why: "a displaced job's tokens and the jobs waiting for them have no one rule",
};

pub const GIVING_UP_IN_A_FORK: NotModelled = NotModelled {
    name: "giving-up-in-a-fork",
    what: "inside a fork's branch",
    why: "the customer would leave while its other branches go on",
};

/// Everything the language refuses as not modelled.
pub const NOT_MODELLED: [NotModelled; 3] = [PREEMPT_AT_TYPED_SERVERS, PREEMPT_WITH_RESOURCES, GIVING_UP_IN_A_FORK];

/// A word of the model language: a unit variant of one of the compiled model's
/// enums, named as serde reads it.
pub trait Word: DeserializeOwned + Default + PartialEq + Copy + 'static {
    /// The field of a model file that takes this word.
    const FIELD: &'static str;

    /// The feature the word brings to a model, if any, and what it means in the
    /// words an error or a document uses (model/features.py).
    fn feature(self) -> Option<Feature>;
}

/// A named feature of a model: what an engine must model to answer it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Feature {
    pub name: &'static str,
    pub meaning: &'static str,
}

const fn feature(name: &'static str, meaning: &'static str) -> Option<Feature> {
    Some(Feature { name, meaning })
}

/// Every word of `W`, in declaration order, as the model file writes it.
pub fn words<W: Word>() -> Vec<(&'static str, W)> {
    serde_introspect::<W>()
        .iter()
        .map(|&name| {
            let deserializer: StrDeserializer<'static, ValueError> = name.into_deserializer();
            (name, W::deserialize(deserializer).expect("serde reads back the names it lists"))
        })
        .collect()
}

/// How the model file writes `word`.
pub fn name_of<W: Word>(word: W) -> &'static str {
    words::<W>().into_iter().find(|(_, listed)| *listed == word).map(|(name, _)| name).expect("every word is listed")
}

/// The word a field takes when the file leaves it out (the enum's default).
pub fn default_word<W: Word>() -> &'static str {
    name_of(W::default())
}

impl Word for Discipline {
    const FIELD: &'static str = "discipline";

    fn feature(self) -> Option<Feature> {
        match self {
            Discipline::Fifo => feature("fifo", "first-in first-out service (discipline fifo)"),
            Discipline::Lifo => feature("lifo", "last-in first-out service (discipline lifo)"),
            Discipline::Priority => feature("priority", "non-preemptive priority service (discipline priority)"),
            Discipline::Sjf => feature("sjf", "shortest-job-first service (discipline sjf)"),
            Discipline::Ps => feature("ps", "processor sharing (discipline ps)"),
        }
    }
}

impl Word for Take {
    const FIELD: &'static str = "take";

    fn feature(self) -> Option<Feature> {
        match self {
            Take::Head => feature(
                "head-of-line",
                "typed servers taking only the head of the queue (take: head, head-of-line blocking)",
            ),
            Take::FirstFit => {
                feature("first-fit", "typed servers taking the first waiting job they can serve (take: first_fit)")
            }
        }
    }
}

impl Word for Assign {
    const FIELD: &'static str = "assign";

    fn feature(self) -> Option<Feature> {
        match self {
            Assign::LongestIdle => None, // what an engine does unless told otherwise
            Assign::InOrder => feature(
                "assign-in-order",
                "an arriving job taking the first idle compatible server in file order (assign: in_order)",
            ),
        }
    }
}

impl Word for Preempt {
    const FIELD: &'static str = "preempt";

    fn feature(self) -> Option<Feature> {
        match self {
            Preempt::None => None,
            Preempt::Resume => feature(
                "preempt-resume",
                "preemptive priority, the preempted job resuming its remaining work (preempt: resume)",
            ),
            Preempt::Restart => feature(
                "preempt-restart",
                "preemptive priority, the preempted job starting a new service (preempt: restart)",
            ),
        }
    }
}

impl Word for OffShift {
    const FIELD: &'static str = "off_shift";

    fn feature(self) -> Option<Feature> {
        match self {
            OffShift::Finish => None, // a server finishes its job before going: what a rota means unless told
            OffShift::Resume => feature(
                "off-shift-resume",
                "a server going off shift handing its job back to the queue's head to resume (off_shift: resume)",
            ),
            OffShift::Restart => feature(
                "off-shift-restart",
                "a server going off shift handing its job back to the queue's head to start anew (off_shift: restart)",
            ),
        }
    }
}

/// How a dispatch step chooses its branch: each word is a type of
/// dispatch/policies.rs, named below (`Policy::implementation`), so a new policy is
/// its type there and its variant, feature and type here.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    #[default]
    Random,
    RoundRobin,
    ShortestQueue,
    PowerOfD,
    LeastUtilized,
    Shared,
}

/// How a dispatch chooses among branches its policy finds equal (as short, as
/// idle, as open).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tie {
    /// The first in file order.
    #[default]
    First,
    /// Each equally likely.
    Random,
}

impl Word for Policy {
    const FIELD: &'static str = "policy";

    fn feature(self) -> Option<Feature> {
        match self {
            Policy::Random => {
                feature("dispatch-random", "a dispatch to one branch drawn at random (dispatch:, policy: random)")
            }
            Policy::RoundRobin => {
                feature("dispatch-round-robin", "a dispatch to the branches in turn (dispatch:, policy: round_robin)")
            }
            Policy::ShortestQueue => feature(
                "dispatch-shortest-queue",
                "a dispatch to the branch with fewest jobs (dispatch:, policy: shortest_queue)",
            ),
            Policy::PowerOfD => feature(
                "dispatch-power-of-d",
                "a dispatch to the least busy of d branches drawn at random (policy: power_of_d)",
            ),
            Policy::LeastUtilized => feature(
                "dispatch-least-utilized",
                "a dispatch to the branch whose first station is least busy (policy: least_utilized)",
            ),
            Policy::Shared => {
                feature("dispatch-shared", "one shared queue in front of a dispatch's branches (dispatch:, policy: shared)")
            }
        }
    }
}

impl Word for Tie {
    const FIELD: &'static str = "tie";

    fn feature(self) -> Option<Feature> {
        match self {
            Tie::First => None, // what every engine did before ties could be chosen
            Tie::Random => feature(
                "tie-random",
                "a dispatch choosing at random among the branches its policy finds equal (tie: random)",
            ),
        }
    }
}

/// The dispatch policies that can find branches equal, which `tie:` is for.
pub fn tying_policies() -> Vec<&'static str> {
    words::<Policy>().into_iter().filter(|(_, p)| p.implementation().may_tie).map(|(name, _)| name).collect()
}

impl Policy {
    /// The type that is the policy (dispatch/policies.rs): a new policy is its
    /// variant, its feature above and its type here.
    pub fn implementation(self) -> PolicyType {
        match self {
            Policy::Random => PolicyType::of::<policies::Random>(),
            Policy::RoundRobin => PolicyType::of::<policies::RoundRobin>(),
            Policy::ShortestQueue => PolicyType::of::<policies::ShortestQueue>(),
            Policy::PowerOfD => PolicyType::of::<policies::PowerOfD>(),
            Policy::LeastUtilized => PolicyType::of::<policies::LeastUtilized>(),
            Policy::Shared => PolicyType::of::<policies::Shared>(),
        }
    }

    /// Whether the policy chooses by each branch's first station (so every branch
    /// must start at a station, not with a fork or dispatch).
    pub fn reads_first_stations(self) -> bool {
        self.implementation().reads_first_stations
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_are_serdes_names_in_declaration_order() {
        let names: Vec<&str> = words::<Discipline>().into_iter().map(|(name, _)| name).collect();
        assert_eq!(names, ["fifo", "lifo", "priority", "sjf", "ps"]);
        assert_eq!(words::<Policy>()[3], ("power_of_d", Policy::PowerOfD));
        assert_eq!(words::<Take>()[1], ("first_fit", Take::FirstFit));
        assert_eq!(
            (default_word::<Discipline>(), default_word::<Take>(), default_word::<Assign>()),
            ("fifo", "head", "longest_idle")
        );
        assert_eq!((default_word::<Preempt>(), default_word::<Policy>()), ("none", "random"));
        assert_eq!((default_word::<Tie>(), tying_policies()), ("first", vec!["shortest_queue", "least_utilized", "shared"]));
    }

    #[test]
    fn the_features_have_distinct_names() {
        fn names<W: Word>() -> Vec<&'static str> {
            words::<W>().into_iter().filter_map(|(_, word)| word.feature()).map(|f| f.name).collect()
        }
        let mut all = [
            names::<Discipline>(),
            names::<Take>(),
            names::<Assign>(),
            names::<Preempt>(),
            names::<OffShift>(),
            names::<Policy>(),
            names::<Tie>(),
        ]
        .concat();
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count);
    }
}
