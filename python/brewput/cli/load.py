"""`brewput load` (a real service under open-loop load) and `brewput serve`
(the M/G/c demo server to measure).

Every option arrives as text and is checked by loadtest/options.py before
anything is sent or bound. Exit codes of `load`: 0 every threshold held, 1 a
threshold broke, 2 a usage error (a bad option, an unknown metric, a target
that cannot be reached), 130 Ctrl-C (what was measured is still shown)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from .. import shutdown
from ..errors import BindError, BrewputError, LoadInputError, LoadSystemError
from ..loadtest.settings import LoadSettings
from ..outputs import writing
from .common import SetOption, app, command_line, err, folder_path, out, parse_sets, user_errors, warning_line
from .scenarios import check_folder, check_outputs, write_outputs
from .setting_option import setting_option

THRESHOLD_BROKEN = 1


@app.command("load")
@user_errors
def load(
    url: Optional[str] = typer.Argument(None, help="The target: an http:// or https:// URL (or use --exec)."),
    exec_command: Optional[str] = typer.Option(None, "--exec", metavar="CMD",
                                               help="Run this shell command per request instead of HTTP.  [default: none]"),
    rate: Optional[str] = typer.Option(None, "--rate", metavar="PER_S", help="Target rate, requests per second (or --ramp, --step).  [default: none]"),
    arrivals: str = setting_option(LoadSettings, "arrivals"),
    ramp: Optional[str] = typer.Option(None, "--ramp", metavar="A..B",
                                       help="Instead of --rate: the rate runs linearly from A to B over --duration.  [default: none]"),
    step: Optional[str] = typer.Option(None, "--step", metavar="RxD,...",
                                       help="Instead of --rate: stages of rate x duration, e.g. 100x10s,200x10s.  [default: none]"),
    day: Optional[str] = typer.Option(None, "--day", metavar="MODEL[:CLASS]",
                                      help="Instead of --rate: follow the rate of this model's day (its class's "
                                           "rate per interval, counts or linear), model time as wall time, and "
                                           "report per interval.  [default: none]"),
    days: Optional[str] = typer.Option(None, "--days", metavar="N",
                                       help="With --day: run the day N times back to back; each interval's "
                                            "figures are then the days' mean with its 95 % interval.  "
                                            "[default: 1]"),
    speedup: Optional[str] = typer.Option(None, "--speedup", metavar="K",
                                          help="With --day: run the day's clock K times faster than the model's, "
                                               "at its rates (a day of 24 h in 1 h intervals, K 360: 4 min).  "
                                               "[default: 1]"),
    duration: Optional[str] = setting_option(LoadSettings, "duration"),
    requests: Optional[str] = typer.Option(None, "--requests", metavar="N", help="Stop after N measured requests.  [default: none]"),
    warmup: str = setting_option(LoadSettings, "warmup"),
    connections: str = setting_option(LoadSettings, "connections"),
    max_in_flight: str = setting_option(LoadSettings, "max_in_flight"),
    timeout: str = setting_option(LoadSettings, "timeout"),
    tick: Optional[str] = setting_option(LoadSettings, "tick"),
    method: Optional[str] = typer.Option(None, "--method", help="The HTTP method.  [default: GET, POST with --body]"),
    header: List[str] = typer.Option([], "--header", "-H", metavar="'NAME: VALUE'",
                                     help="Send this header with every request (repeatable; replaces the default "
                                          "Host or User-Agent).  [default: none]"),
    body: Optional[str] = typer.Option(None, "--body", metavar="FILE",
                                       help="Send this file's bytes as every request's body (read once, "
                                            "before the run), with its Content-Length.  [default: none]"),
    cacert: Optional[str] = typer.Option(None, "--cacert", metavar="FILE.pem",
                                         help="https: trust the certificates in this PEM file too (a test "
                                              "server's self-signed one).  [default: none]"),
    insecure: bool = typer.Option(False, "--insecure",
                                  help="https: accept any certificate, unverified (said in the results)."),
    seed: str = setting_option(LoadSettings, "seed"),
    threshold: List[str] = typer.Option([], "--threshold", metavar="EXPR",
                                        help="e.g. p99<250ms, p975<300ms, 'P(response<=250ms)>=99%', mean<20ms, "
                                             "lag_p99<10ms, error_rate<1%, achieved_rate>=0.95*target (repeatable); "
                                             "a broken one exits 1.  [default: none]"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", metavar="FILE.json",
                                          help="Write the results (JSON).  [default: none]"),
    hgrm: Optional[Path] = typer.Option(None, "--hgrm", metavar="DIR", parser=folder_path,
                                        help="Write response, service and lag as .hgrm files into DIR.  [default: none]"),
    hlog: Optional[Path] = typer.Option(None, "--hlog", metavar="FILE.hlog",
                                        help="Write each second's response, service and lag histograms as an "
                                             "HdrHistogram interval log.  [default: none]"),
    predict: Optional[str] = typer.Option(None, "--predict", metavar="MODEL",
                                          help="Solve and simulate this model of the service (one open class) at "
                                               "the target rate (each stage's, with --step or --ramp; each "
                                               "interval of its day, with --day), beside the measurement.  "
                                               "[default: none]"),
    sets: List[str] = SetOption,
    sweep: Optional[str] = typer.Option(None, "--sweep", metavar="rate=VALUES",
                                        help="A run per rate, e.g. rate=100,200,400 or rate=100:500:100, into "
                                             "an experiment record; the first broken threshold ends it (the "
                                             "saturation point).  [default: none]"),
    report: Optional[Path] = typer.Option(None, "--report", metavar="DIR", parser=folder_path,
                                          help="With --sweep: an HTML report of the curves.  [default: none]"),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
):
    """Measure a real service under open-loop load: response time from each request's intended start.

    Exit codes: 0 every threshold held, 1 a threshold broke, 2 a usage error (nothing sent), 130 Ctrl-C
    (what was measured is still shown). See docs/load.md.
    """
    from .. import _native
    from ..loadtest import options as opt
    from ..vocabulary import MAX_SEED

    if (url is None) == (exec_command is None):
        raise opt.no_target() if url is None else BrewputError(f"URL {url} and --exec: give one target, not both")
    target = opt.http_target(url) if url is not None else None
    request_warnings: List[str] = []
    if target:
        method, request, request_warnings = opt.request(target, method, header, body, cacert, insecure)
        target_settings = target.settings(method, request)
    else:
        opt.no_request_options([name for name, given in (("method", method), ("header", header), ("body", body),
                                                          ("cacert", cacert), ("insecure", insecure)) if given])
        target_settings = opt.exec_target(exec_command)
    params = parse_sets(sets)
    day_load = None
    if day is not None:
        from ..loadtest.day import day_load as read_day, day_schedule

        opt.day_alone([n for n, v in (("rate", rate), ("ramp", ramp), ("step", step), ("duration", duration),
                                      ("sweep", sweep)) if v])
        day_load = read_day(day, params, opt.whole("days", days, 1, _native.LOAD_MAX_STAGES) if days else 1,
                            opt.speedup(speedup) if speedup is not None else 1.0)
        schedule = day_schedule(day_load, arrivals=arrivals, requests_text=requests, warmup_text=warmup,
                                seed=opt.whole("seed", seed, 0, MAX_SEED))
        rates = None
    else:
        for name, given in (("days", days), ("speedup", speedup)):
            if given is not None:
                raise opt.OptionError(name, "shapes a model's day: give --day MODEL", value=given)
        rates = opt.sweep_rates(sweep, given=[n for n, v in (("rate", rate), ("ramp", ramp), ("step", step)) if v])
        schedule = opt.schedule(rate_text=str(rates[0]) if rates else rate, arrivals=arrivals, ramp_text=ramp,
                                step_text=step, duration_text=duration, requests_text=requests,
                                warmup_text=warmup, seed=opt.whole("seed", seed, 0, MAX_SEED))
    from ..loadtest import parse_threshold
    from ..loadtest.run import run_settings

    thresholds = [parse_threshold(t) for t in threshold]
    settings = run_settings(target_settings, schedule, connections=opt.connections(connections),
                            max_in_flight=opt.max_in_flight(max_in_flight),
                            timeout_seconds=opt.seconds("timeout", timeout, most=opt.MAX_TIMEOUT),
                            interval_log=None if hlog is None else str(hlog),
                            tick_seconds=None if tick is None else opt.tick(tick), thresholds=thresholds,
                            intervals=None if day_load is None else day_load.spans)
    _check_outputs(output, hgrm, hlog, report, sweep=rates is not None)
    if predict is not None and day_load is not None:
        from ..loadtest.day_predict import predicted_day

        if arrivals != "poisson":
            raise opt.OptionError(("predict", "arrivals"), "a day is predicted for Poisson arrivals at its rate: "
                                                           "drop --arrivals constant", value=arrivals)
        predicted_day(predict, params, day_load)  # refused now, not after the run
    elif predict is not None:
        from ..loadtest.predict import offered_model, offered_rates

        for each in rates or offered_rates(schedule):
            offered_model(predict, params, each, arrivals)  # refused now, not after the run
    elif sets and day_load is None:
        raise opt.OptionError("set", "only sets the params of the --predict or --day model", value=" ".join(sets))
    name, kind = (target.url, "http") if target else (exec_command, "exec")
    if rates is not None:
        for warning in request_warnings:
            warning_line(warning)
        _run_sweep(settings, rates, name, kind, thresholds, predict, params, output, report, hgrm, as_json)
    else:
        _run_once(settings, name, kind, thresholds, predict, params, output, hgrm, hlog, as_json, request_warnings,
                  day_load)


def _check_outputs(output: Optional[Path], hgrm: Optional[Path], hlog: Optional[Path], report: Optional[Path], *,
                   sweep: bool) -> None:
    """Every output checked before anything is sent: one run writes its results
    (-o .json), a sweep its experiment record (-o .json, .csv or .parquet) and report."""
    from ..loadtest.options import OptionError

    if sweep:
        if hlog is not None:
            raise OptionError("hlog", "writes one run's log: not with --sweep", value=str(hlog))
        check_outputs(output, report, hgrm)
        return
    if report is not None:
        raise OptionError("report", "draws a sweep's curves: add --sweep rate=...", value=str(report))
    if output is not None and output.suffix != ".json":
        raise OptionError("output", "expected a .json file (a sweep also writes .csv and .parquet)", value=str(output))
    if hlog is not None and hlog.suffix != ".hlog":
        raise OptionError("hlog", "expected a .hlog file", value=str(hlog))
    for option, folder in (("-o", output.parent if output else None), ("--hgrm", hgrm),
                           ("--hlog", hlog.parent if hlog else None)):
        if folder is not None:
            check_folder(option, Path(folder))


def _run_once(settings: dict, name: str, kind: str, thresholds: list, predict: Optional[str], params: dict,
              output: Optional[Path], hgrm: Optional[Path], hlog: Optional[Path], as_json: bool,
              request_warnings: List[str], day_load=None) -> None:
    from ..loadtest.results import to_results
    from ..loadtest.thresholds import judge

    summary = _measure_live(settings, enabled=not as_json)
    results = to_results(summary, target=name, method=kind, settings=settings)
    if day_load is not None:
        from ..loadtest.day import add_intervals

        add_intervals(results, day_load)
    results["warnings"] = request_warnings + results["warnings"]
    if predict is not None and day_load is not None:
        from ..loadtest.day_predict import beside_day

        results["predicted"] = beside_day(predict, params, day_load, settings["schedule"]["seed"], results)
    elif predict is not None:
        from ..loadtest.predict import beside

        results["predicted"] = beside(predict, params, settings["schedule"], results)
    judged = judge(thresholds, results)
    for warning in results["warnings"]:
        warning_line(warning)
    if as_json:
        print(json.dumps(results, indent=2))
    else:
        from ..loadtest.show import print_results

        print_results(out, results, judged)
    _write(results, output, hgrm)
    if hlog is not None and not summary["interval_log_error"]:
        err.print(f"hlog: {hlog}", soft_wrap=True)
    if summary["interval_log_error"]:
        raise BrewputError(f"--hlog {hlog}: {summary['interval_log_error']}")
    if summary["interrupted"]:
        err.print("interrupted: the figures above are what was measured until then")
        raise typer.Exit(shutdown.exit_code())
    if not all(ok for _, _, ok in judged):
        raise typer.Exit(THRESHOLD_BROKEN)


def _run_sweep(settings: dict, rates: list, name: str, kind: str, thresholds: list, predict: Optional[str],
               params: dict, output: Optional[Path], report: Optional[Path], hgrm: Optional[Path],
               as_json: bool) -> None:
    from ..loadtest.show import print_sweep, sweep_line
    from ..loadtest.sweep import run_sweep

    def measured(rate: float, results: dict, judged: list) -> None:
        for warning in results["warnings"]:
            warning_line(f"rate {rate:g}: {warning}")
        if not as_json:
            err.print(sweep_line(rate, results, judged), soft_wrap=True)

    record = run_sweep(settings, rates, target=name, method=kind, thresholds=thresholds, predict=predict,
                       params=params, command=command_line(), measured=measured)
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        print_sweep(out, record)
    written = write_outputs(record, output, report, hgrm, exit_on_failure=False)
    if record["interrupted"]:
        err.print(f"interrupted: {sum(s['engine'] == 'load' for s in record['scenarios'])} of {len(rates)} rates "
                  "measured")
        raise typer.Exit(shutdown.exit_code())
    if not written:
        raise typer.Exit(2)
    if record["saturation"] is not None:
        raise typer.Exit(THRESHOLD_BROKEN)


def _measure_live(settings: dict, enabled: bool) -> dict:
    """The run, with a live line on a terminal's stderr; in a pipe or a CI log
    the same line every few seconds (progress.py's PIPED_EVERY), so that a
    long run is never silent."""
    from ..loadtest import measure
    from ..loadtest.show import live_line

    if not enabled:
        return measure(settings)
    if not err.is_terminal:
        return measure(settings, watch=_every_few_seconds(live_line))
    from rich.live import Live
    from rich.text import Text

    with Live(Text("starting"), console=err.rich, transient=True, refresh_per_second=4) as live:
        return measure(settings, watch=lambda progress: live.update(Text(live_line(progress))))


def _every_few_seconds(line):
    """A watch writing `line(progress)` to stderr at most every PIPED_EVERY seconds."""
    import sys
    import time

    from .progress import PIPED_EVERY

    last = [time.monotonic()]

    def watch(progress: dict) -> None:
        now = time.monotonic()
        if now - last[0] >= PIPED_EVERY:
            last[0] = now
            sys.stderr.write(f"load {line(progress).strip()}\n")
            sys.stderr.flush()
    return watch


def _write(results: dict, output: Optional[Path], hgrm: Optional[Path]) -> None:
    from ..report.hgrm import SUFFIX, format_hgrm

    if output is not None:
        with writing(output):
            output.write_text(json.dumps(results, indent=2), encoding="utf-8")
        err.print(f"results: {output}", soft_wrap=True)
    if hgrm is not None:
        for name, block in (("response", "response_time"), ("service", "service_time"), ("lag", "lag")):
            distribution = results["classes"]["request"][block].get("distribution")
            if distribution:
                path = hgrm / f"{name}{SUFFIX}"
                with writing(path):
                    hgrm.mkdir(parents=True, exist_ok=True)
                    path.write_text(format_hgrm(distribution), encoding="utf-8")
                err.print(f"hgrm: {path}", soft_wrap=True)


@app.command("serve")
@user_errors
def serve(
    workers: str = typer.Option("1", "--workers", metavar="C|C1,C2,...",
                                help="Servers of the one FIFO queue; a rota of workers per --interval (2,4,2), "
                                     "from the first request on, the last holding after."),
    interval: Optional[str] = typer.Option(None, "--interval", metavar="TIME",
                                           help="With a rota of --workers: how long each count lasts.  "
                                                "[default: none]"),
    repeat: bool = typer.Option(False, "--repeat", help="With a rota: start it again after its last interval "
                                                        "(a day that repeats: load --days)."),
    rota_from: Optional[str] = typer.Option(None, "--rota", metavar="MODEL[:STATION]",
                                            help="Instead of --workers and --interval: the rota of this model's "
                                                 "station through its day (model time as wall time, or --speedup)."
                                                 "  [default: none]"),
    speedup: Optional[str] = typer.Option(None, "--speedup", metavar="K",
                                          help="With --rota: the day's clock K times faster, as load --speedup.  "
                                               "[default: 1]"),
    service: str = typer.Option("exp(2ms)", "--service", metavar="DIST",
                                help="Service time, a model-language distribution; numbers take a unit "
                                     "(exp(2ms), lognormal(5ms, 0.5)), bare numbers are seconds."),
    burn: bool = typer.Option(False, "--burn", help="Burn CPU for the service time instead of sleeping."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback unless told)."),
    port: str = typer.Option("8080", "--port", metavar="P", help="Port (0: any free one)."),
    queue: str = typer.Option("10000", "--queue", metavar="N", help="Requests waiting at most; more get 503."),
    seed: str = typer.Option("1", "--seed", metavar="N", help="Seed of the service times."),
    for_time: Optional[str] = typer.Option(None, "--for", metavar="TIME",
                                           help="Stop after this long.  [default: until Ctrl-C]"),
):
    """Serve an M/G/c queue over HTTP on loopback: the service to measure with brewput load."""
    from .. import _native
    from ..engine.cancellable import run_controlled
    from ..loadtest import options as opt
    from ..vocabulary import MAX_SEED

    if rota_from is not None:
        from ..loadtest.day import model_rota

        given = [name for name, v in (("workers", workers != "1"), ("interval", interval is not None)) if v]
        if given:
            raise opt.OptionError(("rota", given[0]), f"the model's rota gives the workers: drop --{given[0]}")
        counts, seconds = model_rota(rota_from, opt.speedup(speedup) if speedup is not None else 1.0)
        workers, interval = ",".join(map(str, counts)), f"{seconds!r}s"
    elif speedup is not None:
        raise opt.OptionError(("speedup", "rota"), "speeds up a model's rota: give --rota MODEL", value=speedup)
    most, rota = opt.workers_rota(workers, interval, repeat)
    settings = {"host": opt.listen_host(host), "port": opt.whole("port", port, 0, 65535), "workers": most,
                "service": opt.service_distribution(service), "burn": burn,
                "queue": opt.whole("queue", queue, 1, _native.SERVE_MAX_QUEUE),
                "seed": opt.whole("seed", seed, 0, MAX_SEED),
                "for_seconds": None if for_time is None else opt.seconds("for", for_time),
                **({"rota": rota} if rota else {})}
    try:
        server = _native.DemoServer(json.dumps(settings))
    except (BindError, LoadInputError) as e:
        raise BrewputError(f"--host {host} --port {port}: {e}") from None
    staffed = f"{settings['workers']} workers" if rota is None else opt.rota_text(rota)
    print(f"serving http://{server.address()}/  ({staffed}, service {service}"
          f"{', burning CPU' if burn else ''}); Ctrl-C stops", flush=True)
    try:
        summary = json.loads(run_controlled("serve", server.run))
    except KeyboardInterrupt:
        err.print("stopped")
        return
    except LoadSystemError as e:  # its threads could not start (memory, a process limit)
        raise BrewputError(f"--workers {settings['workers']}: {e}") from None
    err.print(f"served {summary['served']:,}, rejected {summary['rejected']:,} in {summary['seconds']:.1f} s")
