"""The quick look for an email address where it is written never changes a result."""

from __future__ import annotations

import random
from datetime import date

import pytest

from tests.checks.facts.test_stated_ids import CHECKS
from tests.checks.gates.test_gates_change_nothing import bench_turns, corpus_turns
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.index import SourceIndex
from turncheck.worker.pipeline.evaluate import evaluate

PIECES = ["jo", "Jo.e", "a", "@", "@", ".", "com", "-", "+", "%", " ", "x9", "é", ".io", "\n"]


def _index(blob: str) -> SourceIndex:
    return SourceIndex(blob, date(2026, 11, 29), 0, Budget.unlimited())


def test_the_quick_look_agrees_with_every_address_read() -> None:
    """On texts dense with "@", dots and look-alikes, a quick answer is always the scan's."""
    rng = random.Random(7)
    told = 0
    for _ in range(5_000):
        blob = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        emails = _index(blob).emails
        keys = {*emails, *(e[1:] for e in emails), *(e + "m" for e in emails), "jo@x9.com"}
        for key in keys:
            stated = _index(blob)._states_email(key)
            if stated is not None:
                told += 1
                assert stated == (key in emails), (blob, key)
    assert told > 1_000  # the quick look answers most, or it tests nothing


def test_an_address_inside_another_is_left_to_the_scan() -> None:
    index = _index("write to a@jo@x9.com or Jo@X9.com")
    assert index._states_email("jo@x9.com") is True  # the second one, as written
    assert _index("a@jo@x9.com")._states_email("jo@x9.com") is None
    assert _index("bob@x9.com")._states_email("jo@x9.com") is False


@pytest.mark.timeout(600)
def test_facts_results_are_the_same_without_the_quick_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every corpus and bench turn gets the same facts result when every address is looked
    up among all the sources' addresses."""
    turns = [t for _, _, t in corpus_turns()] + [t for _, _, t in bench_turns()]
    random.Random(5).shuffle(turns)
    quick = [evaluate(t, CHECKS, 60_000) for t in turns]
    monkeypatch.setattr(SourceIndex, "_states_email", lambda self, key: None)
    assert [evaluate(t, CHECKS, 60_000) for t in turns] == quick
