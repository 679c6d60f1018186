"""Builders for test turns and check sets."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from turncheck.worker.checks import CheckSet, load_checks
from turncheck.worker.turns.decode import decode_turn
from turncheck.worker.turns.structs import Turn

FIXED_NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def turn_dict(
    turn_id: str = "t-1", output: str = "Hello there.", **overrides: Any
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema": "turn.stored/v1",
        "turn_id": turn_id,
        "thread_id": "th-1",
        "person_id": "p-1",
        "agent": {"id": "support-bot", "version": 7, "model": "gpt-4o-mini"},
        "created_at": "2026-11-29T10:00:00Z",
        "channel": "web",
        "input": {"messages": [{"role": "user", "content": "Hi"}]},
        "output": {"text": output, "stop_reason": "end_turn"},
    }
    data.update(overrides)
    return data


def turn_bytes(turn_id: str = "t-1", output: str = "Hello there.", **overrides: Any) -> bytes:
    return json.dumps(turn_dict(turn_id, output, **overrides)).encode()


def make_turn(turn_id: str = "t-1", output: str = "Hello there.", **overrides: Any) -> Turn:
    return turn_from(turn_dict(turn_id, output, **overrides))


def turn_from(data: dict[str, Any]) -> Turn:
    """A turn the way the worker gets one: its JSON, decoded and validated."""
    return decode_turn(json.dumps(data).encode())


def check_set(tmp_path: Path, yaml_text: str) -> CheckSet:
    path = tmp_path / "checks.yaml"
    path.write_text(yaml_text)
    return load_checks([path])


BANNED_WORDS_CHECKS = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [HelpCo]
  - name: no-ticket-ids
    kind: pattern
    pattern: 'TCK-[0-9]{6}'
"""
