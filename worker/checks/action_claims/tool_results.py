"""Whether a tool's result says its action did not happen (yet).

A result fails when it reports a failure, an error or a wait for approval:

* in JSON (an object, or a string holding one), at any depth: a ``status``,
  ``state``, ``result`` or ``outcome`` naming a failed or waiting state
  (``failed``, ``declined``, ``pending_approval``, ...); an ``error`` or
  ``errors`` with a value; ``success``, ``ok`` or ``approved`` false; a
  ``requires_approval``-like flag true. When no state is given, its
  ``message``-like texts are read as plain text;
* in plain text: words of failure or waiting ("failed", "declined", "could not",
  "requires approval", "submitted for approval", "pending"), not "no errors".

Depth and size are bounded by the turn's budget, checked at every value.
"""

from __future__ import annotations

import json
from typing import Any

import regex

from turncheck.worker.checks.budget import Budget

_STATE_KEYS = ("status", "state", "result", "outcome")
_ERROR_KEYS = frozenset({"error", "errors", "error_message", "error_code", "failure", "exception"})
_FALSE_MEANS_FAILED = frozenset({"success", "ok", "succeeded", "approved", "completed", "done"})
_TRUE_MEANS_WAITING = frozenset(
    {
        "requires_approval",
        "needs_approval",
        "pending_approval",
        "approval_required",
        "awaiting_approval",
        "pending",
        "failed",
        "manual_review",
        "on_hold",
    }
)
_TEXT_KEYS = frozenset({"message", "detail", "details", "reason", "description", "note", "info"})
_FAILED_STATE = regex.compile(
    r"^(?:fail(?:ed|ure|s)?|error(?:ed)?|declined|denied|rejected|refused|blocked|"
    r"(?:pending|awaiting|requires|needs|waiting)(?:_\w+)?|approval_(?:required|needed|pending)|"
    r"on_hold|held|in_review|under_review|manual_review|timeout|timed_out|invalid|not_found|"
    r"unavailable|ineligible|not_eligible|insufficient_funds|aborted|not_allowed|"
    r"unauthori[sz]ed|forbidden|unsuccessful)$"
)
_FAILED_TEXT = regex.compile(
    r"(?<!\bno\s)(?<!\bwithout\s)(?<!\b0\s)\b(?:fail(?:ed|ure|s)?|error|errors|declined|denied|"
    r"rejected|refused|unable|could\s+not|couldn't|cannot|can't|not\s+(?:allowed|permitted|"
    r"possible|authori[sz]ed|eligible|found|processed|completed|available)|ineligible|"
    r"requires?\s+(?:\w+\s+)?approval|needs?\s+(?:\w+\s+)?approval|approval\s+(?:is\s+)?"
    r"(?:required|needed|pending)|for\s+(?:\w+\s+)?(?:approval|review)|under\s+review|"
    r"pending|awaiting|on\s+hold|timed\s+out|timeout|exception|"
    r"invalid|unavailable|insufficient|blocked|unsuccessful)\b",
    regex.IGNORECASE,
)
_MAX_DEPTH = 8


def result_failed(content: Any, budget: Budget) -> bool:
    """Whether ``content`` (a tool result) reports a failure or a wait (see the module)."""
    if isinstance(content, str):
        stripped = content.strip()
        if stripped[:1] in ("{", "["):
            try:
                return _value_failed(json.loads(stripped), budget, 0)
            except ValueError:
                pass
        return _FAILED_TEXT.search(content) is not None
    return _value_failed(content, budget, 0)


def _value_failed(value: Any, budget: Budget, depth: int) -> bool:
    budget.check()
    if depth > _MAX_DEPTH:
        return False
    if isinstance(value, list):
        return any(_value_failed(item, budget, depth + 1) for item in value)
    if not isinstance(value, dict):
        return False
    stated = False
    texts: list[str] = []
    for raw_key, item in value.items():
        key = str(raw_key).lower()
        if any(name in key for name in _STATE_KEYS) and isinstance(item, str):
            stated = True
            if _FAILED_STATE.match(_as_state(item)):
                return True
        elif _flag_failed(key, item):
            return True
        elif key in _TEXT_KEYS and isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict | list) and _value_failed(item, budget, depth + 1):
            return True
    return not stated and any(_FAILED_TEXT.search(text) for text in texts)


def _flag_failed(key: str, item: Any) -> bool:
    """An error with a value, a success flag false, or an approval flag true."""
    if key in _ERROR_KEYS:
        return item not in (None, False, "", [], {}, 0)
    return (key in _FALSE_MEANS_FAILED and item is False) or (
        key in _TRUE_MEANS_WAITING and item is True
    )


def _as_state(value: str) -> str:
    return regex.sub(r"[\s-]+", "_", value.strip().lower())
