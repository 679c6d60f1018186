"""Where a backtest's turns come from: the turns topic between two times, or a file.

The topic is read outside any consumer group: a consumer with no ``group_id``, no
commits, its partitions assigned by hand. Nothing it does reaches the live group's
offsets or membership. Each partition is read from the first offset at or after
``since`` (``offsets_for_times``; none: the partition holds nothing that late) to the
first at or after ``until``, and never past the end offset found at the start, so a
topic being written to still ends. aiokafka's errors are translated here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaClient, AIOKafkaConsumer, TopicPartition
from aiokafka.errors import KafkaError

from turncheck.worker.errors import ConfigurationError, ServiceUnavailable, type_words
from turncheck.worker.pipeline.batch import RawMessage
from turncheck.worker.pipeline.replay import read_lines

log = logging.getLogger(__name__)

CLIENT_ID = "turncheck-backtest"
STALL_S = 60.0
"""A partition that yields nothing for this long, short of its end, means the broker is
gone: the backtest stops rather than wait for ever."""
FETCH_WAIT_MS = 500


@dataclass(frozen=True, slots=True)
class PartitionRange:
    """The offsets of one partition a backtest reads: from ``start`` up to ``end``, not
    included."""

    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        return max(0, self.end - self.start)


def file_batches(path: Path, batch_size: int) -> Iterator[list[RawMessage]]:
    """The file's non-blank lines in batches, as ``replay`` reads them (``-``: stdin)."""
    import sys

    with sys.stdin.buffer if str(path) == "-" else path.open("rb") as stream:
        yield from read_lines(stream, batch_size)


def _consumer(bootstrap: str, max_records: int = 500) -> Any:
    return AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        client_id=CLIENT_ID,
        group_id=None,  # no group: nothing joins, nothing is committed
        enable_auto_commit=False,
        auto_offset_reset="earliest",  # a range the retention cut short starts where it can
        max_poll_records=max_records,
    )


def _unavailable(bootstrap: str, exc: BaseException) -> ServiceUnavailable:
    return ServiceUnavailable("Kafka", bootstrap, type_words(type(exc).__name__))


async def plan_topic(
    bootstrap: str,
    topic: str,
    partitions: Sequence[int] | None,
    since: datetime | None,
    until: datetime | None,
) -> list[PartitionRange]:
    """The offsets to read per partition (all of ``topic``'s, or ``partitions``).
    ``ConfigurationError`` for a topic or partition the broker does not have;
    ``ServiceUnavailable`` when it does not answer."""
    existing = await _partitions_of(bootstrap, topic)
    consumer = _consumer(bootstrap)
    try:
        await consumer.start()
        chosen = existing if partitions is None else sorted(set(partitions))
        absent = [p for p in chosen if p not in existing]
        if absent:
            raise ConfigurationError(
                f"invalid --partitions: topic {topic!r} has no partition "
                f"{', '.join(map(str, absent))} (it has 0-{len(existing) - 1})"
            )
        tps = [TopicPartition(topic, p) for p in chosen]
        ends = await consumer.end_offsets(tps)
        starts = await consumer.beginning_offsets(tps)
        if since is not None:
            starts = await _offsets_at(consumer, tps, since, ends)
        if until is not None:
            at_until = await _offsets_at(consumer, tps, until, ends)
            ends = {tp: min(ends[tp], at_until[tp]) for tp in tps}
        return [PartitionRange(tp.partition, starts[tp], ends[tp]) for tp in tps]
    except KafkaError as exc:
        raise _unavailable(bootstrap, exc) from None
    finally:
        await consumer.stop()


async def _partitions_of(bootstrap: str, topic: str) -> list[int]:
    client = AIOKafkaClient(bootstrap_servers=bootstrap, client_id=CLIENT_ID)
    try:
        await client.bootstrap()
        cluster = await client.fetch_all_metadata()
    except KafkaError as exc:
        raise _unavailable(bootstrap, exc) from None
    finally:
        await client.close()
    if topic not in cluster.topics():
        raise ConfigurationError(
            f"no topic {topic!r} on the broker (TURNCHECK_TOPIC_TURNS names it)"
        )
    return sorted(cluster.partitions_for_topic(topic) or ())


async def _offsets_at(
    consumer: Any, tps: list[TopicPartition], moment: datetime, ends: dict[Any, int]
) -> dict[Any, int]:
    """Per partition, the first offset whose timestamp is at or after ``moment``; the end
    offset where none is."""
    ms = max(0, int(moment.timestamp() * 1000))  # Kafka's times start in 1970
    found = await consumer.offsets_for_times({tp: ms for tp in tps})
    return {tp: ends[tp] if found.get(tp) is None else found[tp].offset for tp in tps}


async def topic_batches(
    bootstrap: str, topic: str, ranges: Sequence[PartitionRange], batch_size: int
) -> AsyncGenerator[list[RawMessage], None]:
    """The messages of ``ranges``, in batches of at most ``batch_size``, until every
    partition reached its end. ``ServiceUnavailable`` when the broker stops answering."""
    from turncheck.worker.kafka.messages import raw_message

    ends = {TopicPartition(topic, r.partition): r.end for r in ranges if r.size}
    if not ends:
        return
    consumer = _consumer(bootstrap, batch_size)
    try:
        await consumer.start()
        consumer.assign(list(ends))
        for r in ranges:
            if r.size:
                consumer.seek(TopicPartition(topic, r.partition), r.start)
        loop = asyncio.get_running_loop()
        last_seen = loop.time()
        while ends:
            got = await consumer.getmany(*ends, timeout_ms=FETCH_WAIT_MS, max_records=batch_size)
            batch = [
                raw_message(record)
                for tp, records in got.items()
                for record in records
                if record.offset < ends.get(tp, 0)
            ]
            for tp in list(ends):
                if await consumer.position(tp) >= ends[tp]:
                    del ends[tp]
                    consumer.pause(tp)
            if got:
                last_seen = loop.time()
            elif loop.time() - last_seen > STALL_S:
                raise ServiceUnavailable("Kafka", bootstrap, f"no messages for {STALL_S:g} s")
            if batch:
                yield batch
    except KafkaError as exc:
        raise _unavailable(bootstrap, exc) from None
    finally:
        await consumer.stop()
