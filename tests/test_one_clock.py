"""One clock, as issue 15 asked: after two old weeks are replayed today, the alert's latest
results, `turncheck failures --since 1d`, the API's `results?since=` and pass rates all
count the same turns, the ones the alert's daily chart shows for that day, on SQLite and
PostgreSQL.

The story: a day of turns (2026-12-01, 93% passed) was stored as it happened; then two
weeks of older turns (Nov 17 to 30, 60-70% passed) were replayed at 19:50. While the
store read windows by when a result was stored, the alert counted replayed turns (65.0%
of the latest 200) under a chart whose last day said 93%, `failures --since 1d` listed
100 replayed turns and none of today's, and `results?since=` gave all 760 turns.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from tests.api.conftest import AUTH, api_settings, running_api
from tests.factories import make_turn
from turncheck.alerts.alerter import Alerter, Watched
from turncheck.alerts.policy import AlertPolicy
from turncheck.alerts.setup import link_maker
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.cli import main as cli
from turncheck.worker.clock import FixedClock
from turncheck.worker.pipeline.records import TurnRef, TurnResults
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import AlertStore

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
TODAY = NOW.replace(hour=0)
CHECK = CheckId("no-card-numbers", "v1", "pattern", "output", "block")
OTHER = CheckId("no-competitors", "v1", "does_not_contain", "output", "block")
AGENT = "support-bot"
RETENTION = timedelta(days=30)
OLD_DAYS_PASSED = [24, 26, 28, 25, 27, 24, 28, 26, 25, 27, 28, 24, 26, 25]
"""Of 40 turns on each of the 14 days before today."""


@dataclass(frozen=True)
class Stored:
    today_failed: list[str]
    """Turn ids of today's failures, newest turn first."""
    first_today: datetime


def turn(turn_id: str, created_at: datetime) -> TurnRef:
    return TurnRef.of(make_turn(turn_id, created_at=created_at.isoformat()))


def checked(ref: TurnRef, failed: bool) -> TurnResults:
    verdict = Verdict.FAILED if failed else Verdict.PASSED
    return TurnResults(
        ref, [CheckResult(OTHER, Verdict.PASSED), CheckResult(CHECK, verdict)], RETENTION
    )


async def store_today_then_replay_two_weeks(store: Store) -> Stored:
    """200 turns of today (14 fail), stored as they happen, between 00:30 and 19:25; then
    560 turns of the 14 days before (02:00 to 17:36 each day), replayed from 19:50."""
    today = []
    for n in range(200):
        created_at = TODAY + timedelta(minutes=30 + n * 5.6)
        today.append((turn(f"today-{n:03d}", created_at), n % 14 == 13))
    for start in range(0, 200, 10):  # a batch every ~hour, stored a minute after its turns
        batch = today[start : start + 10]
        await store.writer.save(
            [checked(ref, failed) for ref, failed in batch],
            batch[-1][0].created_at + timedelta(minutes=1),
        )
    replay = []
    for day, passed in enumerate(OLD_DAYS_PASSED):
        start_of_day = TODAY - timedelta(days=len(OLD_DAYS_PASSED) - day)
        for n in range(40):
            created_at = start_of_day + timedelta(hours=2, minutes=n * 24)
            replay.append(checked(turn(f"old-{day:02d}-{n:02d}", created_at), n >= passed))
    replayed_at = NOW - timedelta(minutes=10)
    for start in range(0, len(replay), 100):
        await store.writer.save(replay[start : start + 100], replayed_at + timedelta(seconds=start))
    failed = [ref.turn_id for ref, failed in reversed(today) if failed]
    return Stored(failed, today[0][0].created_at)


def command(monkeypatch: pytest.MonkeyPatch, database_url: str, *args: str) -> object:
    """`turncheck ARGS --json` in this process, at ``NOW``; its JSON."""
    monkeypatch.setenv("TURNCHECK_DATABASE_URL", database_url)
    monkeypatch.setattr("turncheck.worker.cli.read.utc_now", lambda: NOW)
    # Logging is set up for a process: a test's own logging is left as it is.
    monkeypatch.setattr("turncheck.worker.cli.startup.configure_logging", lambda *_: None)
    done = CliRunner().invoke(cli.app, [*args, "--json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


async def test_alert_failures_api_and_pass_rates_count_the_turns_the_chart_shows(
    store: Store, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = await store_today_then_replay_two_weeks(store)
    settings = Settings(database_url=database_url, api_url="http://api.example")
    watched = Watched(CHECK.name, AGENT, AlertPolicy(200, 0.95, 50, ("slack",)))
    alerter = Alerter(
        AlertStore(store.database),
        [watched],
        {},
        clock=FixedClock(NOW),
        zone=ZoneInfo("UTC"),
        links=link_maker(settings),
        owner="test",
    )

    notice = await alerter.preview(watched)
    counts = notice.counts
    assert (counts.passed, counts.failed, counts.total) == (186, 14, 200)
    assert counts.pass_rate == pytest.approx(0.93) and notice.state.below
    assert counts.oldest_at == stored.first_today
    chart = {day.day: day for day in notice.trend}
    assert (chart[TODAY.date()].passed, chart[TODAY.date()].total) == (186, 200)
    week = [chart[TODAY.date() - timedelta(days=n)].rate for n in range(1, 7)]
    assert all(rate is not None and 0.58 <= rate <= 0.71 for rate in week), week
    [line] = (await alerter.digest_notice()).lines
    assert line.counts == counts

    failures = await asyncio.to_thread(
        command, monkeypatch, database_url, "failures", CHECK.name, "--since", "1d"
    )
    assert isinstance(failures, list)
    assert [row["turn_id"] for row in failures] == stored.today_failed
    rates = await asyncio.to_thread(
        command, monkeypatch, database_url, "pass-rates", "--check", CHECK.name, "--since", "1d"
    )
    assert isinstance(rates, dict)
    [rate] = rates["rates"]
    assert (rate["passed"], rate["failed"], rate["total"]) == (186, 14, 200)

    since = (NOW - timedelta(days=1)).isoformat()
    async with running_api(api_settings(database_url), store, clock=lambda: NOW) as api:
        api.headers.update(AUTH)
        query = urlencode({"since": since, "verdict": "passed,failed,errored", "limit": 1000})
        page = (await api.get(f"/v1/checks/{CHECK.name}/results?{query}")).json()
        verdicts = [row["verdict"] for row in page["results"]]
        assert (verdicts.count("passed"), verdicts.count("failed")) == (186, 14)
        oldest = min(datetime.fromisoformat(row["turn_created_at"]) for row in page["results"])
        assert oldest == stored.first_today
        failed = [row["turn_id"] for row in page["results"] if row["verdict"] == "failed"]
        assert failed == stored.today_failed
        assert notice.links.api_url is not None
        link = urlsplit(notice.links.api_url)
        linked = (await api.get(f"{link.path}?{link.query}")).json()["results"]
        assert [row["turn_id"] for row in linked] == stored.today_failed
        query = urlencode({"since": since, "check": CHECK.name})
        [api_rate] = (await api.get(f"/v1/pass-rates?{query}")).json()["rates"]
        assert (api_rate["passed"], api_rate["total"]) == (186, 200)
