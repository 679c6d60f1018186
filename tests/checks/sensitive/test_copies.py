"""copies: passages copied from a source, found whatever small edits the copy went through."""

import random

import pytest

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.copies import (
    EDIT_EVERY_WORDS,
    SEED_WORDS,
    anchor_words,
    find,
    index,
)

UNLIMITED = Budget.unlimited()
TWELVE = [
    *("one", "two", "three", "four", "five", "six"),
    *("seven", "eight", "nine", "ten", "eleven", "twelve"),
]


def _source(rng: random.Random, size: int) -> list[str]:
    # A small vocabulary, so words repeat as in prose and chance matches happen; letters
    # only, as a number is never edited.
    vocabulary = [f"w{chr(97 + k // 26)}{chr(97 + k % 26)}" for k in range(60)]
    return [rng.choice(vocabulary) for _ in range(size)]


def _edited(rng: random.Random, passage: list[str], edits: int) -> list[str]:
    """``passage`` with ``edits`` single-word edits, each between pieces of exact words."""
    # Edit points at least SEED_WORDS + 1 apart and SEED_WORDS from either end.
    points: list[int] = []
    candidates = list(range(SEED_WORDS, len(passage) - SEED_WORDS))
    rng.shuffle(candidates)
    for point in candidates:
        if len(points) == edits:
            break
        if all(abs(point - other) > SEED_WORDS + 1 for other in points):
            points.append(point)
    out = []
    for k, word in enumerate(passage):
        if k in points:
            kind = rng.choice(["changed", "inserted", "dropped"])
            if kind == "changed":
                out.append(f"x{chr(97 + k % 26)}")
                continue
            if kind == "inserted":
                out.extend([f"y{chr(97 + k % 26)}", word])
                continue
            continue  # dropped
        out.append(word)
    return out


@pytest.mark.parametrize("min_words", [4, 6, 12, 20])
def test_every_copy_within_the_edit_allowance_is_found(min_words: int) -> None:
    """However a copy of at least min_words words is edited, up to one edit per six words
    and with exact words between edits, it is found."""
    rng = random.Random(min_words)
    for _ in range(300):
        source_words = _source(rng, 200)
        source = index(" ".join(source_words), anchor_words(min_words), UNLIMITED)
        span = rng.randint(min_words, min_words + 30)
        start = rng.randrange(0, len(source_words) - span)
        passage = source_words[start : start + span]
        edited = _edited(rng, passage, rng.randint(0, span // EDIT_EVERY_WORDS))
        text = ["start", "here", *edited, "end"]
        assert find(text, source, min_words, UNLIMITED), (passage, edited)


def test_a_copy_one_word_short_is_not_found() -> None:
    """n - 1 words copied exactly, in a text that goes on otherwise, is no copy of n words."""
    source = index(" ".join(TWELVE), 4, UNLIMITED)
    text = ["zero", *TWELVE[:-1], "stop"]
    assert find(text, source, 12, UNLIMITED) == []
    assert len(find([*text[:-1], "twelve"], source, 12, UNLIMITED)) == 1


def test_edits_beyond_the_allowance_break_the_copy() -> None:
    """Three edits in twelve words (one per four) is a paraphrase, not a copy."""
    words = TWELVE
    source = index(" ".join(words), 4, UNLIMITED)
    edited = ["one", "two", "three", "x", "five", "six", "y", "eight", "nine", "z"]
    assert find([*edited, "eleven", "twelve"], source, 12, UNLIMITED) == []


@pytest.mark.parametrize(
    ("min_words", "anchor"), [(4, 3), (5, 3), (6, 3), (11, 4), (12, 4), (24, 4), (60, 5)]
)
def test_anchor_words_is_the_longest_piece_a_copy_is_sure_to_hold(
    min_words: int, anchor: int
) -> None:
    """With span // 6 edits, the span's words fall in at most edits + 1 exact pieces."""
    assert anchor_words(min_words) == anchor


def test_excluded_source_words_count_for_no_copy() -> None:
    """Words of the source left out of the search (public ones) neither start nor carry one."""
    words = TWELVE
    source = index(" ".join(words), 3, UNLIMITED)
    assert find(words, source, 12, UNLIMITED)
    assert find(words, source, 12, UNLIMITED, excluded=frozenset({5})) == []
    assert find(words, source, 6, UNLIMITED, excluded=frozenset({5}))
