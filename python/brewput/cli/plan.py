"""`brewput plan`: the cheapest configuration that meets every objective, from
the options a varied param or field gives, with costs over years."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import BrewputError
from ..steps import telling
from .common import (PageOption, WholeOption, YesOption, app, command_line, err, parse_sets, say, show, show_all,
                     show_line, user_errors)
from .progress import QUICK, progress_bar

SHOWN = 12  # option rows printed; -o keeps them all


@app.command("plan")
@user_errors
def plan_command(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
    slo: List[str] = typer.Option([], "--slo", metavar="EXPR",
                                  help="An objective every option must meet (repeatable): p95<200ms, mean<=2s, "
                                       "wait_p90<20s, utilization<85%, loss<1%, throughput>=100; CLASS. or "
                                       "STATION. before the metric for one (db.utilization<70%).  [default: none; give one or more]"),
    vary: List[str] = typer.Option([], "--vary", metavar="NAME=VALUES",
                                   help="A param, or a field by its path, and the values to try (repeatable): "
                                        "servers=1..64, stations.web.servers=1..64, c=1,2,4,8. One that changes "
                                        "only demand (a class's arrivals, population, think time, service time or "
                                        "routing mix) is a scenario, answered on its own, and plan says so.  "
                                        "[default: none; give one or more]"),
    decide: List[str] = typer.Option([], "--decide", metavar="NAME=VALUES",
                                     help="As --vary, always a decision to choose among (bought or set), even "
                                          "where it changes demand (a population you admit).  [default: none]"),
    scenario: List[str] = typer.Option([], "--scenario", metavar="NAME=VALUES",
                                       help="As --vary, always demand: the cheapest option is found for each value "
                                            "(each combination of scenarios), never bought: per_hour=30,90,120.  "
                                            "[default: none]"),
    cost: List[str] = typer.Option([], "--cost", metavar="NAME=PRICE[,RUNNING]",
                                   help="What one unit of a decision NAME costs (demand is not bought): bought "
                                        "now, and (optionally) to run for a year (repeatable); with --rota, "
                                        "STATION=PRICE, a server-hour's price.  [default: the fewest units]"),
    years: int = WholeOption(3, "--years", help="Years of running costs in the present value."),
    discount: str = typer.Option("0%", "--discount", metavar="RATE",
                                 help="Discount rate a year for the present value, e.g. 10% or 0.1."),
    shrinkage: str = typer.Option("0%", "--shrinkage", metavar="SHARE",
                                  help="The share of each unit's time lost to other work (breaks, training, "
                                       "maintenance): units scheduled = units needed / (1 - shrinkage), e.g. 30%."),
    set_: List[str] = typer.Option([], "--set", help="Override a model param: name=value (repeatable).  "
                                                     "[default: the model's params]"),
    confirm: bool = typer.Option(True, "--confirm/--no-confirm",
                                 help="Simulate the chosen option and the one below it, with 95 % intervals."),
    seed: int = WholeOption(1, "--seed", help="Seed of the confirming simulations (and of --rota simulate's)."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", metavar="FILE.json",
                                          help="Write the plan, every option, as JSON.  [default: none]"),
    report: Optional[Path] = PageOption,
    as_json: bool = typer.Option(False, "--json", help="Print the plan as JSON."),
    yes: bool = YesOption,
    rota: Optional[str] = typer.Option(None, "--rota", metavar="METHOD",
                                       help="For a model with a day: the fewest servers per interval of its one "
                                            "station meeting every objective in every interval, by sipp, "
                                            "lag-sipp, psa, mol, simulate (the iterative staffing algorithm) or "
                                            "exact (planning/rota.py).  [default: none]"),
    shift: Optional[str] = typer.Option(None, "--shift", metavar="TIME",
                                        help="With --rota: servers come on for shifts of this length (4h, a "
                                             "whole number of intervals), the fewest that cover the rota "
                                             "(planning/rota_shifts.py).  [default: servers per interval freely]"),
):
    """The cheapest option that meets every objective: solved where theory is exact, confirmed by simulation."""
    from ..experiment.sweep import parse_sweeps
    from ..model import load
    from ..planning.npv import parse_costs, parse_discount, parse_share
    from ..planning.per_scenario import check_costs, plan_per_scenario
    from ..planning.plan import check_vary, plan, plan_work
    from ..planning.roles import DEMAND, inferred_line, roles
    from ..planning.slo import parse_objective
    from .scenarios import announce, check_json_outputs, write_json

    if not slo:
        raise BrewputError("--slo: name at least one objective, e.g. --slo 'p95<200ms'")
    check_json_outputs(output, report)
    if not 1 <= years <= 100:
        raise BrewputError(f"--years {years}: expected a whole number from 1 to 100")
    rate = parse_discount(discount)
    lost = parse_share("shrinkage", shrinkage, below_one=True)
    loaded = load(model)
    params = parse_sets(set_)
    if params:
        loaded = loaded.with_params(**params)
    objectives = [parse_objective(text, loaded) for text in slo]
    if shift is not None and rota is None:
        raise BrewputError("--shift: covers a planned rota with shifts; give --rota METHOD too")
    if rota is not None:
        from ..planning.rota import (confirm as confirm_rota, judge, plan_rota, rota_objectives, rota_station,
                                     server_hour_price)
        from ..planning.rota_shifts import shift_length, shifts_of, shifts_that_hold
        from ..report.day_table import rota_table

        price = server_hour_price(cost, rota_station(loaded))
        objectives = rota_objectives(objectives, loaded)
        if shift is not None:  # refused before the rota's minutes of work, not after
            shift_length(loaded, shift)

        # each rota tried is a day solved: dozens of them, seconds to a minute
        with progress_bar(enabled=not as_json, label="planning", quiet=QUICK) as progress, telling(progress):
            planned = plan_rota(loaded, objectives, rota, seed=seed)
            planned.price = price
            shifts = None
            if shift is not None and rota == "exact":  # shifts that hold, as the exact rota does
                shifts = shifts_that_hold(loaded, planned.station, objectives, planned.counts, shift)
            elif shift is not None:  # the approximation's rota covered, and judged too
                shifts = shifts_of(loaded, planned.counts, shift)
                shifts.held = [held for held, _ in judge(loaded, planned.station, objectives, shifts.covered)]
            if confirm:  # the day simulated on the rota that will be worked
                worked = planned.counts if shifts is None else shifts.covered
                planned.simulated, figures = confirm_rota(loaded, planned.station, objectives, worked, seed=seed)
                if shifts is None and all(held is None for held in planned.held):  # no transient's to show
                    planned.worst = figures
        plan_json = planned.as_dict(shifts)
        if as_json:
            print(json.dumps(plan_json, indent=2))
        else:
            show(rota_table(planned, [o.text for o in objectives], shifts))
            for note in planned.notes:
                show_line(f"note: {note}")
        if output is not None:
            write_json("plan", output, plan_json)
        if report is not None:
            from ..report.rota_page import rota_record, write_rota_report

            index = write_rota_report(report, rota_record(loaded, planned, objectives, shifts), command_line())
            err.print(f"report: {index}", soft_wrap=True)
        return
    given = {"--vary": parse_sweeps(vary, option="--vary", verb="varied"),
             "--decide": parse_sweeps(decide, option="--decide", verb="decided"),
             "--scenario": parse_sweeps(scenario, option="--scenario", verb="a scenario")}
    check_vary(loaded, given)
    inferred = roles(loaded, given["--vary"])
    scenarios = {**{n: v for n, v in given["--vary"].items() if inferred[n].kind == DEMAND}, **given["--scenario"]}
    decisions = {**{n: v for n, v in given["--vary"].items() if n not in scenarios}, **given["--decide"]}
    if not decisions:
        raise BrewputError(f"--vary: {', '.join(scenarios)} {'is' if len(scenarios) == 1 else 'are'} demand, and "
                           "there is nothing to decide: vary what you can buy or set too, e.g. --vary servers=1..64 "
                           "(or --decide NAME=VALUES to choose demand)")
    costs = parse_costs(cost, {**decisions, **scenarios})
    check_costs(costs, decisions, scenarios)
    line = inferred_line(inferred)
    if line:
        say("plan", "bold", line)
    announce(plan_work(loaded, decisions, scenarios, confirm), "the plan", yes)
    settings = dict(costs=costs, years=years, rate=rate, shrinkage=lost, confirm=confirm, seed=seed)
    with progress_bar(enabled=not as_json, label="options") as progress:
        record = plan_per_scenario(loaded, objectives, decisions, scenarios, progress=progress, **settings) \
            if scenarios else plan(loaded, objectives, decisions, progress=progress, **settings)
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        from ..planning.show import plan_shown

        show_all(plan_shown(record, SHOWN))
    if output is not None:
        write_json("plan", output, record)
    if report is not None:
        from ..planning.report import write_plan_report

        err.print(f"report: {write_plan_report(report, record, command_line())}", soft_wrap=True)
    if scenarios:
        from ..planning.show import unanswered

        if unanswered(record):
            raise BrewputError(f"no option meets every objective ({', '.join(slo)}) at "
                               f"{'; '.join(unanswered(record))} in the values tried: widen --vary or relax --slo")
    elif record["chosen"] is None:
        raise BrewputError(f"no option meets every objective ({', '.join(slo)}) in the values tried: widen "
                           "--vary or relax --slo")
