"""Analytic answers from queueing theory: the model as a queueing network
(network.py), single-station formulas (queues.py), open, closed and mixed
network solvers, bounds, and the traffic equations they share."""
