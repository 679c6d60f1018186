"""``bench/backtest.py``: its turns are turns the worker takes, and its harness, at a
tiny N on the real broker, measures a backtest of every turn it produced."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest

from turncheck.worker.turns.decode import decode_turn

BENCH = Path(__file__).parents[1] / "bench" / "backtest.py"
HAS_BACKTEST = importlib.util.find_spec("turncheck.worker.cli.backtest") is not None


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_backtest", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_bench_s_turns_are_valid_varied_and_in_time_order() -> None:
    """Every message decodes as a turn; ids differ in shape; times rise with the offsets."""
    start = datetime(2026, 11, 28, tzinfo=UTC)
    messages = list(bench().turn_messages(400, start, timedelta(days=3)))
    turns = [decode_turn(value) for _, value, _ in messages]
    assert [key.decode() for key, _, _ in messages] == [t.turn_id for t in turns]
    assert len({t.turn_id for t in turns}) == 400
    assert any("/" in t.turn_id for t in turns) and any(t.thread_id is None for t in turns)
    times = [at_ms for _, _, at_ms in messages]
    assert times == sorted(set(times))
    assert all(
        t.created_at == datetime.fromtimestamp(ms / 1000, UTC)
        for t, ms in zip(turns, times, strict=True)
    )


@pytest.mark.kafka
@pytest.mark.skipif(
    not HAS_BACKTEST,
    reason="needs the `turncheck backtest` command (helper-backtest's branch), not in this "
    "branch yet",
)
def test_the_harness_backtests_every_turn_it_produced(kafka_bootstrap: str) -> None:
    """300 turns on a fresh topic: the small range reads exactly its 100, the whole all
    300, each with a wall time and a peak memory measured."""
    figures = bench().run(
        300, 100, kafka_bootstrap, partitions=3, command=[sys.executable, "-m", "turncheck.worker"]
    )
    assert figures.small is not None and figures.small.turns == 100
    assert figures.whole.turns == 300 and figures.whole.report["checks"]
    for measured in (figures.small, figures.whole):
        assert measured.wall_s > 0 and measured.peak_bytes > 0
    assert figures.raw_s > 0 and figures.produce_s > 0
