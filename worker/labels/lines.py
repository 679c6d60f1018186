"""The label export lines: one JSON object per line, written and read back."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from turncheck.schemas.label import LabelLine, LabelName
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.store.labels import LabelKey, StoredLabel


def label_line(label: StoredLabel) -> LabelLine:
    return LabelLine(
        turn_id=label.turn_id,
        agent_id=label.agent_id,
        check=label.check,
        check_version=label.check_version,
        label=label.label,
        note=label.note,
        labelled_at=label.labelled_at,
    )


def write_lines(labels: Iterable[StoredLabel], out: TextIO) -> int:
    """Write each label as its export line; how many were written."""
    written = 0
    for label in labels:
        out.write(label_line(label).model_dump_json() + "\n")
        written += 1
    return written


def read_labels(path: Path) -> dict[LabelKey, LabelName]:
    """(turn_id, check) → label of every line of an export file; a later line for the same
    turn and check replaces an earlier one, as relabelling does. Blank lines are skipped.
    A file that cannot be read, or a line that is not a label, is a ``ConfigurationError``
    naming the file, the line and the field (never a value: a line holds a person's note)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigurationError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise ConfigurationError(f"not a file: {path} is a folder") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        raise ConfigurationError(f"cannot read {path}: {why.lower()}") from None
    found: dict[LabelKey, LabelName] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            parsed = LabelLine.model_validate_json(line)
        except ValidationError as exc:
            error = exc.errors(include_input=False, include_url=False)[0]
            where = ".".join(str(part) for part in error["loc"]) or "line"
            if error["type"] == "json_invalid":
                where, message = "line", "not valid JSON"
            else:
                message = error["msg"]
            raise ConfigurationError(
                f"invalid labels {path}:{number}: {where}: {message}"
            ) from None
        found[(parsed.turn_id, parsed.check)] = parsed.label
    return found
