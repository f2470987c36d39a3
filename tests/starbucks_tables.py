"""docs/starbucks.md's early-ordering tables, written from the Starbucks study's
experiment record (`brewput run examples/studies/starbucks.yaml -o record.json`):
one table per drink mix, a row per arrival rate and counter. tests/test_starbucks.py
re-runs the study and checks that the page holds exactly these tables.

    python tests/starbucks_tables.py record.json      # print them, to paste
"""
import json
import sys

from brewput.figures import with_ci

COUNTERS = ("fifo", "first-fit", "early-order")
HEADER = ("| customers a minute | counter | drinks a minute | balked (%) | reneged (%) "
          "| from ordering: espresso | drip | from paying: espresso | drip |\n"
          "|---|---|---|---|---|---|---|---|---|")


def _percent(share, ci):
    return with_ci(100 * share, [100 * ci[0], 100 * ci[1]])


def _median(cls, measure):
    return with_ci(cls["measures"][measure]["p50"], cls["measures"][measure]["p50_ci"])


def table(record, espresso_share):
    """The markdown table of one drink mix: the bar's throughput (all drinks), the
    share of espresso customers who balked and who reneged, and the median minutes
    from ordering and from paying to the drink, per class."""
    rows = {(s["model"], s["params"]["rate"]): s["results"] for s in record["scenarios"]
            if s["params"]["espresso_share"] == espresso_share}
    lines = [HEADER]
    for rate in sorted({rate for _, rate in rows}):
        for counter in COUNTERS:
            results = rows[counter, rate]
            bar, espresso, drip = results["stations"]["bar"], results["classes"]["espresso"], results["classes"]["drip"]
            cells = [str(rate), counter, with_ci(bar["throughput"], bar["throughput_ci"])]
            cells += [_percent(espresso["loss_probability_by"][reason], espresso["loss_probability_by_ci"][reason])
                      for reason in ("balked", "reneged")]
            cells += [_median(cls, measure) for measure in ("from_order", "from_paying") for cls in (espresso, drip)]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    record = json.load(open(sys.argv[1]))
    for share in sorted({s["params"]["espresso_share"] for s in record["scenarios"]}):
        print(f"{share}:\n{table(record, share)}\n")
