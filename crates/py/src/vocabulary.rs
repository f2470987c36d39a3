//! `brewput._native.VOCABULARY`: the model language's vocabulary (brewput-sim's
//! vocabulary.rs) as one dict, read once by brewput/vocabulary.py:
//!
//! - `words`: for each field that takes a word (`discipline`, `take`, ...), its
//!   words in order, each with the feature it brings, `(name, meaning)`, or None;
//! - `defaults`: the word each of those fields takes when the file leaves it out;
//! - `reads_first_stations`: the dispatch policies that choose by each branch's
//!   first station;
//! - `tying_policies`: the dispatch policies that can find branches equal (`tie:`);
//! - `marked`: the marks every class has (its response time's start and end);
//! - `not_modelled`: what the language refuses as not modelled, `{name: (what, why)}`;
//! - the bounds (`max_branch_depth`, `max_balk_probabilities`, `max_seed`).

use brewput_sim::{default_word, tying_policies, words, Assign, Discipline, OffShift, Policy, Preempt, Take, Tie, Word};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `{word: (feature name, meaning) or None}`, in the enum's order.
fn field<'py, W: Word>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let field = PyDict::new(py);
    for (name, word) in words::<W>() {
        field.set_item(name, word.feature().map(|f| (f.name, f.meaning)))?;
    }
    Ok(field)
}

fn add<'py, W: Word>(words: &Bound<'py, PyDict>, defaults: &Bound<'py, PyDict>) -> PyResult<()> {
    words.set_item(W::FIELD, field::<W>(words.py())?)?;
    defaults.set_item(W::FIELD, default_word::<W>())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let (words, defaults) = (PyDict::new(py), PyDict::new(py));
    add::<Discipline>(&words, &defaults)?;
    add::<Take>(&words, &defaults)?;
    add::<Assign>(&words, &defaults)?;
    add::<Preempt>(&words, &defaults)?;
    add::<OffShift>(&words, &defaults)?;
    add::<Policy>(&words, &defaults)?;
    add::<Tie>(&words, &defaults)?;
    let reads: Vec<&str> =
        brewput_sim::words::<Policy>().into_iter().filter(|(_, p)| p.reads_first_stations()).map(|(n, _)| n).collect();
    let not_modelled = PyDict::new(py);
    for refused in brewput_sim::NOT_MODELLED {
        not_modelled.set_item(refused.name, (refused.what, refused.why))?;
    }
    let vocabulary = PyDict::new(py);
    vocabulary.set_item("words", words)?;
    vocabulary.set_item("defaults", defaults)?;
    vocabulary.set_item("reads_first_stations", reads)?;
    vocabulary.set_item("tying_policies", tying_policies())?;
    vocabulary.set_item("not_modelled", not_modelled)?;
    vocabulary.set_item("marked", brewput_sim::MARKED.to_vec())?;
    vocabulary.set_item("max_branch_depth", brewput_sim::MAX_BRANCH_DEPTH)?;
    vocabulary.set_item("max_balk_probabilities", brewput_sim::MAX_BALK_PROBABILITIES)?;
    vocabulary.set_item("max_seed", brewput_sim::MAX_SEED)?;
    m.add("VOCABULARY", vocabulary)
}
