"""Background judging: judged results per second, and memory while the judge is down.

Measures, in one run, against a real loopback judge (tests' ``FakeProvider``, OpenAI
format) that answers every request after 200 ms, with the default settings
(``Settings()``: 16 judge workers, 1000 judgements held, 120 s deadline; the
endpoint's default ``max_concurrency`` of 4), on SQLite in a temp dir:

  1. throughput: N turns (on threads; one background judge check, sample_rate 1.0)
     through ``Pipeline.handle_batch`` in batches of 50, then ``runner.join()``.
     Judged results/s is read against the ceiling ``max_concurrency / 0.2 s``. The
     same turns with judging off (rule checks only) show whether judging slows the
     rule path: the time inside ``handle_batch`` should be about the same, since
     judging runs after commit.
  2. outage: a steady stream (``--rate`` turns/s, sample_rate 1.0, a batch every
     200 ms) while the judge answers 503 for ``--down-s`` s; then it answers again and
     the stream stops. A row every 5 s: turns fed, judgements the runner holds, turns
     stored ``errored`` with the backlog reason (counted in the store), tracemalloc's
     current size. Held and memory should plateau at ``judge_queue_max`` while
     errored grows with the stream; once the judge is back, held drains to 0 at about
     the ceiling. The judge runs in a child process, so that its memory (it records
     every request) and its threads are not counted as the worker's.

Run: python bench/judge.py [--turns 400] [--down-s 60] [--rate 50]   (~2.5 minutes)
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import fresh_store  # noqa: E402
from tests.factories import turn_bytes  # noqa: E402
from tests.judge.fake_provider import FakeProvider, Scripted  # noqa: E402
from turncheck.worker.app import build_judging, build_pipeline  # noqa: E402
from turncheck.worker.checks import load_checks  # noqa: E402
from turncheck.worker.judge.config import JudgeEndpoint  # noqa: E402
from turncheck.worker.judge.http import HttpJudgeClient  # noqa: E402
from turncheck.worker.judge.runner import JudgeRunner  # noqa: E402
from turncheck.worker.pipeline.batch import Pipeline, RawMessage  # noqa: E402
from turncheck.worker.pipeline.evaluate import warm_up  # noqa: E402
from turncheck.worker.settings import Settings  # noqa: E402
from turncheck.worker.store import Store  # noqa: E402
from turncheck.worker.store.tables import check_results  # noqa: E402

LATENCY_S = 0.2
EVERY_S = 5.0
MAX_CONCURRENCY = JudgeEndpoint.model_fields["max_concurrency"].default
BATCH = 50
REPLY = '{"verdict": "pass", "score": 0.9, "reason": "Fine."}'
JUDGED = """  - {name: polite, kind: judge, criteria: polite_tone, mode: background,
     sample_rate: 1.0, judge_model: judge-small}
"""
SENTENCE = "Your order ships on Friday; track the parcel from your account page. "


def make_turns(count: int, prefix: str) -> list[bytes]:
    """Turns on threads of 5, answers of 11 to 66 words."""
    answers = [SENTENCE * (1 + i % 6) for i in range(count)]
    return [
        turn_bytes(f"{prefix}-{i}", a, thread_id=f"th-{prefix}-{i // 5}")
        for i, a in enumerate(answers)
    ]


class Judge:
    """The fake judge in a child process. Up: every answer after 200 ms. Down: 503 at
    once (8 scripted answers kept ahead of the requests; at most 8 are left at recovery)."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.up, self.stop = ctx.Event(), ctx.Event()
        self.requests, self.max_in_flight = ctx.Value("i", 0), ctx.Value("i", 0)
        self.up.set()
        urls: multiprocessing.Queue[str] = ctx.Queue()
        args = (urls, self.up, self.stop, self.requests, self.max_in_flight)
        self.process = ctx.Process(target=serve, args=args, daemon=True)
        self.process.start()
        self.url = urls.get(timeout=30)

    def close(self) -> None:
        self.up.set()
        self.stop.set()
        self.process.join()


def serve(urls: Any, up: Any, stop: Any, requests: Any, max_in_flight: Any) -> None:
    def answer(request: object) -> str:
        up.wait()  # only if the scripted 503s ran out: hold the answer, never succeed
        time.sleep(LATENCY_S)
        return REPLY

    with FakeProvider() as server:
        server.responder = answer
        urls.put(server.openai_url)
        scripted_to = 0  # requests up to this count have a 503 queued
        while not stop.wait(0.002):
            requests.value, max_in_flight.value = len(server.requests), server.max_in_flight
            queued = max(scripted_to - requests.value, 0)
            if not up.is_set() and queued < 8:
                server.script([Scripted("", status=503)] * (8 - queued))
                scripted_to = requests.value + 8


