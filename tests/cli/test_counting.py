"""A turn is counted once in the pass rates, whatever was purged or erased in between:
the commands a person runs, in a row, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.cli.inprocess import CommandLine
from tests.cli.test_commands import ROOT
from tests.conftest import fresh_store
from turncheck.worker.clock import FixedClock

EXAMPLES = ROOT / "examples"
TURNS = str(EXAMPLES / "turns.jsonl")
FIRST_RUN = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
"""Just after the example turns (2026-11-28, 09:00 to 11:56): none has expired yet."""
PERSON = "p-40"
"""Three of the twelve example turns are this person's."""


@pytest.fixture
def turncheck(database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CommandLine:
    """The command line on an empty store, the example checks and turns, at FIRST_RUN."""

    async def empty() -> None:
        await (await fresh_store(database_url)).close()

    asyncio.run(empty())
    env = {
        "TURNCHECK_DATABASE_URL": database_url,
        "TURNCHECK_CHECKS": str(EXAMPLES / "checks.yaml"),
        "TURNCHECK_TURNS_FILE": TURNS,
    }
    return CommandLine(monkeypatch, FixedClock(FIRST_RUN), env)


def totals(turncheck: CommandLine) -> set[int]:
    """The turns counted per check, as `turncheck pass-rates` reports them."""
    done = turncheck("pass-rates", "--since", "2026-11-01", "--json")
    assert done.code == 0, done.stderr
    return {rate["total"] for rate in json.loads(done.stdout)["rates"]}


def test_turns_run_again_after_the_purge_are_skipped_as_expired_not_counted_twice(
    turncheck: CommandLine,
) -> None:
    """With a day's retention: run, a day later purge and run again over the same turns;
    the second run says they were past retention, and each is still counted once."""
    turncheck.env["TURNCHECK_RETENTION_DAYS"] = "1"
    first = turncheck("run")
    assert first.code == 0, first.stderr
    assert first.last_line.startswith("12 turns, 96 results (96 new")
    turncheck.clock.advance(days=1)
    purged = turncheck("purge", "--json")
    assert purged.code == 0, purged.stderr
    assert json.loads(purged.stdout)["results"] == 96
    again = turncheck("run")
    assert again.code == 0, again.stderr
    assert again.last_line == (
        "0 turns, 0 results (0 new, 0 not passed), 0 lines rejected; "
        "skipped: 12 past retention, 0 of erased persons"
    )
    assert totals(turncheck) == {12}


def test_an_erased_person_s_turns_replayed_are_never_counted_again(
    turncheck: CommandLine,
) -> None:
    """Replayed with the key, the erased person's turns are skipped; without it, the
    commands that store turns refuse to start (exit 2, naming the key) and store nothing."""
    turncheck.env["TURNCHECK_ERASURE_KEY"] = "the-key"
    assert turncheck("replay", TURNS).code == 0
    turncheck.clock.advance(hours=1)
    erased = turncheck("erase", PERSON, "--json")
    assert erased.code == 0, erased.stderr
    assert json.loads(erased.stdout)["deleted"]["results"] == 3 * 8
    again = turncheck("replay", TURNS)
    assert again.code == 0, again.stderr
    assert again.last_line.endswith("skipped: 0 past retention, 3 of erased persons")
    assert totals(turncheck) == {12}
    del turncheck.env["TURNCHECK_ERASURE_KEY"]
    for command in (["replay", TURNS], ["run"]):
        refused = turncheck(*command)
        assert refused.code == 2, refused.stderr
        assert refused.stderr.strip() == (
            "TURNCHECK_ERASURE_KEY is not set, but 1 person has been erased: "
            "set the key the erasures were made with"
        )
    assert totals(turncheck) == {12}
    assert turncheck("results", "t-1001", "--json").stdout.strip() == "[]"


def test_a_turn_just_inside_its_retention_window_is_stored(turncheck: CommandLine) -> None:
    """The edge of the rule: a turn whose expiry is a second away is stored and counted."""
    turncheck.env["TURNCHECK_RETENTION_DAYS"] = "1"
    last = datetime(2026, 11, 28, 11, 56, tzinfo=UTC)  # the newest example turn
    turncheck.clock.now = last + timedelta(days=1, seconds=-1)
    done = turncheck("run")
    assert done.code == 0, done.stderr
    assert done.last_line.startswith("1 turns, 8 results")
    assert done.last_line.endswith("skipped: 11 past retention, 0 of erased persons")
    assert totals(turncheck) == {1}
