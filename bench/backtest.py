"""A backtest over a million stored turns on the real broker: wall time, turns per
second and the peak memory of the whole process tree, and that memory stays bounded.

Measures, in one run on one machine:
  1. produce N turns (default 1,000,000) onto a fresh topic: the example turns with
     varied ids, threads and persons, ``created_at`` (and the message time) spread over
     the last few days, in order;
  2. a raw consume of the whole topic (no group, partitions assigned, ``json.loads``
     per message): the floor of any Python reader of the topic;
  3. ``turncheck backtest --checks examples/checks.yaml --since START --until ... --json``
     as a subprocess over the first ``--small`` turns (100,000), then over all N, each
     with its process tree's resident memory sampled as it runs;
  4. the example rule checks alone (decode and ``evaluate``) on 20,000 of those turns in
     this process, by CPU time: the ceiling of one backtest process;
and prints wall time, turns/s, peak memory, the ratios backtest / raw consume and
backtest / (checks alone x processes), the figures that survive a noisy machine, and
the peak memory of the small range next to the whole one: bounded means about the same
at 10x the turns.

Memory is sampled with psutil when it is installed, else from /proc (Linux), else it is
``RUSAGE_CHILDREN``'s peak of the largest single process (not the tree's sum); the line
printed says which. The backtest reads no live store unless ``--database-url`` names
one (without it its ``live`` part is empty: the cost measured is reading and checking).

Needs ``eval "$(bash scripts/services.sh env)"`` (or ``--bootstrap``). Run:
  python bench/backtest.py [--turns 1000000] [--small 100000] [--partitions 6]
      [--days 3] [--processes N] [--turncheck 'CMD ...'] [--database-url URL] [--keep-topic]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

ROOT = Path(__file__).parents[1]
EXAMPLES = ROOT / "examples"
SAMPLE_EVERY_S = 0.1
STALL_S = 30.0
CHECKS_SAMPLE = 20_000
PRODUCER_BATCH_BYTES = 512 * 1024
IN_FLIGHT_BATCHES = 32


def example_turns() -> list[dict[str, Any]]:
    lines = (EXAMPLES / "turns.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def turn_times(count: int, start: datetime, span: timedelta) -> list[int]:
    """Each turn's time in ms, strictly increasing: the i-th turn ends i/count of the
    way through the span, so the first k turns are exactly those before the k-th's time."""
    start_ms, span_ms = int(start.timestamp() * 1000), int(span.total_seconds() * 1000)
    return [start_ms + span_ms * i // count for i in range(count)]


def turn_messages(
    count: int, start: datetime, span: timedelta, seed: int = 17
) -> Iterator[tuple[bytes, bytes, int]]:
    """(key, value, message time in ms) of ``count`` turns made from the example turns:
    ids of varied shapes, a thread per few turns, a person per few threads, two agent
    versions; the texts are the examples' (so the example checks pass and fail on them
    as on the examples)."""
    rng = random.Random(seed)
    templates = example_turns()
    times = turn_times(count, start, span)
    for i, at_ms in enumerate(times):
        turn = dict(templates[i % len(templates)])
        shape = i % 4
        turn_id = (
            f"t-{i}"
            if shape == 0
            else f"{uuid.UUID(int=rng.getrandbits(128))}"
            if shape == 1
            else f"web/{i // 1000}/t-{i % 1000}"
            if shape == 2
            else f"turn_{rng.getrandbits(40):010x}"
        )
        turn["turn_id"] = turn_id
        turn["thread_id"] = None if i % 50 == 0 else f"th-{i // 4}"
        turn["person_id"] = None if i % 7 == 0 else f"p-{i // 20}"
        turn["agent"] = {**turn["agent"], "version": 7 if i % 3 else 8}
        created = datetime.fromtimestamp(at_ms / 1000, UTC)
        turn["created_at"] = created.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        yield turn_id.encode(), json.dumps(turn).encode(), at_ms


async def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, partitions, 1)])
    finally:
        await admin.close()


