"""Turns at known times on a topic of the test's own, a live check whose results are
stored, and a draft that changes it: what the backtest tests read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from tests.factories import turn_dict
from tests.kafka.backends import topic_names

PARTITIONS = 3
T0 = datetime(2026, 11, 20, tzinfo=UTC)

LIVE = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [HelpCo]
"""
DRAFT = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [Acme Support]
  - name: says-anything
    kind: pattern
    pattern: '[a-z]'
"""
"""The draft's ``no-competitors`` bans Acme Support where the live one bans HelpCo; its
``says-anything`` fails every turn, so its examples are the turns read (at most 10)."""

OUTPUTS = (
    "Try HelpCo instead.",  # live fails, draft passes: newly passing
    "Acme Support can help.",  # live passes, draft fails: newly failing
    "HelpCo and Acme Support both.",  # both fail: unchanged
    "Hello there.",  # both pass: unchanged
)


def turn_id(i: int) -> str:
    return f"t-{i:02d}"


def output(i: int) -> str:
    return OUTPUTS[i % 4]


def turn_json(i: int) -> bytes:
    created = (T0 + timedelta(minutes=i)).isoformat().replace("+00:00", "Z")
    return json.dumps(turn_dict(turn_id(i), output(i), created_at=created)).encode()


@dataclass(frozen=True)
class Topic:
    """Turns t-00 … t-11 on partition i % 3 at T0 + i minutes (message time), all replayed
    into the live store by ``stored_live``; then t-12 (partition 0, T0 + 12 min), which
    was not. Every turn's partition, by id."""

    bootstrap: str
    name: str
    group: str
    partition_of: dict[str, int]

    def ids(
        self, partitions: tuple[int, ...] | None = None, *, since: int = 0, until: int = 13
    ) -> set[str]:
        """The turns of these partitions sent at T0 + [since, until) minutes."""
        return {
            t
            for t, p in self.partition_of.items()
            if (partitions is None or p in partitions) and since <= int(t[2:]) < until
        }


REPLAYED = 12
TOTAL = 13


async def _make_topic(bootstrap: str) -> Topic:
    names = topic_names()
    topic = names["topic_turns"]
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        # The turns are dated T0, past the broker's default retention (7 days) from
        # 2026-11-27 on: kept forever, or a retention check between producing and
        # reading deletes them and the backtests read nothing.
        kept = {"retention.ms": "-1"}
        await admin.create_topics([NewTopic(topic, PARTITIONS, 1, topic_configs=kept)])
    finally:
        await admin.close()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    partition_of = {}
    try:
        for i in range(TOTAL):
            ms = int((T0 + timedelta(minutes=i)).timestamp() * 1000)
            await producer.send_and_wait(
                topic,
                turn_json(i),
                key=turn_id(i).encode(),
                partition=i % PARTITIONS,
                timestamp_ms=ms,
            )
            partition_of[turn_id(i)] = i % PARTITIONS
    finally:
        await producer.stop()
    return Topic(bootstrap, topic, names["group_id"], partition_of)


@pytest.fixture(scope="module")
def topic() -> Iterator[Topic]:
    from tests.conftest import service

    yield asyncio.run(_make_topic(service("TURNCHECK_TEST_KAFKA_BOOTSTRAP")))


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def replayed_file(tmp_path: Path) -> Path:
    """The turns the live worker stored, as a file of JSON lines."""
    return write(
        tmp_path / "live.jsonl", "".join(turn_json(i).decode() + "\n" for i in range(REPLAYED))
    )


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    """A report's figures, without what depends on the run (time, processes)."""
    totals = {
        k: v
        for k, v in report["totals"].items()
        if k not in ("wall_time_s", "turns_per_s", "processes")
    }
    return {**report, "totals": totals}
