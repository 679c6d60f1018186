"""Prometheus text: the process's counters and the database's gauges."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.api.conftest import AUTH, api_settings, running_api, save, turn
from tests.factories import BANNED_WORDS_CHECKS, FIXED_NOW, check_set, turn_bytes
from tests.kafka.backends import RealBackend, topic_names
from turncheck.worker.checks import Verdict
from turncheck.worker.pipeline.batch import Pipeline, RawMessage
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import AlertKey, AlertStore

Scrape = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(api: httpx.AsyncClient) -> Scrape:
    response = await api.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


async def test_gauges_read_the_backlogs_results_and_deliveries(
    api: httpx.AsyncClient, store: Store
) -> None:
    await save(store, [turn("t-1"), turn("t-2")], [("a", Verdict.PASSED), ("b", Verdict.FAILED)])
    await save(store, [turn("t-3")], [("b", Verdict.ERRORED)])
    key = AlertKey("check", "b", "support-bot", FIXED_NOW.date())
    await AlertStore(store.database).raise_alert(
        key, snapshot="{}", channels=["slack", "mail"], now=FIXED_NOW, give_up_at=FIXED_NOW
    )
    found = await scrape(api)
    assert found[("turncheck_outbox_backlog", ())] == 3  # b failed twice, errored once
    assert found[("turncheck_judge_pending", ())] == 0
    assert found[("turncheck_rollup_results", (("check", "a"), ("verdict", "passed")))] == 2
    assert found[("turncheck_rollup_results", (("check", "b"), ("verdict", "failed")))] == 2
    assert found[("turncheck_rollup_results", (("check", "b"), ("verdict", "errored")))] == 1
    assert found[("turncheck_alert_deliveries", (("channel", "mail"), ("status", "pending")))] == 1


async def test_counters_count_what_the_pipeline_stored(
    api: httpx.AsyncClient, store: Store, tmp_path: Path
) -> None:
    before = await scrape(api)
    pipeline = banned_words_pipeline(store, tmp_path)
    messages = [RawMessage(turn_bytes("t-1", "Ask HelpCo.")), RawMessage(turn_bytes("t-2"))]
    await pipeline.handle_batch([*messages, RawMessage(b"{oops")], _commit)
    grew = growth(before, await scrape(api))

    assert grew("turncheck_turns_consumed_total") == 3
    assert grew("turncheck_results_stored_total", verdict="passed") == 3
    assert grew("turncheck_results_stored_total", verdict="failed") == 1
    assert grew("turncheck_results_stored_total", verdict="errored") == 0


async def test_turns_past_retention_on_arrival_are_counted_apart(
    api: httpx.AsyncClient, store: Store, tmp_path: Path
) -> None:
    """/metrics counts the turns skipped as expired on arrival; they store no result."""
    before = await scrape(api)
    pipeline = banned_words_pipeline(store, tmp_path)
    expired = (FIXED_NOW - timedelta(days=31)).isoformat()
    messages = [
        RawMessage(turn_bytes("t-1", "Ask HelpCo.", created_at=expired)),
        RawMessage(turn_bytes("t-2", created_at=expired)),
        RawMessage(turn_bytes("t-3")),
    ]
    await pipeline.handle_batch(messages, _commit)
    grew = growth(before, await scrape(api))

    assert grew("turncheck_turns_expired_on_arrival_total") == 2
    assert grew("turncheck_turns_consumed_total") == 3
    assert grew("turncheck_results_stored_total", verdict="passed") == 2
    assert grew("turncheck_results_stored_total", verdict="failed") == 0


def banned_words_pipeline(store: Store, tmp_path: Path) -> Pipeline:
    return Pipeline(
        checks=check_set(tmp_path, BANNED_WORDS_CHECKS),
        store=store.writer,
        dead_letter=_no_dead_letters,
        clock=lambda: FIXED_NOW,
        retention=timedelta(days=30),
    )


def growth(before: Scrape, after: Scrape) -> Callable[..., float]:
    """How much a series grew between two scrapes: ``grew(name, label=value, ...)``."""

    def grew(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    return grew


async def _no_dead_letters(rejected: object) -> None:
    """The bad message is dead-lettered here; the counters count it as consumed."""


async def _commit() -> None:
    """Nothing to commit."""


@pytest.mark.kafka
async def test_the_consumer_lag_per_partition_comes_from_the_broker(
    store: Store, database_url: str, kafka_bootstrap: str
) -> None:
    """With a broker, /metrics has the group's lag on the turns topic, partition by partition."""
    names = topic_names()
    backend = RealBackend(kafka_bootstrap)
    await backend.create_topics(names["topic_turns"])
    await backend.produce(names["topic_turns"], [(b"k", b"{}")] * 9)
    settings = api_settings(
        database_url,
        kafka_bootstrap=kafka_bootstrap,
        topic_turns=names["topic_turns"],
        group_id=names["group_id"],
    )
    async with running_api(settings, store) as client:
        client.headers.update(AUTH)
        for _ in range(50):  # a new topic's partitions take a moment to have leaders
            lag = {
                k: v for k, v in (await scrape(client)).items() if k[0] == "turncheck_consumer_lag"
            }
            if lag:
                break
            await asyncio.sleep(0.1)
    assert sum(lag.values()) == 9 and len(lag) == 3
