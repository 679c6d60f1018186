"""Backtests read from the real broker: what they read, what they compare, and what
they leave alone."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from sqlalchemy import func, select

from tests.backtest.conftest import (
    DRAFT,
    LIVE,
    REPLAYED,
    T0,
    TOTAL,
    Topic,
    replayed_file,
    turn_json,
    without_timing,
    write,
)
from tests.cli.inprocess import CommandLine
from tests.conftest import fresh_store
from tests.factories import FIXED_NOW
from turncheck.worker.app import plan, replay
from turncheck.worker.backtest import BacktestRequest, Progress, Report, merge, run_backtest
from turncheck.worker.backtest.sources import plan_topic, topic_batches
from turncheck.worker.checks import load_checks
from turncheck.worker.clock import FixedClock
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.store.tables import check_results, outbox, pass_rate_rollups, passed_results

pytestmark = pytest.mark.kafka


def settings_for(topic: Topic, database_url: str) -> Settings:
    # The live group of these settings is the test's own, so a backtest that joined it
    # or committed under it would show in its state.
    return Settings(
        database_url=database_url,
        kafka_bootstrap=topic.bootstrap,
        topic_turns=topic.name,
        group_id=topic.group,
    )


def draft_request(tmp_path: Path, **options: object) -> BacktestRequest:
    draft = load_checks([write(tmp_path / "draft.yaml", DRAFT)])
    return replace(BacktestRequest(draft=draft, since=T0 - timedelta(days=1)), **options)  # type: ignore[arg-type]


def no_store(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/none/turncheck.db"


def read_ids(report: Report) -> set[str]:
    """The turns read: ``says-anything`` fails on every one (and there are at most 10)."""
    row = report.checks[
        "support-bot", "says-anything", next(k[2] for k in report.checks if k[1] == "says-anything")
    ]
    assert row.would_fail == row.turns_read <= 10
    return set(row.examples.as_list())


def store_live_results(database_url: str, tmp_path: Path) -> None:
    """The live check's results on t-00 … t-11, stored by the worker's own replay."""

    async def go() -> None:
        await (await fresh_store(database_url)).close()
        live = write(tmp_path / "live.yaml", LIVE)
        settings = Settings(database_url=database_url, checks=[live], kafka_bootstrap=None)
        await replay(plan(settings), str(replayed_file(tmp_path)))

    asyncio.run(go())


async def _row_counts(database_url: str) -> dict[str, int]:
    store = Store.open(database_url, events_topic="e")
    try:
        async with store.database.transaction() as conn:
            return {
                table.name: (
                    await conn.execute(select(func.count()).select_from(table))
                ).scalar_one()
                for table in (passed_results, check_results, pass_rate_rollups, outbox)
            }
    finally:
        await store.close()


def test_a_draft_against_a_live_check_names_the_newly_failing_and_newly_passing_turns(
    topic: Topic, database_url: str, tmp_path: Path
) -> None:
    """Against the stored results of the live check of the same name, the report names
    exactly the turns the draft would newly fail and newly pass, and stores nothing."""
    store_live_results(database_url, tmp_path)
    stored_before = asyncio.run(_row_counts(database_url))

    report = run_backtest(draft_request(tmp_path), settings_for(topic, database_url))

    assert report.turns_read == TOTAL
    [row] = [r for r in report.checks.values() if r.check == "no-competitors"]
    live = row.live
    assert live is not None
    assert set(live.newly_failing_examples.as_list()) == {"t-01", "t-05", "t-09"}
    assert set(live.newly_passing_examples.as_list()) == {"t-00", "t-04", "t-08"}
    assert (live.newly_failing, live.newly_passing, live.unchanged) == (3, 3, REPLAYED - 6)
    assert live.no_live_result == TOTAL - REPLAYED  # t-12 came after the live store's replay
    assert asyncio.run(_row_counts(database_url)) == stored_before


def test_since_and_until_are_message_times_from_included_to_excluded(
    topic: Topic, tmp_path: Path
) -> None:
    """--since takes the turn sent at that very time, --until leaves it out, on every partition."""
    request = draft_request(
        tmp_path, since=T0 + timedelta(minutes=3), until=T0 + timedelta(minutes=8)
    )
    report = run_backtest(request, settings_for(topic, no_store(tmp_path)))
    assert read_ids(report) == topic.ids(since=3, until=8)
    assert report.turns_read == 5


def test_a_since_after_the_last_turn_reads_nothing(topic: Topic, tmp_path: Path) -> None:
    """A --since later than every message reads nothing and still ends."""
    report = run_backtest(
        draft_request(tmp_path, since=T0 + timedelta(days=1)),
        settings_for(topic, no_store(tmp_path)),
    )
    assert report.turns_read == 0 and report.checks == {}


def test_partitions_read_only_those_partitions(topic: Topic, tmp_path: Path) -> None:
    """--partitions 0,2 reads the turns of partitions 0 and 2 and no other."""
    report = run_backtest(
        draft_request(tmp_path, partitions=(0, 2), limit=None),
        settings_for(topic, no_store(tmp_path)),
    )
    assert read_ids(report) == topic.ids((0, 2))
    assert report.partitions == (0, 2)


def test_two_processes_give_the_report_one_gives(
    topic: Topic, database_url: str, tmp_path: Path
) -> None:
    """Split over two processes, the report's figures, comparison and examples are one process's."""
    store_live_results(database_url, tmp_path)
    settings = settings_for(topic, database_url)
    one = run_backtest(draft_request(tmp_path, processes=1), settings)
    two = run_backtest(draft_request(tmp_path, processes=2), settings)
    assert two.processes == 2
    assert without_timing(two.as_dict()) == without_timing(one.as_dict())


SCRIPT_DRAFT = """
agent: support-bot
checks:
  - name: no-acme-script
    kind: script
    script: |
      const at = variables.response.indexOf('Acme Support');
      response.setResponse({pass: at < 0, matches: at < 0 ? [] : ['Acme Support']});
