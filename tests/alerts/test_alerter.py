"""Raising, deduplicating and delivering alerts, on SQLite and PostgreSQL alike."""

import asyncio
from datetime import UTC, date, datetime, timedelta

from tests.alerts.fakes import (
    AGENT,
    CHECK,
    POLICY,
    START,
    Clock,
    Recorder,
    alerter,
    store_results,
    verdicts,
)
from turncheck.alerts.alerter import Watched
from turncheck.alerts.delivery import DAY_ENDED
from turncheck.alerts.notice import CheckAlert, Digest
from turncheck.alerts.policy import AlertPolicy
from turncheck.worker.checks import Verdict
from turncheck.worker.judge.runner import ABANDONED
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import AlertStore


def recorders() -> dict[str, Recorder]:
    return {"slack": Recorder("slack"), "mail": Recorder("mail")}


async def test_a_check_below_its_threshold_alerts_once_on_every_channel(store: Store) -> None:
    """80 of 100 passed, below 90%: one alert per channel, with the counts."""
    await store_results(store, verdicts(80, 15, 5), at=START - timedelta(minutes=5))
    senders = recorders()
    report = await alerter(store, Clock(), senders).run_once()
    assert report.raised == [f"{CHECK}@{AGENT}"] and report.sent == 2
    for recorder in senders.values():
        [notice] = recorder.sent
        assert isinstance(notice, CheckAlert)
        assert (notice.check, notice.agent_id, notice.day) == (CHECK, AGENT, date(2026, 12, 1))
        counts = notice.counts
        assert (counts.passed, counts.failed, counts.errored, counts.not_judged) == (80, 15, 5, 0)
        assert counts.pass_rate == 0.8 and notice.min_pass_rate == 0.9
        # The link to the failing turns starts at the oldest result counted.
        assert notice.links.command.endswith(f"--since {START - timedelta(minutes=5)}")


async def test_a_second_evaluation_the_same_day_sends_nothing_and_counts_it(store: Store) -> None:
    """Later crossings that day are suppressed, counted once per evaluation interval."""
    await store_results(store, verdicts(50, 50), at=START - timedelta(minutes=5))
    senders, clock = recorders(), Clock()
    alerts = alerter(store, clock, senders)
    await alerts.run_once()
    clock.advance(minutes=5)
    second = await alerts.run_once()
    again = await alerts.run_once()  # the same interval: not counted twice
    clock.advance(hours=3)
    third = await alerts.run_once()
    assert (second.raised, second.sent, second.suppressed) == ([], 0, 1)
    assert (again.suppressed, third.suppressed) == (0, 1)
    assert [len(r.sent) for r in senders.values()] == [1, 1]
    [row, _] = await AlertStore(store.database).history(date(2026, 12, 1))
    assert row.suppressed == 2


async def test_the_next_day_alerts_again_and_says_how_often_it_was_suppressed(
    store: Store,
) -> None:
    await store_results(store, verdicts(50, 50), at=START - timedelta(minutes=5))
    senders, clock = recorders(), Clock()
    alerts = alerter(store, clock, senders)
    await alerts.run_once()
    for _ in range(3):
        clock.advance(minutes=10)
        await alerts.run_once()
    clock.now = datetime(2026, 12, 2, 0, 1, tzinfo=UTC)
    report = await alerts.run_once()
    assert report.raised == [f"{CHECK}@{AGENT}"]
    latest = senders["slack"].sent[-1]
    assert isinstance(latest, CheckAlert) and latest.day == date(2026, 12, 2)
    assert latest.earlier is not None
    assert (latest.earlier.day, latest.earlier.suppressed) == (date(2026, 12, 1), 3)


async def test_no_alert_with_too_few_results_or_a_rate_at_the_threshold(store: Store) -> None:
    senders = recorders()
    await store_results(store, verdicts(5, 14), at=START)  # 19 results: fewer than 20
    assert (await alerter(store, Clock(), senders).run_once()).raised == []
    await store_results(store, verdicts(90, 10), at=START, prefix="u")  # exactly 90%
    assert (await alerter(store, Clock(), senders).run_once()).raised == []
    assert senders["slack"].sent == []


