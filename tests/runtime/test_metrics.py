"""The process's counters, as the worker and the alerts update them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from tests.alerts.fakes import START, Clock, Recorder, alerter, store_results, verdicts
from tests.factories import BANNED_WORDS_CHECKS, FIXED_NOW, check_set, turn_bytes
from tests.pipeline.test_batch import FlakyStore
from turncheck.worker.pipeline.batch import Pipeline, RawMessage, Rejected
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


def stored(name: str, verdict: str) -> float:
    return REGISTRY.get_sample_value(name, {"verdict": verdict}) or 0.0


async def test_a_shadow_checks_results_are_counted_apart_as_well(tmp_path: Path) -> None:
    """Two failures stored, one a shadow check's: both in the results counter, that one
    also in the shadow counter."""
    shadow_checks = BANNED_WORDS_CHECKS.replace(
        "    phrases: [HelpCo]\n", "    phrases: [HelpCo]\n    rollout: shadow\n"
    )
    pipeline = Pipeline(
        checks=check_set(tmp_path, shadow_checks),
        store=FlakyStore(),
        dead_letter=_nowhere,
        clock=lambda: FIXED_NOW,
        retention=timedelta(days=30),
    )
    every, shadow = "turncheck_results_stored_total", "turncheck_shadow_results_stored_total"
    before = stored(every, "failed"), stored(shadow, "failed")
    message = RawMessage(turn_bytes("t-1", "Ask HelpCo about TCK-123456."))
    await pipeline.handle_batch([message], _nothing)
    assert (stored(every, "failed") - before[0], stored(shadow, "failed") - before[1]) == (2, 1)


async def _nowhere(rejected: Sequence[Rejected]) -> None:
    raise AssertionError("nothing is rejected")


async def _nothing() -> None:
    """Nothing to commit."""
