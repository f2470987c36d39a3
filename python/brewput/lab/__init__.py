"""`brewput lab`: the coffee-shop talk for real, on real threads and CPUs.

The Rust crate brewput-lab runs the implementations and measures them; this
package checks the options, turns each measurement into the results schema
(`engine: "lab"`), runs each implementation's model beside it (`predict`), and
gathers everything into one experiment record.
"""
from importlib import import_module

# Each name's module, imported when the name is first used: the command line
# reads the settings (lab/settings.py) at start-up and pays for no measuring.
_HOMES = {"CoffeeSettings": "settings", "measure_coffee": "coffee", "run_coffee_lab": "coffee",
          "measure_pool": "pool", "predict_pool": "pool", "run_pool_lab": "pool"}
__all__ = list(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_HOMES[name]}", __name__), name)
