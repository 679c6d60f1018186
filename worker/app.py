"""The composition root: the only place that builds the parts and wires them together."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from faststream import FastStream
from faststream.kafka import KafkaBroker

from turncheck.alerts.setup import build_alerter
from turncheck.alerts.setup import describe as describe_alerts
from turncheck.worker.checks import CheckSet
from turncheck.worker.consumer import KafkaDeadLetter, subscribe, subscribe_erasures
from turncheck.worker.outbox import drain, run_outbox
from turncheck.worker.parts import (
    build_judging,
    build_pipeline,
    embedded_api,
    eraser_for,
    judge_client,
    kafka_sender,
    open_store,
    outbox_policy,
    purger_for,
    ready_checks,
    settle_judging,
    utc_now,
)
from turncheck.worker.replay import ReplayTotals, replay_file
from turncheck.worker.schedule import worker_scheduler
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.webhooks.setup import serve_webhooks, webhook_endpoints

log = logging.getLogger(__name__)
# FastStream's default loggers have coloured handlers of their own (one on stdout) and do
# not propagate; a logger of ours sends its lines through the one handler worker/logs.py sets.
broker_log = logging.getLogger("turncheck.worker.broker")


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
        log.info(describe_alerts(alerter))
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
