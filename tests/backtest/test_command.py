"""``turncheck backtest`` as a person runs it: its output, its refusals and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.backtest.conftest import write
from tests.cli.inprocess import CommandLine
from tests.factories import FIXED_NOW, turn_bytes
from turncheck.worker.cli import backtest as backtest_command
from turncheck.worker.clock import FixedClock

DRAFT = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [HelpCo]
"""


@pytest.fixture
def turncheck(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CommandLine:
    """The command line with a store that does not exist (a backtest must not make it)."""
    clock = FixedClock(FIXED_NOW)
    monkeypatch.setattr(backtest_command, "utc_now", clock)
    env = {"TURNCHECK_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/store/turncheck.db"}
    return CommandLine(monkeypatch, clock, env)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    draft = write(tmp_path / "draft.yaml", DRAFT)
    turns = tmp_path / "turns.jsonl"
    turns.write_bytes(b"\n".join([turn_bytes("t-1", "Try HelpCo."), turn_bytes("t-2", "Hi.")]))
    return draft, turns


def test_a_backtest_of_a_file_prints_its_table_and_creates_no_store(
    turncheck: CommandLine, files: tuple[Path, Path], tmp_path: Path
) -> None:
    """The table names each check's would-fail count and rate and an example turn; the
    embedded store is not created."""
    draft, turns = files
    done = turncheck("backtest", "--checks", str(draft), "--file", str(turns))
    assert done.code == 0, done.stderr
    assert "no-competitors" in done.stdout and "1 50.0%" in done.stdout
    assert "examples t-1" in done.stdout
    assert "2 turns read from file:" in done.stdout
    assert not (tmp_path / "store").exists()


def test_json_reports_saved_per_part_merge_into_one(
    turncheck: CommandLine, files: tuple[Path, Path], tmp_path: Path
) -> None:
    """`backtest --json` writes the report; `backtest merge A B` adds parts up."""
    draft, turns = files
    done = turncheck("backtest", "--checks", str(draft), "--file", str(turns), "--json")
    assert done.code == 0, done.stderr
    saved = write(tmp_path / "a.json", done.stdout)
    merged = turncheck("backtest", "merge", str(saved), str(saved), "--json")
    assert merged.code == 0, merged.stderr
    report = json.loads(merged.stdout)
    assert report["totals"]["turns_read"] == 4
    assert report["checks"][0]["would_fail"] == 2


def test_a_bad_draft_is_refused_with_its_line_and_field(
    turncheck: CommandLine, files: tuple[Path, Path], tmp_path: Path
) -> None:
    """A draft with an unknown kind exits 2 with one line naming the file, line and field."""
    _, turns = files
    bad = write(tmp_path / "bad.yaml", "agent: a\nchecks:\n  - name: x\n    kind: nonsense\n")
    done = turncheck("backtest", "--checks", str(bad), "--file", str(turns))
    assert done.code == 2
    assert done.last_line.startswith(f"invalid checks: {bad}:4: check 'x': field 'kind'")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--partitions", "3-1"], "invalid --partitions '3-1'"),
        (["--since", "7 days"], "invalid --since '7 days'"),
        (["--labels", "missing.jsonl"], "no such file: missing.jsonl"),
    ],
)
def test_bad_options_are_refused_before_anything_runs(
    turncheck: CommandLine, files: tuple[Path, Path], args: list[str], says: str
) -> None:
    """A bad option exits 2 with one line saying which."""
    draft, _ = files
    done = turncheck(
        "backtest", "--checks", str(draft), *args, TURNCHECK_KAFKA_BOOTSTRAP="127.0.0.1:1"
    )
    assert done.code == 2, done.stderr
    assert done.last_line.startswith(says)


def test_a_labels_file_line_that_is_no_label_is_refused_by_its_number(
    turncheck: CommandLine, files: tuple[Path, Path], tmp_path: Path
) -> None:
    """--labels with a line that is not a label exits 2 naming the line."""
    draft, turns = files
    good = {
        "turn_id": "t-1",
        "agent_id": "support-bot",
        "check": "no-competitors",
        "check_version": "v",
        "label": "confirmed",
        "note": None,
        "labelled_at": "2026-11-29T10:00:00Z",
    }
    labels = write(
        tmp_path / "labels.jsonl",
        json.dumps(good) + "\n" + json.dumps({**good, "label": "maybe"}) + "\n",
    )
    done = turncheck(
        "backtest", "--checks", str(draft), "--file", str(turns), "--labels", str(labels)
    )
    assert done.code == 2
    assert (
        done.last_line
        == f"invalid labels {labels}:2: label: Input should be 'false_alarm' or 'confirmed'"
    )