"""


def test_a_script_check_decides_alike_in_forked_processes(topic: Topic, tmp_path: Path) -> None:
    """A script check compiled before the processes fork decides in each as in one process:
    the six turns of the thirteen that name Acme Support would fail, none is errored."""
    draft = load_checks([write(tmp_path / "script.yaml", SCRIPT_DRAFT)])
    request = BacktestRequest(draft=draft, since=T0 - timedelta(days=1))
    settings = settings_for(topic, no_store(tmp_path))
    one = run_backtest(replace(request, processes=1), settings)
    two = run_backtest(replace(request, processes=2), settings)
    assert two.processes == 2
    assert without_timing(two.as_dict()) == without_timing(one.as_dict())
    [row] = two.checks.values()
    assert (row.turns_read, row.would_fail, row.errored) == (TOTAL, 6, 0)


def test_a_limit_holds_across_processes(topic: Topic, tmp_path: Path) -> None:
    """--limit 5 over two processes reads five turns in all."""
    report = run_backtest(
        draft_request(tmp_path, processes=2, limit=5), settings_for(topic, no_store(tmp_path))
    )
    assert report.turns_read == 5


def test_reports_of_partitions_merge_into_the_report_of_the_whole(
    topic: Topic, database_url: str, tmp_path: Path
) -> None:
    """Reports of partition 0 and of partitions 1-2, saved as JSON and merged, equal the
    report of all three."""
    store_live_results(database_url, tmp_path)
    settings = settings_for(topic, database_url)
    whole = run_backtest(draft_request(tmp_path), settings)
    parts = [
        Report.from_dict(run_backtest(draft_request(tmp_path, partitions=p), settings).as_dict())
        for p in ((0,), (1, 2))
    ]
    assert without_timing(merge(parts).as_dict()) == without_timing(whole.as_dict())


def test_the_live_consumer_group_is_left_as_it_was(topic: Topic, tmp_path: Path) -> None:
    """A backtest neither joins the live group nor moves its committed offsets."""

    async def commit_some() -> None:
        consumer = AIOKafkaConsumer(
            topic.name,
            bootstrap_servers=topic.bootstrap,
            group_id=topic.group,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        )
        await consumer.start()
        try:
            for _ in range(100):  # until the group has given it the partitions
                if len(consumer.assignment()) == 3:
                    break
                await consumer.getmany(timeout_ms=200)
            await consumer.commit(
                {TopicPartition(topic.name, 0): 2, TopicPartition(topic.name, 1): 1}
            )
        finally:
            await consumer.stop()

    async def group_state() -> tuple[object, object]:
        admin = AIOKafkaAdminClient(bootstrap_servers=topic.bootstrap)
        await admin.start()
        try:
            offsets = await admin.list_consumer_group_offsets(topic.group)
            [described] = await admin.describe_consumer_groups([topic.group])
            return (
                {tp.partition: meta.offset for tp, meta in offsets.items()},
                [(g[1], g[2], len(g[5])) for g in described.groups],  # group, state, members
            )
        finally:
            await admin.close()

    asyncio.run(commit_some())
    before = asyncio.run(group_state())
    report = run_backtest(
        draft_request(tmp_path, processes=2), settings_for(topic, no_store(tmp_path))
    )
    assert report.turns_read == TOTAL
    assert asyncio.run(group_state()) == before
    assert before[0] == {0: 2, 1: 1}


@pytest.mark.parametrize("processes", [1, 2])
def test_progress_counts_the_turns_read_against_those_expected(
    topic: Topic, tmp_path: Path, processes: int
) -> None:
    """Progress reports the turns read so far, ending at all of them, out of the number
    the partitions' offsets promise."""
    seen: list[Progress] = []
    request = draft_request(tmp_path, processes=processes)
    run_backtest(request, settings_for(topic, no_store(tmp_path)), progress=seen.append)
    assert seen and seen[-1].turns_read == TOTAL
    assert {p.turns_expected for p in seen} == {TOTAL}
    assert [p.turns_read for p in seen] == sorted(p.turns_read for p in seen)


