"""The state-space engine: a model's continuous-time Markov chain, built from the compiled
model (floor.py, generate.py), sized first (sizing.py), solved (steady.py) into the results
schema (figures.py, solve.py). `brewput solve --method ctmc`; docs/solve.md."""
