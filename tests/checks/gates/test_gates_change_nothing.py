"""Differential test (b): evaluate() gives the same results with gates as without.

Every corpus case, a disguised copy of each, and the bench's generated turns
(rich and clean, plain and disguised) go through every rule check of the bench
and the examples plus every detector at both stages, compiled three times:
gates off, gates on the pure-Python engine, gates on Hyperscan (where
installed). A gate that shuts on a text its detector, phrase list, pattern or
extractor would flag shows here as a different result.

Run alone after changing any detector: ``python -m pytest tests/checks/gates -q``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from msgspec.structs import replace

from tests.checks.gates.checksets import AGENT, compiled
from tests.checks.gates.texts import bench_module, corpus_rows, disguise
from tests.factories import turn_from
from turncheck.worker.checks import CheckSet
from turncheck.worker.checks.gates import available
from turncheck.worker.pipeline.evaluate import evaluate
from turncheck.worker.turns.decode import decode_turn
from turncheck.worker.turns.structs import Turn

BUDGET_MS = 60_000.0  # no result may differ because a loaded machine ran out of time
BENCH_TURNS = 300
ENGINES = available()


def _turn(case_id: str, **fields: Any) -> Turn:
    return turn_from(
        {
            "schema": "turn.stored/v1",
            "turn_id": case_id,
            "agent": {"id": AGENT, "version": 1, "model": "test"},
            "created_at": "2026-11-29T10:00:00Z",
            **fields,
        }
    )


def _digests(values: list[str], case_id: str) -> list[dict[str, str]]:
    out = []
    for i, value in enumerate(values):
        salt = hashlib.sha256(f"{case_id}/{i}".encode()).hexdigest()[:16]
        out.append(
            {
                "salt": salt,
                "sha256": hashlib.sha256((salt + value).encode()).hexdigest(),
                "sha256_casefold": hashlib.sha256((salt + value.casefold()).encode()).hexdigest(),
            }
        )
    return out


def _text_turn(case_id: str, text: str, row: dict[str, Any]) -> Turn:
    """``text`` as the answer, the text beside a tool call and the caller's message."""
    return _turn(
        case_id,
        input={"messages": [{"role": "user", "content": text}]},
        rounds=[{"text": text}],
        output={"text": text},
        instructions=row.get("instructions"),
        private_values=_digests(row.get("private_values", []), case_id),
    )


def corpus_turns() -> Iterator[tuple[str, tuple[str, ...], Turn]]:
    """(id, internal domains, turn) of every corpus case, plain and disguised."""
    rng = random.Random(10)
    for row in corpus_rows():
        domains = tuple(row.get("internal_domains", ()))
        if isinstance(row.get("text"), str):
            yield row["id"], domains, _text_turn(row["id"], row["text"], row)
            yield row["id"] + "~", domains, _text_turn(row["id"], disguise(row["text"], rng), row)
        elif isinstance(row.get("turn"), dict):
            fields = dict(row["turn"])
            if "private_values" in fields:  # the disguised corpus gives them as plain values
                fields["private_values"] = _digests(fields["private_values"], row["id"])
            yield row["id"], domains, _turn(row["id"], **fields)
            fields["output"] = {**fields["output"], "text": disguise(fields["output"]["text"], rng)}
            yield row["id"] + "~", domains, _turn(row["id"], **fields)


def bench_turns() -> Iterator[tuple[str, tuple[str, ...], Turn]]:
    """The bench's generated turns, rich and clean, each also with a disguised answer."""
    rules = bench_module()
    rng, mutate = random.Random(20261129), random.Random(11)
    for i in range(BENCH_TURNS):
        clean = i % 2 == 1
        turn = decode_turn(rules.make_turn(rng, i, clean=clean))
        turn = replace(turn, agent=replace(turn.agent, id=AGENT))
        yield turn.turn_id, (), turn
        answer = disguise(turn.output.text, mutate)
        yield (
            turn.turn_id + "~",
            (),
            replace(turn, output=replace(turn.output, text=answer)),
        )


@cache
def _check_sets(engine: str, domains: tuple[str, ...]) -> CheckSet:
    return compiled(engine, list(domains))


def _differences(turns: Iterator[tuple[str, tuple[str, ...], Turn]]) -> list[str]:
    differences = []
    for case_id, domains, turn in turns:
        checks = _check_sets("off", domains)
        without = evaluate(turn, checks, BUDGET_MS)
        assert len(without) == len(checks) > 0
        for engine in ENGINES:
            with_gates = evaluate(turn, _check_sets(engine, domains), BUDGET_MS)
            for a, b in zip(without, with_gates, strict=True):
                if a != b:
                    differences.append(
                        f"{case_id} [{engine}] {a.check.name}: {a.verdict} -> {b.verdict}"
                    )
    return differences


@pytest.mark.timeout(600)
def test_gates_change_no_result_on_the_corpus() -> None:
    """Every corpus case, plain and disguised, gets the same results with gates as without."""
    assert _differences(corpus_turns()) == []


@pytest.mark.timeout(600)
def test_gates_change_no_result_on_the_bench_turns() -> None:
    """The bench's turns, rich, clean and disguised, get the same results with gates as without."""
    assert _differences(bench_turns()) == []


@pytest.mark.usefixtures("hyperscan_installed")
def test_the_hyperscan_engine_is_compared_where_it_is_installed() -> None:
    """The comparison covers both engines here, or says in its ids which one it could not."""
    assert "python" in ENGINES
    assert "hyperscan" in ENGINES
