#!/usr/bin/env bash
# The wheel as a new user gets it: a fresh virtualenv, a plain `pip install` of the
# built wheel (no test dependencies), then the README's commands run from a folder
# outside the checkout. Any failing command, traceback or panic fails the check.
#   usage: [PYTHON=python3.10] tests/wheel_smoke.sh dist/brewput-VERSION-....whl
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 WHEEL (one built wheel)" >&2; exit 2; }
wheel=$(realpath "$1")
checkout=$(realpath "$(dirname "$0")/..")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$SECONDS

"${PYTHON:-python3}" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet "$wheel"
export PATH="$work/venv/bin:$PATH"
mkdir "$work/user" && cd "$work/user"

# step DESCRIPTION EXPECTED COMMAND...: COMMAND succeeds, says EXPECTED (a fixed
# string), and prints no traceback or panic: piped, as a script or CI runs it, and
# on a terminal (a pseudo-terminal from util-linux's `script`), as a person does,
# where rich draws its live bars and the tables take the terminal's width.
# PIPED_ONLY=1 step ...: piped only, for a command that cannot run twice as written.
step() {
    local what=$1 expected=$2 log="$work/step.log"
    shift 2
    if ! "$@" >"$log" 2>&1; then
        echo "FAILED ($what): $*" >&2; cat "$log" >&2; exit 1
    fi
    said "$what" "$expected" "$log" "$*"
    [ -n "${PIPED_ONLY:-}" ] && { echo "ok  $what"; return; }
    if ! COLUMNS=160 script -qec "$(printf '%q ' "$@")" /dev/null >"$log" 2>&1 </dev/null; then
        echo "FAILED ($what, on a terminal): $*" >&2; cat "$log" >&2; exit 1
    fi
    said "$what, on a terminal" "$expected" "$log" "$*"
    echo "ok  $what (piped and on a terminal)"
}

# said WHAT EXPECTED LOG COMMAND: the LOG of COMMAND says EXPECTED and holds no
# traceback, panic or lost stream.
said() {
    if grep -qE 'Traceback|panicked|lost sys\.std' "$3" || ! grep -qF -- "$2" "$3"; then
        echo "FAILED ($1, expected '$2', no traceback): $4" >&2; cat "$3" >&2; exit 1
    fi
}

# refused WHAT EXPECTED COMMAND...: COMMAND is refused with exit code 2 and one line saying EXPECTED.
refused() {
    local what=$1 expected=$2 log="$work/step.log" code=0
    shift 2
    "$@" >"$log" 2>&1 || code=$?
    if [ "$code" != 2 ] || [ "$(wc -l <"$log")" != 1 ] || ! grep -qF -- "$expected" "$log"; then
        echo "FAILED ($what: exit 2 and one line saying '$expected'; got exit $code): $*" >&2
        cat "$log" >&2; exit 1
    fi
    echo "ok  $what"
}

[ "$(command -v brewput)" = "$work/venv/bin/brewput" ] || { echo "FAILED: brewput is not the wheel's" >&2; exit 1; }
# the installed package, not the checkout's sources
step "imports the installed package" "$work/venv/" python -c "import brewput; print(brewput.__file__)"

version=$(grep -m1 '^version' "$checkout/Cargo.toml" | cut -d'"' -f2)
step "--version" "brewput $version" brewput --version
step "__version__" "$version" python -c "import brewput; print(brewput.__version__)"
step "--help" "examples" brewput --help
step "simulate --help" "--customers" brewput simulate --help

PIPED_ONLY=1 step "examples ." "examples/mmc.yaml" brewput examples .
refused "examples . again" "--force" brewput examples .
step "examples . --force" "examples" brewput examples . --force

step "demo" "Throughput (lattes per second)" brewput demo --customers 2000 --replications 2
[ -f report/index.html ] || { echo "FAILED: demo wrote no report/index.html" >&2; exit 1; }
step "simulate" "desk" brewput simulate examples/mmc.yaml --customers 20000
step "simulate --set" "latte" brewput simulate examples/coffee/finelocking.yaml --set cpus=6 --customers 20000
step "simulate --json" '"classes"' brewput simulate examples/tandem.yaml --customers 20000 --replications 3 --seed 7 --json
step "solve: Erlang C" "34.99" brewput solve examples/helpdesk/merged.yaml
step "solve --set" "cpu" brewput solve examples/central-server.yaml --set users=50
step "compare" "desk" brewput compare examples/helpdesk/site-b.yaml --customers 20000
step "Python API" "3.72" python -c \
    "import brewput; print(brewput.solve('examples/mmc.yaml')['classes']['customer']['response_time']['mean'])"
