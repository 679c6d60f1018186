"""The native extension finds exactly what the pure-Python reference finds in private_values.

Locally these tests skip when ``turncheck_native`` is not built (installing turncheck
builds it when cargo >= 1.85 is on the path); under CI (``CI`` set) they fail, so a green
CI ran the extension.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import missing
from turncheck.schemas.turn import PrivateValue
from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.sensitive import private_values
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.native import NATIVE, Native
from turncheck.worker.checks.sensitive.private_forms import (
    PUNCTUATION,
    WORD,
    distinct_forms,
    pieces,
    runs_of,
    with_digits,
)
from turncheck.worker.checks.sensitive.private_hashes import Digests, native_hits, pure_hits

CORPUS = Path(__file__).parents[2] / "corpus"
ALPHABET = [
    *"abcXYZ019 ",
    *PUNCTUATION,
    *"=&/\\|-_@+#%$",
    # Case folding that changes lengths, and digits that are not ASCII.
    *"ßİıΣσςﬁÅé\u0301٤４😀Straße",  # noqa: RUF001 -- look-alike letters on purpose
    *"\t\n\u00a0\u2028\u3000\x1c\x85\u2011\u200b",  # white space by Unicode's rule and not
]
WORDS = [
    *("PIN:0417.", "?token=R7QK-22LP", "answer=Maple", "Street", "gate", "code", "1234"),
    *("4111", "1111-1111", "(555)", "010-2030", "a.b", "url=/a/b?c=d&e=f", '"Maple', 'Street"'),
    *("k:v,w", "$48.21", "48,21", "jane@example.com", "«STRASSE»", "Straße", "ΣΑΣ", "ﬁle"),
    *("4821.0417", "48.21", "+1", "555/010/2030", "-", "/", ".", "0417-", "+44.20.7946"),
]


@pytest.fixture(autouse=True)
def _native_installed() -> None:
    if NATIVE is None:
        missing("turncheck_native is not built: `pip install -e .` builds it (needs cargo)")


def digest(salt: str, value: str) -> str:
    return hashlib.sha256((salt + value).encode("utf-8")).hexdigest()


def random_text(rng: random.Random, words: int) -> str:
    """Words from ``WORDS`` and random characters, between random white space."""
    parts = []
    for _ in range(words):
        if rng.random() < 0.6:
            parts.append(rng.choice(WORDS))
        else:
            parts.append("".join(rng.choices(ALPHABET, k=rng.randint(1, 9))))
        parts.append(rng.choice([" ", "  ", "\n", "\t", "\u00a0", "\u2028", " \x1c "]))
    return "".join(parts)


def values_from(text: str, rng: random.Random, count: int) -> tuple[PrivateValue, ...]:
    """Values cut from ``text`` in the ways a detector must see through, under random salts."""
    tokens = WORD.findall(text) or ["x"]
    values = []
    for _ in range(count):
        i, k = rng.randrange(len(tokens)), rng.randint(1, 4)
        run = " ".join(tokens[i : i + k])
        value = rng.choice(
            [
                run,
                run.strip(PUNCTUATION),
                run.strip(PUNCTUATION).replace(" ", "").replace("-", ""),
                *regrouped(run.strip(PUNCTUATION)),
                run.split("=")[-1].split(":")[-1].strip(PUNCTUATION),
                run.upper(),
                "".join(rng.choices(ALPHABET, k=4)),
            ]
        )
        salt = "".join(rng.choices(["", "s4lt", "ü", "😀", "pepper "], k=rng.randint(0, 2)))
        folded = digest(salt, value.casefold()) if rng.random() < 0.4 else None
        values.append(PrivateValue(salt=salt, sha256=digest(salt, value), sha256_casefold=folded))
    return tuple(values)


def regrouped(run: str) -> list[str]:
    """The run's digit groups joined by nothing, a space and a hyphen, cut independently of
    ``grouped``; ``[]`` when the run is not digits and separators."""
    groups = run.replace("/", " ").replace(".", " ").replace("-", " ").split()
    if not groups or not all(group.isascii() and group.isdigit() for group in groups):
        return []
    return ["".join(groups), " ".join(groups), "-".join(groups)]


def found_with(
    native: Native | None,
    text: str,
    values: tuple[PrivateValue, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> list[tuple[int, int]]:
    monkeypatch.setattr(private_values, "native", native)
    return list(private_values.find_private_values(text, DetectorContext(private_values=values)))


def assert_same_findings(
    text: str, values: tuple[PrivateValue, ...], monkeypatch: pytest.MonkeyPatch
) -> bool:
    pure = found_with(None, text, values, monkeypatch)
    assert found_with(NATIVE, text, values, monkeypatch) == pure
    return bool(pure)


def corpus_texts() -> Iterator[str]:
    """Every text and content string of the labelled corpus."""

    def strings(node: object) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("text", "content") and isinstance(value, str):
                    yield value
                else:
                    yield from strings(value)
        elif isinstance(node, list):
            for item in node:
                yield from strings(item)

    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield from strings(json.loads(line))


def test_random_texts_give_the_same_findings_and_offsets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random words, punctuation, Unicode and salts: both paths find the same spans."""
    rng = random.Random(10)
    with_findings = sum(
        assert_same_findings(
            (text := random_text(rng, rng.randint(1, 40))),
            values_from(text, rng, rng.randint(1, 4)),
            monkeypatch,
        )
        for _ in range(600)
    )
    assert with_findings > 300  # the values were really found, not only missed alike


