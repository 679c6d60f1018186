"""The process's counters, as the worker and the alerts update them."""

from __future__ import annotations

from datetime import timedelta

from tests.alerts.fakes import START, Clock, Recorder, alerter, store_results, verdicts
from turncheck.worker.runtime.metrics import REGISTRY
from turncheck.worker.store import Store


def sends(outcome: str) -> float:
    return REGISTRY.get_sample_value("turncheck_alert_sends_total", {"outcome": outcome}) or 0.0


async def test_alert_sends_are_counted_by_outcome(store: Store) -> None:
    await store_results(store, verdicts(50, 50), at=START - timedelta(minutes=5))
    sent, failed = sends("sent"), sends("failed")
    senders = {"slack": Recorder("slack"), "mail": Recorder("mail", failures=1)}
    report = await alerter(store, Clock(), senders).run_once()
    assert (report.sent, report.failed) == (1, 1)
    assert (sends("sent") - sent, sends("failed") - failed) == (1, 1)
