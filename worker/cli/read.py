"""The commands that read the store: one turn's results, pass rates, a check's failures.
``worker/cli/main.py`` registers them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console

from turncheck.worker.cli import exits, startup, tables
from turncheck.worker.cli.options import JsonOption, SinceOption, UntilOption, parse_window
from turncheck.worker.clock import utc_now
from turncheck.worker.pipeline.records import ResultKey
from turncheck.worker.runtime.links import link_of
from turncheck.worker.store import KnownRollouts, PassRate, Store, StoredResult
from turncheck.worker.store.label_rates import label_counts, labelled_rates
from turncheck.worker.store.labels import LabelTable, StoredLabel, key_of
from turncheck.worker.store.queries import Queries
from turncheck.worker.store.rates import Split

err = Console(stderr=True)


def results(
    turn_id: Annotated[str, typer.Argument(help="The turn's id.")],
    as_json: JsonOption = False,
) -> None:
    """Show the stored results of one turn (exit 1 when it has none)."""
    settings = startup.settings()

    async def work(
        store: Store,
    ) -> tuple[list[StoredResult], dict[ResultKey, StoredLabel], KnownRollouts]:
        found = await store.queries.results_for_turn(turn_id)
        labelled = await LabelTable(store.database).of_turn(turn_id) if found else {}
        return found, labelled, await store.rollouts.read()

    found, labelled, rollouts = startup.on_store(settings, work)
    if as_json:
        turn_url = settings.turn_url_template
        shown = [_with_label(r, labelled, note=True, turn_url=turn_url) for r in found]
        print(json.dumps(marked(found, shown, rollouts), indent=2))
    elif found:
        Console().print(tables.results_table(found, labelled, rollouts))
        print_links(tables.turn_links(found, settings.turn_url_template))
    else:
        err.print(f"no results for turn {turn_id}", highlight=False)
    if not found:
        raise typer.Exit(exits.REJECTED)


def pass_rates(
    check: Annotated[str | None, typer.Option(help="Only this check.")] = None,
    agent: Annotated[str | None, typer.Option(help="Only this agent id.")] = None,
    since: SinceOption = "7d",
    until: UntilOption = None,
    split: Annotated[
        Split,
        typer.Option(help="Also per check version, agent version or both.", case_sensitive=False),
    ] = Split.NONE,
    exclude_false_alarms: Annotated[
        bool,
        typer.Option(
            "--exclude-false-alarms", help="Count failures labelled false alarms as passed."
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Show each check's pass rate and its counts, and its precision against its labels.

    Counts are kept per hour of the turns' time: every hour that overlaps the window counts.
    A row that counts more than one check version is marked (the check changed in the
    window). A check or agent with no results at all is refused (exit 1); --until must be
    after --since.
    """
    settings = startup.settings()
    start, end = parse_window(since, until, utc_now())

    async def work(store: Store) -> tuple[list[PassRate], str | None, KnownRollouts]:
        queries = store.queries
        rows = await queries.pass_rates(
            since=start, until=end, check=check, agent=agent, split=split
        )
        labelled = await label_counts(
            store.database, since=start, until=end, check=check, agent=agent, split=split
        )
        rows = labelled_rates(rows, labelled, exclude_false_alarms=exclude_false_alarms)
        missing = None if rows else await unknown(queries, check, agent)
        return rows, missing, await store.rollouts.read()

    rows, missing, rollouts = startup.on_store(settings, work)
    if as_json:
        window = {"since": start.isoformat(), "until": end.isoformat() if end else None}
        print(
            json.dumps(
                {
                    **window,
                    "split": split.value,
                    "exclude_false_alarms": exclude_false_alarms,
                    "rates": marked(rows, [r.as_dict() for r in rows], rollouts),
                },
                indent=2,
            )
        )
    elif missing is None:
        Console().print(tables.pass_rate_table(rows, start, split, exclude_false_alarms, rollouts))
    refuse_unknown(missing)


