"""The model language: YAML or Python -> validated model -> the engine's input."""
from .distributions import Distribution
from .model import Model, as_model, load
from .schema import json_schema

__all__ = ["Distribution", "Model", "as_model", "json_schema", "load"]
