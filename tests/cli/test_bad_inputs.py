"""Hostile input to the real command line: a line of turns nested 100,000 deep, a check
file that is not UTF-8 or nests past any parser, a libpq option in the database URL.
Each is one line naming where, never a traceback, with the exit code of its kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_commands import turncheck
from tests.cli.test_errors import one_line
from tests.conftest import TEST_RETENTION_DAYS
from tests.factories import BANNED_WORDS_CHECKS, turn_bytes

DEPTH = 100_000


def _nested_unknown_field(depth: int) -> bytes:
    """A valid turn but for an unknown field nested ``depth`` arrays deep."""
    turn = turn_bytes("t-deep")
    return turn[:-1] + b', "extra": ' + b"[" * depth + b"]" * depth + b"}"


def test_check_reports_a_line_nested_too_deep_and_goes_on(tmp_path: Path) -> None:
    """A turn with an unknown field nested 100,000 deep is a bad line, named by its number;
    the next line is still checked, and the exit code says a line was rejected."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    stdin = _nested_unknown_field(DEPTH) + b"\n" + turn_bytes("t-2", "Ask HelpCo.") + b"\n"
    done = turncheck("check", "--checks", str(checks), cwd=tmp_path, stdin=stdin)
    assert b"Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0] == {"line": 1, "error": "not valid JSON: nested too deeply"}
    assert lines[1]["turn_id"] == "t-2"
    assert len(lines) == 2


def test_a_check_file_that_is_not_utf8_is_one_line_naming_its_line(tmp_path: Path) -> None:
    """A Latin-1 byte on the file's fifth line: exit 2, the file and that line."""
    checks = tmp_path / "checks.yaml"
    checks.write_bytes(
        b"agent: a\nchecks:\n  - name: x\n    kind: does_not_contain\n    phrases: [caf\xe9]\n"
    )
    done = turncheck("check", "--checks", str(checks), cwd=tmp_path)
    assert done.returncode == 2
    assert one_line(done) == f"invalid checks: {checks}:5: not UTF-8"


def test_a_check_file_nested_too_deep_is_one_line(tmp_path: Path) -> None:
    """100,000 opening brackets, in YAML or in JSON: exit 2."""
    deep_yaml = tmp_path / "deep.yaml"
    deep_yaml.write_text("agent: a\nchecks: " + "[" * DEPTH + "\n")
    deep_json = tmp_path / "deep.json"
    deep_json.write_text('{"agent": "a", "checks": ' + "[" * DEPTH + "]" * DEPTH + "}\n")
    for path in (deep_yaml, deep_json):
        done = turncheck("check", "--checks", str(path), cwd=tmp_path)
        assert done.returncode == 2
        assert one_line(done) == f"invalid checks: {path}: nested too deeply"


@pytest.mark.postgres
def test_sslmode_in_the_database_url_says_to_write_ssl(tmp_path: Path, postgres_url: str) -> None:
    """libpq's `sslmode=require` reaches asyncpg as an unknown argument: refused before
    any connection, exit 2, saying what asyncpg takes instead; `ssl=` is taken as is."""
    url = postgres_url
    done = turncheck("migrate", cwd=tmp_path, TURNCHECK_DATABASE_URL=f"{url}?sslmode=require")
    assert done.returncode == 2
    assert one_line(done) == (
        "invalid setting TURNCHECK_DATABASE_URL: asyncpg does not take sslmode: write ssl= "
        "with the same mode instead (ssl=require; disable, allow, prefer, require, "
        "verify-ca, verify-full)"
    )
    done = turncheck("migrate", cwd=tmp_path, TURNCHECK_DATABASE_URL=f"{url}?ssl=prefer")
    assert done.returncode == 0, done.stderr


def test_replay_names_a_turn_dated_past_2100_on_one_line_and_stores_the_rest(
    tmp_path: Path,
) -> None:
    """The year-9999 turn is refused at decode with the field at fault, on one line at any
    width; the turns beside it are stored."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    turns = tmp_path / "turns.jsonl"
    late = turn_bytes("t-late", created_at="9999-12-31T00:00:00Z")
    turns.write_bytes(b"\n".join([turn_bytes("t-1"), late, turn_bytes("t-2")]) + b"\n")
    done = turncheck(
        "replay",
        str(turns),
        cwd=tmp_path,
        TURNCHECK_CHECKS=str(checks),
        TURNCHECK_RETENTION_DAYS=TEST_RETENTION_DAYS,
        COLUMNS="80",
    )
    assert done.returncode == 1
    lines = done.stderr.decode().splitlines()
    assert lines[0] == (
        "line 2: not a valid turn.stored/v1: created_at: Input should be less than "
        "2100-01-01T00:00:00Z"
    )
    assert lines[1].startswith("2 turns, 4 results (4 new, 0 not passed), 1 lines rejected;")


@pytest.mark.parametrize("setting", ["TURNCHECK_JUDGES", "TURNCHECK_WEBHOOKS"])
def test_a_judges_or_webhooks_file_not_utf8_or_nested_too_deep_is_one_line(
    tmp_path: Path, setting: str
) -> None:
    """The other files a person writes fail as check files do: exit 2, one line naming
    the file (and the line of a bad byte), never a traceback or the file's text."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(b"# ops\nname: caf\xe9\n")
    deep = tmp_path / "deep.yaml"
    deep.write_text("[" * DEPTH + "\n")
    nested = "[" * 50_000 + "]" * 50_000  # an environment variable holds at most 128 KiB
    inline = '{"a": ' + nested + "}" if setting == "TURNCHECK_JUDGES" else nested
    what = "judges" if setting == "TURNCHECK_JUDGES" else "webhooks"
    for value, where in (
        (str(latin1), f"{latin1}:2: not UTF-8"),
        (str(deep), f"{deep}: nested too deeply"),
        (inline, f"{setting}: nested too deeply"),
    ):
        done = turncheck("check", "--checks", str(checks), cwd=tmp_path, **{setting: value})
        assert done.returncode == 2, done.stderr
        assert where.replace(": ", f": cannot read {what}: ", 1) in one_line(done)