def test_a_broker_out_of_reach_exits_3(
    turncheck: CommandLine, files: tuple[Path, Path], closed_port: int
) -> None:
    """With the broker down, the backtest of the topic exits 3 with one line."""
    draft, _ = files
    done = turncheck(
        "backtest", "--checks", str(draft), TURNCHECK_KAFKA_BOOTSTRAP=f"127.0.0.1:{closed_port}"
    )
    assert done.code == 3
    assert done.last_line.startswith(f"Kafka at 127.0.0.1:{closed_port} is unavailable")


def test_a_file_that_is_not_a_report_cannot_be_merged(
    turncheck: CommandLine, tmp_path: Path
) -> None:
    """`backtest merge` of a file that is not a saved report exits 2 naming it."""
    other = write(tmp_path / "other.json", '{"rates": []}')
    done = turncheck("backtest", "merge", str(other))
    assert done.code == 2
    assert (
        done.last_line == f"invalid report {other}: not a report `turncheck backtest --json` wrote"
    )


TURN_URL = "https://chat.example.com/a/{agent_id}/t/{thread_id}?turn={turn_id}&token=tok-42"
ODD = "web/2026 t?1é"
ODD_LINK = (
    "https://chat.example.com/a/support-bot/t/th%2F9?turn=web%2F2026%20t%3F1%C3%A9&token=tok-42"
)


@pytest.fixture
def odd_files(tmp_path: Path) -> tuple[Path, Path]:
    """A failing turn whose ids need quoting, a failing turn without a thread, a passing one."""
    draft = write(tmp_path / "draft.yaml", DRAFT)
    turns = tmp_path / "turns.jsonl"
    turns.write_bytes(
        b"\n".join(
            [
                turn_bytes(ODD, "Try HelpCo.", thread_id="th/9"),
                turn_bytes("t-alone", "HelpCo too.", thread_id=None),
                turn_bytes("t-fine", "Hi."),
            ]
        )
    )
    return draft, turns


def test_with_turn_url_set_the_example_turns_are_linked_in_the_table_and_json(
    turncheck: CommandLine, odd_files: tuple[Path, Path], tmp_path: Path
) -> None:
    """With TURNCHECK_TURN_URL set, each example turn's quoted link is printed whole under the
    report and given as ``turn_urls``, also after a merge; a turn without a thread is not."""
    draft, turns = odd_files
    args = ("backtest", "--checks", str(draft), "--file", str(turns))
    table = turncheck(*args, TURNCHECK_TURN_URL=TURN_URL)
    assert table.code == 0, table.stderr
    assert f"{ODD}  {ODD_LINK}" in table.stdout.splitlines()
    assert "t-alone  " not in table.stdout and "t-fine" not in table.stdout
    assert table.stdout.strip().splitlines()[-1].startswith("3 turns read from file:")

    done = turncheck(*args, "--json", TURNCHECK_TURN_URL=TURN_URL)
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["turn_urls"] == {ODD: ODD_LINK}
    saved = write(tmp_path / "a.json", done.stdout)
    merged = turncheck("backtest", "merge", str(saved), "--json", TURNCHECK_TURN_URL=TURN_URL)
    assert merged.code == 0, merged.stderr
    assert json.loads(merged.stdout)["turn_urls"] == {ODD: ODD_LINK}


def test_without_turn_url_nothing_is_linked(
    turncheck: CommandLine, odd_files: tuple[Path, Path]
) -> None:
    """Without the setting the table prints no link and ``turn_urls`` is empty."""
    draft, turns = odd_files
    args = ("backtest", "--checks", str(draft), "--file", str(turns))
    table = turncheck(*args)
    assert table.code == 0, table.stderr
    assert "https://" not in table.stdout
    done = turncheck(*args, "--json")
    assert json.loads(done.stdout)["turn_urls"] == {}