def test_numbers_regrouped_by_other_separators_give_the_same_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Digit groups between random separators, values typed compact, spaced or hyphenated,
    and numbers one digit off: both paths regroup the same runs, and find only the value."""
    rng = random.Random(15)
    separators = [" ", "  ", "\t", ".", "/", "-", " - ", " / ", " . ", "./", "\u00a0-\u00a0"]
    found_true = found_off = 0
    for _ in range(400):
        groups = ["".join(rng.choices("0123456789", k=rng.randint(1, 5))) for _ in range(6)]
        groups = groups[: rng.randint(1, 6)]
        number = groups[0] + "".join(rng.choice(separators) + group for group in groups[1:])
        prefix = rng.choice(["", "+", "(", "PIN:", "no."])
        text = f"{rng.choice(['Call', 'Card', ''])} {prefix}{number}{rng.choice(['', '.', ')'])} ok"
        value = rng.choice(["", " ", "-"]).join(groups)
        off = value[:-1] + str((int(value[-1]) + 1) % 10)
        for typed, hit in ((value, True), (off, False)):
            salt = rng.choice(["", "s4lt"])
            values = (PrivateValue(salt=salt, sha256=digest(salt, typed)),)
            seen = assert_same_findings(text, values, monkeypatch)
            found_true += seen and hit
            found_off += seen and not hit
    assert found_true > 200  # most: not a lone group, lone dot, "+" or "no." glued on
    assert found_off == 0


def test_corpus_texts_give_the_same_findings_and_offsets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text of the labelled corpus, with values cut from it."""
    rng = random.Random(11)
    texts = list(corpus_texts())
    assert len(texts) > 500
    with_findings = sum(
        assert_same_findings(text, values_from(text, rng, 3), monkeypatch) for text in texts
    )
    assert with_findings > len(texts) // 2


def test_long_texts_read_in_windows_give_the_same_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Texts of several windows, values on either side of a window's edge."""
    rng = random.Random(12)
    for words in (1_500, 3_000, 5_000):
        text = random_text(rng, words)
        assert len(text) > private_values.ONE_WINDOW_CHARS
        assert assert_same_findings(text, values_from(text, rng, 12), monkeypatch)


def test_small_windows_give_the_same_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows of a few words over texts with white space of every kind at either end: both
    paths cut them at the same words."""
    rng = random.Random(14)
    monkeypatch.setattr(private_values, "ONE_WINDOW_CHARS", 0)
    with_findings = 0
    for _ in range(300):
        monkeypatch.setattr(private_values, "WINDOW_WORDS", rng.choice([1, 2, 3, 7, 30]))
        edge = rng.choice(["", " ", "\n\u2028", "\x1c", "\u00a0 "])
        text = edge + random_text(rng, rng.randint(0, 40)) + edge
        values = values_from(text, rng, rng.randint(1, 3))
        with_findings += assert_same_findings(text, values, monkeypatch)
    assert with_findings > 150


@pytest.mark.parametrize(
    ("value", "text", "expected"),
    [
        ("straße", "Ship to STRASSE 5 or to Straße 5.", ["STRASSE", "Straße"]),
        ("σας", "ΣΑΣ and σας, not σα.", ["ΣΑΣ", "σας"]),  # noqa: RUF001 -- Greek on purpose
        ("ﬁle", "FILE and ﬁle and Fil.", ["FILE", "ﬁle"]),
        ("i̇stanbul", "İSTANBUL, İstanbul or ISTANBUL.", ["İSTANBUL", "İstanbul"]),
    ],
)
def test_case_folded_digests_find_the_same_spans(
    value: str, text: str, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python's case folding decides what matches in both paths, lengths changing or not."""
    folded = digest("s", value.casefold())
    values = (PrivateValue(salt="s", sha256=digest("s", value), sha256_casefold=folded),)
    for native in (None, NATIVE):
        spans = found_with(native, text, values, monkeypatch)
        assert [text[start:end] for start, end in spans] == expected


