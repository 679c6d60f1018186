"""Where a Kafka worker's time goes, step by step, end to end on PostgreSQL.

Runs the worker of ``throughput.py`` (same turns, example checks, one process) over a
topic of TURNS turns until its offsets are committed, its store writing by statements
and by COPY (``worker/store/staging.py``) in alternate runs, best of ROUNDS each, with
each step of ``worker/pipeline/batch.py`` timed where it runs: decode (``decode_turn``), checks
(``evaluate``), store (``store_batch``: results, rollups, outbox in one transaction),
commit (the Kafka offset commit). What is left of the wall time is the consumer
outside the pipeline (fetching, FastStream, the event loop) and waiting between steps.
Shares are of the wall time; "alone" is the turns/s the step would allow by itself.
The process's CPU time (both threads) is printed too: on a shared machine it is the
figure that other processes' load disturbs least.

Needs `eval "$(bash scripts/services.sh env)"`. Run: python bench/steps.py [TURNS] [ROUNDS]
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from bench.throughput import bench_settings, make_turns, produce, wait_committed  # noqa: E402
from tests.conftest import fresh_store, scratch_database  # noqa: E402
from turncheck.worker.app import build_worker, plan  # noqa: E402
from turncheck.worker.pipeline import batch as pipeline  # noqa: E402
from turncheck.worker.store import ResultWriter  # noqa: E402

WAYS = ("statements", "copy")

spent: dict[str, float] = defaultdict(float)


def timed_call(name: str, step: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return step(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - started

    return call


def timed_await(name: str, step: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Also the process's CPU time meanwhile (``name`` + " CPU"): the checks' thread is
    idle while the pipeline awaits, so it is the step's own and the event loop's."""

    async def call(*args: Any, **kwargs: Any) -> Any:
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            return await step(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - started
            spent[f"{name} CPU"] += time.process_time() - cpu_started

    return call


def instrument() -> None:
    """Wrap the pipeline's steps where ``pipeline.py`` looks them up."""
    pipeline.decode_turn = timed_call("decode", pipeline.decode_turn)  # type: ignore[assignment]
    pipeline.evaluate = timed_call("checks", pipeline.evaluate)  # type: ignore[assignment]
    pipeline.store_batch = timed_await("store", pipeline.store_batch)  # type: ignore[assignment]
    handle = pipeline.Pipeline.handle_batch

    async def handle_batch(self: Any, messages: Any, commit: Any) -> Any:
        return await handle(self, messages, timed_await("commit", commit))

    pipeline.Pipeline.handle_batch = timed_await("pipeline", handle_batch)  # type: ignore[method-assign]


async def run_worker(bootstrap: str, server: str, topic: str, count: int, copy: bool) -> Run:
    """One worker process's run over the whole topic in a group of its own, its store
    writing by COPY or by statements."""
    async with scratch_database(server, "bench_steps") as url:
        settings = bench_settings(bootstrap, url, topic)
        store = await fresh_store(url, settings.topic_events)
        writer = ResultWriter(store.database, events_topic=settings.topic_events, copy=copy)
        app = build_worker(plan(settings), store=replace(store, writer=writer))
        spent.clear()
        started, cpu_started = time.perf_counter(), time.process_time()
        async with app:
            await wait_committed(bootstrap, settings.group_id, topic, count)
            wall = time.perf_counter() - started
            cpu = time.process_time() - cpu_started
    return Run(wall, cpu, dict(spent))


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    spent: dict[str, float]


def report(way: str, count: int, run: Run) -> None:
    wall, cpu, took = run.wall, run.cpu, run.spent
    inside = {name: took.get(name, 0.0) for name in ("decode", "checks", "store", "commit")}
    # Decode and checks run in a worker thread inside the pipeline's own time.
    rest_of_pipeline = took.get("pipeline", 0.0) - sum(inside.values())
    print(f"{way}: turns: {count}  wall: {wall:.2f} s  end to end: {count / wall:.0f} turns/s")
    # On a shared machine the wall time counts other processes' turns on the cores; the
    # process's own CPU time does not (nor the database's, which runs elsewhere).
    print(
        f"worker process CPU: {cpu:.2f} s, {cpu / count * 1e6:.1f} us/turn "
        f"({count / cpu:.0f} turns/s on a core of its own)"
    )
    print(
        f"{'step':22} {'seconds':>8} {'share':>6} {'us/turn':>8} {'alone turns/s':>14} "
        f"{'CPU us/turn':>12}"
    )
    rows = [
        *inside.items(),
        ("rest of the pipeline", rest_of_pipeline),
        ("outside the pipeline", wall - took.get("pipeline", 0.0)),
    ]
    for name, seconds in rows:
        alone = f"{count / seconds:14.0f}" if seconds > 0 else f"{'-':>14}"
        cpu_spent = took.get(f"{name} CPU")
        cpu_column = f"{cpu_spent / count * 1e6:12.1f}" if cpu_spent is not None else ""
        print(
            f"{name:22} {seconds:8.2f} {seconds / wall:6.1%} {seconds / count * 1e6:8.1f} "
            f"{alone} {cpu_column}"
        )


async def main(count: int, rounds: int) -> None:
    bootstrap = os.environ["TURNCHECK_TEST_KAFKA_BOOTSTRAP"]
    server = os.environ["TURNCHECK_TEST_DATABASE_URL"]
    topic = f"bench-steps-{uuid.uuid4().hex[:8]}"
    await produce(bootstrap, topic, make_turns(count))
    instrument()
    best: dict[str, Run] = {}
    for round_no in range(rounds):
        # Alternated, so that a drift in the machine's load falls on both ways.
        for way in WAYS if round_no % 2 == 0 else WAYS[::-1]:
            run = await run_worker(bootstrap, server, topic, count, copy=way == "copy")
            if way not in best or run.wall < best[way].wall:
                best[way] = run
    for way in WAYS:
        report(f"store by {way} (best of {rounds})", count, best[way])
        print()
    copy, statements = best["copy"], best["statements"]
    print(
        f"copy / statements: end to end {statements.wall / copy.wall:.2f}x, "
        f"store step {statements.spent['store'] / copy.spent['store']:.2f}x faster, "
        f"store step CPU {copy.spent['store CPU'] / statements.spent['store CPU']:.2f}x, "
        f"process CPU a turn {copy.cpu / statements.cpu:.2f}x"
    )


if __name__ == "__main__":
    given = [int(argument) for argument in sys.argv[1:3]]
    turns, rounds = [*given, *(20_000, 2)[len(given) :]]
    asyncio.run(main(turns, rounds))
