"""M/M/3 in Ciw, written the way Ciw's own tutorials write a queue.

Usage: python bench/ciw_mm3.py [--customers N] [--seed S]
Prints one JSON line: customers, seconds, customers_per_s and the accuracy check.
Exits 1 if the mean response time misses Erlang C.
"""

import argparse
import json
import sys
import time

import ciw

from mm3_check import MEAN_SERVICE, RATE, SERVERS, check


def simulate(total, seed):
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=RATE)],
        service_distributions=[ciw.dists.Exponential(rate=1.0 / MEAN_SERVICE)],
        number_of_servers=[SERVERS],
    )
    ciw.seed(seed)
    sim = ciw.Simulation(network)
    # "Finish": stop once this many customers have left, as the other loops do.
    sim.simulate_until_max_customers(total, method="Finish")
    records = sorted(sim.get_all_records(), key=lambda r: r.exit_date)
    return [r.exit_date - r.arrival_date for r in records]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    responses = simulate(args.customers, args.seed)
    seconds = time.perf_counter() - start
    result = {"name": "ciw", "version": ciw.__version__, "customers": len(responses),
              "seconds": seconds, "customers_per_s": len(responses) / seconds, **check(responses)}
    print(json.dumps(result))
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()