def test_the_command_reads_the_partitions_it_is_given(
    topic: Topic, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`turncheck backtest --partitions 1-2 --json` reports on those partitions' turns."""
    draft = write(tmp_path / "draft.yaml", DRAFT)
    env = {
        "TURNCHECK_DATABASE_URL": no_store(tmp_path),
        "TURNCHECK_KAFKA_BOOTSTRAP": topic.bootstrap,
        "TURNCHECK_TOPIC_TURNS": topic.name,
    }
    turncheck = CommandLine(monkeypatch, FixedClock(FIXED_NOW), env)
    args = ["--checks", str(draft), "--since", "2026-11-19", "--partitions", "1-2", "--json"]
    done = turncheck("backtest", *args)
    assert done.code == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["totals"]["partitions"] == [1, 2]
    assert report["totals"]["turns_read"] == len(topic.ids((1, 2)))


def test_a_topic_still_written_to_is_read_to_where_it_ended_at_the_start(
    topic: Topic, tmp_path: Path
) -> None:
    """Messages written after the backtest found the end offsets are not read, so it ends;
    a tombstone and a message that is not JSON are counted unreadable."""
    name = f"{topic.name}-live"

    async def go() -> tuple[list[str], Report]:
        admin = AIOKafkaAdminClient(bootstrap_servers=topic.bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(name, 1, 1)])
        finally:
            await admin.close()
        producer = AIOKafkaProducer(bootstrap_servers=topic.bootstrap, acks="all")
        await producer.start()
        try:
            for value in (turn_json(0), None, b"not json", turn_json(1)):
                await producer.send_and_wait(name, value, key=b"k")
            ranges = await plan_topic(topic.bootstrap, name, None, None, None)
            for i in (2, 3):
                await producer.send_and_wait(name, turn_json(i), key=b"k")
        finally:
            await producer.stop()
        read = [
            m async for batch in topic_batches(topic.bootstrap, name, ranges, 500) for m in batch
        ]
        values = [
            json.loads(m.value)["turn_id"] for m in read if m.value and m.value.startswith(b"{")
        ]
        settings = replace_topic(settings_for(topic, no_store(tmp_path)), name)
        return values, await asyncio.to_thread(run_backtest, draft_request(tmp_path), settings)

    values, report = asyncio.run(go())
    assert values == ["t-00", "t-01"]
    assert (report.turns_read, report.unreadable) == (4, 2)


def replace_topic(settings: Settings, name: str) -> Settings:
    return settings.model_copy(update={"topic_turns": name})


def test_a_since_before_1970_reads_from_the_oldest_message(topic: Topic, tmp_path: Path) -> None:
    """A --since before Kafka's first possible timestamp reads every turn the topic keeps."""
    request = draft_request(tmp_path, since=datetime(1960, 1, 1, tzinfo=UTC), limit=None)
    report = run_backtest(request, settings_for(topic, no_store(tmp_path)))
    assert report.turns_read == TOTAL
