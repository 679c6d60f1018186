"""This process's counters, for Prometheus: what the worker did since it started.

One registry of our own (``REGISTRY``), not prometheus_client's global one, so that
/metrics shows turncheck's series only and tests can read them back. Counters only
grow; a restart starts them at zero, which ``rate()`` understands. The figures the
database holds (backlogs, totals of every replica) are read at scrape time by the
API instead (``worker/store/gauges.py``).
"""

from __future__ import annotations

from collections import Counter as tally
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter

from turncheck.worker.checks import CheckResult

REGISTRY = CollectorRegistry(auto_describe=True)

TURNS_CONSUMED = Counter(
    "turncheck_turns_consumed",
    "Messages of turns taken in by the pipeline, valid or not.",
    registry=REGISTRY,
)
RESULTS_STORED = Counter(
    "turncheck_results_stored",
    "Rule and planned results of stored turns, by verdict (a redelivered turn counts again).",
    ["verdict"],
    registry=REGISTRY,
)
SHADOW_RESULTS_STORED = Counter(
    "turncheck_shadow_results_stored",
    "Of turncheck_results_stored, the results of shadow checks (no alert, no event), by verdict.",
    ["verdict"],
    registry=REGISTRY,
)
TURNS_EXPIRED_ON_ARRIVAL = Counter(
    "turncheck_turns_expired_on_arrival",
    "Turns already past their retention window when checked: neither stored nor counted.",
    registry=REGISTRY,
)
ALERT_SENDS = Counter(
    "turncheck_alert_sends",
    "Alert and digest sends, by outcome: sent, or failed (tried again later or given up).",
    ["outcome"],
    registry=REGISTRY,
)


def batch_stored(
    messages: int,
    results: Iterable[CheckResult],
    *,
    expired: int = 0,
    shadow: Iterable[CheckResult] = (),
) -> None:
    """Count a batch the pipeline stored and committed, and its turns left out as expired;
    ``shadow``: those of its results that are shadow checks' (counted in both)."""
    TURNS_CONSUMED.inc(messages)
    if expired:
        TURNS_EXPIRED_ON_ARRIVAL.inc(expired)
    # Summed first: one increment, and one lock, per verdict rather than per result.
    for verdict, count in tally(r.verdict.value for r in results).items():
        RESULTS_STORED.labels(verdict).inc(count)
    for verdict, count in tally(r.verdict.value for r in shadow).items():
        SHADOW_RESULTS_STORED.labels(verdict).inc(count)


def alert_sent(outcome: str) -> None:
    ALERT_SENDS.labels(outcome).inc()
