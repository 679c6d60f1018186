"""What the check page shows, made of what the store gave: its query (``View``), its
lines per version, its counts and its failed rows. Pure: no store, no request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from fastapi.exceptions import RequestValidationError

from turncheck.schemas.label import LabelName
from turncheck.worker.api import cursor as cursors
from turncheck.worker.runtime.links import link_of
from turncheck.worker.store.labels import StoredLabel
from turncheck.worker.store.pages import Position
from turncheck.worker.store.rates import Split, agent_version_order
from turncheck.worker.store.views import PassRate, StoredResult
from turncheck.worker.web.guard import PageError
from turncheck.worker.web.paths import turn_path
from turncheck.worker.web.rate_chart import Series
from turncheck.worker.web.tally import PassTally

DEFAULT_DAYS = 30
MAX_DAYS = 90
SPLITS = (Split.NONE, Split.AGENT_VERSION, Split.CHECK_VERSION)


@dataclass(frozen=True, slots=True)
class View:
    """The page's query: how many days, the split, and where the failures' page starts."""

    days: int = DEFAULT_DAYS
    split: Split = Split.NONE
    cursor: str | None = None

    @classmethod
    def parse(cls, days: str | None, split: str | None, cursor: str | None) -> View:
        """The query checked; a bad value is a 400 page naming its parameter."""
        found_days = DEFAULT_DAYS
        if days:
            if not (days.isascii() and days.isdigit()) or not 1 <= int(days) <= MAX_DAYS:
                raise PageError(400, f"days must be a whole number from 1 to {MAX_DAYS}.")
            found_days = int(days)
        found_split = Split.NONE
        if split:
            if split not in SPLITS:
                raise PageError(400, "split must be none, agent_version or check_version.")
            found_split = Split(split)
        view = cls(found_days, found_split, cursor or None)
        view.position()  # a bad cursor is refused before anything is read
        return view

    def position(self) -> Position | None:
        if self.cursor is None:
            return None
        try:
            return cursors.decode(self.cursor)
        except RequestValidationError:
            raise PageError(
                400, "cursor is not one this page gave: open the first page again."
            ) from None

    def query(self, **changes: object) -> str:
        values = {"days": self.days, "split": self.split.value, "cursor": self.cursor, **changes}
        kept = {k: v for k, v in values.items() if v is not None}
        return urlencode(kept)


@dataclass(frozen=True, slots=True)
class FailureRow:
    """A failed result as its row shows it: the turn's time in the page's zone, its links
    (the turn's page, the conversation when ``TURNCHECK_TURN_URL`` is set) and label."""

    time: str
    turn_id: str
    turn_page: str
    reason: str | None
    agent_version: str
    check_version: str
    label: LabelName | None
    url: str | None

    @classmethod
    def of(
        cls, row: StoredResult, label: StoredLabel | None, template: str | None, zone: ZoneInfo
    ) -> FailureRow:
        return cls(
            time=f"{row.turn_created_at.astimezone(zone):%Y-%m-%d %H:%M:%S}",
            turn_id=row.turn_id,
            turn_page=turn_path(row.turn_id),
            reason=row.reason,
            agent_version=row.agent_version,
            check_version=row.check_version,
            label=label.label if label is not None else None,
            url=link_of(template, row),
        )


def midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), tzinfo=zone)


def _series_name(rate: PassRate, split: Split) -> str:
    if split is Split.AGENT_VERSION:
        return f"agent version {rate.agent_version}"
    if split is Split.CHECK_VERSION:
        return f"check version {rate.check_version}"
    return "all results"


def series_of(
    hours: list[tuple[datetime, PassRate]],
    split: Split,
    bucket: Callable[[datetime], datetime],
) -> tuple[Series, ...]:
    """One series per version (or one in all), its hours summed into ``bucket(hour)``."""
    sums: dict[str, dict[datetime, list[int]]] = {}
    order: dict[str, tuple[int, int, str]] = {}
    for start, rate in hours:
        name = _series_name(rate, split)
        if name not in order:
            order[name] = (
                agent_version_order(rate.agent_version or "")
                if split is Split.AGENT_VERSION
                else (0, len(order), "")
            )
        found = sums.setdefault(name, {}).setdefault(bucket(start), [0, 0])
        found[0] += rate.passed
        found[1] += rate.total
    return tuple(
        Series(name, {start: PassTally(p, t) for start, (p, t) in sums[name].items()})
        for name in sorted(order, key=order.__getitem__)
    )


def counts_of(rates: list[PassRate], not_judged: int) -> dict[str, int]:
    errored = sum(rate.errored for rate in rates)
    return {
        "passed": sum(rate.passed for rate in rates),
        "failed": sum(rate.failed for rate in rates),
        "errored": errored - not_judged,
        "not_judged": not_judged,
        "total": sum(rate.total for rate in rates),
    }
