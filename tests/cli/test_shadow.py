"""A shadow check in the commands a person runs, in a row, on SQLite and PostgreSQL:
`results`, `failures` and `pass-rates` mark it, and promoting it (one word) keeps its
version, its results and its counts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.cli.inprocess import CommandLine
from tests.cli.test_counting import EXAMPLES, FIRST_RUN, TURNS
from tests.conftest import fresh_store
from turncheck.worker.clock import FixedClock

LIVE = (EXAMPLES / "checks.yaml").read_text()
SHADOW = LIVE.replace(
    '    allowed: ["30 days"]\n', '    allowed: ["30 days"]\n    rollout: shadow\n'
)


@pytest.fixture
def turncheck(database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CommandLine:
    """The command line on an empty store and the example turns, at FIRST_RUN."""

    async def empty() -> None:
        await (await fresh_store(database_url)).close()

    asyncio.run(empty())
    env = {"TURNCHECK_DATABASE_URL": database_url, "TURNCHECK_TURNS_FILE": TURNS}
    return CommandLine(monkeypatch, FixedClock(FIRST_RUN), env)


def rollouts(rows: list[dict[str, object]]) -> set[tuple[object, object]]:
    return {(row["check"], row["rollout"]) for row in rows}


def test_results_failures_and_pass_rates_mark_the_shadow_check_until_it_is_promoted(
    turncheck: CommandLine, tmp_path: Path
) -> None:
    assert SHADOW != LIVE
    checks = tmp_path / "checks.yaml"
    checks.write_text(SHADOW)
    turncheck.env["TURNCHECK_CHECKS"] = str(checks)
    first = turncheck("run")
    assert first.code == 0, first.stderr
    assert first.last_line.startswith("12 turns, 96 results (96 new")

    done = turncheck("results", "t-1002", "--json")
    assert done.code == 0, done.stderr
    marks = rollouts(json.loads(done.stdout))
    assert ("grounded", "shadow") in marks and ("no-competitors", "live") in marks
    table = turncheck("results", "t-1002")
    assert "rollout" in table.stdout and "shadow" in table.stdout

    done = turncheck("failures", "grounded", "--since", "2026-11-01", "--json")
    failures = json.loads(done.stdout)
    assert failures and rollouts(failures) == {("grounded", "shadow")}
    assert "shadow" in turncheck("failures", "grounded", "--since", "2026-11-01").stdout

    done = turncheck("pass-rates", "--since", "2026-11-01", "--json")
    rates = json.loads(done.stdout)["rates"]
    shadow = [r for r in rates if r["rollout"] == "shadow"]
    assert [(r["check"], r["total"], r["passed"]) for r in shadow] == [("grounded", 12, 6)]
    assert "shadow" in turncheck("pass-rates", "--since", "2026-11-01").stdout

    checks.write_text(LIVE)
    again = turncheck("run")
    assert again.code == 0, again.stderr
    # The same version: every result was stored already, none is counted twice.
    assert again.last_line.startswith("12 turns, 96 results (0 new")
    done = turncheck("pass-rates", "--since", "2026-11-01", "--json")
    promoted = json.loads(done.stdout)["rates"]
    assert [
        (r["check"], r["total"], r["passed"]) for r in promoted if r["check"] == "grounded"
    ] == [("grounded", 12, 6)]
    assert {r["rollout"] for r in promoted} == {"live"}
    assert "rollout" not in turncheck("pass-rates", "--since", "2026-11-01").stdout
