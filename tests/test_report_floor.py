"""The report's service-floor figures (issue 11): utilization per server type, lost
customers per reason and the measures between marks, each drawn from the record's
own figures. The figures are set on a real M/M/c sweep's results as the engine
writes them (docs/results.md), so every number a chart draws is checked against
the record it came from; tests/test_starbucks.py draws a real study's."""
import pytest

from report_records import two_params_record

from brewput.errors import BrewputError
from brewput.experiment.record_schema import check_record
from brewput.report.charts import charts
from brewput.report.data import ChartData
from brewput.report.html import write_report
from brewput.report.summary import headlines


def floor_record():
    """M/M/c over c and the rate, with a typed desk, customers lost by reason and two measures."""
    record = two_params_record()
    for s in record["scenarios"]:
        c = s["params"]["c"]
        results = s["results"]
        figures = results["classes"]["customer"]
        figures["loss_probability_by"] = {"full": 0.0, "balked": 0.01 * c, "reneged": 0.002}
        figures["loss_probability_by_ci"] = {"full": [0.0, 0.0], "balked": [0.009 * c, 0.011 * c],
                                             "reneged": [0.001, 0.003]}
        figures["loss_probability"] = sum(figures["loss_probability_by"].values())  # the total, as the engine's
        figures["lost_by"] = {"full": 0, "balked": 10 * c, "reneged": 2}
        figures["measures"] = {"from_paying": dict(figures["waiting_time"]),
                               "from_order": dict(figures["response_time"])}
        figures["measures_count"] = {"from_paying": 100, "from_order": 100}
        results["stations"]["desk"]["server_types"] = {
            "espresso_machine": {"utilization": 0.1 * c, "utilization_ci": [0.09 * c, 0.11 * c],
                                 "served": {"customer": 0.5}},
            "drip_station": {"utilization": 0.7, "utilization_ci": [0.6, 0.8], "served": {"customer": 0.25}}}
    return record


def by_name(record):
    return {chart.name: chart for chart in charts(record)}


def results_of(record, c, rate):
    return next(s["results"] for s in record["scenarios"] if s["params"] == {"c": c, "rate": rate})


def test_a_line_per_server_type_beside_its_station():
    record = floor_record()
    (panel,) = by_name(record)["utilization"].panels
    lines = {line.label: line for line in panel.items}
    assert set(lines) == {f"desk{kind} · rate={rate}" for kind in ("", " · espresso_machine", " · drip_station")
                          for rate in (1.0, 1.5)}
    espresso = lines["desk · espresso_machine · rate=1.5"]
    assert list(espresso.x) == [2, 3, 4]
    for c, y, low, high in zip(espresso.x, espresso.y, espresso.low, espresso.high):
        typed = results_of(record, c, 1.5)["stations"]["desk"]["server_types"]["espresso_machine"]
        assert y == pytest.approx(100 * typed["utilization"])
        assert [low, high] == pytest.approx([100 * v for v in typed["utilization_ci"]])
    # each type has one colour in every panel, not the station's
    assert lines["desk · espresso_machine · rate=1.0"].color != lines["desk · rate=1.0"].color


def test_lost_customers_a_panel_per_reason_that_lost_any():
    record = floor_record()
    panels = by_name(record)["lost"].panels
    assert [p.title for p in panels] == ["balked at the queue", "ran out of patience"]  # none turned away full
    balked = {line.label: line for line in panels[0].items}["mmc · rate=1.0"]
    for c, y, low, high in zip(balked.x, balked.y, balked.low, balked.high):
        figures = results_of(record, c, 1.0)["classes"]["customer"]
        assert y == pytest.approx(100 * figures["loss_probability_by"]["balked"])
        assert [low, high] == pytest.approx([100 * v for v in figures["loss_probability_by_ci"]["balked"]])
    assert panels[0].y_label == "customers lost (%)"


def test_measures_beside_the_response_time_in_display_units():
    record = floor_record()
    chart = by_name(record)["measures"]
    assert [p.title for p in chart.panels] == ["response time (arrival to done)", "from_paying", "from_order"]
    factor = ChartData(record).units.time_from(record["scenarios"][0]["results"]["time_unit"])
    line = {l.label: l for l in chart.panels[1].items}["mmc · rate=1.5"]
    for c, y, low, high in zip(line.x, line.y, line.low, line.high):
        waiting = results_of(record, c, 1.5)["classes"]["customer"]["waiting_time"]
        assert y == pytest.approx(waiting["p50"] * factor)
        assert [low, high] == pytest.approx([max(v * factor, 0.0) for v in waiting["p50_ci"]])
    response = {l.label: l for l in chart.panels[0].items}["mmc · rate=1.5"]
    assert response.y == pytest.approx([results_of(record, c, 1.5)["classes"]["customer"]["response_time"]["p50"]
                                        * factor for c in (2, 3, 4)])


def test_no_floor_figures_no_floor_charts():
    names = set(by_name(two_params_record()))
    assert "lost" not in names and "measures" not in names
    (panel,) = by_name(two_params_record())["utilization"].panels
    assert all("·" not in line.label.split(" · rate")[0] for line in panel.items)


