"""The compact shape of results: a turn's passed checks in one ``passed_results`` row.

Most results are a check passed with nothing more to say (no reason, score, spans,
token usage or answers). Storing each as a row of its own made the store the slowest
step of the worker; instead each write of a turn keeps them as one list
``[[name, version, kind, stage, mode, position], ...]``, which is all a reader needs to
give them back exactly as a full row would. Pure functions, no database.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from typing import Any

from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.store.views import StoredResult

Entry = tuple[CheckId, int]
"""A passed check, and its position among the results written with it."""


def is_compact(result: CheckResult) -> bool:
    """Whether the result says nothing but "passed": only such results are kept compact."""
    return (
        result.verdict is Verdict.PASSED
        and result.reason is None
        and result.score is None
        and not result.spans
        and result.usage is None
        and result.answers is None
    )


def encode(entries: Iterable[Entry]) -> str:
    # Every turn repeats the same few entries: each one's text is made once (measured 3x
    # faster than one json.dumps of the list, and the same text).
    return "[" + ",".join([_entry_text(check, position) for check, position in entries]) + "]"


@lru_cache(maxsize=4096)
def _entry_text(c: CheckId, position: int) -> str:
    return json.dumps([c.name, c.version, c.kind, c.stage, c.mode, position], separators=(",", ":"))


def decode(checks: str) -> list[Entry]:
    return [(CheckId(n, v, k, s, m), p) for n, v, k, s, m, p in json.loads(checks)]


@cache
def holding(name: str) -> str:
    """Text that ``checks`` contains exactly when it holds the check ``name``: an entry's
    opening bracket, its name, the comma after it (a quote inside a name is escaped, so
    no other part of the text can look like this)."""
    return "[" + json.dumps(name, separators=(",", ":")) + ","


_DECODER = json.JSONDecoder()


def entries_of(checks: str, name: str) -> list[Entry]:
    """The entries of check ``name`` alone, parsed where they stand: a reader of one check
    need not decode a write's every entry."""
    fragment = holding(name)
    found = []
    start = checks.find(fragment)
    while start != -1:
        (n, v, k, s, m, position), _ = _DECODER.raw_decode(checks, start)
        found.append((CheckId(n, v, k, s, m), position))
        start = checks.find(fragment, start + len(fragment))
    return found


def expand(row: Mapping[Any, Any], only: str | None = None) -> list[StoredResult]:
    """The results a ``passed_results`` row holds (those of check ``only``, if given), as
    full rows would give them."""
    return [
        StoredResult(
            write_id=row["id"],
            position=position,
            turn_id=row["turn_id"],
            thread_id=row["thread_id"],
            check=check.name,
            check_version=check.version,
            kind=check.kind,
            stage=check.stage,
            mode=check.mode,
            verdict=Verdict.PASSED.value,
            score=None,
            reason=None,
            spans=[],
            usage=None,
            answers=None,
            agent_id=row["agent_id"],
            agent_version=row["agent_version"],
            person_id=row["person_id"],
            turn_created_at=row["turn_created_at"],
            checked_at=row["checked_at"],
            expires_at=row["expires_at"],
        )
        for check, position in (
            decode(row["checks"]) if only is None else entries_of(row["checks"], only)
        )
    ]
