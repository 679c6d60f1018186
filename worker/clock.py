"""The one clock: every part that needs the time is given a ``Clock``, and
``turncheck`` passes ``utc_now``. Tests pass a ``FixedClock`` instead.

Which time a figure is counted by is a separate matter, decided once in the store:
every window, list and chart is over the turn's ``created_at``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]
"""Returns an aware UTC time."""


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class FixedClock:
    """A clock that stands still until moved: ``advance`` or set ``now``."""

    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta | None = None, **parts: float) -> datetime:
        self.now += delta if delta is not None else timedelta(**parts)
        return self.now
