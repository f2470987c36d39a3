"""Erlang A (M/M/c+M): everyone joins and waits at most an exponential patience;
the laws of the wait and response of those served (birth_death.py), the chain
cut where abandonment.py cuts it."""
from __future__ import annotations

import math

from ..abandonment import chain_states
from . import Laws
from .birth_death import birth_death_laws


def erlang_a_laws(lam: float, s: float, c: int, patience: float) -> Laws:
    states = int(math.ceil(chain_states(lam, s, c, patience=patience)))
    return birth_death_laws(lam, s, c, patience, lambda n: 1.0, states, "erlang-a")