async def delete_topic(bootstrap: str, topic: str) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.delete_topics([topic])
    finally:
        await admin.close()


async def produce(
    bootstrap: str,
    topic: str,
    messages: Iterator[tuple[bytes, bytes, int]],
    partitions: int,
) -> int:
    """Every message onto ``topic``, round robin over its partitions (so each partition
    is in time order), in batches built by hand: ``send`` per message costs a future and
    a task each, and producing a million that way takes longer than the backtest."""
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap,
        max_batch_size=PRODUCER_BATCH_BYTES,
        max_request_size=PRODUCER_BATCH_BYTES * 2,
        acks=1,
    )
    await producer.start()
    batches = [producer.create_batch() for _ in range(partitions)]
    in_flight: list[asyncio.Future[Any]] = []
    sent = 0

    async def flush(partition: int) -> None:
        in_flight.append(await producer.send_batch(batches[partition], topic, partition=partition))
        batches[partition] = producer.create_batch()
        while len(in_flight) > IN_FLIGHT_BATCHES:
            await in_flight.pop(0)

    try:
        for n, (key, value, at_ms) in enumerate(messages):
            partition = n % partitions
            if batches[partition].append(key=key, value=value, timestamp=at_ms) is None:
                await flush(partition)
                batches[partition].append(key=key, value=value, timestamp=at_ms)
            sent += 1
        for partition in range(partitions):
            if batches[partition].record_count():
                await flush(partition)
        for future in in_flight:
            await future
    finally:
        await producer.stop()
    return sent


async def raw_consume(bootstrap: str, topic: str, count: int) -> float:
    """Seconds to read ``count`` messages of ``topic`` from its start, each decoded with
    ``json.loads``: no group and no commits, as the backtest reads."""
    # No group: every partition, from the earliest offset, nothing committed.
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )
    await consumer.start()
    try:
        seen = 0
        started = last = time.perf_counter()
        while seen < count:
            batches = await consumer.getmany(timeout_ms=500, max_records=2000)
            for records in batches.values():
                for record in records:
                    json.loads(record.value)
                seen += len(records)
                last = time.perf_counter()
            if time.perf_counter() - last > STALL_S:
                raise SystemExit(
                    f"raw consume: {seen} of {count} turns, then nothing for {STALL_S:.0f} s"
                )
        return time.perf_counter() - started
    finally:
        await consumer.stop()


def checks_seconds(sample: int, start: datetime, span: timedelta) -> tuple[int, float]:
    """(turns, CPU seconds) of the example rule checks alone (decode and ``evaluate``) on
    the bench's first ``sample`` turns, in this process: what the backtest cannot beat,
    per process. CPU time, not wall: a busy machine slows both alike."""
    from turncheck.worker.checks import load_checks
    from turncheck.worker.pipeline.evaluate import evaluate, warm_up
    from turncheck.worker.turns.decode import decode_turn

    checks = load_checks([EXAMPLES / "checks.yaml"])
    warm_up(checks)
    values = [value for _, value, _ in turn_messages(sample, start, span)]
    began = time.process_time()
    for value in values:
        evaluate(decode_turn(value), checks)
    return len(values), time.process_time() - began


