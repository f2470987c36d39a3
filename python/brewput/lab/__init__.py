"""`brewput lab`: the coffee-shop talk for real, on real threads and CPUs.

The Rust crate brewput-lab runs the implementations and measures them; this
package checks the options, turns each measurement into the results schema
(`engine: "lab"`), runs each implementation's model beside it (`predict`), and
gathers everything into one experiment record.
"""
from .coffee import CoffeeSettings, measure_coffee, run_coffee_lab
from .pool import measure_pool, predict_pool, run_pool_lab

__all__ = ["CoffeeSettings", "measure_coffee", "run_coffee_lab", "measure_pool", "predict_pool", "run_pool_lab"]
