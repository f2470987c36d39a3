"""The validated model -> the engine's input (docs/compiled-model.md): flat,
numeric, every name replaced by its index in file order."""
from __future__ import annotations

import math
from typing import Any, Dict, Optional, Union

from .schema import JobClass, ModelSpec, Station


def compile_model(spec: ModelSpec) -> Dict[str, Any]:
    stations = {name: i for i, name in enumerate(spec.stations)}
    resources = {name: i for i, name in enumerate(spec.resources)}
    return {
        "stations": [_station(name, s) for name, s in spec.stations.items()],
        "resources": [{"name": name, "tokens": tokens} for name, tokens in spec.resources.items()],
        "classes": [_class(name, c, stations, resources) for name, c in spec.classes.items()],
    }


def _finite(n: Union[int, float]) -> Optional[int]:
    return None if n == math.inf else int(n)


def _station(name: str, station: Station) -> Dict[str, Any]:
    return {
        "name": name,
        "servers": _finite(station.servers),
        "capacity": _finite(station.servers + station.buffer),
        "discipline": station.discipline,
    }


def _class(name: str, job_class: JobClass, stations: Dict[str, int], resources: Dict[str, int]) -> Dict[str, Any]:
    if job_class.is_open:
        source = {"kind": "open", "interarrival": job_class.interarrival.compile()}
    else:
        source = {"kind": "closed", "population": job_class.population, "think": job_class.think.compile()}
    steps = [
        {
            "station": stations[step.station],
            "service": step.service.compile(),
            "uses": [resources[r] for r in step.uses],
            "next": [[target, p] for target, p in routing],
        }
        for step, routing in zip(job_class.route, job_class.routing())
    ]
    return {"name": name, "priority": job_class.priority, "source": source, "steps": steps}
