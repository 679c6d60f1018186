"""The composition root: the only place that builds the parts and wires them together."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from faststream import FastStream
from faststream.kafka import KafkaBroker

from turncheck.alerts.setup import build_alerter, check_alert_settings
from turncheck.worker.checks import CheckSet, load_checks
from turncheck.worker.consumer import KafkaDeadLetter, subscribe, subscribe_erasures
from turncheck.worker.erasure import Eraser
from turncheck.worker.evaluate import warm_up
from turncheck.worker.judge.config import load_judges
from turncheck.worker.judge.http import HttpJudgeClient
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.outbox import OutboxPolicy, Send, drain, run_outbox
from turncheck.worker.pipeline import DeadLetter, Judging, Pipeline, RetryPolicy
from turncheck.worker.purge import Purger, outbox_purge
from turncheck.worker.replay import ReplayTotals, replay_file
from turncheck.worker.schedule import worker_scheduler
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.webhooks.setup import serve_webhooks, webhook_endpoints

if TYPE_CHECKING:
    from turncheck.worker.api import EmbeddedApi

log = logging.getLogger(__name__)
# FastStream's default loggers have coloured handlers of their own (one on stdout) and do
# not propagate; a logger of ours sends its lines through the one handler worker/logs.py sets.
broker_log = logging.getLogger("turncheck.worker.broker")


def freeze_heap() -> None:
    """Move everything loaded at start (modules, compiled checks and their caches) out of
    the garbage collector's sight: a full collection, which pauses every thread and so
    the event loop, then scans only what a batch made (measured: pauses halved)."""
    gc.collect()
    gc.freeze()


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
    events = outbox_purge(
        store.outbox.purge_sent, settings.outbox_keep_sent_s, settings.purge_chunk_rows
    )
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


def build_worker(
    settings: Settings,
    *,
    checks: CheckSet | None = None,
    store: Store | None = None,
    clock: Callable[[], datetime] = utc_now,
) -> FastStream:
    """The Kafka worker: consumer, dead-letter publisher and outbox publisher."""
    if not settings.kafka_bootstrap:
        raise ValueError("TURNCHECK_KAFKA_BOOTSTRAP is not set")
    checks = ready_checks(settings, checks)
    store = store if store is not None else open_store(settings)
    client = judge_client(settings)
    judging = build_judging(settings, checks, store, client, clock)
    broker = KafkaBroker(
        settings.kafka_bootstrap,
        client_id="turncheck",
        graceful_timeout=settings.shutdown_timeout_s,
        logger=broker_log,
    )
    dead_letter = KafkaDeadLetter(broker, settings.kafka_bootstrap, settings.topic_dlq)
    pipeline = build_pipeline(settings, checks, store, dead_letter, clock, judging)
    consumer = subscribe(
        broker,
        pipeline,
        topic=settings.topic_turns,
        group_id=settings.group_id,
        max_records=settings.batch_max_records,
        batch_timeout_ms=settings.batch_timeout_ms,
        group_instance_id=settings.instance_id,
        session_timeout_ms=settings.session_timeout_ms,
    )
    eraser = eraser_for(settings, store)
    if eraser is not None:
        subscribe_erasures(
            broker,
            eraser,
            dead_letter,
            clock,
            topic=settings.topic_erasure,
            group_id=f"{settings.group_id}.erasure",
        )
    alerter = build_alerter(settings, checks, store.database, clock)
    scheduler = worker_scheduler(settings, purger_for(settings, store), alerter, clock)
    webhooks = webhook_endpoints(settings)
    api = embedded_api(settings, store, clock)
    app = FastStream(broker, logger=broker_log)
    stop = asyncio.Event()
    publishing = outbox_policy(settings)
    tasks: list[asyncio.Task[None]] = []

    @app.after_startup
    async def start_outbox() -> None:
        log.info(
            "worker started checks=%d topic=%s group=%s",
            len(checks),
            settings.topic_turns,
            settings.group_id,
        )
        if judging is not None:
            client.open()
            judging.runner.start()
        sender = run_outbox(
            store.outbox, kafka_sender(broker), clock, settings.outbox_interval_s, stop, publishing
        )
        tasks.append(asyncio.create_task(sender))
        if webhooks:
            hooks = serve_webhooks(settings, webhooks, store.database, clock, stop)
            tasks.append(asyncio.create_task(hooks))
        log.info(check_alert_settings(settings, checks))
        if eraser is None:
            log.warning("erasure off: TURNCHECK_ERASURE_KEY is not set; requests wait on the topic")
        scheduler.start()
        if api is not None:
            api.start()

    @app.on_shutdown
    async def finish() -> None:
        # Order matters: let the batch in hand be stored and committed, then
        # send the events it wrote, and only then let the broker close.
        if api is not None:
            await api.stop()  # the requests in hand finish; the store is still open
        scheduler.shutdown()  # cancels a round in progress; what it held is done again
        await consumer.stop()
        await dead_letter.stop()
        await settle_judging(judging, client, settings.shutdown_timeout_s)
        stop.set()
        await asyncio.gather(*tasks)
        await drain(store.outbox, kafka_sender(broker), clock, publishing)

    @app.after_shutdown
    async def close_store() -> None:
        await store.close()

    return app


async def replay(
    settings: Settings,
    path: str,
    *,
    checks: CheckSet | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> ReplayTotals:
    """Process a JSON Lines file into the store; with Kafka configured, also send its events."""
    checks = ready_checks(settings, checks)
    store = open_store(settings)
    client = judge_client(settings)
    judging = build_judging(settings, checks, store, client)
    if judging is not None:
        client.open()
        # Judgements a stopped worker or replay left pending past their deadline are
        # settled first, so this run's totals and the store agree.
        await judging.runner.sweep()
        judging.runner.start()
    try:
        totals = await replay_file(
            Path(path),
            lambda dead_letter: build_pipeline(
                settings, checks, store, dead_letter, judging=judging
            ),
            batch_size=settings.batch_max_records,
            on_progress=on_progress,
        )
        # A file has no deadline to keep: wait for every judgement it asked for. Each
        # ends within its deadline once a worker takes it up, so this ends too.
        await settle_judging(judging, client, None)
        if settings.kafka_bootstrap:
            broker = KafkaBroker(
                settings.kafka_bootstrap, client_id="turncheck-replay", logger=broker_log
            )
            async with broker:
                await drain(store.outbox, kafka_sender(broker), utc_now, outbox_policy(settings))
    finally:
        await store.close()
    return totals
