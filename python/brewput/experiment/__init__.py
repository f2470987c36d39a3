"""Experiments: many scenarios (models x engines x swept params) run on an
executor into one experiment record (docs/experiments.md).

sweep.py parses and expands swept params, study.py reads study files, runner.py
plans and runs scenarios, executors.py says where they run, record.py is the
record and its exports, tables.py prints it.
"""