def every_form(text: str) -> tuple[set[str], list[str]]:
    """The reference's forms of ``text`` (one window), and its cut pieces."""
    tokens = WORD.findall(text)
    runs = runs_of(tokens)
    stripped = [[run.strip(PUNCTUATION) for run in length] for length in runs]
    cut = [form for form, _, _ in pieces(text, (0, len(text), 0), Budget.unlimited())]
    return set(distinct_forms(runs, stripped, with_digits(tokens, stripped), cut)), cut


def test_the_extension_hashes_every_form_of_the_reference_and_no_other() -> None:
    """Sought digests of every form: all are hit; digests of near misses: none is."""
    rng = random.Random(13)
    for _ in range(150):
        text = random_text(rng, rng.randint(1, 30))
        forms, cut = every_form(text)
        salt = rng.choice(["", "s", "ü"])
        every: Digests = {salt: {hashlib.sha256((salt + f).encode()).digest() for f in forms}}
        assert native_hits(text, cut, every, {}, Budget.unlimited()) == forms
        folded: Digests = {
            salt: {hashlib.sha256((salt + f.casefold()).encode()).digest() for f in forms}
        }
        assert native_hits(text, cut, {}, folded, Budget.unlimited()) == pure_hits(
            text, cut, {}, folded, Budget.unlimited()
        )
        # Substrings of the text that are not forms: what a sloppy recipe would hash too.
        near = {text[i:j] for i in range(len(text)) for j in range(i + 1, min(i + 12, len(text)))}
        near = {s for s in near | {s.replace(" ", "") for s in near} if s not in forms}
        misses: Digests = {salt: {hashlib.sha256((salt + s).encode()).digest() for s in near}}
        assert native_hits(text, cut, misses, {}, Budget.unlimited()) == set()
        assert native_hits(text, cut, misses, misses, Budget.unlimited()) == pure_hits(
            text, cut, misses, misses, Budget.unlimited()
        )


def test_a_lone_surrogate_fails_alike() -> None:
    """Text that is not valid Unicode raises the same error in both paths."""
    digests: Digests = {"s": {bytes(32)}}
    for hits in (pure_hits, native_hits):
        with pytest.raises(UnicodeEncodeError):
            hits("card \ud800 here", [], digests, {}, Budget.unlimited())


def test_hashing_long_words_stops_soon_after_the_budget_is_spent() -> None:
    """A window of long words is hashed in bounded chunks with the budget checked between them,
    so the turn's budget ends it, not the end of hashing a hundred megabytes."""
    text = " ".join(f"{i:06d}" * 300 for i in range(1_000))  # one window, 1.8 MB of forms per run
    values = (PrivateValue(salt="s", sha256=digest("s", "x1")),)
    ctx = DetectorContext(private_values=values, budget=Budget.of_ms(20))
    started = time.thread_time()
    with pytest.raises(BudgetSpent):
        list(private_values.find_private_values(text, ctx))
    assert time.thread_time() - started < 0.25


def test_private_values_runs_on_the_extension_when_it_is_installed() -> None:
    """Installing the extension is all it takes for the detector to use it."""
    assert private_values.native is NATIVE is not None


def test_a_build_of_another_api_is_left_unused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stale wheel is not called with arguments it does not know: the pure path runs."""
    from turncheck.worker.checks.sensitive import native

    turncheck_native = native.extension()
    assert native._load() is not None
    monkeypatch.setattr(turncheck_native, "API", native.API + 1)
    assert native._load() is None
