"""M/M/3 in SimPy, written the way SimPy's own examples write a queue.

Usage: python bench/simpy_mm3.py [--customers N] [--seed S]
Prints one JSON line: customers, seconds, customers_per_s and the accuracy check.
Exits 1 if the mean response time misses Erlang C.
"""

import argparse
import json
import random
import sys
import time

import simpy

from mm3_check import MEAN_SERVICE, RATE, SERVERS, check


def customer(env, server, rng, responses, total, done):
    arrived = env.now
    with server.request() as request:
        yield request
        yield env.timeout(rng.expovariate(1.0 / MEAN_SERVICE))
    responses.append(env.now - arrived)
    if len(responses) == total:
        done.succeed()


def source(env, server, rng, responses, total, done):
    while True:
        yield env.timeout(rng.expovariate(RATE))
        env.process(customer(env, server, rng, responses, total, done))


def simulate(total, seed):
    rng = random.Random(seed)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=SERVERS)
    responses = []
    done = env.event()
    env.process(source(env, server, rng, responses, total, done))
    env.run(until=done)
    return responses


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    responses = simulate(args.customers, args.seed)
    seconds = time.perf_counter() - start
    result = {"name": "simpy", "version": simpy.__version__, "customers": len(responses),
              "seconds": seconds, "customers_per_s": len(responses) / seconds, **check(responses)}
    print(json.dumps(result))
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()
