"""The corpus (tests/corpus.py) for `brewput plan --rota`: objectives no count of servers
meets, refused in one line naming --slo (issue 26: they climbed towards a thousand
servers a day, for ten minutes and more, or claimed a rota by a figure rounded to its bound).

Classes: a model the method does not solve at any count (a rota short everywhere, once
searched up to a thousand servers and called unmet); a bound no figure reaches whatever the servers (no loss where customers give up
or balk, every wait within T where arrivals come at random), refused before any search;
a figure that more servers bring no nearer (a utilization floor), refused where the
search sees it, by each method that searches: sipp (each interval alone), exact (the
transient) and simulate (the iterative staffing algorithm)."""
import pytest

from corpus import Case, check, ids

RUSH = """\
brewput: 1
name: rush
time_unit: min
day: {start: "08:00", length: 60min, interval: 15min}
stations:
  bar: {servers: [1, 1, 1, 1]}
classes:
  customer:
    rate: [0.5, 2.0, 0.5, 0.5]
    route: [{station: bar, service: exp(5)%s}]
"""
MODELS = {"plain": RUSH % "", "patience": RUSH % ", patience: exp(2)", "balk": RUSH % ", balk: 3",
          "lognormal": (RUSH % "").replace("exp(5)", "lognormal(5, 0.5)")}
METHODS = ("sipp", "exact", "simulate")


def rota(method, objective, model, *names):
    # a minute is far more than any of these takes: a refusal comes before the search or
    # within a few servers of it. --json: no line per rota tried on a pipe (shown once a
    # search has run a second, as on a busy machine), so stderr holds the refusal alone.
    return Case(f"{method}-{objective}-{model}",
                ["plan", "m.yaml", "--rota", method, "--slo", objective, "--no-confirm", "--json"],
                {"m.yaml": MODELS[model]}, names=names, max_lines=1, timeout=60)


CASES = [
    *(rota(m, "P(wait<=30s)>=80%", "lognormal", "m.yaml", "exponential service") for m in ("sipp", "psa", "exact")),
    *(rota(m, "loss<=0%", "patience", "--slo loss<=0%", "give up", "whatever the servers") for m in METHODS),
    *(rota(m, "customer.loss<=0", "balk", "--slo customer.loss<=0", "balk", "whatever the servers") for m in METHODS),
    *(rota(m, "P(wait<=30s)>=100%", "plain", "--slo P(wait<=30s)>=100%", "at random", "whatever the servers")
      for m in METHODS),
    *(rota(m, "utilization>=95%", "patience", "--slo utilization>=95%", "08:00 no nearer", "more will not")
      for m in METHODS),
    *(rota(m, "bar.utilization>=95%", "plain", "--slo bar.utilization>=95%", "08:00 no nearer", "more will not")
      for m in METHODS),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_an_objective_no_rota_meets_is_refused(case, tmp_path):
    check(case, tmp_path)
