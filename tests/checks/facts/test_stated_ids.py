"""The quick look for an ID written as the sources write it never changes a result."""

from __future__ import annotations

import random
from datetime import date

import pytest

from tests.checks.gates.checksets import AGENT
from tests.checks.gates.test_gates_change_nothing import bench_turns, corpus_turns
from turncheck.schemas.checkfile import CheckFile
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.definitions import check_set
from turncheck.worker.checks.facts.index import SourceIndex
from turncheck.worker.pipeline.evaluate import evaluate

CHECKS = check_set(
    CheckFile.model_validate(
        {"agent": AGENT, "checks": [{"name": "grounded", "kind": "facts", "allowed": ["30 days"]}]}
    )
)


def test_an_id_is_found_whole_as_a_token_or_a_tail() -> None:
    """A token, a tail after "-", and a whole digit run count; part of a longer one does not."""
    blob = "order ORD-2024-0042 and A-88213X, ref 1234567, card ending 4170"
    index = SourceIndex(blob, date(2026, 11, 29), 0, Budget.unlimited())
    assert index._states_token("ORD-2024-0042")
    assert index._states_token("2024-0042")
    assert index._states_token("4170")
    assert not index._states_token("A-88213")  # the token goes on: "A-88213X"
    assert not index._states_token("4567")  # inside a longer run
    assert not index._states_token("ORD-2024")  # a head, not a tail
    assert not index._states_token("MTR 0041")


@pytest.mark.timeout(600)
def test_facts_results_are_the_same_without_the_quick_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every corpus and bench turn gets the same facts result when every ID is looked up
    in the full index."""
    turns = [t for _, _, t in corpus_turns()] + [t for _, _, t in bench_turns()]
    random.Random(4).shuffle(turns)
    quick = [evaluate(t, CHECKS, 60_000) for t in turns]
    monkeypatch.setattr(SourceIndex, "_states_token", lambda self, written: False)
    assert [evaluate(t, CHECKS, 60_000) for t in turns] == quick
