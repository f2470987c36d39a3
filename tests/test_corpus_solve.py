"""The corpus (tests/corpus.py): models the analytic solver must refuse in one
line, never a traceback, numpy's "Unable to allocate", an endless loop or a
printed inf/nan: methods whose tables do not fit (each method, under a 1.5 GB
memory cap), numbers at the edge of what a double holds, finite buffers no
method covers, and runs that could never end (`simulate --horizon`)."""
import pytest

from corpus import Case, check, ids


def one_station(station: str, job: str, service: str, name: str = "m") -> str:
    """A model of one station `s` (its fields as flow YAML) and one class `c`
    (its fields, then a one-step route)."""
    return (f"brewput: 1\nname: {name}\nstations:\n  s: {{{station}}}\nclasses:\n  c:\n"
            f"    {job}\n    route:\n      - {{station: s, service: '{service}'}}\n")


def network(classes: int, population: int, stations: int, servers: int = 1) -> str:
    """`classes` closed classes of `population` each, every one visiting all `stations`."""
    lines = ["brewput: 1", "name: big", "stations:"]
    lines += [f"  s{m}: {{servers: {servers}}}" for m in range(stations)]
    lines.append("classes:")
    for r in range(classes):
        lines += [f"  c{r}:", f"    population: {population}", "    think: 1", "    route:"]
        lines += [f"      - {{station: s{m}, service: 'exp({1 + (r + m) % 3})'}}" for m in range(stations)]
    return "\n".join(lines) + "\n"


MB = 1500  # the memory cap of the sizing cases: a method that allocated its tables would die

SIZING = [
    Case("solve-mva-lattice", ["solve", "m.yaml", "--method", "mva"], {"m.yaml": network(4, 200, 20)},
         names=["--method mva (mva-exact)", "4 classes of 200", "20 stations", "GB"], memory_mb=MB),
    Case("solve-mva-exact-one-class", ["solve", "m.yaml", "--method", "mva-exact"],
         {"m.yaml": network(1, 10_000_000, 3)}, names=["--method mva-exact", "10,000,000 customers"], memory_mb=MB),
    Case("solve-convolution-pairs", ["solve", "m.yaml", "--method", "convolution"], {"m.yaml": network(3, 300, 5, 2)},
         names=["--method convolution", "3 classes of 300"], memory_mb=MB),
    Case("solve-convolution-one-class", ["solve", "m.yaml", "--method", "convolution"],
         {"m.yaml": network(1, 1_000_000, 2, 4)}, names=["--method convolution", "1,000,000 customers"], memory_mb=MB),
    Case("solve-exact-multiserver", ["solve", "m.yaml", "--method", "exact"], {"m.yaml": network(2, 5000, 3, 3)},
         names=["--method exact (convolution)", "2 classes of 5,000"], memory_mb=MB),
    Case("solve-exact-single-server", ["solve", "m.yaml", "--method", "exact"], {"m.yaml": network(5, 60, 30)},
         names=["--method exact (mva-exact)", "5 classes of 60"], memory_mb=MB),
    Case("solve-linearizer-classes", ["solve", "m.yaml", "--method", "linearizer"], {"m.yaml": network(300, 2, 10)},
         names=["--method linearizer", "300 classes", "10 stations"], memory_mb=MB),
    Case("solve-bard-schweitzer-classes", ["solve", "m.yaml", "--method", "bard-schweitzer"],
         {"m.yaml": network(1000, 2, 10)}, names=["--method bard-schweitzer", "1,000 classes"], memory_mb=MB),
    Case("solve-approx-too-large", ["solve", "m.yaml", "--method", "approx"], {"m.yaml": network(1000, 2, 10)},
         names=["--method approx (bard-schweitzer)", "use brewput simulate"], memory_mb=MB),
    Case("solve-auto-too-large", ["solve", "m.yaml"], {"m.yaml": network(1000, 2, 10)},
         names=["--method auto (bard-schweitzer)"], memory_mb=MB),
    Case("solve-open-erlang-many-servers", ["solve", "m.yaml"],
         {"m.yaml": "brewput: 1\nname: wide\nstations:\n" + "".join(
             f"  s{m}: {{servers: 10000000}}\n" for m in range(100)) + "classes:\n  c:\n    rate: 1\n    route:\n"
          + "".join(f"      - {{station: s{m}, service: 'exp(1)'}}\n" for m in range(100))},
         names=["100 stations of up to 10,000,000 servers"], memory_mb=MB),
    Case("solve-open-embedded-chain", ["solve", "m.yaml"],
         {"m.yaml": one_station("buffer: 5000000", "rate: 0.5", "erlang(2, 1)")},
         names=["station s with room for 5,000,001 jobs"], memory_mb=MB),
    Case("solve-open-embedded-chain-uniform", ["solve", "m.yaml"],
         {"m.yaml": one_station("buffer: 999999, discipline: lifo", "rate: 2", "uniform(0, 1)")},
         names=["station s with room for 1,000,000 jobs", "use brewput simulate"], memory_mb=MB),
    Case("solve-wide-tables", ["solve", "m.yaml"],
         {"m.yaml": "brewput: 1\nstations:\n" + "".join(f"  s{m}: {{}}\n" for m in range(5000)) + "classes:\n"
          + "".join(f"  c{r}:\n    rate: 1e-6\n    route:\n      - {{station: s{r}, service: 1}}\n"
                    for r in range(5000))},
         names=["m.yaml", "5,000 classes x 5,000 stations", "GB"], memory_mb=MB),
    Case("solve-mixed-closed-part", ["solve", "m.yaml", "--method", "mva"],
         {"m.yaml": network(4, 200, 20).replace("classes:\n", "classes:\n  o:\n    rate: 0.001\n    route:\n"
                                                 "      - {station: s0, service: 'exp(1)'}\n")},
         names=["--method mva (mva-exact)", "4 classes of 200"], memory_mb=MB),
    # tables with more points than a double can count: the estimate itself overflows
    Case("solve-mva-beyond-doubles", ["solve", "m.yaml", "--method", "mva"], {"m.yaml": network(300, 10_000, 1)},
         names=["--method mva (mva-exact)", "more than 1e308 s"], memory_mb=MB),
    Case("solve-convolution-beyond-doubles", ["solve", "m.yaml", "--method", "convolution"],
         {"m.yaml": network(300, 10_000, 1)}, names=["--method convolution", "more than 1e308 GB"], memory_mb=MB),
]

