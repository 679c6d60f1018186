"""Alerts inside `turncheck run`: the schedule raises and sends them while turns are
consumed, and a channel that is down never holds consuming up."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from tests.alerts.slack_server import CHANNEL, TOKEN, Failure, SlackServer
from tests.conftest import fresh_store, service
from tests.factories import turn_bytes
from tests.kafka.backends import Backend, MemoryBackend, RealBackend, topic_names
from tests.kafka.test_worker_contract import stored_turns, wait_for
from turncheck.worker.app import build_worker, plan
from turncheck.worker.settings import Settings
from turncheck.worker.store.alerts import AlertStore

CHECKS = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [HelpCo]
    alert: {latest: 20, min_results: 10, min_pass_rate: 0.9}
  - name: quiet
    kind: does_not_contain
    phrases: [HelpCo]
    alert: off
"""


@pytest.fixture(params=["memory", pytest.param("real", marks=pytest.mark.kafka)])
def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "memory":
        return MemoryBackend()
    return RealBackend(service("TURNCHECK_TEST_KAFKA_BOOTSTRAP"))


def settings_for(backend: Backend, tmp_path: Path, slack_base_url: str, **more: object) -> Settings:
    checks = tmp_path / "checks.yaml"
    checks.write_text(CHECKS)
    return Settings(
        kafka_bootstrap=backend.bootstrap,
        database_url=f"sqlite+aiosqlite:///{tmp_path}/t.db",
        checks=[checks],
        outbox_interval_s=0.05,
        batch_timeout_ms=50,
        shutdown_timeout_s=5,
        alert_interval_s=1,
        alert_digest_hour=None,
        alert_slack_token=TOKEN,
        alert_slack_channel=CHANNEL,
        alert_slack_base_url=slack_base_url,
        **topic_names(),
        **more,
    )


def turns(count: int) -> list[tuple[bytes, bytes | None]]:
    """Half of them name a competitor."""
    return [
        (f"t-{n}".encode(), turn_bytes(f"t-{n}", "Ask HelpCo." if n % 2 else "Fine."))
        for n in range(count)
    ]


async def test_the_worker_alerts_on_its_schedule_once_a_day(
    backend: Backend, tmp_path: Path, slack_server: SlackServer
) -> None:
    s = settings_for(backend, tmp_path, slack_server.base_url)
    await backend.create_topics(s.topic_turns, s.topic_events, s.topic_dlq)
    store = await fresh_store(s.database_url, s.topic_events)
    app = build_worker(plan(s), store=await fresh_store(s.database_url, s.topic_events))
    async with backend.running(app, []):
        await backend.produce(s.topic_turns, turns(20))

        async def alerted() -> bool:
            return len(slack_server.messages) >= 1

        await wait_for(alerted)
        today = datetime.now().astimezone().date()

        async def found_below_twice_more() -> bool:
            rows = await AlertStore(store.database).history(date(today.year, 1, 1))
            return bool(rows) and rows[0].suppressed >= 2

        # Counted, not timed: two more evaluations found it below, and sent nothing more.
        await wait_for(found_below_twice_more)
    [message] = slack_server.messages
    assert message.channel == CHANNEL
    assert "no-competitors" in message.text and "50.0%" in message.text
    rows = await AlertStore(store.database).history(date(today.year, 1, 1))
    assert [(r.check, r.channel, r.status) for r in rows] == [("no-competitors", "slack", "sent")]
    await store.close()


async def test_a_channel_that_is_down_never_holds_consuming_up(
    tmp_path: Path, slack_server: SlackServer
) -> None:
    """Every send times out; turns are still stored at once and the alert waits, pending."""
    backend = MemoryBackend()
    slack_server.fail_next(*[Failure.slow(30)] * 5)
    s = settings_for(backend, tmp_path, slack_server.base_url, alert_send_timeout_s=8)
    store = await fresh_store(s.database_url, s.topic_events)
    app = build_worker(plan(s), store=await fresh_store(s.database_url, s.topic_events))

    async def recorded() -> bool:
        rows = await AlertStore(store.database).history(date(2026, 1, 1))
        return bool(rows) and rows[0].last_error == "timeout"

    async def sending() -> bool:
        return bool(slack_server.calls)

    async with backend.running(app, []):
        await backend.produce(s.topic_turns, turns(20))
        await wait_for(lambda: stored_turns(store, *(f"t-{n}" for n in range(20))))
        await wait_for(sending)  # the first send is now waiting on Slack
        await backend.produce(s.topic_turns, [(b"late", turn_bytes("late", "Fine."))])
        await wait_for(lambda: stored_turns(store, "late"), timeout_s=10)
        # In order, not against a stopwatch: stored while that send still waited.
        assert not await recorded()
        await wait_for(recorded, timeout_s=30)
    [row] = await AlertStore(store.database).history(date(2026, 1, 1))
    assert row.status == "pending" and slack_server.messages == []
    await store.close()
