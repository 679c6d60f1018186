"""``turncheck backtest --judge``: the estimate before any judge is asked, and no start
without a confirmation."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from tests.backtest.test_judging import JUDGED_DRAFT, PASS, turns_file
from tests.cli.inprocess import CommandLine
from tests.factories import FIXED_NOW
from tests.judge.fake_provider import FakeProvider
from turncheck.worker.backtest import judging
from turncheck.worker.cli import backtest
from turncheck.worker.clock import FixedClock


@pytest.fixture
def turncheck(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_provider: FakeProvider
) -> CommandLine:
    fake_provider.responder = lambda _: PASS
    judges = {"fake": {"provider": "openai", "base_url": fake_provider.openai_url}}
    env = {
        "TURNCHECK_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/turncheck.db",
        "TURNCHECK_JUDGES": json.dumps(judges),
    }
    return CommandLine(monkeypatch, FixedClock(FIXED_NOW), env)


@pytest.fixture
def fake_provider() -> object:
    with FakeProvider() as server:
        yield server


def draft_file(tmp_path: Path) -> str:
    path = tmp_path / "draft.yaml"
    path.write_text(JUDGED_DRAFT)
    return str(path)


class Recorder(io.StringIO):
    """Stderr that notes how many judge requests were made when each line was written."""

    def __init__(self, server: FakeProvider) -> None:
        super().__init__()
        self.server = server
        self.lines: list[tuple[int, str]] = []

    def write(self, text: str) -> int:
        self.lines.append((len(self.server.requests), text))
        return super().write(text)


def test_the_estimate_is_printed_before_any_judge_request(
    turncheck: CommandLine,
    tmp_path: Path,
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With --yes the estimate is shown, no judge asked yet, then the run asks it."""
    recorder = Recorder(fake_provider)
    monkeypatch.setattr(backtest, "err", Console(file=recorder, width=200))
    turns = str(turns_file(tmp_path, 6))

    done = turncheck(
        "backtest",
        "--checks",
        draft_file(tmp_path),
        "--file",
        turns,
        "--judge",
        "--yes",
        "--max-judgements",
        "4",
        "--json",
    )

    assert done.code == 0, done.stderr
    estimate = [(asked, line) for asked, line in recorder.lines if "judgements:" in line]
    assert estimate == [(0, "judgements: 4, the cap (--max-judgements); about 6 without it\n")]
    assert len(fake_provider.requests) == 4
    polite = next(r for r in json.loads(done.stdout)["checks"] if r["check"] == "polite")
    assert (polite["turns_read"], polite["not_judged_cap"]) == (4, 2)


def test_judge_off_a_terminal_needs_yes(
    turncheck: CommandLine, tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """Nobody can confirm: one line naming --yes, exit 2, no judge asked."""
    turns = str(turns_file(tmp_path, 2))

    done = turncheck("backtest", "--checks", draft_file(tmp_path), "--file", turns, "--judge")

    assert done.code == 2
    assert done.stderr.strip().splitlines() == [done.last_line]
    assert "--yes" in done.last_line
    assert fake_provider.requests == []


def test_the_command_line_cap_defaults_to_the_engines() -> None:
    """The CLI keeps its own copy (it imports no judge at its top): the two agree."""
    assert backtest.DEFAULT_MAX_JUDGEMENTS == judging.DEFAULT_MAX_JUDGEMENTS


def test_the_table_says_what_the_cap_left_out(
    turncheck: CommandLine, tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """Without --json the report names the judged turns, those not judged (cap), tokens."""
    turns = str(turns_file(tmp_path, 3))

    done = turncheck(
        "backtest",
        "--checks",
        draft_file(tmp_path),
        "--file",
        turns,
        "--judge",
        "--yes",
        "--max-judgements",
        "1",
    )

    assert done.code == 0, done.stderr
    assert "polite (support-bot): 1 judged, 2 not judged (cap); judge tokens 17 in" in done.stdout