class Sampler:
    """The resident memory of a process and its descendants, sampled while it runs."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_bytes = 0
        self.samples = 0
        self.method = _method()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        if self.method == "rusage":
            # ru_maxrss is in KiB on Linux: the largest child's peak, not a sum.
            self.peak_bytes = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_EVERY_S):
            if self.method == "rusage":
                continue
            try:
                rss = (
                    _tree_rss_psutil(self.pid)
                    if self.method == "psutil"
                    else _tree_rss_proc(self.pid)
                )
            except (OSError, ValueError):
                continue
            self.peak_bytes = max(self.peak_bytes, rss)
            self.samples += 1


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _method() -> str:
    try:
        import psutil  # noqa: F401
    except ImportError:
        return "proc" if Path("/proc/self/statm").exists() else "rusage"
    return "psutil"


def _tree_rss_psutil(pid: int) -> int:
    import psutil

    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for process in tree:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += process.memory_info().rss
    return total


def _tree_rss_proc(pid: int) -> int:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields start after the last ")".
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    tree, grew = {pid}, True
    while grew:
        more = {child for child, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for member in tree:
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int(Path(f"/proc/{member}/statm").read_text().split()[1]) * page
    return total


@dataclass
class Measured:
    turns: int
    wall_s: float
    peak_bytes: int
    method: str
    report: dict[str, Any] = field(default_factory=dict)
    cpu_s: float = 0.0
    """CPU time of the whole tree (every process it waited for), user and system."""

    @property
    def turns_per_s(self) -> float:
        return self.turns / self.wall_s if self.wall_s > 0 else 0.0


def backtest(
    command: Sequence[str],
    env: dict[str, str],
    since: str,
    until: str | None,
    workdir: Path,
    extra: Sequence[str] = (),
) -> Measured:
    """``command backtest --checks examples/checks.yaml --since ... --json``, timed, its
    process tree's memory sampled; the report it printed."""
    args = [*command, "backtest", "--checks", str(EXAMPLES / "checks.yaml"), "--since", since]
    if until is not None:
        args += ["--until", until]
    args += extra
    out = workdir / f"report-{uuid.uuid4().hex[:6]}.json"
    with out.open("wb") as stdout:
        cpu_before = _children_cpu_s()
        started = time.perf_counter()
        process = subprocess.Popen(
            [*args, "--json"], stdout=stdout, stderr=subprocess.PIPE, env=env, cwd=workdir
        )
        with Sampler(process.pid) as sampler:
            _, errors = process.communicate()
        wall_s = time.perf_counter() - started
        cpu_s = _children_cpu_s() - cpu_before
    if process.returncode != 0:
        raise SystemExit(f"backtest exited {process.returncode}: {errors.decode()[-2000:]}")
    report = json.loads(out.read_bytes())
    return Measured(
        report["totals"]["turns_read"], wall_s, sampler.peak_bytes, sampler.method, report, cpu_s
    )


