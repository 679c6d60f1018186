"""Pass rates from rollup sums: per check and agent, split by check version, agent
version or both when asked, each saying which versions it covers.

Pure: the rows come from ``Queries``, summed per (bucket, check, agent, agent version,
check version); the versions a rate covers are gathered here rather than in SQL, where
joining strings is spelled differently on SQLite and PostgreSQL. A check has a few
versions an hour, so the rows are few.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from turncheck.schemas.agent_versions import integer_of
from turncheck.worker.store.rows import ROLLUP_COUNTS
from turncheck.worker.store.views import PassRate

UNKNOWN_CHECK_VERSION = "unknown"
"""The check version of rollup counts kept before they had one (migration 0009)."""


class Split(StrEnum):
    """What a pass rate is counted per, beyond its check and agent."""

    NONE = "none"
    CHECK_VERSION = "check_version"
    AGENT_VERSION = "agent_version"
    BOTH = "both"

    @property
    def by_check_version(self) -> bool:
        return self in (Split.CHECK_VERSION, Split.BOTH)

    @property
    def by_agent_version(self) -> bool:
        return self in (Split.AGENT_VERSION, Split.BOTH)


def agent_version_order(version: str) -> tuple[int, int, str]:
    """Integers first, in their order (9 before 10), then the others by their text."""
    number = integer_of(version)
    return (0, number, "") if number is not None else (1, 0, version)


@dataclass(slots=True)
class _Sum:
    counts: list[int] = field(default_factory=lambda: [0] * len(ROLLUP_COUNTS))
    check_versions: dict[str, datetime] = field(default_factory=dict)
    """Each check version, with the first hour it has counts in."""
    agent_versions: set[str] = field(default_factory=set)

    def add(self, row: Mapping[Any, Any]) -> None:
        for i, name in enumerate(ROLLUP_COUNTS):
            self.counts[i] += int(row[name] or 0)
        version, first = row["check_version"], row["first_at"]
        seen = self.check_versions.get(version)
        self.check_versions[version] = first if seen is None else min(seen, first)
        self.agent_versions.add(row["agent_version"])

    def rate(self, key: tuple[Any, ...], split: Split) -> PassRate:
        _, check, agent_id, agent_version, check_version = key
        by_age = sorted(self.check_versions.items(), key=_age)
        passed, failed, errored, tokens_in, tokens_out = self.counts
        return PassRate(
            check,
            agent_id,
            passed,
            failed,
            errored,
            tokens_in,
            tokens_out,
            check_version=check_version if split.by_check_version else None,
            agent_version=agent_version if split.by_agent_version else None,
            check_versions=tuple(version for version, _ in by_age),
            agent_versions=tuple(sorted(self.agent_versions, key=agent_version_order)),
        )


def _age(item: tuple[str, datetime]) -> tuple[datetime, bool, str]:
    """Oldest first; in one hour, the counts kept before versions were (``unknown``)."""
    version, first = item
    return (first, version != UNKNOWN_CHECK_VERSION, version)


def combine(
    rows: Iterable[Mapping[Any, Any]], split: Split, *, bucket_of: Any = None
) -> list[tuple[datetime | None, PassRate]]:
    """Rates from rollup sums, each with its bucket (None unbucketed), in the order a
    person reads them: bucket, check, agent, agent version, then oldest check version.

    A row holds ``check_name``, ``agent_id``, ``agent_version``, ``check_version``, the
    ``ROLLUP_COUNTS`` and ``first_at`` (the first hour of its counts); with ``bucket_of``
    (hour → its bucket's start) also ``bucket_start``."""
    sums: dict[tuple[Any, ...], _Sum] = {}
    for row in rows:
        key = (
            bucket_of(row["bucket_start"]) if bucket_of is not None else None,
            row["check_name"],
            row["agent_id"],
            row["agent_version"] if split.by_agent_version else None,
            row["check_version"] if split.by_check_version else None,
        )
        found = sums.get(key)
        if found is None:
            found = sums[key] = _Sum()
        found.add(row)
    ordered = sorted(sums.items(), key=lambda item: _reading_order(*item))
    return [(key[0], total.rate(key, split)) for key, total in ordered]


def _reading_order(key: tuple[Any, ...], total: _Sum) -> tuple[Any, ...]:
    start, check, agent_id, agent_version, check_version = key
    return (
        start.timestamp() if start is not None else 0.0,
        check,
        agent_id,
        agent_version_order(agent_version) if agent_version is not None else (0, 0, ""),
        # A rate split by check version covers that one: the oldest version first.
        min(total.check_versions.values()).timestamp() if check_version is not None else 0.0,
        check_version or "",
    )