async def test_only_the_latest_results_count(store: Store) -> None:
    """Old failures past the window do not keep a recovered check alerting."""
    await store_results(store, verdicts(0, 100), at=START - timedelta(hours=5), prefix="old")
    await store_results(store, verdicts(100), at=START - timedelta(hours=1), prefix="new")
    senders = recorders()
    assert (await alerter(store, Clock(), senders).run_once()).raised == []


async def test_results_a_deploy_left_unjudged_are_counted_apart(store: Store) -> None:
    """Errored by the worker is shown as not judged; it still counts as not passed."""
    await store_results(store, verdicts(85, 5, 5), at=START)
    await store_results(store, [Verdict.ERRORED] * 5, at=START, prefix="gone", reason=ABANDONED)
    senders = recorders()
    await alerter(store, Clock(), senders).run_once()
    [notice] = senders["mail"].sent
    assert isinstance(notice, CheckAlert)
    counts = notice.counts
    assert (counts.passed, counts.failed, counts.errored, counts.not_judged) == (85, 5, 5, 5)
    assert counts.pass_rate == 0.85


async def test_a_failed_send_is_retried_with_backoff_and_recorded(store: Store) -> None:
    await store_results(store, verdicts(50, 50), at=START)
    senders, clock = recorders(), Clock()
    senders["slack"].failures = 2
    alerts = alerter(store, clock, senders)
    first = await alerts.run_once()
    assert (first.sent, first.failed) == (1, 1)  # mail went; Slack did not
    history = {row.channel: row for row in await alerts.store.history(date(2026, 12, 1))}
    assert history["slack"].status == "pending" and history["slack"].last_error == "http 500"
    assert history["mail"].status == "sent"
    assert (await alerts.deliver()).failed == 0  # not before its retry time (60 s)
    clock.advance(seconds=61)
    assert (await alerts.deliver()).failed == 1
    clock.advance(seconds=90)
    assert (await alerts.deliver()).sent == 0  # the second wait doubled: 120 s
    clock.advance(seconds=31)
    assert (await alerts.deliver()).sent == 1
    [slack] = [r for r in await alerts.store.history(date(2026, 12, 1)) if r.channel == "slack"]
    assert (slack.status, slack.attempts) == ("sent", 3)
    assert len(senders["slack"].sent) == 1


async def test_a_send_failing_until_the_day_ends_is_recorded_as_failed(store: Store) -> None:
    await store_results(store, verdicts(50, 50), at=START)
    senders, clock = recorders(), Clock(datetime(2026, 12, 1, 23, 50, tzinfo=UTC))
    senders["slack"].failures = 100
    alerts = alerter(store, clock, senders)
    await alerts.run_once()
    clock.advance(minutes=11)
    await alerts.deliver()
    [slack] = [r for r in await alerts.store.history(date(2026, 12, 1)) if r.channel == "slack"]
    assert slack.status == "failed" and slack.last_error == DAY_ENDED
    clock.advance(hours=1)
    assert (await alerts.deliver()).failed == 0  # given up: never tried again


async def test_a_sender_that_breaks_keeps_the_alert_pending(store: Store) -> None:
    """An unexpected error (a template, say) is recorded by type and retried."""
    await store_results(store, verdicts(50, 50), at=START)
    senders = recorders()
    senders["mail"].failures, senders["mail"].error = 1, KeyError("missing")
    alerts = alerter(store, Clock(), senders)
    await alerts.run_once()
    [mail] = [r for r in await alerts.store.history(date(2026, 12, 1)) if r.channel == "mail"]
    assert (mail.status, mail.last_error) == ("pending", "KeyError")


async def test_replicas_evaluating_at_once_send_one_alert(store: Store) -> None:
    await store_results(store, verdicts(50, 50), at=START)
    senders = recorders()
    replicas = [alerter(store, Clock(), senders, owner=f"replica-{n}") for n in range(4)]
    reports = await asyncio.gather(*(r.run_once() for r in replicas))
    assert sum(len(r.raised) for r in reports) == 1
    assert [len(r.sent) for r in senders.values()] == [1, 1]


