"""`turncheck pass-rates --split`: a rate per check version or agent version, and a
marker on a row that mixes check versions, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.checks.test_agent_versions import TWO_DEFINITIONS
from tests.cli.inprocess import CommandLine
from tests.conftest import fresh_store
from tests.factories import turn_dict
from turncheck.worker.clock import FixedClock

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TURNS = [("t-1", 7, "A refund, sure."), ("t-2", 7, "Hello."), ("t-3", 9, "Money back.")]


@pytest.fixture
def turncheck(database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CommandLine:
    """The command line on a store holding TURNS checked by TWO_DEFINITIONS."""

    async def empty() -> None:
        await (await fresh_store(database_url)).close()

    asyncio.run(empty())
    (tmp_path / "checks.yaml").write_text(TWO_DEFINITIONS)
    lines = [
        json.dumps(turn_dict(turn_id, text, agent={"id": "support-bot", "version": version}))
        for turn_id, version, text in TURNS
    ]
    (tmp_path / "turns.jsonl").write_text("\n".join(lines) + "\n")
    env = {
        "TURNCHECK_DATABASE_URL": database_url,
        "TURNCHECK_CHECKS": str(tmp_path / "checks.yaml"),
        "TURNCHECK_TURNS_FILE": str(tmp_path / "turns.jsonl"),
    }
    command_line = CommandLine(monkeypatch, FixedClock(NOW), env)
    done = command_line("run")
    assert done.code == 0, done.stderr
    return command_line


def test_a_row_that_mixes_check_versions_is_marked(turncheck: CommandLine) -> None:
    """Without a split, the check's one row counts both definitions and is marked."""
    done = turncheck("pass-rates", "--since", "2026-11-01")
    assert done.code == 0, done.stderr
    assert "no-refunds *" in done.stdout
    assert "* counts more than one check version" in done.stdout
    [rate] = json.loads(turncheck("pass-rates", "--since", "2026-11-01", "--json").stdout)["rates"]
    assert (rate["total"], rate["mixed_versions"], rate["agent_versions"]) == (3, True, ["7", "9"])


def test_split_by_check_version_gives_a_row_per_version(turncheck: CommandLine) -> None:
    """`--split check_version` gives each definition its row, none of them marked."""
    done = turncheck("pass-rates", "--since", "2026-11-01", "--split", "check_version", "--json")
    assert done.code == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["split"] == "check_version"
    assert sorted((r["agent_versions"], r["passed"], r["failed"]) for r in body["rates"]) == [
        (["7"], 1, 1),
        (["9"], 0, 1),
    ]
    table = turncheck(
        "pass-rates", "--since", "2026-11-01", "--split", "both", COLUMNS="150"
    ).stdout
    assert "check version" in table and "agent version" in table and "*" not in table


def test_an_unknown_split_is_a_usage_error_naming_the_splits(turncheck: CommandLine) -> None:
    """`--split model` is refused (exit 2) with the splits there are."""
    done = turncheck("pass-rates", "--split", "model")
    assert done.code == 2 and "'none', 'check_version', 'agent_version', 'both'" in done.stderr
