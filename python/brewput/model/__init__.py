"""The model language: YAML or Python -> validated model -> the engine's input."""
from .distributions import Distribution
from .model import Model, load

__all__ = ["Distribution", "Model", "load"]
