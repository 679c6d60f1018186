"""A made-up alert and digest: rendered at start to test the templates in use, and in
the README and the golden-file tests."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from turncheck.alerts.notice import (
    CheckAlert,
    DayRate,
    Digest,
    DigestLine,
    FailingTurn,
    Links,
)
from turncheck.worker.runtime.links import turn_link
from turncheck.worker.store.alert_readings import WindowCounts
from turncheck.worker.store.alerts import Earlier

DAY = date(2026, 12, 1)
RAISED_AT = datetime(2026, 12, 1, 10, 5, tzinfo=UTC)
WINDOW_STARTS_AT = datetime(2026, 11, 30, 16, 42, tzinfo=UTC)
"""The oldest turn among the alert's latest results: where its links start."""
# Passed and total per day, oldest first: a slide over the last few days, and one quiet day.
_DAILY = [
    (190, 196), (201, 205), (188, 193), (0, 0), (176, 180), (199, 204), (205, 209),
    (183, 190), (196, 203), (181, 192), (170, 186), (160, 181), (151, 177), (87, 104),
]  # fmt: skip
_SAMPLED = [
    (1, 1), (0, 0), (1, 1), (0, 0), (0, 0), (1, 1), (1, 2),
    (0, 0), (1, 1), (1, 1), (0, 0), (1, 2), (1, 2), (1, 1),
]  # fmt: skip


def example_trend(last_day: date = DAY) -> tuple[DayRate, ...]:
    first = last_day - timedelta(days=len(_DAILY) - 1)
    return tuple(
        DayRate(first + timedelta(days=n), passed, total)
        for n, (passed, total) in enumerate(_DAILY)
    )


def example_links(check: str, agent_id: str) -> Links:
    return Links(
        command=f"turncheck failures {check} --agent {agent_id} --since 2026-11-30T16:42",
        api_url=f"https://turncheck.example.com/v1/checks/{check}/results?agent={agent_id}"
        "&verdict=failed%2Cerrored&since=2026-11-30T16%3A42",
    )


EXAMPLE_TURN_URL = "https://chat.example.com/agents/{agent_id}/threads/{thread_id}?turn={turn_id}"
"""A ``TURNCHECK_TURN_URL`` for the README and the tests."""
# (turn id, thread id, verdict, minutes before RAISED_AT): odd ids on purpose, as a
# template meets them.
_FAILING = [
    ("t-20931", "th-8812", "failed", 3),
    ("t-20917", "th-8806", "errored", 9),
    ("web/2026-12-01/t 884", "th-8790", "failed", 22),
]


def example_failing(turn_url: str, agent_id: str = "support-bot") -> tuple[FailingTurn, ...]:
    """The example alert's newest failing turns, linked with ``turn_url``."""
    found = []
    for turn_id, thread_id, verdict, minutes in _FAILING:
        url = turn_link(turn_url, turn_id=turn_id, thread_id=thread_id, agent_id=agent_id)
        if url is not None:
            at = RAISED_AT - timedelta(minutes=minutes)
            found.append(FailingTurn(turn_id, verdict, at, url))
    return tuple(found)


def example_alert(turn_url: str | None = None) -> CheckAlert:
    """The example alert; with ``turn_url``, its newest failing turns linked by it."""
    return CheckAlert(
        check="no-card-numbers",
        agent_id="support-bot",
        day=DAY,
        raised_at=RAISED_AT,
        latest=200,
        min_pass_rate=0.95,
        min_results=50,
        counts=WindowCounts(
            passed=176, failed=17, errored=4, not_judged=3, oldest_at=WINDOW_STARTS_AT
        ),
        trend=example_trend(),
        links=example_links("no-card-numbers", "support-bot"),
        earlier=Earlier(day=date(2026, 11, 29), suppressed=37),
        failing=example_failing(turn_url) if turn_url else (),
    )


def example_digest() -> Digest:
    alert = example_alert()
    steady = tuple(DayRate(d.day, d.total, d.total) for d in alert.trend)
    # A judged check on a sample: a result or two on some days.
    sparse = tuple(
        DayRate(d.day, passed, total)
        for d, (passed, total) in zip(alert.trend, _SAMPLED, strict=True)
    )
    return Digest(
        day=DAY - timedelta(days=1),
        raised_at=datetime(2026, 12, 2, 9, 0, tzinfo=UTC),
        lines=(
            DigestLine(
                check=alert.check,
                agent_id=alert.agent_id,
                min_pass_rate=0.95,
                min_results=50,
                counts=alert.counts,
                trend=alert.trend,
                alerted=Earlier(DAY - timedelta(days=1), 12),
                links=alert.links,
            ),
            DigestLine(
                check="grounded",
                agent_id="support-bot",
                min_pass_rate=0.9,
                min_results=50,
                counts=WindowCounts(passed=197, failed=3),
                trend=steady,
                alerted=None,
                links=example_links("grounded", "support-bot"),
            ),
            # Below its threshold by rate, but on too few results to say so.
            DigestLine(
                check="polite",
                agent_id="support-bot",
                min_pass_rate=0.9,
                min_results=50,
                counts=WindowCounts(passed=9, failed=2, errored=1),
                trend=sparse,
                alerted=None,
                links=example_links("polite", "support-bot"),
            ),
        ),
    )
