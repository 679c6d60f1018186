"""join_sources: the sources as one normalised text, however long."""

import random
import unicodedata

import pytest

from turncheck.worker.checks import textmap
from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.facts.sources import SEAM, join_sources
from turncheck.worker.checks.textmap import CANONICAL, INVISIBLE

PIECES = [
    *("e", "\u0301", "\u200b", "\uff14", "\ufb01", "\u1100", "\u1161", "a", " ", "1", "é"),
    *("\u2011", "\u2212", "\u207b", "\u0664", "\u0967", "\u200f", "\u2066", "-"),
]


def test_chunk_by_chunk_is_the_whole_text_normalised(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks end before an ASCII character, which nothing composes with across the edge."""
    monkeypatch.setattr(textmap, "CHUNK_CHARS", 3)
    rng = random.Random(8)
    drop = {ord(ch): None for ch in INVISIBLE}
    for _ in range(500):
        texts = ["".join(rng.choices(PIECES, k=rng.randint(0, 30))) for _ in range(3)]
        whole = unicodedata.normalize("NFKC", SEAM.join(texts).translate(drop))
        assert join_sources(texts, Budget.unlimited()) == whole.translate(CANONICAL)


def test_a_date_and_a_phone_with_non_breaking_hyphens_read_as_with_hyphens() -> None:
    text = "Due 2026\u201112\u201101, call \u0665\u0665\u0665\u2011\u0660\u0661\u0660\u20112030"
    assert join_sources([text], Budget.unlimited()) == "Due 2026-12-01, call 555-010-2030"


def test_a_long_source_is_normalised_within_the_budget() -> None:
    with pytest.raises(BudgetSpent):
        join_sources(["é\u0301 " * 500_000], Budget(deadline_s=0.0, clock=lambda: 1.0))
