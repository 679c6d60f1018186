"""Delivery guarantees against the real broker and PostgreSQL: nothing lost, nothing doubled."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from aiokafka.admin import AIOKafkaAdminClient

from tests.conftest import fresh_store
from tests.factories import BANNED_WORDS_CHECKS, turn_bytes
from tests.kafka.backends import RealBackend, topic_names
from tests.kafka.test_worker_contract import wait_for
from tests.tcp_proxy import TcpProxy
from turncheck.worker.app import build_worker, plan
from turncheck.worker.pipeline.records import SaveReport, TurnResults
from turncheck.worker.settings import Settings
from turncheck.worker.store import (
    Database,
    ResultWriter,
    Store,
    create_engine,
)

pytestmark = [pytest.mark.kafka, pytest.mark.postgres]


def settings_for(bootstrap: str, database_url: str, tmp_path: Path, **extra: object) -> Settings:
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    values: dict[str, object] = {
        "kafka_bootstrap": bootstrap,
        "database_url": database_url,
        "checks": [checks],
        "outbox_interval_s": 0.05,
        "batch_timeout_ms": 50,
        "shutdown_timeout_s": 1,
        "store_retry_max_s": 0.5,
        **topic_names(),
    }
    values.update(extra)
    return Settings(**values)  # type: ignore[arg-type]


async def prepared(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path, worker_url: str | None = None
) -> tuple[Settings, RealBackend, Store]:
    """Settings with fresh topics, the topics themselves, and an empty store to look into."""
    s = settings_for(kafka_bootstrap, worker_url or postgres_url, tmp_path)
    backend = RealBackend(kafka_bootstrap)
    await backend.create_topics(s.topic_turns, s.topic_events, s.topic_dlq)
    return s, backend, await fresh_store(postgres_url, s.topic_events)


def turns(count: int, prefix: str = "t") -> list[tuple[bytes, bytes]]:
    """Every third turn names a competitor, so it fails a check."""
    out = []
    for i in range(count):
        text = "Ask HelpCo instead." if i % 3 == 0 else "Happy to help."
        out.append((f"{prefix}-{i}".encode(), turn_bytes(f"{prefix}-{i}", text)))
    return out


async def committed_offsets(bootstrap: str, group: str, topic: str) -> int:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    return sum(meta.offset for tp, meta in offsets.items() if tp.topic == topic and meta.offset > 0)


async def count_results(store: Store) -> tuple[int, int, int]:
    """(results, rollup total, pending-or-sent events) straight from the tables: results
    are the full rows and the passed results the turns' writes hold."""
    from sqlalchemy import func, select

    from turncheck.worker.store.tables import (
        check_results,
        outbox,
        pass_rate_rollups,
        passed_results,
    )

    r = pass_rate_rollups.c
    async with store.database.engine.connect() as conn:
        results = (await conn.execute(select(func.count()).select_from(check_results))).scalar_one()
        results += int(
            (await conn.execute(select(func.sum(passed_results.c.passed)))).scalar_one() or 0
        )
        rolled = (
            await conn.execute(select(func.sum(r.passed + r.failed + r.errored)))
        ).scalar_one()
        events = (await conn.execute(select(func.count()).select_from(outbox))).scalar_one()
    return results, int(rolled or 0), events


def with_writer(database: Database, writer: ResultWriter) -> Store:
    return replace(Store.over(database, events_topic=writer.turns.events_topic), writer=writer)


class CrashBeforeCommit(ResultWriter):
    """Stores the batch, then never returns: as if the process died before committing."""

    stored = asyncio.Event()

    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
        report = await super().save(batch, now)
        self.stored.set()
        await asyncio.Event().wait()
        return report


class CountingWriter(ResultWriter):
    calls: list[int]

    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
        report = await super().save(batch, now)
        self.calls.append(report.new_results)
        return report