async def test_a_check_s_own_policy_and_channels_apply(store: Store) -> None:
    await store_results(store, verdicts(93, 7), at=START)
    senders = recorders()
    strict = Watched(CHECK, AGENT, AlertPolicy(100, 0.95, 20, ("mail",)))
    await alerter(store, Clock(), senders, watched=[strict]).run_once()
    assert (len(senders["slack"].sent), len(senders["mail"].sent)) == (0, 1)


async def test_the_trend_has_a_rate_per_day_of_the_zone(store: Store) -> None:
    """Fourteen days ending today in the alerts' zone; a day without results is empty."""
    day_one = datetime(2026, 11, 30, 23, 30, tzinfo=UTC)  # Dec 1, 00:30 in Paris
    await store_results(store, verdicts(50, 50), at=day_one, prefix="a")
    await store_results(store, verdicts(30), at=day_one - timedelta(days=2), prefix="b")
    senders = recorders()
    await alerter(store, Clock(), senders, zone="Europe/Paris").run_once()
    [notice] = senders["slack"].sent
    assert isinstance(notice, CheckAlert)
    assert len(notice.trend) == 14 and notice.trend[-1].day == date(2026, 12, 1)
    by_day = {d.day: (d.passed, d.total) for d in notice.trend}
    assert by_day[date(2026, 12, 1)] == (50, 100)
    assert by_day[date(2026, 11, 29)] == (30, 30)
    assert by_day[date(2026, 11, 30)] == (0, 0)


async def test_the_digest_goes_once_a_day_after_its_hour(store: Store) -> None:
    await store_results(store, verdicts(50, 50), at=START - timedelta(days=1))
    senders, clock = recorders(), Clock(datetime(2026, 12, 1, 8, 59, tzinfo=UTC))
    alerts = alerter(store, clock, senders, digest_hour=9)
    await alerts.scheduled_round()
    assert not any(isinstance(n, Digest) for n in senders["slack"].sent)
    clock.advance(minutes=2)
    await alerts.scheduled_round()
    await alerts.scheduled_round()
    digests = [n for n in senders["slack"].sent if isinstance(n, Digest)]
    assert len(digests) == 1 and digests[0].day == date(2026, 11, 30)
    [line] = digests[0].lines
    assert line.check == CHECK and line.below
    assert line.alerted is None  # the alert was raised today, not on the day covered


async def test_the_digest_says_which_check_alerted_the_day_before(store: Store) -> None:
    await store_results(store, verdicts(50, 50), at=START)
    senders, clock = recorders(), Clock()
    alerts = alerter(store, clock, senders, digest_hour=9)
    await alerts.run_once()
    clock.advance(minutes=30)
    await alerts.run_once()
    clock.now = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    assert await alerts.digest()
    assert not await alerts.digest()
    await alerts.deliver()
    [digest] = [n for n in senders["mail"].sent if isinstance(n, Digest)]
    [line] = digest.lines
    assert line.alerted is not None
    assert (line.alerted.day, line.alerted.suppressed) == (date(2026, 12, 1), 1)


async def test_preview_builds_the_alert_and_writes_nothing(store: Store) -> None:
    await store_results(store, verdicts(10, 90), at=START)
    alerts = alerter(store, Clock(), recorders())
    notice = await alerts.preview(alerts.find(CHECK, None))
    assert notice.state.below and notice.counts.failed == 90
    assert await alerts.store.history(date(2026, 1, 1)) == []


def test_policy_defaults_fill_what_a_check_leaves_out() -> None:
    from turncheck.schemas.checkbase import AlertRule

    policy = POLICY.with_rule(AlertRule(min_pass_rate=0.5, channels=["slack"]))
    assert policy == AlertPolicy(100, 0.5, 20, ("slack",))
    assert POLICY.with_rule(AlertRule(latest=10)).min_results == 10
