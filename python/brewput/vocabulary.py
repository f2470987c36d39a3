"""The model language's vocabulary, owned by the Rust engine (crates/sim/src/vocabulary.rs)
and read here once from `_native.VOCABULARY`: the words a field may take (disciplines,
take and assignment rules, preempt modes, dispatch policies and ties), the feature each brings,
what the language refuses as not modelled, the bounds of the language, the engine's
confidence level and the largest seed.

Every other Python place (validation, features, the JSON Schema, solve's allow-list,
the options taking a seed or a level) takes these from here, never its own copy:
tests/test_vocabulary.py proves that the two languages agree."""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from . import _native


class _FromEngine(dict):
    """A table of the engine's vocabulary. An entry it lacks is an older build's (a
    checkout pulled but not rebuilt): raised as the missing attribute of `_native`
    it is, which the command line says in one line (__main__.py)."""

    def __missing__(self, key):
        raise AttributeError(f"brewput._native.VOCABULARY has no {key!r}", name=f"VOCABULARY[{key!r}]", obj=_native)


_VOCABULARY = _FromEngine(_native.VOCABULARY)

#: For each field that takes a word, its words in order with the feature each
#: brings, (name, meaning), or None (the word an engine models unless told otherwise).
WORDS: Dict[str, Dict[str, Optional[Tuple[str, str]]]] = _FromEngine(_VOCABULARY["words"])
#: The word each of those fields takes when a file leaves it out.
DEFAULTS: Dict[str, str] = _FromEngine(_VOCABULARY["defaults"])

DISCIPLINES: Tuple[str, ...] = tuple(WORDS["discipline"])
TAKES: Tuple[str, ...] = tuple(WORDS["take"])  # which waiting job a freed typed server takes
ASSIGNS: Tuple[str, ...] = tuple(WORDS["assign"])  # which idle typed server an arriving job takes
PREEMPTS: Tuple[str, ...] = tuple(WORDS["preempt"])  # what a job a higher priority takes the server from does
OFF_SHIFTS: Tuple[str, ...] = tuple(WORDS["off_shift"])  # what a server a rota takes off does with its job
POLICIES: Tuple[str, ...] = tuple(WORDS["policy"])  # how a dispatch chooses its branch
#: The policies that choose by each branch's first station (so each branch starts at one).
READS_FIRST_STATIONS: Tuple[str, ...] = tuple(_VOCABULARY["reads_first_stations"])
TIES: Tuple[str, ...] = tuple(WORDS["tie"])  # how a dispatch chooses among branches its policy finds equal
#: The policies that can find branches equal, which `tie:` is for.
TYING_POLICIES: Tuple[str, ...] = tuple(_VOCABULARY["tying_policies"])

#: The marks every class has: its response time runs from the first to the second.
MARKED: Tuple[str, ...] = tuple(_VOCABULARY["marked"])
#: What the language refuses as not modelled (it has no one meaning): {name: (what, why)}.
NOT_MODELLED: Dict[str, Tuple[str, str]] = _VOCABULARY["not_modelled"]

MAX_BRANCH_DEPTH: int = _VOCABULARY["max_branch_depth"]  # forks and dispatches inside branches of them
MAX_BALK_PROBABILITIES: int = _VOCABULARY["max_balk_probabilities"]  # a step's balk: [...] list
MAX_SEED: int = _VOCABULARY["max_seed"]  # the engine's, the lab's and the load generator's seeds are u64
CONFIDENCE: float = _native.CONFIDENCE  # the level of every interval the engine gives


def feature(field: str, word: str) -> Optional[str]:
    """The name of the feature that `word` in `field` brings (None: none)."""
    brought = WORDS[field][word]
    return None if brought is None else brought[0]


def not_modelled(name: str, subject: str) -> str:
    """The refusal of `subject` (the field as written, `preempt: resume`) as the
    not-modelled `name`: `{subject} {what} is not modelled ({why})`, the engine's words."""
    what, why = NOT_MODELLED[name]
    return f"{subject} {what} is not modelled ({why})"
