"""brewput: one model of a service system, answered three ways."""

from .errors import BrewputError, ModelError
from .model import Model, load
from .engine import simulate

__all__ = ["BrewputError", "Model", "ModelError", "load", "simulate"]
