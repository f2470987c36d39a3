"""The engines that answer a model: `simulate.py` (the Rust discrete-event
engine) and `solve.py` (queueing theory). Import them by module, so that using
one does not pay for loading the other."""
