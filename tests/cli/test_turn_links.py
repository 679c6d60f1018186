"""`results` and `failures` link each turn to its page on the chat platform when
TURNCHECK_TURN_URL is set, and print what they always printed when it is not."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.cli.inprocess import CommandLine
from tests.conftest import fresh_store
from tests.factories import BANNED_WORDS_CHECKS, turn_dict
from turncheck.worker.clock import FixedClock

TEMPLATE = "https://chat.example.com/a/{agent_id}/t/{thread_id}?turn={turn_id}&token=tok-42"
ODD = "web/2026 t?1é"
ODD_LINK = (
    "https://chat.example.com/a/support-bot/t/th-7?turn=web%2F2026%20t%3F1%C3%A9&token=tok-42"
)


@pytest.fixture
def turncheck(database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CommandLine:
    """The command line on a store holding two failing turns: one with an odd id, one
    without a thread; and a passing one."""

    async def empty() -> None:
        await (await fresh_store(database_url)).close()

    asyncio.run(empty())
    (tmp_path / "checks.yaml").write_text(BANNED_WORDS_CHECKS)
    turns = [
        turn_dict(ODD, "Ask HelpCo.", thread_id="th-7", created_at="2026-11-29T10:00:00Z"),
        turn_dict("t-alone", "Ask HelpCo.", thread_id=None, created_at="2026-11-29T09:00:00Z"),
        turn_dict("t-fine", "Fine.", created_at="2026-11-29T08:00:00Z"),
    ]
    (tmp_path / "turns.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    env = {
        "TURNCHECK_DATABASE_URL": database_url,
        "TURNCHECK_CHECKS": str(tmp_path / "checks.yaml"),
        "TURNCHECK_TURNS_FILE": str(tmp_path / "turns.jsonl"),
        "COLUMNS": "120",
    }
    cli = CommandLine(monkeypatch, FixedClock(datetime(2026, 11, 29, 12, tzinfo=UTC)), env)
    assert cli("run").code == 0
    return cli


def test_failures_lists_each_turn_s_link_under_the_table_whole(turncheck: CommandLine) -> None:
    """One line per turn with a link, the id quoted in it; the turn without a thread has none."""
    done = turncheck("failures", "no-competitors", "--since", "1d", TURNCHECK_TURN_URL=TEMPLATE)
    assert done.code == 0, done.stderr
    table, links = done.stdout.split("└", 1)
    assert ODD in table and "t-alone" in table
    assert links.splitlines()[1:] == [f"{ODD}  {ODD_LINK}"]


def test_the_json_carries_turn_url_and_null_without_a_link(turncheck: CommandLine) -> None:
    done = turncheck(
        "failures", "no-competitors", "--since", "1d", "--json", TURNCHECK_TURN_URL=TEMPLATE
    )
    assert done.code == 0, done.stderr
    urls = {r["turn_id"]: r["turn_url"] for r in json.loads(done.stdout)}
    assert urls == {ODD: ODD_LINK, "t-alone": None}
    one = turncheck("results", ODD, "--json", TURNCHECK_TURN_URL=TEMPLATE)
    assert {r["turn_url"] for r in json.loads(one.stdout)} == {ODD_LINK}


def test_results_prints_the_turn_s_link_under_its_table(turncheck: CommandLine) -> None:
    done = turncheck("results", ODD, TURNCHECK_TURN_URL=TEMPLATE)
    assert done.code == 0, done.stderr
    assert done.stdout.rstrip().splitlines()[-1] == f"{ODD}  {ODD_LINK}"


def test_without_a_template_the_tables_are_as_they_were(turncheck: CommandLine) -> None:
    """No TURNCHECK_TURN_URL: no link anywhere, the tables end with the table, JSON says null."""
    for args in (("failures", "no-competitors", "--since", "1d"), ("results", ODD)):
        done = turncheck(*args)
        assert done.code == 0, done.stderr
        assert "http" not in done.stdout and done.stdout.rstrip().endswith("┘")
        as_json = turncheck(*args, "--json")
        assert {r["turn_url"] for r in json.loads(as_json.stdout)} == {None}


def test_a_bad_template_is_one_line_exit_2_never_echoing_it(turncheck: CommandLine) -> None:
    done = turncheck(
        "failures",
        "no-competitors",
        TURNCHECK_TURN_URL="https://chat.example.com/{person_id}?token=tok-42",
    )
    assert done.code == 2
    assert done.stderr.strip().splitlines() == [
        "invalid setting TURNCHECK_TURN_URL: names a field other than {turn_id}, {thread_id}, "
        "{agent_id} (a literal brace is {{ or }})"
    ]
    assert done.stdout == ""
