"""The parts the composition root (``worker/app.py``) wires together, each built from
the settings: the store, the checks, the pipeline, the judge, the outbox's sender,
erasure, the purge and the embedded API."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from faststream.kafka import KafkaBroker

from turncheck.worker.checks import CheckSet, load_checks
from turncheck.worker.erasure import Eraser
from turncheck.worker.evaluate import warm_up
from turncheck.worker.judge.config import load_judges
from turncheck.worker.judge.http import HttpJudgeClient
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.outbox import OutboxPolicy, Send
from turncheck.worker.pipeline import DeadLetter, Judging, Pipeline
from turncheck.worker.purge import Purger, outbox_purge
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.storing import RetryPolicy

if TYPE_CHECKING:
    from turncheck.worker.api import EmbeddedApi


GC_THRESHOLDS = (20_000, 50, 100)
"""A batch makes hundreds of thousands of short-lived objects (results, rows, spans)
and almost no cycles: at the default (700, 10, 10) the collector ran ~1,300 times
and 10 full passes in a 20,000-turn run, at these ~35 and none (``bench/steps.py``:
collector time ~0.35 s to under 0.1 s)."""


def freeze_heap() -> None:
    """Move everything loaded at start (modules, compiled checks and their caches) out of
    the garbage collector's sight: a full collection, which pauses every thread and so
    the event loop, then scans only what a batch made (measured: pauses halved); and
    collect less often, since a batch's garbage is freed by reference counting."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def ready_checks(settings: Settings, checks: CheckSet | None) -> CheckSet:
    """The checks given, or those the settings name, warmed up, with the heap frozen after."""
    checks = checks if checks is not None else load_checks(settings.checks)
    warm_up(checks)
    freeze_heap()
    return checks


def utc_now() -> datetime:
    return datetime.now(UTC)


def open_store(settings: Settings) -> Store:
    return Store.open(settings.database_url, events_topic=settings.topic_events)


def build_pipeline(
    settings: Settings,
    checks: CheckSet,
    store: Store,
    dead_letter: DeadLetter,
    clock: Callable[[], datetime] = utc_now,
    judging: Judging | None = None,
) -> Pipeline:
    return Pipeline(
        checks=checks,
        store=store.writer,
        dead_letter=dead_letter,
        clock=clock,
        retention=settings.retention,
        retry=RetryPolicy(max_s=settings.store_retry_max_s, attempts=settings.store_attempts),
        judging=judging,
        ledger=eraser_for(settings, store),
    )


def eraser_for(settings: Settings, store: Store) -> Eraser | None:
    """Erasure and its ledger need the key of the ledger's hash; without it, both are off."""
    if settings.erasure_key is None:
        return None
    return Eraser(store.database, settings.erasure_key.get_secret_value().encode())


def embedded_api(
    settings: Settings, store: Store, clock: Callable[[], datetime]
) -> EmbeddedApi | None:
    """The HTTP API on the worker's loop, when ``api_in_run`` asks for it."""
    if not settings.api_in_run:
        return None
    # Imported here: only a worker that serves the API loads FastAPI and uvicorn.
    from turncheck.worker.api import EmbeddedApi

    return EmbeddedApi(settings, store, clock)


def purger_for(settings: Settings, store: Store) -> Purger:
    events = outbox_purge(store.outbox, settings.outbox_keep_sent_s, settings.purge_chunk_rows)
    return Purger(
        store.database,
        chunk_rows=settings.purge_chunk_rows,
        purge_events=events,
        eraser=eraser_for(settings, store),
    )


def judge_client(settings: Settings) -> HttpJudgeClient:
    return HttpJudgeClient(load_judges(settings.judges))


def build_judging(
    settings: Settings,
    checks: CheckSet,
    store: Store,
    client: HttpJudgeClient,
    clock: Callable[[], datetime] = utc_now,
) -> Judging | None:
    """The background judge, when any check is judged; None otherwise."""
    if not checks.has_judged:
        return None
    runner = JudgeRunner(
        client,
        store.writer,
        clock,
        capacity=settings.judge_queue_max,
        workers=settings.judge_workers,
        deadline_s=settings.judge_deadline_s,
    )
    return Judging(runner, frozenset(client.endpoints), settings.judge_deadline_s)


async def settle_judging(
    judging: Judging | None, client: HttpJudgeClient, timeout_s: float | None
) -> None:
    """Give held judgements up to ``timeout_s`` (None: as long as they take; each has its
    deadline) to finish, then stop; what is left stays pending for a later sweep."""
    if judging is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(judging.runner.join(), timeout_s)
        await judging.runner.stop()
    await client.aclose()


def outbox_policy(settings: Settings) -> OutboxPolicy:
    return OutboxPolicy(
        round_max_events=settings.outbox_round_max_events,
        max_in_flight=settings.outbox_max_in_flight,
        lease_s=settings.outbox_lease_s,
        retry_first_s=settings.outbox_retry_first_s,
        retry_max_s=settings.outbox_retry_max_s,
        keep_sent_s=settings.outbox_keep_sent_s,
    )


def kafka_sender(broker: KafkaBroker) -> Send:
    async def send(topic: str, key: str, payload: bytes) -> None:
        await broker.publish(
            payload, topic=topic, key=key.encode(), headers={"content-type": "application/json"}
        )

    return send
