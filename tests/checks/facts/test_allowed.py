"""The ``allowed`` strings found in the answer by ``str.find`` are the spans the case-blind
alternation of them gives, on every corpus text and the bench's answers, with phrases that
overlap, repeat, nest and differ only in case; outside ASCII the alternation itself runs."""

from __future__ import annotations

import random

import pytest

from tests.checks.gates.texts import bench_module, corpus_texts, disguise
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.allowed import AllowedPhrases
from turncheck.worker.checks.textmap import normalize
from turncheck.worker.turns.decode import decode_turn

ALLOWED = (
    ["support@shopwell.example", "+1 800-555-0100", "30 days"],
    ["30 DAYS", "30 days", "days", "0 d", "a", "aa"],
    ["order", "ORDER SW", "sw-1", "$", "  padded  "],
    ["\u017fale", "Stra\u00dfe", "sale"],
    [],
    ["   "],
)


def _texts() -> list[str]:
    rng = random.Random(3)
    texts = list(corpus_texts())
    texts += [disguise(t, rng) for t in texts[:300]]
    rules = bench_module()
    texts += [decode_turn(rules.make_turn(rng, i)).output.text for i in range(100)]
    texts += ["aaaa 30 Days30 days", "ORDER SW-1 order sw-12", "SALE \u017fale Sale", ""]
    return [normalize(t, Budget.unlimited()).text for t in texts]


@pytest.mark.parametrize("allowed", ALLOWED)
def test_allowed_spans_are_the_alternations_matches(allowed: list[str]) -> None:
    """Span for span, what ``finditer`` of the alternation gives."""
    phrases = AllowedPhrases(allowed)
    budget = Budget.unlimited()
    differences = [
        text
        for text in _texts()
        if phrases.regex is not None
        and phrases.spans(text, budget) != [m.span() for m in phrases.regex.finditer(text)]
    ]
    assert differences == []


def test_no_phrase_no_spans() -> None:
    """Blank ``allowed`` strings leave nothing to look for."""
    assert AllowedPhrases(["  "]).regex is None
    assert AllowedPhrases(["  "]).spans("anything", Budget.unlimited()) == []
