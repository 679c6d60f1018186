"""``--labels FILE``: labels as ``turncheck labels export`` writes them, one JSON object a
line (``{"turn_id", "agent_id", "check", "check_version", "label", "note",
"labelled_at"}``); a backtest needs the turn, the check's name and the label."""

from __future__ import annotations

import json
from pathlib import Path

from turncheck.worker.backtest.request import LABELS
from turncheck.worker.errors import ConfigurationError


def read_labels(path: Path) -> dict[tuple[str, str], str]:
    """Every label of the file by (turn id, check name); a later line for the same turn and
    check wins (the export is oldest first). ``ConfigurationError`` naming the line of the
    first that is not a label."""
    labels: dict[tuple[str, str], str] = {}
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        why = (exc.strerror or type(exc).__name__).lower()
        raise ConfigurationError(f"invalid --labels {path}: {why}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            raise ConfigurationError(f"invalid --labels {path}: line {number}: not JSON") from None
        turn_id = data.get("turn_id") if isinstance(data, dict) else None
        check = data.get("check") if isinstance(data, dict) else None
        label = data.get("label") if isinstance(data, dict) else None
        if not isinstance(turn_id, str) or not isinstance(check, str):
            raise ConfigurationError(
                f"invalid --labels {path}: line {number}: needs a turn_id and a check"
            )
        if label not in LABELS:
            raise ConfigurationError(
                f"invalid --labels {path}: line {number}: label must be one of {', '.join(LABELS)}"
            )
        labels[turn_id, check] = label
    return labels