EDGES = [
    Case("solve-utilization-rounds-to-one", ["solve", "m.yaml"],
         {"m.yaml": one_station("servers: 1", "rate: 1e12", "exp(1e-12)")}, names=["station s", "utilization 1 >= 1"]),
    Case("solve-utilization-just-over-one", ["solve", "m.yaml"],
         {"m.yaml": one_station("servers: 10000000", "rate: 10000000.000001", "exp(1)")},
         names=["station s", ">= 1", "unstable"]),
    Case("solve-zero-time-cycle", ["solve", "m.yaml"],
         {"m.yaml": one_station("servers: 1", "population: 3", "const(0)")}, names=["m.yaml", "classes.c", "no time"]),
    Case("solve-zero-time-cycle-empirical", ["solve", "m.yaml"],
         {"m.yaml": one_station("servers: inf", "population: 10000000", "empirical([0, 0])")},
         names=["classes.c", "infinitely fast"]),
    Case("solve-mixed-open-load-one", ["solve", "m.yaml"],
         {"m.yaml": "brewput: 1\nname: mixed\nstations:\n  s: {servers: 1}\nclasses:\n"
                    "  o:\n    rate: 1e12\n    route:\n      - {station: s, service: 'exp(1e-12)'}\n"
                    "  c:\n    population: 2\n    route:\n      - {station: s, service: 'exp(1)'}\n"},
         names=["station s", "open classes alone load it"]),
    Case("solve-sjf-finite", ["solve", "m.yaml"],
         {"m.yaml": one_station("discipline: sjf, buffer: 3", "rate: 0.5", "exp(1)")}, names=["station s", "shortest job first"]),
]

BUFFERS = [
    Case("solve-buffer-in-tandem", ["solve", "m.yaml"],
         {"m.yaml": "brewput: 1\nstations:\n  a: {}\n  b: {buffer: 2}\nclasses:\n  c:\n    rate: 0.5\n    route:\n"
                    "      - {station: a, service: 1}\n      - {station: b, service: 1}\n"},
         names=["m.yaml", "stations.b.buffer", "inside a network of 2 stations"]),
    Case("solve-method-on-outside-buffer", ["solve", "m.yaml", "--method", "linearizer"],
         {"m.yaml": one_station("buffer: 1", "population: 5", "exp(1)")}, names=["--method linearizer", "waiting outside"]),
]

RUNS = [
    Case("simulate-zero-time-cycle-horizon", ["simulate", "m.yaml", "--horizon", "10"],
         {"m.yaml": one_station("servers: 1", "population: 3", "const(0)")}, names=["classes.c", "infinitely fast"],
         timeout=30),
    Case("simulate-zero-time-cycle-customers", ["simulate", "m.yaml", "--customers", "1000"],
         {"m.yaml": one_station("servers: inf", "population: 3\n    think: 0", "const(0)")}, names=["classes.c", "no time"],
         timeout=30),
    Case("simulate-horizon-1e11", ["simulate", "m.yaml", "--horizon", "1e11"],
         {"m.yaml": one_station("servers: 1", "rate: 0.5", "exp(1)")}, names=["--horizon", "4,000,000,000"], timeout=30),
    Case("simulate-warmup-1e11", ["simulate", "m.yaml", "--horizon", "10", "--warmup", "1e11"],
         {"m.yaml": one_station("servers: 1", "rate: 0.5", "exp(1)")}, names=["--warmup", "shorten --warmup"],
         timeout=30),
    Case("simulate-horizon-closed-fast", ["simulate", "m.yaml", "--horizon", "1e6"],
         {"m.yaml": one_station("servers: inf", "population: 1000000", "exp(1e-6)")},
         names=["--horizon", "class c"], timeout=30),
    Case("simulate-horizon-tiny-times", ["simulate", "m.yaml", "--horizon", "1", "--replications", "1"],
         {"m.yaml": one_station("servers: 4", "rate: 1e12", "exp(1e-12)")}, names=["--horizon"], timeout=30),
]

CASES = SIZING + EDGES + BUFFERS + RUNS


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
