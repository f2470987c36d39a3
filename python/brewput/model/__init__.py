"""The model language: YAML or Python -> validated model -> the engine's input."""
from .distributions import Distribution
from .model import Model, as_model, load

__all__ = ["Distribution", "Model", "as_model", "load"]