async def build(
    workdir: Path, name: str, judge: Judge, stack: AsyncExitStack, *, judged: bool
) -> tuple[Pipeline, Store]:
    """The pipeline as ``worker.app`` builds it, default settings, a fresh SQLite file."""
    url = f"sqlite+aiosqlite:///{workdir}/{name}.db"
    checks_path = workdir / f"{name}.yaml"
    checks_path.write_text((ROOT / "examples/checks.yaml").read_text() + JUDGED * judged)
    settings = Settings(database_url=url, checks=[checks_path])
    store = await fresh_store(url)
    stack.push_async_callback(store.close)
    checks = load_checks(settings.checks)
    warm_up(checks)
    client = HttpJudgeClient(
        {"judge-small": JudgeEndpoint(provider="openai", base_url=judge.url)}, {}
    )
    stack.push_async_callback(client.aclose)
    judging = build_judging(settings, checks, store, client) if judged else None
    if judging is not None:
        judging.runner.start()
        stack.push_async_callback(judging.runner.stop)
    pipeline = build_pipeline(settings, checks, store, no_dead_letters, judging=judging)
    # A turn on no thread is never sampled: it warms the store's statements, asking no judge.
    await pipeline.handle_batch([RawMessage(turn_bytes(f"warm-{name}", thread_id=None))], no_commit)
    return pipeline, store


def runner_of(pipeline: Pipeline) -> JudgeRunner:
    assert pipeline.judging is not None
    return pipeline.judging.runner


async def no_dead_letters(rejected: object) -> None:
    raise AssertionError("no turn should be rejected")


async def no_commit() -> None:
    """Nothing to commit outside Kafka."""


async def feed(pipeline: Pipeline, turns: list[bytes]) -> list[float]:
    """Milliseconds inside ``handle_batch``, per batch."""
    spent = []
    for i in range(0, len(turns), BATCH):
        start = time.perf_counter()
        await pipeline.handle_batch([RawMessage(t) for t in turns[i : i + BATCH]], no_commit)
        spent.append(1000 * (time.perf_counter() - start))
    return spent


def batches(name: str, count: int, ms: list[float]) -> str:
    return (
        f"   rule path, {name} {1000 * count / sum(ms):5.0f} turns/s: {sum(ms):4.0f} ms in "
        f"handle_batch, per batch p50 {sorted(ms)[len(ms) // 2]:.0f} ms, max {max(ms):.0f} ms"
    )


async def judged_verdicts(store: Store) -> Counter[str]:
    """Stored results of the judged check by verdict, and errored ones by reason."""
    r = check_results.c
    query = select(r.verdict, r.reason, func.count()).where(r.check_name == "polite")
    async with store.database.engine.connect() as conn:
        rows = (await conn.execute(query.group_by(r.verdict, r.reason))).all()
    counts: Counter[str] = Counter()
    for verdict, reason, count in rows:
        counts[verdict] += count
        for word in ("backlog", "deadline"):
            counts[word] += count if word in (reason or "") else 0
    return counts


async def bench_throughput(workdir: Path, judge: Judge, count: int) -> list[str]:
    turns = make_turns(count, "j")
    async with AsyncExitStack() as stack:
        off, _ = await build(workdir, "off", judge, stack, judged=False)
        off_ms = await feed(off, turns)
    async with AsyncExitStack() as stack:
        on, store = await build(workdir, "on", judge, stack, judged=True)
        start = time.perf_counter()
        on_ms = await feed(on, turns)
        await runner_of(on).join()
        elapsed = time.perf_counter() - start
        got = await judged_verdicts(store)
    per_s, ceiling = got["passed"] / elapsed, MAX_CONCURRENCY / LATENCY_S
    return [
        f"1. {count} turns, 1 background judge check, sample_rate 1.0, batches of {BATCH}",
        f"   judged/s {per_s:.1f}, ceiling {ceiling:.0f}/s, ratio {per_s / ceiling:.2f} "
        f"({got['passed']} passed in {elapsed:.1f} s, {got['errored']} errored; "
        f"max {judge.max_in_flight.value} requests in flight)",
        batches("judge off", count, off_ms),
        batches("judge on ", count, on_ms) + f"; on/off {sum(on_ms) / sum(off_ms):.2f}",
    ]


