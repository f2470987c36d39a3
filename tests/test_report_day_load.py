"""The report of a measured day (`brewput load --day MODEL --days 2 --predict MODEL -o FILE`,
then `brewput report FILE`; report/day_measured.py): a short live run against the demo
server following a rota, its rate and mean response per interval with their intervals
across the days drawn as the results hold them, beside each engine's prediction, every
number read back from the plotly figure."""
import json
import subprocess
import sys

from load_server import serving

from brewput.report.day_measured import measured_chart
from brewput.report.interactive import figure

# Two seconds in four intervals, the server's workers following the model's rota.
DAY = """brewput: 1
name: a short web day
time_unit: ms
day: {length: 2s, interval: 500ms}
stations:
  web: {servers: [1, 2, 3, 2]}
classes:
  request:
    rate: [0.05, 0.15, 0.3, 0.1]
    route: [{station: web, service: exp(5)}]
"""


def _brewput(*args, cwd):
    return subprocess.run([sys.executable, "-m", "brewput", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def _traces(chart, k):
    axis = "x" if k == 0 else f"x{k + 1}"
    return {t.name: t for t in figure(chart).data if t.xaxis == axis and t.name}


def test_a_measured_day_is_drawn_beside_its_predictions(tmp_path):
    (tmp_path / "day.yaml").write_text(DAY)
    with serving("exp(5ms)", workers=3, rota=([1, 2, 3, 2], 0.5, True)) as url:   # the rota again each day
        done = _brewput("load", url, "--day", "day.yaml", "--days", "2", "--predict", "day.yaml", "-o", "load.json",
                        cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = _brewput("report", "load.json", "-o", "page", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in (tmp_path / "page" / "charts").iterdir()] == ["day_measured.png"]
    results = json.loads((tmp_path / "load.json").read_text())
    intervals = results["intervals"]
    chart = measured_chart(results)
    rate = _traces(chart, 0)
    assert list(rate["target"].y) == [50, 150, 300, 100, 100] and list(rate["target"].x) == [0, 500, 1000, 1500, 2000]
    assert list(rate["achieved"].y) == [i["classes"]["request"]["achieved_rate"] for i in intervals]
    band = list(rate["achieved 95 % CI"].y)   # across the two days; its outline: the highs forward, the lows back
    assert band[:len(band) // 2] == [i["classes"]["request"]["achieved_rate_ci"][1] for i in intervals]
    means = _traces(chart, 1)
    assert list(means["measured"].x) == [250, 750, 1250, 1750]
    assert list(means["measured"].y) == [i["classes"]["request"]["response_time"]["mean"] for i in intervals]
    band = list(means["measured 95 % CI"].y)
    assert band[:len(band) // 2] == [i["classes"]["request"]["response_time"]["mean_ci"][1] for i in intervals]
    solve = next(name for name in means if name.startswith("solve"))
    predicted = [row["engines"] for row in results["predicted"]["intervals"]]
    assert list(means[solve].y) == [p["solve"]["mean"] for p in predicted]
    assert means[solve].line.dash == "dot"
    assert list(means["simulate"].y) == [p["simulate"]["mean"] for p in predicted]
    band = list(means["simulate 95 % CI"].y)
    high = band[:len(band) // 2]
    assert high == [p["simulate"]["mean_ci"][1] for p in predicted]