def backtest_env(
    bootstrap: str, topic: str, workdir: Path, database_url: str | None
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    env.update(
        TURNCHECK_KAFKA_BOOTSTRAP=bootstrap,
        TURNCHECK_TOPIC_TURNS=topic,
        # A store that does not exist is not created: no live comparison, unless named.
        TURNCHECK_DATABASE_URL=database_url or f"sqlite+aiosqlite:///{workdir}/none.db",
    )
    return env


def iso(ms: int) -> str:
    return (
        datetime.fromtimestamp(ms / 1000, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


@dataclass
class Figures:
    turns: int
    produce_s: float
    raw_s: float
    small: Measured | None
    whole: Measured
    checks: tuple[int, float] = (0, 0.0)
    """(turns, CPU seconds) of the rule checks alone, in one process."""


def run(
    turns: int,
    small: int,
    bootstrap: str,
    *,
    partitions: int = 6,
    days: float = 3.0,
    command: Sequence[str] = (sys.executable, "-m", "turncheck.worker"),
    processes: int | None = None,
    database_url: str | None = None,
    keep_topic: bool = False,
) -> Figures:
    topic = f"bench-backtest-{uuid.uuid4().hex[:8]}"
    end = datetime.now(UTC) - timedelta(minutes=1)
    span = timedelta(days=days)
    start = end - span
    times = turn_times(turns, start, span)
    asyncio.run(create_topic(bootstrap, topic, partitions))
    try:
        began = time.perf_counter()
        sent = asyncio.run(produce(bootstrap, topic, turn_messages(turns, start, span), partitions))
        produce_s = time.perf_counter() - began
        assert sent == turns, (sent, turns)
        raw_s = asyncio.run(raw_consume(bootstrap, topic, turns))
        with tempfile.TemporaryDirectory() as folder:
            workdir = Path(folder)
            env = backtest_env(bootstrap, topic, workdir, database_url)
            extra = () if processes is None else ("--processes", str(processes))
            since = iso(times[0])
            measured_small = None
            if 0 < small < turns:
                until = iso(times[small])
                measured_small = backtest(command, env, since, until, workdir, extra)
            whole = backtest(command, env, since, None, workdir, extra)
        checked = checks_seconds(min(turns, CHECKS_SAMPLE), start, span)
        return Figures(turns, produce_s, raw_s, measured_small, whole, checked)
    finally:
        if not keep_topic:
            asyncio.run(delete_topic(bootstrap, topic))


def mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def show(figures: Figures) -> None:
    whole, small = figures.whole, figures.small
    raw_tps = figures.turns / figures.raw_s
    processes = whole.report.get("totals", {}).get("processes")
    checked, cpu_s = figures.checks
    checks_tps = checked / cpu_s if cpu_s > 0 else 0.0
    rows = [
        ("produce", f"{figures.turns / figures.produce_s:,.0f} turns/s"),
        ("raw consume + json.loads", f"{raw_tps:,.0f} turns/s ({figures.raw_s:.1f} s, 1 process)"),
        (
            "backtest, every turn",
            f"{whole.turns_per_s:,.0f} turns/s ({whole.wall_s:.1f} s wall, "
            f"{whole.turns:,} turns, {processes} processes)",
        ),
        ("backtest / raw consume", f"{whole.turns_per_s / raw_tps:.3f}"),
        (
            "rule checks alone",
            f"{checks_tps:,.0f} turns/s of one process's CPU (decode + evaluate, "
            f"{figures.checks[0]:,} turns)",
        ),
        (
            "CPU a turn",
            f"backtest {whole.cpu_s / whole.turns * 1e6:,.0f} µs (its processes together, "
            f"start included), checks alone {1e6 / checks_tps if checks_tps else 0:,.0f} µs",
        ),
        (
            "checks alone / backtest, by CPU",
            f"{(1 / checks_tps) / (whole.cpu_s / whole.turns) if checks_tps else 0:.2f} "
            "(1.00: the backtest costs only its checks)",
        ),
        ("peak memory, process tree", f"{mib(whole.peak_bytes)} (sampled with {whole.method})"),
    ]
    if small is not None:
        rows += [
            (
                f"backtest of {small.turns:,} turns",
                f"{small.turns_per_s:,.0f} turns/s ({small.wall_s:.1f} s wall, "
                f"{small.report.get('totals', {}).get('processes')} processes), "
                f"peak {mib(small.peak_bytes)}",
            ),
            (
                f"peak memory {whole.turns:,} / {small.turns:,}",
                f"{whole.peak_bytes / max(small.peak_bytes, 1):.2f}x",
            ),
        ]
    print(f"turns: {figures.turns:,} on the real broker (the example turns, varied ids)")
    width = max(len(name) for name, _ in rows) + 2
    for name, value in rows:
        print(f"{name + ':':<{width}}{value}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=100_000, help="the small range, for memory")
    parser.add_argument("--bootstrap", default=os.environ.get("TURNCHECK_TEST_KAFKA_BOOTSTRAP"))
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--days", type=float, default=3.0, help="the turns' times span this")
    parser.add_argument("--processes", type=int, default=None)
    parser.add_argument("--turncheck", default=None, help="the command to run, e.g. 'turncheck'")
    parser.add_argument("--database-url", default=None, help="a live store to compare with")
    parser.add_argument("--keep-topic", action="store_true")
    args = parser.parse_args(argv)
    if not args.bootstrap:
        parser.error("set TURNCHECK_TEST_KAFKA_BOOTSTRAP or pass --bootstrap")
    command = (
        shlex.split(args.turncheck)
        if args.turncheck
        else [sys.executable, "-m", "turncheck.worker"]
    )
    figures = run(
        args.turns,
        args.small,
        args.bootstrap,
        partitions=args.partitions,
        days=args.days,
        command=command,
        processes=args.processes,
        database_url=args.database_url,
        keep_topic=args.keep_topic,
    )
    show(figures)


if __name__ == "__main__":
    main()
