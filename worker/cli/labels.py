"""The commands of labels: ``turncheck label`` marks a stored failure a false alarm or
confirmed (or clears it), ``turncheck labels export`` writes them as lines a backtest
reads back. ``worker/cli/main.py`` registers them. A note is never printed but by the
export, which is its purpose."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from turncheck.schemas.label import NOTE_MAX_CHARS, LabelName
from turncheck.worker.cli import startup
from turncheck.worker.cli.options import JsonOption
from turncheck.worker.clock import utc_now
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.labels import label_line, write_lines
from turncheck.worker.store import Store
from turncheck.worker.store.labels import LabelTable, StoredLabel

err = Console(stderr=True)
app = typer.Typer(help="Labels of stored results.", no_args_is_help=True, rich_markup_mode=None)

SAID = {"false_alarm": "a false alarm", "confirmed": "confirmed"}


class LabelChoice(StrEnum):
    false_alarm = "false_alarm"
    confirmed = "confirmed"


def label(
    turn_id: Annotated[str, typer.Argument(help="The turn's id.")],
    check: Annotated[str, typer.Argument(help="The check's name.")],
    false_alarm: Annotated[
        bool, typer.Option("--false-alarm", help="The check should have passed the turn.")
    ] = False,
    confirmed: Annotated[
        bool, typer.Option("--confirmed", help="The check was right to fail the turn.")
    ] = False,
    note: Annotated[
        str | None, typer.Option(help=f"Why, in at most {NOTE_MAX_CHARS} characters.")
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Remove the label instead.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Label the newest stored result of a check on a turn a false alarm or confirmed.

    Only a failed result takes a label; a new label replaces the old one. The label
    expires and is erased with its result. A turn with no result of the check, or whose
    newest result of it did not fail, is refused (exit 1).
    """
    settings = startup.settings()
    chosen = _chosen(false_alarm, confirmed, clear, note)
    if chosen is None:
        cleared = startup.on_store(settings, lambda s: LabelTable(s.database).clear(turn_id, check))
        if as_json:
            print(json.dumps({"turn_id": turn_id, "check": check, "cleared": cleared}))
        else:
            said = "cleared the label of" if cleared else "there was no label on"
            err.print(
                f"{said} {check} on turn {turn_id}", markup=False, highlight=False, soft_wrap=True
            )
        return

    async def work(store: Store) -> StoredLabel:
        return await LabelTable(store.database).set(turn_id, check, chosen, note, now=utc_now())

    stored = startup.on_store(settings, work)
    if as_json:
        print(label_line(stored).model_dump_json())
    else:
        err.print(
            f"labelled {check} on turn {turn_id} (version {stored.check_version}) "
            f"{SAID[stored.label]}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _chosen(false_alarm: bool, confirmed: bool, clear: bool, note: str | None) -> LabelName | None:
    """The label asked for, or None for --clear; a usage error names what is wrong."""
    if clear:
        if false_alarm or confirmed or note is not None:
            raise ConfigurationError("--clear takes no --false-alarm, --confirmed or --note")
        return None
    if false_alarm == confirmed:
        raise ConfigurationError("give one of --false-alarm and --confirmed (or --clear)")
    if note is not None and len(note) > NOTE_MAX_CHARS:
        raise ConfigurationError(f"invalid --note: at most {NOTE_MAX_CHARS} characters")
    if note is not None and "\x00" in note:
        raise ConfigurationError("invalid --note: it must not contain a NUL character")
    return "false_alarm" if false_alarm else "confirmed"


@app.command()
def export(
    check: Annotated[str | None, typer.Option(help="Only this check.")] = None,
    agent: Annotated[str | None, typer.Option(help="Only this agent id.")] = None,
    label: Annotated[LabelChoice | None, typer.Option(help="Only this label.")] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to FILE instead of stdout.")
    ] = None,
) -> None:
    """Write the labels as JSON lines (turncheck.label/v1), oldest label first: the
    regression cases a backtest reads back with --labels FILE."""
    settings = startup.settings()
    kind: LabelName | None = None if label is None else label.value

    async def work(store: Store) -> list[StoredLabel]:
        return await LabelTable(store.database).export(check=check, agent=agent, label=kind)

    found = startup.on_store(settings, work)
    if output is None:
        write_lines(found, sys.stdout)
        return
    try:
        with output.open("w", encoding="utf-8") as out:
            written = write_lines(found, out)
    except OSError as exc:
        why = (exc.strerror or type(exc).__name__).lower()
        raise ConfigurationError(f"cannot write {output}: {why}") from None
    err.print(
        f"{written} labels written to {output}", markup=False, highlight=False, soft_wrap=True
    )
