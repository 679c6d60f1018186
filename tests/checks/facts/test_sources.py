"""join_sources: the sources as one normalised text, however long."""

import random
import unicodedata

import pytest

from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.facts import sources
from turncheck.worker.checks.facts.sources import SEAM, join_sources
from turncheck.worker.checks.textmap import INVISIBLE

PIECES = ["e", "\u0301", "\u200b", "\uff14", "\ufb01", "\u1100", "\u1161", "a", " ", "1", "é"]


def test_chunk_by_chunk_is_the_whole_text_normalised(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks end before an ASCII character, which nothing composes with across the edge."""
    monkeypatch.setattr(sources, "_CHUNK_CHARS", 3)
    rng = random.Random(8)
    drop = {ord(ch): None for ch in INVISIBLE}
    for _ in range(500):
        texts = ["".join(rng.choices(PIECES, k=rng.randint(0, 30))) for _ in range(3)]
        whole = unicodedata.normalize("NFKC", SEAM.join(texts).translate(drop))
        assert join_sources(texts, Budget.unlimited()) == whole


def test_a_long_source_is_normalised_within_the_budget() -> None:
    with pytest.raises(BudgetSpent):
        join_sources(["é\u0301 " * 500_000], Budget(deadline_s=0.0, clock=lambda: 1.0))
