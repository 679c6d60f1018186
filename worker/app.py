"""The composition root, the one place that builds turncheck's parts and wires them.

``plan(settings)`` checks everything the settings and the checks ask for, once and
before any service is reached, whatever the command or mode (Kafka ``run``, file
``run``, ``replay``, ``check``): the check files, the judges and the judged checks
they must serve, the alert channels and templates, the webhooks and the embedded API.
Alerts, webhooks and the API only run in the Kafka worker, but a setting that is wrong
is wrong everywhere. A bad one raises a ``ConfigurationError`` naming it.
``build_worker`` and ``replay`` then wire those ``Parts`` to the store, the broker and
the clock, checking nothing again. This is the only module of ``worker/`` that imports
``alerts/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from faststream import FastStream
from faststream.kafka import KafkaBroker

from turncheck.alerts.schedule import add_alert_jobs
from turncheck.alerts.setup import AlertSetup, alert_setup, build_alerter
from turncheck.alerts.setup import describe as describe_alerts
from turncheck.worker.checks import CheckSet, load_checks
from turncheck.worker.clock import Clock, utc_now
from turncheck.worker.judge.config import load_judges, require_judges
from turncheck.worker.judge.http import HttpJudgeClient, JudgeRetry
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.kafka.dead_letter import KafkaDeadLetter
from turncheck.worker.kafka.erasures import subscribe_erasures
from turncheck.worker.kafka.producer import kafka_sender
from turncheck.worker.kafka.subscriber import subscribe
from turncheck.worker.outbox.publisher import OutboxPolicy, drain, run_outbox
from turncheck.worker.pipeline.batch import DeadLetter, Judging, Pipeline
from turncheck.worker.pipeline.evaluate import warm_up
from turncheck.worker.pipeline.replay import ReplayTotals, replay_file
from turncheck.worker.pipeline.save import StoreRetry, through_outages
from turncheck.worker.retention.erasure import Eraser, KeylessLedger
from turncheck.worker.retention.purge import Purger, outbox_purge
from turncheck.worker.runtime.heap import freeze_heap
from turncheck.worker.runtime.scheduler import worker_scheduler
from turncheck.worker.settings import Settings, process_environment
from turncheck.worker.store import Store
from turncheck.worker.webhooks.config import Endpoint
from turncheck.worker.webhooks.setup import serve_webhooks, webhook_endpoints

if TYPE_CHECKING:
    from turncheck.worker.api import EmbeddedApi

log = logging.getLogger(__name__)
# FastStream's default loggers have coloured handlers of their own (one on stdout) and do
# not propagate; a logger of ours sends its lines through the one handler runtime/logs.py sets.
broker_log = logging.getLogger("turncheck.worker.broker")


@dataclass(frozen=True, slots=True)
class Parts:
    """What the settings configure, each checked: built once by ``plan``."""

    settings: Settings
    checks: CheckSet
    judge: HttpJudgeClient
    """The judges' client; it opens its connections only when started."""
    alerts: AlertSetup | None
    """None: no alert channel configured. Sent by the Kafka worker only."""
    webhooks: tuple[Endpoint, ...]
    """Delivered by the Kafka worker only."""


def plan(settings: Settings, checks: CheckSet | None = None) -> Parts:
    """Check what ``settings`` configure and return the parts; ``checks`` in place of the
    files the settings name. The same checks in every mode, so settings a file run
    accepts are settings the Kafka worker accepts, and the other way round."""
    checks = checks if checks is not None else load_checks(settings.checks)
    judges = load_judges(settings.judges)
    require_judges(checks, judges)
    judge = HttpJudgeClient(judges, process_environment(), retry=JudgeRetry.of(settings))
    alerts = alert_setup(settings, checks)
    webhooks = tuple(webhook_endpoints(settings))
    if settings.api_in_run:
        from turncheck.worker.api import check_api_settings  # FastAPI only when it serves

        check_api_settings(settings)
    return Parts(settings, checks, judge, alerts, webhooks)


