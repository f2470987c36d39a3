"""Stations whose demand and servers change through the day (issue 24), per interval:

- offered_load.py               the Mt/G/inf offered load m(t), exact for any service law;
- transient.py                  one Mt/M/ct(+M) station exactly, by its forward equations;
- virtual_wait.py               the wait of an arrival given the state it finds (FIFO);
- finishing.py                  servers going off shift finish the job in hand (off_shift: finish);
- stationary_approximations.py  PSA, SIPP, lagged SIPP and MOL into Erlang C / Erlang A;
- linear_ode.py                 the equations' solver, for any sparse generator;
- figures.py                    what each method answers;
- day_model.py                  `brewput solve` of a model with a day: which method, the results.

planning/rota.py and rota_shifts.py plan a rota on them; report/day_table.py draws them.
"""