step "sweep to CSV" "cpus" brewput simulate examples/coffee/finelocking.yaml --sweep cpus=1..6 --customers 5000 -o results.csv
[ -s results.csv ] || { echo "FAILED: no results.csv" >&2; exit 1; }
refused "Parquet without pyarrow" "pip install pyarrow" brewput solve examples/mmc.yaml --sweep c=3..6 -o results.parquet
refused "Dask without distributed" "pip install distributed" brewput simulate examples/mmc.yaml --sweep c=3..4 --executor dask \
    --scheduler tcp://127.0.0.1:8786
step "schema for editors" '"$schema"' brewput schema model
step "study with a report" "finelocking" brewput run examples/studies/coffee.yaml --customers 2000 --replications 2 \
    -o results.json --report study-report
step "report of a record" "report-again" brewput report results.json -o report-again
[ -f report-again/index.html ] || { echo "FAILED: brewput report wrote no index.html" >&2; exit 1; }
step "lab with repetitions" "ideal" brewput lab coffee --impl ideal --cpus 1 --dur 100ms --warmup 10ms --repetitions 2
step "lab --predict" "ideal" brewput lab coffee --impl ideal --cpus 1 --dur 100ms --warmup 10ms --repetitions 2 --predict
step "lab, a thread per barista" "threads runtime" brewput lab coffee --impl linearpipe-0 --cpus 1 --dur 100ms \
    --warmup 10ms --repetitions 1 --runtime threads
step "lab talk, its data bundled" "jitter" brewput lab talk --table jitter --impl ideal
# planning, on the examples and the measured data sets the package ships
step "fit usl" "N* = floor(sqrt((1 - σ) / κ)) = 96" brewput fit usl examples/data/usl/specsdm91.csv
step "plan" "chosen: agents=14" brewput plan examples/planning/call-centre.yaml --vary agents=10..20 \
    --slo 'wait_mean<=20s' --slo 'utilization<=85%' --slo 'wait_p90<=1min' --no-confirm
step "whatif" "pooled" brewput whatif examples/helpdesk/two-sites.yaml --merge desk_a,desk_b
step "doe" "Coefficients" brewput doe examples/coffee/linearpipe-1.yaml --factor cpus=1,4 --factor noise=0,0.5 \
    --customers 2000 --replications 2
step "balance" "exact" brewput balance --centres 16
# a server of our own on loopback, bounded in time, and the load beside its model
port=$((20000 + RANDOM % 20000))
brewput serve --workers 2 --service 'exp(5ms)' --port "$port" --for 15s >"$work/serve.log" 2>&1 &
sleep 1
step "load --predict against serve" "measured beside" brewput load "http://127.0.0.1:$port/" --rate 100 \
    --duration 2s --predict examples/server.yaml
wait

python -m pip install --quiet "$wheel[parquet]"
step "sweep to Parquet" "rate" brewput solve examples/mmc.yaml --sweep c=3..6 --sweep rate=1,2,2.7 -o results.parquet
step "Parquet readable" "12 scenarios" python -c \
    "import pandas; print(pandas.read_parquet('results.parquet').scenario.nunique(), 'scenarios')"

# The docs as tests: every command block of docs/*.md as written, from this wheel, each
# page in a fresh folder after `brewput examples .`, piped; the README's on a terminal,
# as a person first meets them (the same checks; the steps above run each kind of its
# commands piped, and the README again piped would cost the run four minutes more).
docs_tests() {
    if ! "$work/venv/bin/python" "$checkout/tests/docs_as_tests.py" --bin "$work/venv/bin" "$@"; then
        echo "FAILED: the docs as tests $*" >&2; exit 1
    fi
}
docs_tests "$checkout"/docs/*.md
docs_tests --terminal "$checkout/README.md"

# The README's first command on a terminal, from the checkout (built by now): the
# build's progress, the demo's live bar and its tables.
if ! (cd "$checkout" && script -qec "make demo" /dev/null) >"$work/demo.log" 2>&1 </dev/null; then
    echo "FAILED (make demo, on a terminal)" >&2; cat "$work/demo.log" >&2; exit 1
fi
said "make demo, on a terminal" "Throughput (lattes per second)" "$work/demo.log" "make demo"
echo "ok  make demo (on a terminal)"

echo "the wheel's commands on $(python --version): all passed in $((SECONDS - started)) s"
