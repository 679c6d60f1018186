"""``turncheck backtest``: a draft check file tried on past turns (``worker/backtest/``),
and ``turncheck backtest merge``: saved ``--json`` reports of parts made one.

Everything heavy is imported inside the commands, so other commands start no slower.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from turncheck.worker.cli import exits, startup
from turncheck.worker.cli.options import JsonOption, parse_window
from turncheck.worker.clock import utc_now
from turncheck.worker.errors import ConfigurationError

if TYPE_CHECKING:
    from turncheck.worker.backtest import BacktestRequest, Report
    from turncheck.worker.settings import Settings

app = typer.Typer(no_args_is_help=False)
err = Console(stderr=True)

DEFAULT_SINCE = "7d"
DEFAULT_MAX_JUDGEMENTS = 1000
"""As ``worker/backtest/judging.py``'s, which this module does not import at its top."""


@app.callback(invoke_without_command=True)
def backtest(
    ctx: typer.Context,
    checks: Annotated[
        Path | None, typer.Option("--checks", help="The draft check file to try.")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(help="Turns from: 7d, 12h, 30m, 2w back, or an ISO date (default 7d)."),
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="Turns before: 7d, 12h, 30m, 2w back, or an ISO date.")
    ] = None,
    limit: Annotated[
        int | None, typer.Option(min=1, help="At most this many turns, across processes.")
    ] = None,
    partitions: Annotated[
        str | None, typer.Option(help="Only these partitions of the topic: 0-5, or 0,2,4.")
    ] = None,
    processes: Annotated[
        int | None,
        typer.Option(min=1, help="Processes sharing the partitions (default: one per core)."),
    ] = None,
    file: Annotated[
        Path | None, typer.Option("--file", help="Turns from this JSON Lines file instead.")
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="Labels as `turncheck labels export` writes them."),
    ] = None,
    judge: Annotated[
        bool,
        typer.Option(
            "--judge",
            help="Also run the draft's judged checks on their sample, through "
            "TURNCHECK_JUDGES; the estimate is shown first.",
        ),
    ] = False,
    max_judgements: Annotated[
        int,
        typer.Option(
            min=1, help="With --judge: at most this many judgements; the rest are not judged."
        ),
    ] = DEFAULT_MAX_JUDGEMENTS,
    yes: Annotated[
        bool, typer.Option("--yes", help="With --judge: start without asking to confirm.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Try a draft check file on past turns and report; store nothing.

    Reads the turns topic from --since (per partition, by message time, outside the live
    consumer group, up to the end it finds at the start) or a --file, applies the draft's
    rule checks, and compares each with the stored results of the live check of the same
    name. `turncheck backtest merge A.json B.json` merges reports of parts (--partitions).
    """
    if ctx.invoked_subcommand is not None:
        return
    settings = startup.settings()
    if judge and not yes and not sys.stdin.isatty():
        raise ConfigurationError(
            "--judge asks the judges, which costs: pass --yes to start it without a "
            "terminal to confirm on"
        )
    request = _request(settings, checks, since, until, limit, partitions, processes, file, labels)
    if judge:
        request = _judged(request, settings, max_judgements)
    _reach(settings, topic=file is None)
    if judge:
        _confirm(request, settings, ask=not yes)
    report = _run(request, settings)
    _show(report, as_json, settings.turn_url_template)


@app.command()
def merge(
    reports: Annotated[list[Path], typer.Argument(help="Reports written with --json.")],
    as_json: JsonOption = False,
) -> None:
    """Merge backtest reports of parts (partitions, machines) into the report of the whole."""
    from turncheck.worker.backtest import Report
    from turncheck.worker.backtest import merge as merge_reports

    settings = startup.settings()
    read = []
    for path in reports:
        try:
            read.append(Report.from_dict(json.loads(path.read_bytes())))
        except OSError as exc:
            why = (exc.strerror or type(exc).__name__).lower()
            raise ConfigurationError(f"cannot read report {path}: {why}") from None
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ConfigurationError(
                f"invalid report {path}: not a report `turncheck backtest --json` wrote"
            ) from None
    _show(merge_reports(read), as_json, settings.turn_url_template)


def _request(
    settings: Settings,
    checks: Path | None,
    since: str | None,
    until: str | None,
    limit: int | None,
    partitions: str | None,
    processes: int | None,
    file: Path | None,
    labels: Path | None,
) -> BacktestRequest:
    """The request the options describe; a bad option or draft is refused (exit 2)."""
    from turncheck.worker.backtest import BacktestRequest
    from turncheck.worker.checks import load_checks
    from turncheck.worker.labels import read_labels

    if checks is None:
        raise ConfigurationError("missing option --checks: the draft check file to try")
    draft = load_checks([checks])
    start, end = None, None
    if file is not None:
        startup.require_readable(file)
        if since is not None or until is not None or partitions is not None:
            raise ConfigurationError(
                "--since, --until and --partitions are for the turns topic; --file is read whole"
            )
    else:
        start, end = parse_window(since or DEFAULT_SINCE, until, utc_now())
    return BacktestRequest(
        draft=draft,
        since=start,
        until=end,
        limit=limit,
        partitions=_partitions(partitions),
        file=file,
        processes=processes,
        labels=read_labels(labels) if labels is not None else {},
    )


def _partitions(text: str | None) -> tuple[int, ...] | None:
    from turncheck.worker.backtest.request import parse_partitions

    if text is None:
        return None
    try:
        return parse_partitions(text)
    except ValueError as exc:
        raise ConfigurationError(f"invalid --partitions {text!r}: {exc}") from None


def _judged(request: BacktestRequest, settings: Settings, cap: int) -> BacktestRequest:
    """The request with judging; a draft's judged check no judge serves is refused (exit 2)."""
    from dataclasses import replace

    from turncheck.worker.backtest.judging import JudgeOptions, judges_for

    judges_for(settings, request.draft)
    return replace(request, judge=JudgeOptions(cap))


def _confirm(request: BacktestRequest, settings: Settings, *, ask: bool) -> None:
    """Print what judging would ask, before any judge is asked; on a terminal, ask to go on
    (no: exit 1, nothing asked)."""
    from turncheck.worker.backtest.estimate import estimate

    for line in estimate(request, settings).lines():
        err.print(line, markup=False, highlight=False, soft_wrap=True)
    if ask and not typer.confirm("Start the backtest?", err=True):
        err.print("backtest not started", highlight=False)
        raise typer.Exit(exits.REJECTED)


def _reach(settings: Settings, *, topic: bool) -> None:
    """The broker (for the topic) and a server database must answer (exit 3). An embedded
    store is not probed: probing would create it, and a backtest creates nothing."""
    import asyncio

    from turncheck.worker.kafka.probe import probe_broker
    from turncheck.worker.store.probe import probe_database

    async def probe() -> None:
        if topic and settings.kafka_bootstrap:
            await probe_broker(settings.kafka_bootstrap)
        if not settings.embedded:
            await probe_database(settings.database_url)

    asyncio.run(probe())


def _run(request: BacktestRequest, settings: Settings) -> Report:
    """The backtest, with a progress bar on stderr when it is a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from turncheck.worker.backtest import Progress as Advance
    from turncheck.worker.backtest import run_backtest

    if not sys.stderr.isatty():
        return run_backtest(request, settings)
    columns = (TextColumn("turns"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("turns", total=None)

        def show(advance: Advance) -> None:
            bar.update(task, completed=advance.turns_read, total=advance.turns_expected)

        return run_backtest(request, settings, progress=show)


def _show(report: Report, as_json: bool, turn_url: str | None) -> None:
    """The report; with ``TURNCHECK_TURN_URL``, its example turns' links: ``turn_urls`` in
    the JSON (``{}`` without the setting), one ``TURN_ID  URL`` line each under the table."""
    urls = report.turn_urls(turn_url)
    if as_json:
        print(json.dumps({**report.as_dict(), "turn_urls": urls}, indent=2))
        return
    from turncheck.worker.backtest.render import links_text, report_view, totals_line
    from turncheck.worker.cli.read import print_links

    out = Console()
    out.print(report_view(report))
    print_links(links_text(urls))
    out.print(totals_line(report), markup=False, highlight=False, soft_wrap=True)
