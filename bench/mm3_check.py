"""The M/M/3 benchmark model and the checks shared by the peer scripts.

The peers run short (seconds), and at utilisation 0.9 the response times of
successive customers are strongly correlated, so a mean over 50,000 customers can
honestly be 10 % off. The check therefore allows the larger of 3 % and four
batch-means standard errors: tight enough to catch a wrong model (a rate given as
a mean, a wrong server count), loose enough not to fail a correct one by chance.
"""

import statistics

RATE = 2.7          # arrivals per second
MEAN_SERVICE = 1.0  # seconds
SERVERS = 3
WARMUP_FRACTION = 0.1  # the first customers see an empty system: left out of the mean
TOLERANCE = 0.03
BATCHES = 20


def erlang_c_response(rate=RATE, mean_service=MEAN_SERVICE, servers=SERVERS):
    """Mean response time of M/M/c: W = 1/mu + C(c, a) / (c mu - lambda)."""
    a = rate * mean_service
    b = 1.0  # Erlang B by its stable recursion, then C from B
    for k in range(1, servers + 1):
        b = a * b / (k + a * b)
    c = servers * b / (servers - a * (1.0 - b))
    return mean_service + c * mean_service / (servers - a)


def check(responses):
    """Responses in completion order -> the fields every peer prints about accuracy."""
    kept = responses[int(len(responses) * WARMUP_FRACTION):]
    mean = statistics.fmean(kept)
    size = len(kept) // BATCHES
    batch_means = [statistics.fmean(kept[i * size:(i + 1) * size]) for i in range(BATCHES)]
    std_error = statistics.stdev(batch_means) / BATCHES ** 0.5
    truth = erlang_c_response()
    tolerance = max(TOLERANCE, 4 * std_error / truth)
    error = mean / truth - 1.0
    return {"mean_response": mean, "erlang_c": truth, "error": error,
            "tolerance": tolerance, "ok": abs(error) <= tolerance}
