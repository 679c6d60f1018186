"""What a command refuses before it starts: arguments and files."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.factories import FIXED_NOW
from turncheck.worker.cli.options import parse_since
from turncheck.worker.cli.startup import require_readable
from turncheck.worker.errors import ConfigurationError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30m", FIXED_NOW - timedelta(minutes=30)),
        ("7d", FIXED_NOW - timedelta(days=7)),
        ("2w", FIXED_NOW - timedelta(weeks=2)),
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11-01T08:00:00+01:00", datetime(2026, 11, 1, 7, tzinfo=UTC)),
    ],
)
def test_since_takes_a_duration_back_from_now_or_an_iso_date(text: str, expected: datetime) -> None:
    assert parse_since(text, FIXED_NOW) == expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("9999999d", "goes back past the year 1"),
        ("99999999999999999999999w", "goes back past the year 1"),
        ("2026-13-45", "use 7d, 12h, 30m, 2w or an ISO date"),
        ("7 days", "use 7d, 12h, 30m, 2w or an ISO date"),
        ("0001-01-01T00:00:00+14:00", "outside the years 1 to 9999 once converted to UTC"),
    ],
)
def test_a_since_that_cannot_be_a_time_is_refused_with_what_to_write(text: str, says: str) -> None:
    with pytest.raises(ConfigurationError, match=says):
        parse_since(text, FIXED_NOW)


def test_a_turns_file_must_be_a_readable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no such file"):
        require_readable(tmp_path / "missing.jsonl")
    with pytest.raises(ConfigurationError, match="is a folder"):
        require_readable(tmp_path)
    (tmp_path / "turns.jsonl").write_text("")
    require_readable(tmp_path / "turns.jsonl")
    require_readable(Path("-"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_turns_file_is_refused_naming_why(tmp_path: Path) -> None:
    secret = tmp_path / "turns.jsonl"
    secret.write_text("")
    secret.chmod(0)
    with pytest.raises(ConfigurationError, match=r"cannot read .*: permission denied"):
        require_readable(secret)
