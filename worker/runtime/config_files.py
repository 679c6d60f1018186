"""Reading the files a person writes (checks, judges, webhooks): one way to fail.

Each loader words its own error; this module only says where a file could not be read
and why, in words that never quote the file (a webhooks file holds secrets): not
readable, not UTF-8 (the line of the first bad byte), not valid YAML or JSON (its
line), nested deeper than the parsers recurse.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

TOO_LONG_A_NUMBER = "holds a number of more digits than can be read"


@dataclass(frozen=True, slots=True)
class UnreadableConfig(Exception):
    """``reason`` at ``line`` (1-based; None when the whole file is at fault)."""

    reason: str
    line: int | None = None


def read_text(path: Path) -> str:
    """The file's text; ``UnreadableConfig`` if it cannot be read or is not UTF-8."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableConfig((exc.strerror or type(exc).__name__).lower()) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableConfig("not UTF-8", raw.count(b"\n", 0, exc.start) + 1) from None


def parse_yaml(text: str) -> tuple[Any, yaml.Node | None]:
    """The data and the node tree (for the lines of fields) of YAML ``text``."""
    try:
        return yaml.safe_load(text), yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
        # The problem is the parser's own words ("mapping values are not allowed here");
        # the context and snippet around it would quote the file.
        reason = f"not valid YAML: {problem}" if problem else "not valid YAML"
        raise UnreadableConfig(reason, mark.line + 1 if mark else None) from None
    except RecursionError:  # PyYAML recurses once per level: a few hundred is its limit
        raise UnreadableConfig("nested too deeply") from None
    except ValueError:  # int() of a number past Python's 4,300 digits, in the constructor
        raise UnreadableConfig(TOO_LONG_A_NUMBER) from None


def parse_json(text: str) -> Any:
    """The data of JSON ``text`` (a setting's inline value)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableConfig("not valid JSON", exc.lineno) from None
    except RecursionError:
        raise UnreadableConfig("nested too deeply") from None
    except ValueError:
        raise UnreadableConfig(TOO_LONG_A_NUMBER) from None
