"""textmap: texts rewritten character by character, with offsets that map back exactly."""

from __future__ import annotations

import random
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turncheck.worker.checks import textmap
from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.textmap import CANONICAL, INVISIBLE, fold, normalize

# Characters that change, grow, vanish or compose: ligatures, full-width digits, a
# decomposed accent, Hangul jamo, the ypogegrammeni, invisible ones.
TRICKY = [
    "\u200b", "\ufb01", "é", "e\u0301", "\uff14", "ß", "İ", "\u3000", "\u00ad", "Ⅻ", "ǅ",
    "\u1fb3", "\u0345", "가", "\u1100\u1161", "①", "™", "½", "Å", "\ufeff", "\ufb00",
    "\u0344", "\ufdfa", "\u3300", "a", "B", " ", "1", "\n",
    "\u2011", "\u2014", "\u2212", "\ufe58", "\u207b", "\u0664", "\u06f7", "\u096a", "\u09e9",
    "\u200e", "\u202e", "\u2067", "\u061c", "-", "\ufe0f", "\u20e3", "\u066b", "\U000e0041",
    "\U0001f642", "\U0001d7d8", "\U000104a3", "\U0001fbf5",
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
        parts = parts.translate(CANONICAL)
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


@pytest.mark.parametrize("rewrite", [normalize, fold])
def test_dashes_digits_and_controls_read_as_ascii_and_map_back(rewrite: object) -> None:
    """A card written with non-breaking hyphens, Arabic-Indic digits and bidi marks reads
    as the plain card, and its span points at the stored characters."""
    assert callable(rewrite)
    stored = "Card: \u202d\u0664\u0661\u0661\u0661\u20111111\u2011\u200f1111\u20131111\u202c ok"
    mapped = rewrite(stored, Budget.unlimited())
    assert mapped.text.endswith("4111-1111-1111-1111 ok")
    start = mapped.text.index("4111")
    original = mapped.span(start, start + len("4111-1111-1111-1111"))
    assert stored[slice(*original)] == stored[7:-4]


@pytest.mark.parametrize(
    "dash", ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212",
             "\ufe58", "\ufe63", "\uff0d"]
)  # fmt: skip
def test_every_dash_and_minus_is_a_hyphen(dash: str) -> None:
    assert normalize(f"12{dash}34", Budget.unlimited()).text == "12-34"
    assert fold(f"A{dash}B", Budget.unlimited()).text == "a-b"


def test_digits_of_every_script_are_ascii_digits() -> None:
    digits = {"\u0660": "0", "\u06f9": "9", "\u0969": "3", "\u09ea": "4", "\uff17": "7",
              "\u0e52": "2", "\U0001d7d8": "0"}  # fmt: skip
    for digit, ascii_digit in digits.items():
        assert normalize(digit, Budget.unlimited()).text == ascii_digit


def test_text_in_nfkc_with_a_dash_takes_the_rewrite_not_the_fast_path() -> None:
    """Already NFKC ("é" composed) but holding a dash: it still changes."""
    assert normalize("caf\u00e9 12\u201334", Budget.unlimited()).text == "caf\u00e9 12-34"


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


def test_keycaps_tags_and_arabic_separators_read_as_plain_numbers() -> None:
    keycaps = "".join(f"{d}\ufe0f\u20e3" for d in "4111")
    assert normalize(f"PIN {keycaps}", Budget.unlimited()).text == "PIN 4111"
    assert normalize("41\U000e0031\U000e007f11", Budget.unlimited()).text == "4111"
    price = "\u0661\u066c\u0662\u0664\u0669\u066b\u0669\u0669"
    assert normalize(price, Budget.unlimited()).text == "1,249.99"


def test_text_in_nfkc_with_emoji_dashes_and_invisibles_maps_back() -> None:
    """The fast path (text already NFKC): an emoji, an en dash, an Arabic-Indic digit and
    a bidi mark; the scan past the BMP is a superset, the emoji stays as it is."""
    stored = "caf\u00e9 \U0001f642 12\u201334 \u0661\u200f2 \U000e0041x"
    mapped = normalize(stored, Budget.unlimited())
    assert mapped.text == "caf\u00e9 \U0001f642 12-34 12 x"
    start = mapped.text.index("12 x")
    assert stored[slice(*mapped.span(start, start + 4))] == "\u0661\u200f2 \U000e0041x"


_EDITS = st.lists(
    st.tuples(st.integers(0, 40), st.integers(0, 3), st.text("xyz", max_size=4)), max_size=6
)


def _edits(text: str, drawn: list[tuple[int, int, str]]) -> list[textmap.Edit]:
    """Non-overlapping edits of ``text`` from drawn (start, length, replacement)."""
    edits: list[textmap.Edit] = []
    done = 0
    for start, length, replacement in sorted(drawn):
        start = max(start, done)
        end = min(start + length, len(text))
        if start > len(text):
            break
        edits.append((start, end, replacement, ()))
        done = end if end > start else start + 1
    return edits


@given(st.text("abcdef ", max_size=40), _EDITS, _EDITS)
def test_a_rewrite_of_a_rewrite_maps_back_to_the_original(
    text: str, first: list[tuple[int, int, str]], second: list[tuple[int, int, str]]
) -> None:
    inner = textmap.edited(text, _edits(text, first))
    outer = textmap.edited(inner.text, _edits(inner.text, second))
    both = textmap.compose(outer, inner)
    assert both.text == outer.text
    for offset in range(len(outer.text)):
        assert both.origin(offset) == inner.origin(outer.origin(offset))
        start, end = both.span(offset, offset + 1)
        assert 0 <= start < end <= len(text) + 1


@given(st.text("abc ", max_size=30), _EDITS)
def test_a_replaced_character_maps_onto_what_it_replaced(
    text: str, drawn: list[tuple[int, int, str]]
) -> None:
    edits = _edits(text, drawn)
    mapped = textmap.edited(text, edits)
    shift = 0
    for start, end, replacement, _ in edits:
        for k in range(len(replacement)):
            assert mapped.origin(start - shift + k) == start
        shift += (end - start) - len(replacement)
