"""The engines that answer a model. For now: discrete-event simulation."""
from .simulate import simulate

__all__ = ["simulate"]
