"""Two builds of engine-speed side by side: is a change to the engine faster or slower?

On a shared machine one run of each says little: the runs of the two builds are
taken in turn, round after round, and each contender keeps its best time, so a
burst of other work cannot spoil every run of one build. The figure that
matters is the engine's customers/s as a share of the minimal loop's, measured
in the same process (the minimal loop is the same code in both builds, so the
ratio cancels out how fast the machine happens to be).

    mkdir /tmp/before && git archive <commit> | tar -x -C /tmp/before
    (cd /tmp/before && cargo build --release -p engine-speed)
    cargo build --release -p engine-speed
    .venv/bin/python bench/engine-speed/compare.py before=/tmp/before/target/release/engine-speed \\
        after=target/release/engine-speed --rounds 7 --output bench/RESULTS.md

With --output, the section SECTION of that file is replaced (or added at its end).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SECTION = "## Engine speed, before and after a change"
ONE_THREAD = ("brewput", 1)
TWO_REPLICATIONS = ("brewput-replications", 1)
MINIMAL = ("minimal", 1)


def run_once(binary: str, customers: int) -> dict:
    out = subprocess.run([binary, "--repeats", "1", "--customers", str(customers), "--warmup", str(customers // 10)],
                         capture_output=True, text=True, check=True).stdout
    return {(r["name"], r["threads"]): r for r in map(json.loads, out.splitlines())}


def best_of(builds: dict, rounds: int, customers: int) -> dict:
    best = {name: {} for name in builds}
    for _ in range(rounds):
        for name, binary in builds.items():
            for key, r in run_once(binary, customers).items():
                if key not in best[name] or r["seconds"] < best[name][key]["seconds"]:
                    best[name][key] = r
    return best


def table(best: dict) -> list:
    lines = ["| build | minimal loop, customers/s | engine, 1 thread | engine / minimal "
             "| 2 replications, 1 thread | 2 replications / minimal |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, r in best.items():
        minimal = r[MINIMAL]["customers_per_s"]
        one, two = r[ONE_THREAD]["customers_per_s"], r[TWO_REPLICATIONS]["customers_per_s"]
        lines.append(f"| {name} | {minimal:,.0f} | {one:,.0f} | {one / minimal:.1%} | {two:,.0f} | {two / minimal:.1%} |")
    return lines


def replace_section(path: Path, body: list) -> None:
    text = path.read_text() if path.exists() else ""
    start = text.find(SECTION)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + "\n".join(body) + "\n"
    else:
        end = text.find("\n## ", start + len(SECTION))
        rest = "" if end < 0 else text[end:]
        text = text[:start] + "\n".join(body) + "\n" + rest
    path.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", metavar="NAME=BINARY", help="engine-speed binaries to compare")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--customers", type=int, default=10_000_000)
    parser.add_argument("--output", type=Path, help=f"replace the section '{SECTION}' of this file")
    parser.add_argument("--note", default="", help="a paragraph to put under the table")
    args = parser.parse_args()
    builds = {}
    for spec in args.builds:
        name, sep, binary = spec.partition("=")
        if not sep or not Path(binary).is_file():
            print(f"compare.py: {spec}: expected NAME=BINARY with an engine-speed binary", file=sys.stderr)
            return 2
        builds[name] = binary
    best = best_of(builds, args.rounds, args.customers)
    rows = table(best)
    print("\n".join(rows))
    if args.output:
        command = " ".join(["python", "bench/engine-speed/compare.py", *args.builds,
                            "--rounds", str(args.rounds), "--customers", str(args.customers)])
        body = [SECTION, "",
                f"M/M/3 at 90 %, {args.customers:,} customers and a tenth more of warm-up; the builds run in turn, "
                f"{args.rounds} rounds, best time of each contender (`bench/engine-speed/compare.py`).", "",
                *rows, ""]
        if args.note:
            body += [args.note, ""]
        body += ["```", command, "```"]
        replace_section(args.output, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
