"""plan --rota --cost STATION=PRICE: the rota's and the shifts' cost by the hour, from
the intervals' length and the servers on, in the JSON, the table and a redrawn page."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

BREWPUT = str(Path(sys.executable).parent / "brewput")
RUSH = {"brewput": 1, "name": "rush", "time_unit": "min",
        "day": {"start": "08:00", "length": "2h", "interval": "15min"},
        "stations": {"bar": {"servers": [1] * 8}},
        "classes": {"customer": {"rate": [0.5, 1.0, 2.0, 2.0, 1.0, 0.5, 0.5, 0.5],
                                 "route": [{"station": "bar", "service": "exp(2)"}]}}}
SLO = "P(wait<=1min)>=80%"


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("rota") / "rush.yaml"
    path.write_text(yaml.safe_dump(RUSH))
    return path


def plan(model, *args):
    return subprocess.run([BREWPUT, "plan", str(model), "--slo", SLO, "--rota", "exact", "--no-confirm", *args],
                          cwd=model.parent, capture_output=True, text=True, timeout=300)


def test_the_rota_and_its_shifts_cost_their_server_hours_at_the_price(model):
    done = plan(model, "--shift", "1h", "--cost", "bar=18.5", "--json")
    assert done.returncode == 0, done.stderr
    rota = json.loads(done.stdout)
    assert rota["interval_hours"] == 0.25 and rota["price_per_server_hour"] == 18.5
    counts = [i["servers"] for i in rota["intervals"]]
    assert rota["server_hours"] == sum(counts) / 4
    assert rota["cost"] == pytest.approx(18.5 * sum(counts) / 4, rel=1e-15)
    shifts = rota["shifts"]
    assert shifts["server_hours"] == sum(shifts["covered"]) / 4 >= rota["server_hours"]
    assert shifts["cost"] == pytest.approx(18.5 * sum(shifts["covered"]) / 4, rel=1e-15)
    # four intervals an hour: each shift starting is four server-intervals
    assert sum(shifts["starts"]) * 4 >= sum(shifts["covered"])


def test_unpriced_the_rota_has_no_cost(model):
    done = plan(model, "--json")
    assert done.returncode == 0, done.stderr
    rota = json.loads(done.stdout)
    assert rota["price_per_server_hour"] is None and rota["cost"] is None and "shifts" not in rota


def test_the_table_and_the_redrawn_page_say_the_cost(model, tmp_path):
    done = plan(model, "--cost", "bar=20", "--report", str(tmp_path / "page"))
    assert done.returncode == 0, done.stderr
    hours = json.loads((tmp_path / "page" / "record.json").read_text())["server_hours"]
    said = f"costing {20 * hours:,.2f} at 20 a server-hour"
    assert said in " ".join(done.stdout.split()), done.stdout
    redrawn = subprocess.run([BREWPUT, "report", str(tmp_path / "page" / "record.json"), "-o", str(tmp_path / "again")],
                             capture_output=True, text=True, timeout=120)
    assert redrawn.returncode == 0, redrawn.stderr
    page = (tmp_path / "again" / "index.html").read_text()
    assert f"costing {20 * hours:,.2f}" in page


@pytest.mark.parametrize("cost, said", [
    ("bar=18.5,3", "--cost bar=18.5,3: with --rota, the price of a server-hour alone: bar=PRICE"),
    ("desk=18.5", "--cost desk=18.5: with --rota, the price of a server-hour at the station planned: bar=PRICE"),
    ("bar=-1", "--cost bar=-1: expected a price"),
    ("bar", "--cost bar: expected NAME=PRICE"),
])
def test_a_price_that_is_not_a_server_hours_is_refused_before_planning(model, cost, said):
    done = plan(model, "--cost", cost)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and said in done.stderr, done.stderr