def failures(
    check: Annotated[str, typer.Argument(help="The check's name.")],
    agent: Annotated[str | None, typer.Option(help="Only this agent id.")] = None,
    since: SinceOption = "1d",
    until: UntilOption = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="At most this many.")] = 100,
    as_json: JsonOption = False,
) -> None:
    """List a check's results that did not pass (failed or errored), newest turn first.

    The window is on the turns' time, as for pass rates and alerts. An alert links here;
    `turncheck results TURN_ID` shows every check of one turn. A check, or an agent of
    it, with no results at all is refused (exit 1); --until must be after --since.
    """
    settings = startup.settings()
    start, end = parse_window(since, until, utc_now())

    async def work(
        store: Store,
    ) -> tuple[list[StoredResult], dict[ResultKey, StoredLabel], str | None, KnownRollouts]:
        queries = store.queries
        found = await queries.not_passed(check, agent=agent, since=start, until=end, limit=limit)
        labelled = await LabelTable(store.database).of_results(found)
        missing = None if found else await unknown(queries, check, agent)
        return found, labelled, missing, await store.rollouts.read()

    found, labelled, missing, rollouts = startup.on_store(settings, work)
    turn_url = settings.turn_url_template
    if as_json:
        shown = [_with_label(r, labelled, note=False, turn_url=turn_url) for r in found]
        print(json.dumps(marked(found, shown, rollouts), indent=2))
    elif missing is None:
        Console().print(tables.not_passed_table(found, check, start, labelled, rollouts, turn_url))
        print_links(tables.turn_links(found, turn_url))
    refuse_unknown(missing)


def _with_label(
    result: StoredResult,
    labelled: dict[ResultKey, StoredLabel],
    *,
    note: bool,
    turn_url: str | None,
) -> dict[str, object]:
    """A result's JSON with its label and ``turn_url`` (its turn's page on the chat
    platform, null without TURNCHECK_TURN_URL); with the label's note only in the turn's
    own view, as the API gives it: a list of failures is where results are copied from
    in bulk."""
    label = labelled.get(key_of(result))
    shown: dict[str, object] = {
        **result.as_dict(),
        "turn_url": link_of(turn_url, result),
        "label": label.label if label else None,
    }
    if note:
        shown["label_note"] = label.note if label else None
    return shown


SHOWN_NAMES = 10


async def unknown(queries: Queries, check: str | None, agent: str | None) -> str | None:
    """What to say when the check or agent asked for has no results at all, with the
    names that have some; None when both are known (the window was empty)."""
    if check is not None:
        agents = await queries.agents_with_results(check)
        if not agents:
            known = await queries.checks_with_results()
            return f"no results for check {check!r}; {_names('checks with results', known)}"
        if agent is not None and agent not in agents:
            return (
                f"no agent {agent!r} has results for check {check!r}; "
                f"{_names('agents with results for it', agents)}"
            )
    elif agent is not None:
        agents = await queries.agents_with_results()
        if agent not in agents:
            return f"no results for agent {agent!r}; {_names('agents with results', agents)}"
    return None


def _names(what: str, names: list[str]) -> str:
    if not names:
        return "nothing has results yet"
    shown = ", ".join(names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    return f"{what}: {shown}{f' and {more} more' if more > 0 else ''}"


def refuse_unknown(missing: str | None) -> None:
    """A name with no results is a typo or a check not yet run: one line, exit 1."""
    if missing is not None:
        err.print(missing, markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(exits.REJECTED)


def print_links(links: str | None) -> None:
    # Unwrapped: a link cut in two at the terminal's edge opens nothing.
    if links is not None:
        Console().print(links, soft_wrap=True, markup=False, highlight=False)


def marked(
    rows: Sequence[StoredResult | PassRate],
    shown: list[dict[str, object]],
    rollouts: KnownRollouts,
) -> list[dict[str, object]]:
    """Rows as JSON (``shown``), each with its check's ``rollout`` (``live`` or ``shadow``)."""
    return [
        {**j, "rollout": rollouts.of(r.agent_id, r.check)} for r, j in zip(rows, shown, strict=True)
    ]