async def bench_outage(workdir: Path, judge: Judge, rate: int, down_s: float) -> list[str]:
    async with AsyncExitStack() as stack:
        judge.up.clear()
        pipeline, store = await build(workdir, "outage", judge, stack, judged=True)
        return await outage(pipeline, store, judge, rate, down_s)


async def outage(
    pipeline: Pipeline, store: Store, judge: Judge, rate: int, down_s: float
) -> list[str]:
    runner = runner_of(pipeline)
    turns = make_turns(int(rate * down_s), "d")
    requests_before = judge.requests.value
    tracemalloc.start()  # after the turns are made: their bytes stand for the broker's
    start = time.perf_counter()
    fed, max_held, batch_ms, rows = 0, 0, [], []

    async def stream() -> None:
        nonlocal fed
        step = max(1, rate // 5)  # a batch every 200 ms, like the consumer's batch timeout
        for i in range(0, len(turns), step):
            await asyncio.sleep(max(0.0, start + i / rate - time.perf_counter()))
            t0 = time.perf_counter()
            await pipeline.handle_batch([RawMessage(t) for t in turns[i : i + step]], no_commit)
            batch_ms.append(1000 * (time.perf_counter() - t0))
            fed += len(turns[i : i + step])

    async def row(state: str) -> None:
        nonlocal max_held
        max_held = max(max_held, runner.held)
        errored = (await judged_verdicts(store))["backlog"]
        mb = tracemalloc.get_traced_memory()[0] / 2**20
        rows.append((runner.held, errored, mb))
        seconds = time.perf_counter() - start
        print(f"{seconds:6.1f} {state:>5} {fed:6d} {runner.held:6d} {errored:8d} {mb:9.2f}")

    print("\n     s judge    fed   held errored* traced MB")
    feeder = asyncio.create_task(stream())
    next_row = 0.0
    while not feeder.done():
        if time.perf_counter() - start >= next_row:
            await row("down")
            next_row += EVERY_S
        await asyncio.sleep(0.05)
    await feeder
    await row("down")
    held_end, errored, down_mb = rows[-1]
    full_mb = next((mb for held, _, mb in rows if held >= runner.capacity), float("nan"))
    down_requests = judge.requests.value - requests_before
    judge.up.set()
    back = time.perf_counter()
    drain = asyncio.create_task(runner.join())
    while not drain.done() and time.perf_counter() - back < runner.deadline_s + 60:
        await asyncio.wait({drain}, timeout=EVERY_S)
        await row("up")
    drain_s = time.perf_counter() - back
    drain.cancel()
    got = await judged_verdicts(store)
    peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return [
        f"2. judge 503 for {down_s:.0f} s, {rate} turns/s, sample_rate 1.0: fed {fed}, "
        f"held max {max_held} (capacity {runner.capacity}), errored {errored} (backlog), "
        f"{down_requests} judge requests",
        f"   traced MB when held reached capacity {full_mb:.2f}, at the outage's end "
        f"{down_mb:.2f}, peak {peak_mb:.2f}",
        batches("while down", fed, batch_ms) + " (traced)",
        f"   judge back: {held_end} held drained in {drain_s:.1f} s ({runner.held} left); "
        f"{got['passed']} passed, {got['deadline']} errored past the deadline",
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--down-s", type=float, default=60.0)
    parser.add_argument("--rate", type=int, default=50)
    args = parser.parse_args()
    judge = Judge()
    try:
        with tempfile.TemporaryDirectory() as workdir:
            summary = await bench_throughput(Path(workdir), judge, args.turns)
            summary += await bench_outage(Path(workdir), judge, args.rate, args.down_s)
    finally:
        judge.close()
    s = Settings()
    print("* stored errored with the backlog reason; MB: tracemalloc, current size\n")
    print(
        f"defaults: {s.judge_workers} judge workers, queue_max {s.judge_queue_max}, deadline "
        f"{s.judge_deadline_s:.0f} s, max_concurrency {MAX_CONCURRENCY}; judge answers in "
        f"{LATENCY_S} s"
    )
    print("\n".join(summary))


if __name__ == "__main__":
    asyncio.run(main())
