"""Closed-form queueing results, written from the textbook formulas.

These are the independent truths the simulator is checked against, so nothing here
imports brewput. Notation: arrival rate `lam`, service rate `mu` (= 1 / mean
service time), `c` servers, offered load `a = lam / mu`, utilization
`rho = a / c`. Every function assumes a stable queue (rho < 1).
"""
from math import log


def erlang_b(c, a):
    """Erlang's loss formula B(c, a), by the recursion B(k) = a B(k-1) / (k + a B(k-1)).

    The recursion never forms a^c or c!, so it is stable for any c.
    """
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def erlang_c(c, a):
    """Erlang's C formula: the probability that an arrival to an M/M/c queue waits."""
    b = erlang_b(c, a)
    rho = a / c
    return b / (1.0 - rho * (1.0 - b))


def mmc_wait_mean(lam, mu, c):
    """Mean time in queue of an M/M/c queue: C / (c mu - lam)."""
    return erlang_c(c, lam / mu) / (c * mu - lam)


def mmc_response_mean(lam, mu, c):
    """Mean time in the system (queue and service) of an M/M/c queue."""
    return mmc_wait_mean(lam, mu, c) + 1.0 / mu


def mmc_wait_quantile(lam, mu, c, q):
    """The q-quantile of an M/M/c queue's waiting time.

    P(Wq > t) = C exp(-(c mu - lam) t): an atom of 1 - C at zero and an
    exponential tail, so the quantile is 0 while q <= 1 - C.
    """
    p_wait = erlang_c(c, lam / mu)
    if 1.0 - q >= p_wait:
        return 0.0
    return log(p_wait / (1.0 - q)) / (c * mu - lam)


def mm1_response_quantile(lam, mu, q):
    """The q-quantile of an M/M/1 (FIFO) response time: exponential of rate mu - lam."""
    return -log(1.0 - q) / (mu - lam)


def blocking_pair_throughput(mu1, mu2, buffer):
    """Throughput of two exponential single servers in series, the first never
    starved, with room for `buffer` waiting jobs before the second and blocking
    after service. Returns (throughput, p_first_blocked).

    Count the jobs at the second station, plus one when the first is blocked:
    k = 0 .. buffer + 2 rises at mu1 and falls at mu2, a birth-death chain with
    pi_k proportional to (mu1 / mu2)^k. Throughput = mu2 P(k > 0); the first is
    blocked in the top state. Equal rates, no buffer: 2/3 of mu (3 equal states).
    """
    weights = [(mu1 / mu2) ** k for k in range(buffer + 3)]
    total = sum(weights)
    return mu2 * (1.0 - weights[0] / total), weights[-1] / total


def pk_wait_mean(lam, mean, scv):
    """Pollaczek-Khinchine mean wait of an M/G/1 queue.

    Wq = lam E[S^2] / (2 (1 - rho)), with E[S^2] = mean^2 (1 + scv) for a
    service time of the given mean and squared coefficient of variation.
    """
    rho = lam * mean
    return lam * mean * mean * (1.0 + scv) / (2.0 * (1.0 - rho))


def tandem_response(lam, stations):
    """Per-station mean response times of an open Jackson tandem line.

    `stations` is a list of (mu, c). By Jackson's theorem each station behaves as
    an independent M/M/c queue fed at rate lam; the total is their sum.
    """
    return [mmc_response_mean(lam, mu, c) for mu, c in stations]


def mva(demands, think, population):
    """Exact mean value analysis of a single-class closed product-form network.

    `demands[k]` = visits x mean service time at single-server FCFS station k
    (exponential service); `think` is the mean of an infinite-server delay.
    Returns (throughput, residence, queue): residence[k] is the time a customer
    spends at station k per cycle (all visits together), queue[k] the mean number
    there. The recursion over n = 1..N:
        R_k(n) = D_k (1 + Q_k(n - 1)),  X(n) = n / (Z + sum R_k(n)),  Q_k(n) = X(n) R_k(n).

    Worked by hand for D = (1, 2), Z = 1, N = 2:
        n = 1: R = (1, 2),       X = 1 / (1 + 3)     = 0.25,     Q = (0.25, 0.5)
        n = 2: R = (1.25, 3),    X = 2 / (1 + 4.25)  = 0.380952, Q = (0.476190, 1.142857)
    """
    queue = [0.0] * len(demands)
    throughput, residence = 0.0, list(demands)
    for n in range(1, population + 1):
        residence = [d * (1.0 + q) for d, q in zip(demands, queue)]
        throughput = n / (think + sum(residence))
        queue = [throughput * r for r in residence]
    return throughput, residence, queue
