"""Analytic answers from queueing theory (for now: the traffic equations)."""
