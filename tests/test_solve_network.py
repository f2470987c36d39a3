"""Model -> queueing network: visits, demands, mixtures and unsupported features."""
from pathlib import Path

import numpy as np
import pytest

import brewput
from brewput.analytic.network import Unsupported, network_of

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_feedback_network_visits_and_demands():
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "feedback",
        "stations": {"cpu": {"servers": 2}, "disk": {}, "terminal": {"servers": "inf"}},
        "classes": {
            "job": {"rate": 0.1, "route": [
                {"id": "cpu", "station": "cpu", "service": 2.0, "next": {"disk": 0.75, "exit": 0.25}},
                {"id": "disk", "station": "disk", "service": "exp(1)", "next": "cpu"}]},
            "user": {"population": 3, "think": "exp(5)", "route": [
                {"station": "terminal", "service": 1.0}, {"station": "cpu", "service": 4.0}]},
        },
    })
    net = network_of(model)
    assert net.stations == ("cpu", "disk", "terminal") and net.classes == ("job", "user")
    assert net.servers.tolist() == [2.0, 1.0, np.inf]
    np.testing.assert_allclose(net.visits, [[4, 3, 0], [1, 0, 1]])
    np.testing.assert_allclose(net.demand, [[8, 3, 0], [4, 0, 1]])
    assert net.arrival_rate.tolist() == [0.1, 0.0] and net.population.tolist() == [0, 3]
    assert net.think.tolist() == [0.0, 5.0]
    np.testing.assert_allclose(net.service_scv, [[0, 1, 0], [0, 0, 0]], atol=1e-12)
    assert net.is_open.tolist() == [True, False] and net.is_delay.tolist() == [False, False, True]


def test_a_station_visited_by_two_steps_serves_their_mixture():
    # Steps of 1 (constant) and exp(3) at one station: mean 2, E[S^2] = (1 + 18) / 2.
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "mix", "stations": {"s": {}},
        "classes": {"c": {"rate": 0.1, "route": [
            {"station": "s", "service": 1.0}, {"station": "s", "service": "exp(3)"}]}},
    })
    net = network_of(model)
    assert net.visits[0, 0] == pytest.approx(2.0) and net.service[0, 0] == pytest.approx(2.0)
    assert net.service_scv[0, 0] == pytest.approx(9.5 / 4 - 1)


def test_resources_have_no_analytic_method():
    with pytest.raises(Unsupported) as caught:
        network_of(brewput.load(EXAMPLES / "coffee/finelocking.yaml"))
    assert str(caught.value).endswith(
        "finelocking.yaml: classes.latte.route[0].uses: a step that holds a server and resource tokens "
        "at once (simultaneous possession) has no exact analytic solution here; use brewput simulate")


def test_blocking_inside_a_network_has_no_analytic_method():
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "tandem", "stations": {"a": {}, "b": {"buffer": 2}},
        "classes": {"c": {"rate": 0.5, "route": [{"station": "a", "service": 1}, {"station": "b", "service": 1}]}},
    })
    with pytest.raises(Unsupported, match=r"^tandem: stations.b.buffer: a finite buffer inside a network"):
        network_of(model)


def test_exponential_means_the_distribution_not_just_scv_one():
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "lookalikes", "stations": {"a": {}, "b": {}, "c": {}},
        "classes": {"x": {"arrivals": "lognormal(2, 1)", "route": [
            {"station": "a", "service": "lognormal(1, 1)"},      # scv 1, not exponential
            {"station": "b", "service": "exp(1)"}, {"station": "b", "service": "exp(1)"},
            {"station": "c", "service": "exp(1)"}, {"station": "c", "service": "exp(3)"}]}},
    })
    net = network_of(model)
    assert net.service_scv[0, 0] == pytest.approx(1.0)
    # Two exponential steps of one mean are exponential; of two means, hyperexponential.
    assert net.service_exponential.tolist() == [[False, True, False]]
    assert net.arrival_poisson.tolist() == [False] and net.arrival_scv[0] == pytest.approx(1.0)
