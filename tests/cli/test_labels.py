"""`turncheck label` and `turncheck labels export` as a person runs them, on the example
turns, with `pass-rates`, `results` and `failures` after, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.cli.inprocess import CommandLine
from tests.cli.test_counting import EXAMPLES, FIRST_RUN, TURNS
from tests.conftest import fresh_store
from turncheck.worker.clock import FixedClock
from turncheck.worker.labels import read_labels

CARD = "no-card-numbers"
"""Failed on t-1004 alone of the example turns."""


@pytest.fixture
def turncheck(database_url: str, monkeypatch: pytest.MonkeyPatch) -> CommandLine:
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


def rate_of(turncheck: CommandLine, check: str, *flags: str) -> dict[str, object]:
    done = turncheck("pass-rates", "--since", "2026-11-01", "--check", check, "--json", *flags)
    assert done.code == 0, done.stderr
    [rate] = json.loads(done.stdout)["rates"]
    return dict(rate)


def test_a_false_alarm_leaves_the_pass_rate_only_when_asked(turncheck: CommandLine) -> None:
    assert turncheck("run").code == 0
    done = turncheck("label", "t-1004", CARD, "--false-alarm", "--note", "a test card")
    assert done.code == 0, done.stderr
    assert done.stderr.strip().startswith(f"labelled {CARD} on turn t-1004 (version ")
    assert done.stderr.strip().endswith(") a false alarm")
    raw = rate_of(turncheck, CARD)
    assert (raw["passed"], raw["failed"], raw["false_alarms"], raw["precision"]) == (11, 1, 1, 0.0)
    excluded = rate_of(turncheck, CARD, "--exclude-false-alarms")
    assert (excluded["passed"], excluded["failed"], excluded["total"]) == (12, 0, 12)
    table = turncheck("pass-rates", "--since", "2026-11-01", "--exclude-false-alarms")
    assert "false alarms counted as passed" in table.stdout and "0% (0/1)" in table.stdout
    shown = json.loads(turncheck("results", "t-1004", "--json").stdout)
    [card] = [r for r in shown if r["check"] == CARD]
    assert (card["label"], card["label_note"]) == ("false_alarm", "a test card")
    listed = json.loads(turncheck("failures", CARD, "--since", "2026-11-01", "--json").stdout)
    assert [(r["turn_id"], r["label"]) for r in listed] == [("t-1004", "false_alarm")]
    assert "label_note" not in listed[0]
    assert "false alarm: a test card" in turncheck("results", "t-1004", COLUMNS="200").stdout


def test_relabelling_replaces_and_clear_removes(turncheck: CommandLine) -> None:
    assert turncheck("run").code == 0
    assert turncheck("label", "t-1004", CARD, "--false-alarm").code == 0
    assert turncheck("label", "t-1004", CARD, "--confirmed").code == 0
    rate = rate_of(turncheck, CARD)
    assert (rate["false_alarms"], rate["confirmed"], rate["precision"]) == (0, 1, 1.0)
    cleared = turncheck("label", "t-1004", CARD, "--clear")
    assert (cleared.code, cleared.stderr.strip()) == (
        0,
        f"cleared the label of {CARD} on turn t-1004",
    )
    again = turncheck("label", "t-1004", CARD, "--clear")
    assert again.stderr.strip() == f"there was no label on {CARD} on turn t-1004"
    assert rate_of(turncheck, CARD)["labelled_failures"] == 0


def test_what_cannot_be_labelled_is_one_line_and_its_exit_code(turncheck: CommandLine) -> None:
    assert turncheck("run").code == 0
    unknown = turncheck("label", "t-nope", CARD, "--confirmed")
    assert (unknown.code, unknown.stderr) == (
        1,
        f"turn 't-nope' has no stored result of check {CARD!r}\n",
    )
    passed = turncheck("label", "t-1002", CARD, "--false-alarm")
    assert passed.code == 1
    assert passed.stderr.strip().endswith("is passed: only a failed result can be labelled")
    for args in (["--false-alarm", "--confirmed"], [], ["--clear", "--confirmed"]):
        usage = turncheck("label", "t-1004", CARD, *args)
        assert usage.code == 2 and len(usage.stderr.strip().splitlines()) == 1, usage.stderr
    long = turncheck("label", "t-1004", CARD, "--confirmed", "--note", "x" * 1001)
    assert (long.code, long.stderr.strip()) == (2, "invalid --note: at most 1000 characters")
    nul = turncheck(
        "label", "t-1004", CARD, "--confirmed", "--note", "a\x01b".replace("\x01", "\x00")
    )
    assert nul.code == 2


def test_labels_export_writes_lines_that_read_back(turncheck: CommandLine, tmp_path: Path) -> None:
    assert turncheck("run").code == 0
    turncheck.clock.advance(minutes=1)
    assert turncheck("label", "t-1004", CARD, "--false-alarm", "--note", "test card").code == 0
    turncheck.clock.advance(minutes=1)
    assert turncheck("label", "t-1004", "grounded", "--confirmed").code == 0
    out = tmp_path / "labels.jsonl"
    done = turncheck("labels", "export", "-o", str(out))
    assert (done.code, done.stderr.strip()) == (0, f"2 labels written to {out}")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(line["check"], line["label"], line["note"]) for line in lines] == [
        (CARD, "false_alarm", "test card"),
        ("grounded", "confirmed", None),
    ]
    assert lines[0]["labelled_at"] == "2026-11-28T12:01:00Z"
    assert set(lines[0]) == {
        "turn_id",
        "agent_id",
        "check",
        "check_version",
        "label",
        "note",
        "labelled_at",
    }
    assert read_labels(out) == {
        ("t-1004", CARD): "false_alarm",
        ("t-1004", "grounded"): "confirmed",
    }
    only = turncheck("labels", "export", "--label", "confirmed", "--agent", "support-bot")
    assert [json.loads(line)["check"] for line in only.stdout.splitlines()] == ["grounded"]
    assert turncheck("labels", "export", "--check", "polite").stdout == ""
