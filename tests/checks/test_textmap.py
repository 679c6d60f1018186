"""textmap: texts rewritten character by character, with offsets that map back exactly."""

from __future__ import annotations

import random
import sys
import unicodedata

import pytest

from turncheck.worker.checks import textmap
from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.textmap import INVISIBLE, fold, normalize

# Characters that change, grow, vanish or compose: ligatures, full-width digits, a
# decomposed accent, Hangul jamo, the ypogegrammeni, invisible ones.
TRICKY = [
    "\u200b", "\ufb01", "é", "e\u0301", "\uff14", "ß", "İ", "\u3000", "\u00ad", "Ⅻ", "ǅ",
    "\u1fb3", "\u0345", "가", "\u1100\u1161", "①", "™", "½", "Å", "\ufeff", "\ufb00",
    "\u0344", "\ufdfa", "\u3300", "a", "B", " ", "1", "\n",
]  # fmt: skip


def _reference(text: str, folded: bool) -> tuple[str, list[int]]:
    """The specification: each character rewritten alone; ``origin[i]`` of each output one."""
    chars, origin = [], []
    for i, ch in enumerate(text):
        if ch in INVISIBLE:
            continue
        if folded:
            decomposed = unicodedata.normalize("NFKD", ch).casefold()
            parts = "".join(p for p in decomposed if not unicodedata.combining(p))
        else:
            parts = unicodedata.normalize("NFKC", ch)
        chars.append(parts)
        origin.extend([i] * len(parts))
    return "".join(chars), origin


@pytest.mark.parametrize("folded", [False, True], ids=["normalize", "fold"])
def test_every_span_maps_back_to_the_characters_it_came_from(
    folded: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewrite and its offsets agree with the character-by-character specification,
    chunk edges anywhere."""
    rng = random.Random(29)
    rewrite = fold if folded else normalize
    for _ in range(600):
        monkeypatch.setattr(textmap, "CHUNK_CHARS", rng.choice([1, 3, 7, 64]))
        text = "".join(rng.choice(TRICKY) for _ in range(rng.randint(0, 40)))
        if text.isascii():
            continue
        mapped = rewrite(text, Budget.unlimited())
        expected, origin = _reference(text, folded)
        assert mapped.text == expected, text
        for start in range(len(expected)):
            for end in range(start + 1, len(expected) + 1):
                assert mapped.span(start, end) == (origin[start], origin[end - 1] + 1)


def test_ascii_text_is_kept_with_its_offsets() -> None:
    assert normalize("Card 4111", Budget.unlimited()).span(5, 9) == (5, 9)
    folded = fold("HelpCo", Budget.unlimited())
    assert (folded.text, folded.span(0, 6)) == ("helpco", (0, 6))


def test_no_text_in_nfkc_holds_a_character_that_nfkc_changes_alone() -> None:
    """What the fast path rests on: no text in NFKC holds a character NFKC alone changes."""
    contexts = ["", "a", " ", "e", "\u0301", "\u1100", "\u1161", "\u0345", "\u03b1", "1"]
    for code_point in range(sys.maxunicode + 1):
        ch = chr(code_point)
        if 0xD800 <= code_point <= 0xDFFF or unicodedata.normalize("NFKC", ch) == ch:
            continue
        for before in contexts:
            for after in contexts:
                assert not unicodedata.is_normalized("NFKC", before + ch + after), hex(code_point)


@pytest.mark.parametrize("rewrite", [normalize, fold])
def test_a_long_rewrite_stops_when_the_budget_is_spent(rewrite: object) -> None:
    """A megabyte of text that changes everywhere takes its time from the turn's budget."""
    now = [0.0]

    def clock() -> float:
        now[0] += 0.001  # each look at the clock: a millisecond of work
        return now[0]

    with pytest.raises(BudgetSpent):
        rewrite("\ufb01\u200b" * 500_000, Budget(deadline_s=0.01, clock=clock))  # type: ignore[operator]