async def test_a_turn_redelivered_after_a_crash_before_commit_is_stored_once(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    await backend.produce(s.topic_turns, turns(9))

    crashing = CrashBeforeCommit(check.database, events_topic=s.topic_events)
    crashing.stored = asyncio.Event()
    first = build_worker(plan(s), store=with_writer(check.database, crashing))
    await first.start()
    await asyncio.wait_for(crashing.stored.wait(), 30)
    await first.stop()
    assert await committed_offsets(kafka_bootstrap, s.group_id, s.topic_turns) == 0

    database = Database(create_engine(postgres_url))
    again = CountingWriter(database, events_topic=s.topic_events)
    again.calls = []
    second = build_worker(plan(s), store=with_writer(database, again))
    async with second:
        await wait_for(lambda: _committed(kafka_bootstrap, s, 9))
    assert sum(again.calls) == 0 and again.calls, "the batch came again and added nothing"
    assert await count_results(check) == (18, 18, 3)
    events = await backend.read(s.topic_events, 4, timeout_s=3)
    assert len(events) == 3
    await check.close()


async def _committed(bootstrap: str, s: Settings, count: int) -> bool:
    return await committed_offsets(bootstrap, s.group_id, s.topic_turns) >= count


async def test_a_database_outage_pauses_consuming_and_loses_nothing(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    url = urlsplit(postgres_url)
    proxy = TcpProxy(url.hostname or "127.0.0.1", url.port or 5432)
    await proxy.start()
    via_proxy = urlunsplit(
        url._replace(netloc=f"{url.username}:{url.password}@127.0.0.1:{proxy.port}")
    )
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path, via_proxy)
    worker = build_worker(plan(s), store=Store.open(via_proxy, events_topic=s.topic_events))
    async with worker:
        await backend.produce(s.topic_turns, turns(6, "a"))
        await wait_for(lambda: _committed(kafka_bootstrap, s, 6))

        await proxy.cut()
        await backend.produce(s.topic_turns, turns(6, "b"))
        await asyncio.sleep(2)
        assert await committed_offsets(kafka_bootstrap, s.group_id, s.topic_turns) == 6
        assert (await count_results(check))[0] == 12

        await proxy.start()
        await wait_for(lambda: _committed(kafka_bootstrap, s, 12))
    assert await count_results(check) == (24, 24, 4)
    await proxy.cut()
    await check.close()


async def start_worker_process(
    s: Settings, postgres_url: str, stderr: int = asyncio.subprocess.PIPE, **env: str
) -> asyncio.subprocess.Process:
    """``turncheck run`` as its own process, on the settings' broker, topics and group."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "turncheck.worker",
        "run",
        env={
            **os.environ,
            "TURNCHECK_KAFKA_BOOTSTRAP": s.kafka_bootstrap or "",
            "TURNCHECK_DATABASE_URL": postgres_url,
            "TURNCHECK_CHECKS": str(s.checks[0]),
            "TURNCHECK_TOPIC_TURNS": s.topic_turns,
            "TURNCHECK_TOPIC_EVENTS": s.topic_events,
            "TURNCHECK_TOPIC_DLQ": s.topic_dlq,
            "TURNCHECK_GROUP_ID": s.group_id,
            **env,
        },
        stdout=asyncio.subprocess.DEVNULL,
        stderr=stderr,
    )


async def test_sigterm_finishes_in_hand_work_commits_and_exits(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    await backend.produce(s.topic_turns, turns(30))
    process = await start_worker_process(s, postgres_url)
    try:
        await wait_for(lambda: _committed(kafka_bootstrap, s, 30), timeout_s=60)
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0, stderr.decode()[-2000:]
    assert await count_results(check) == (60, 60, 10)
    events = await backend.read(s.topic_events, 11, timeout_s=3)
    assert len({json.loads(e.value)["id"] for e in events}) == 10
    assert "Ask HelpCo" not in stderr.decode()
    await check.close()


async def test_the_worker_judges_sampled_turns_after_committing_their_rule_results(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    """Real broker, real database, a real local judge: judged results and their events land."""
    from tests.judge.fake_provider import FakeProvider

    with FakeProvider() as judge:
        judge.responder = lambda request: (
            '{"verdict": "fail", "score": 0.3, "reason": "Too curt for a customer."}'
        )
        judges = json.dumps({"judge-small": {"provider": "openai", "base_url": judge.openai_url}})
        s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
        checks = tmp_path / "judged.yaml"
        checks.write_text(
            "agent: support-bot\nchecks:\n"
            "  - {name: polite, kind: judge, criteria: polite_tone, mode: background,"
            " sample_rate: 0.5, judge_model: judge-small}\n"
        )
        s = s.model_copy(update={"checks": [checks], "judges": judges})
        await backend.produce(s.topic_turns, turns(40))
        async with build_worker(
            plan(s), store=Store.open(postgres_url, events_topic=s.topic_events)
        ):
            await wait_for(lambda: _committed(kafka_bootstrap, s, 40))

            async def all_judged() -> bool:
                results, _, _ = await count_results(check)
                return results > 0 and results == len(judge.requests)

            await wait_for(all_judged)
        asked = len(judge.requests)
    assert 8 <= asked <= 32, "about half of 40 turns are in the sample"
    results, rolled, events = await count_results(check)
    assert (results, rolled, events) == (asked, asked, asked)
    published = await backend.read(s.topic_events, asked, timeout_s=10)
    assert len(published) == asked
    assert all(b"curt" not in e.value for e in published)
    await check.close()