def test_summary_names_each_measure_and_the_share_lost():
    record = floor_record()
    table = headlines(ChartData(record))
    row = table[table["model"] == "mmc · rate=1.0"].iloc[0]
    last = results_of(record, 4, 1.0)["classes"]["customer"]
    unit = ChartData(record).units.time
    assert float(row[f"median from_paying ({unit}) at c=4"]) == pytest.approx(last["waiting_time"]["p50"], rel=1e-3)
    # loss_probability is the engine's total over the reasons
    assert float(row["lost (%) at c=4"]) == pytest.approx(100 * last["loss_probability"], rel=1e-3, abs=1e-9)
    assert "lost (%) at c=4" not in headlines(ChartData(two_params_record())).columns


def test_the_page_is_written_and_a_malformed_server_type_is_one_line(tmp_path):
    record = floor_record()
    index = write_report(record, tmp_path / "report")
    page = index.read_text()
    assert 'id="lost"' in page and 'id="measures"' in page
    assert (tmp_path / "report" / "charts" / "lost.png").stat().st_size > 0
    record["scenarios"][1]["results"]["stations"]["desk"]["server_types"]["drip_station"]["utilization"] = "busy"
    with pytest.raises(BrewputError) as e:
        check_record(record, "r.json")
    assert str(e.value).startswith("r.json: scenarios[1].results.stations.desk.server_types.drip_station.utilization")
    assert "\n" not in str(e.value)


# ---- the printed tables of one result (brewput simulate) ------------------------

def cells(table, row):
    return [str(column._cells[row]) for column in table.columns]


def test_printed_tables_show_losses_measures_and_server_types():
    from brewput.figures import with_ci
    from brewput.report.table import results_tables

    res = floor_record()["scenarios"][0]["results"]  # in seconds: times print as they are
    titles = [t.title for t in results_tables(res)]
    assert titles[1:3] == ["lost customers (% of arrivals)", "measures (time between marks)"]
    lost, measures = results_tables(res)[1:3]
    figures = res["classes"]["customer"]
    assert cells(lost, 0) == ["customer", "0", with_ci(100 * figures["loss_probability_by"]["balked"],
                                                         [100 * v for v in figures["loss_probability_by_ci"]["balked"]]),
                              with_ci(100 * 0.002, [100 * 0.001, 100 * 0.003]),
                              with_ci(100 * figures["loss_probability"], None)]
    waiting = figures["waiting_time"]
    assert cells(measures, 0)[:4] == ["customer", "from_paying", with_ci(waiting["mean"], waiting["mean_ci"]),
                                      with_ci(waiting["p50"], waiting["p50_ci"])]
    assert cells(measures, 0)[-1] == "100"
    types = results_tables(res)[4]
    assert types.title.startswith("server types")
    typed = res["stations"]["desk"]["server_types"]["espresso_machine"]
    assert cells(types, 0)[:3] == ["desk", "espresso_machine", with_ci(typed["utilization"], typed["utilization_ci"])]
    # a result without the service floor prints the tables it always did
    plain = two_params_record()["scenarios"][0]["results"]
    assert [t.title.split(":")[0].split(" (")[0] for t in results_tables(plain)] == [plain["model"], "stations"]


def test_a_real_study_draws_its_server_types_losses_and_measures():
    from report_records import starbucks_record

    record = starbucks_record()
    built = by_name(record)
    assert {"lost", "measures"} <= set(built)
    (fifo, first_fit, early) = built["utilization"].panels
    labels = {line.label for line in first_fit.items}
    assert {"bar · espresso_machine · espresso_share=0.6", "bar · drip_station · espresso_share=0.6"} <= labels
    line = next(l for l in first_fit.items if l.label == "bar · espresso_machine · espresso_share=0.6")
    for rate, y in zip(line.x, line.y):
        results = next(s["results"] for s in record["scenarios"] if s["model"] == "first-fit"
                       and s["params"] == {"rate": rate, "espresso_share": 0.6})
        assert y == pytest.approx(100 * results["stations"]["bar"]["server_types"]["espresso_machine"]["utilization"])
    # early ordering has two different marks; the others give the order where they pay
    panels = {p.title: p for p in built["measures"].panels}
    assert set(panels) == {"response time (arrival to done)", "from_order", "from_paying"}


def test_brewput_run_prints_the_share_lost_per_model_when_some_were_lost():
    from rich.console import Console

    from report_records import starbucks_record
    from brewput.report.record_tables import lost_any, pivot_table

    record = starbucks_record()
    assert lost_any(record) and not lost_any(two_params_record())
    table = pivot_table(record, "lost")
    assert table.title == "Lost customers (% of arrivals)"
    console = Console(width=400, record=True, color_system=None)
    console.print(table)
    text = console.export_text()
    early = next(s["results"] for s in record["scenarios"] if s["model"] == "early-order"
                 and s["params"] == {"rate": 3, "espresso_share": 0.6})
    from brewput.figures import number
    row = next(line for line in text.splitlines() if "early-order espresso espresso_share=0.6" in line)
    assert number(100 * early["classes"]["espresso"]["loss_probability"]) in row
