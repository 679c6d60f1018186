"""The commands that check turns: ``run`` (the worker), ``replay`` (a file into the
store), ``check`` (turns on stdin, nothing stored), and ``migrate``. ``main.py``
registers them; their parts come from the composition root (``worker/app.py``), which
each command imports when it runs: ``migrate`` needs none of the worker."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from turncheck.worker.cli import exits, startup
from turncheck.worker.clock import utc_now

if TYPE_CHECKING:
    from turncheck.worker.app import Parts

err = Console(stderr=True)


def migrate() -> None:
    """Create or upgrade the database schema.

    The database is TURNCHECK_DATABASE_URL; run this before starting workers on PostgreSQL.
    """
    settings = startup.settings()
    startup.reach(settings)
    startup.migrate(settings)
    err.print("database is up to date")


def run() -> None:
    """Run the worker on Kafka, or on the turns file without it.

    With TURNCHECK_KAFKA_BOOTSTRAP set it consumes until SIGTERM or SIGINT; without it, it
    processes TURNCHECK_TURNS_FILE and exits.
    """
    from turncheck.worker import app

    settings = startup.settings(logging.INFO)
    parts = app.plan(settings)
    if not settings.kafka_bootstrap:
        startup.require_readable(settings.turns_file)
    startup.reach(settings, broker=True)
    startup.embedded_schema(settings)
    startup.erasures_held(settings)
    if settings.kafka_bootstrap:
        asyncio.run(app.build_worker(parts).run())
        return
    _replay(parts, settings.turns_file)


def replay(
    file: Annotated[Path, typer.Argument(help="JSON Lines of turns ('-' for standard input).")],
) -> None:
    """Process a file of turns into the store, as the consumer would."""
    from turncheck.worker import app

    settings = startup.settings()
    parts = app.plan(settings)
    startup.require_readable(file)
    startup.reach(settings, broker=True)  # with a broker set, replay sends its events too
    startup.embedded_schema(settings)
    startup.erasures_held(settings)
    _replay(parts, file)


def _replay(parts: Parts, file: Path) -> None:
    from turncheck.worker import app

    if sys.stderr.isatty() and str(file) != "-":
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        total = sum(1 for line in file.open("rb") if line.strip())
        columns = (TextColumn("turns"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, console=err, transient=True) as progress:
            task = progress.add_task("turns", total=total)
            totals = asyncio.run(
                app.replay(
                    parts,
                    str(file),
                    clock=utc_now,
                    on_progress=lambda n: progress.advance(task, n),
                )
            )
    else:
        totals = asyncio.run(app.replay(parts, str(file), clock=utc_now))
    for rejected in totals.rejected:
        line = f"line {rejected.message.offset}: {rejected.reason}"
        err.print(line, markup=False, highlight=False, soft_wrap=True)  # one line, as written
    err.print(
        f"{totals.turns} turns, {totals.results} results ({totals.new_results} new, "
        f"{totals.not_passed} not passed), {len(totals.rejected)} lines rejected; skipped: "
        f"{totals.expired} past retention, {totals.erased} of erased persons",
        highlight=False,
        soft_wrap=True,  # one line at any width, for scripts that read it
    )
    if totals.rejected:
        raise typer.Exit(exits.REJECTED)


def check(
    checks_file: Annotated[
        Path | None, typer.Option("--checks", help="A check file; default: TURNCHECK_CHECKS.")
    ] = None,
) -> None:
    """Print the results of turns read on stdin; store nothing.

    Reads JSON Lines on standard input and prints one JSON line per turn. Judged checks run
    on every turn (no sample) and need TURNCHECK_JUDGES, as for run.
    """
    from turncheck.worker import app
    from turncheck.worker.checks import load_checks

    settings = startup.settings()
    parts = app.plan(settings, load_checks([checks_file]) if checks_file else None)
    if asyncio.run(_check_lines(parts)):
        raise typer.Exit(exits.REJECTED)


async def _check_lines(parts: Parts) -> int:
    """Print one line per input line; return how many lines were not turns."""
    from turncheck.worker.errors import InvalidTurn
    from turncheck.worker.judge.direct import judge_now
    from turncheck.worker.pipeline.evaluate import evaluate, warm_up
    from turncheck.worker.turns.decode import decode_turn

    checks, client = parts.checks, parts.judge
    warm_up(checks)
    configured = frozenset(client.endpoints)
    bad = 0
    try:
        for number, line in enumerate(sys.stdin.buffer, start=1):
            if not line.strip():
                continue
            try:
                turn = decode_turn(line)
            except InvalidTurn as exc:
                bad += 1
                print(json.dumps({"line": number, "error": exc.reason}), flush=True)
                continue
            # Off the loop: a script check may take up to its time limit.
            found = await asyncio.to_thread(evaluate, turn, checks)
            judged = checks.judged_for_agent(turn.agent.id, turn.agent.version)
            if judged:
                found += await judge_now(
                    turn, judged, client, configured, parts.settings.judge_deadline_s
                )
            results = [r.as_dict() for r in found]
            for result in results:
                del result["check_version"]
            print(json.dumps({"turn_id": turn.turn_id, "results": results}), flush=True)
    finally:
        await client.aclose()
    return bad