def build_worker(parts: Parts, *, store: Store | None = None, clock: Clock = utc_now) -> FastStream:
    """The Kafka worker: consumer, dead-letter publisher, outbox publisher, webhooks,
    scheduler (purge, alerts) and, when asked, the API."""
    settings = parts.settings
    if not settings.kafka_bootstrap:
        raise ValueError("TURNCHECK_KAFKA_BOOTSTRAP is not set")
    checks = ready(parts.checks)
    store = store if store is not None else open_store(settings)
    client = parts.judge
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
            StoreRetry.of(settings),
            topic=settings.topic_erasure,
            group_id=f"{settings.group_id}.erasure",
        )
    alerter = build_alerter(parts.alerts, settings, store.database, clock) if parts.alerts else None
    scheduler = worker_scheduler(settings, purger_for(settings, store), clock)
    if alerter is not None:
        add_alert_jobs(scheduler, alerter, settings)
    api = embedded_api(settings, store, clock)
    app = FastStream(broker, logger=broker_log)
    stop = asyncio.Event()
    # Webhooks stop first and on their own: their grace runs beside the consumer's and
    # the judges', so one shutdown takes about TURNCHECK_SHUTDOWN_TIMEOUT_S, not a sum.
    stop_webhooks = asyncio.Event()
    publishing = OutboxPolicy.of(settings)
    tasks: list[asyncio.Task[None]] = []

    @app.after_startup
    async def start_outbox() -> None:
        await record_rollouts(store, checks, settings, clock)
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
            store.outbox,
            kafka_sender(broker),
            clock,
            settings.outbox_interval_s,
            stop,
            publishing,
            replica=settings.replica,
        )
        tasks.append(asyncio.create_task(sender))
        if parts.webhooks:
            hooks = serve_webhooks(settings, parts.webhooks, store.database, clock, stop_webhooks)
            tasks.append(asyncio.create_task(hooks))
        log.info(describe_alerts(parts.alerts))
        if eraser is None:
            log.warning("erasure off: TURNCHECK_ERASURE_KEY is not set; requests wait on the topic")
        scheduler.start()
        if api is not None:
            api.start()

    @app.on_shutdown
    async def finish() -> None:
        # Order matters: let the batch in hand be stored and committed, then
        # send the events it wrote, and only then let the broker close.
        loop = asyncio.get_running_loop()
        ends = loop.time() + settings.shutdown_timeout_s
        stop_webhooks.set()  # what they do not send now waits for the next start
        if api is not None:
            await api.stop()  # the requests in hand finish; the store is still open
        scheduler.shutdown()  # cancels a round in progress; what it held is done again
        await consumer.stop()
        await dead_letter.stop()
        # The judgements in hand get what is left of the one shutdown budget.
        await settle_judging(judging, client, max(0.0, ends - loop.time()))
        stop.set()
        # The loop has ended before the drain claims under the same replica name: two
        # publishers of one name at once would each take back the other's rows.
        await asyncio.gather(*tasks)
        await drain(store.outbox, kafka_sender(broker), clock, publishing, replica=settings.replica)

    @app.after_shutdown
    async def close_store() -> None:
        await store.close()

    return app


async def replay(
    parts: Parts,
    path: str,
    *,
    clock: Clock = utc_now,
    on_progress: Callable[[int], None] | None = None,
) -> ReplayTotals:
    """Process a JSON Lines file into the store; with Kafka configured, also send its events."""
    settings = parts.settings
    checks = ready(parts.checks)
    store = open_store(settings)
    client = parts.judge
    judging = build_judging(settings, checks, store, client, clock)
    if judging is not None:
        client.open()
        # Judgements a stopped worker or replay left pending past their deadline are
        # settled first, so this run's totals and the store agree.
        await judging.runner.sweep()
        judging.runner.start()
    try:
        await record_rollouts(store, checks, settings, clock)
        totals = await replay_file(
            Path(path),
            lambda dead_letter: build_pipeline(
                settings, checks, store, dead_letter, clock, judging
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
                # Under a claimant of its own, never the replica's name: a worker with the
                # same TURNCHECK_INSTANCE_ID may be running, and its rows are its own.
                await drain(store.outbox, kafka_sender(broker), clock, OutboxPolicy.of(settings))
    finally:
        await store.close()
    return totals


def alert_commands() -> typer.Typer:
    """``turncheck alerts …``: the command line mounts them through here."""
    from turncheck.alerts.cli import app

    return app


def ready(checks: CheckSet) -> CheckSet:
    """The checks, warmed up, with the heap frozen after: what a long run starts with."""
    warm_up(checks)
    freeze_heap()
    return checks


async def record_rollouts(store: Store, checks: CheckSet, settings: Settings, clock: Clock) -> None:
    """Say which checks this worker runs as shadow, for the API and the commands to mark;
    waits out an outage as storing a batch does."""
    await through_outages(
        lambda: store.rollouts.record(checks.rollouts, clock()), StoreRetry.of(settings)
    )


def open_store(settings: Settings) -> Store:
    return Store.open(settings.database_url, events_topic=settings.topic_events)


def build_pipeline(
    settings: Settings,
    checks: CheckSet,
    store: Store,
    dead_letter: DeadLetter,
    clock: Clock = utc_now,
    judging: Judging | None = None,
) -> Pipeline:
    return Pipeline(
        checks=checks,
        store=store.writer.with_shadow(checks.shadow),
        dead_letter=dead_letter,
        clock=clock,
        retention=settings.retention,
        retry=StoreRetry.of(settings),
        judging=judging,
        ledger=ledger_for(settings, store),
    )


def eraser_for(settings: Settings, store: Store) -> Eraser | None:
    """Erasure and its ledger need the key of the ledger's hash; without it, both are off."""
    if settings.erasure_key is None:
        return None
    return Eraser(store.database, settings.erasure_key.get_secret_value().encode())


def ledger_for(settings: Settings, store: Store) -> Eraser | KeylessLedger:
    """What the pipeline drops erased persons' turns by: the Eraser, with its key; without
    it, a ledger that refuses every batch once anyone has been erased."""
    return eraser_for(settings, store) or KeylessLedger(store.database)


def embedded_api(settings: Settings, store: Store, clock: Clock) -> EmbeddedApi | None:
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


def build_judging(
    settings: Settings,
    checks: CheckSet,
    store: Store,
    client: HttpJudgeClient,
    clock: Clock = utc_now,
) -> Judging | None:
    """The background judge, when any check is judged; None otherwise."""
    if not checks.has_judged:
        return None
    runner = JudgeRunner(
        client,
        store.writer.with_shadow(checks.shadow),
        clock,
        capacity=settings.judge_queue_max,
        workers=settings.judge_workers,
        deadline_s=settings.judge_deadline_s,
        retry=StoreRetry.of(settings),
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
