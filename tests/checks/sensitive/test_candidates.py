"""The detectors that read their candidates from the gates' scan find what a scan of
the whole text finds, on every corpus text, disguised copies, the bench's answers and
random texts, with the candidates of either engine."""

from __future__ import annotations

import random
from functools import cache

import pytest
import regex

from tests.checks.gates.texts import bench_module, corpus_texts, disguise, random_text
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.candidates import matches
from turncheck.worker.checks.gates import Gates, available
from turncheck.worker.checks.gates.detectors import detector_seeds
from turncheck.worker.checks.gates.engine import Seed
from turncheck.worker.checks.sensitive import DETECTORS
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.textmap import normalize

SEEDED = ("phone", "iban", "bank_account")
CTX = DetectorContext()


@cache
def _gates(engine: str) -> Gates:
    return Gates({}, engine, seeds=detector_seeds(SEEDED))


@cache
def _texts() -> tuple[str, ...]:
    rng = random.Random(11)
    texts = list(corpus_texts())
    texts += [disguise(t, rng) for t in texts for _ in range(2)]
    rules = bench_module()
    texts += [rules.make_turn(rng, i, clean=i % 2 == 1).decode() for i in range(200)]
    texts += [random_text(rng, rng.randrange(1, 400)) for _ in range(1500)]
    # A number right at either end of the text, and framed by what the lookarounds read.
    texts += ["+44 20 7946 0958", "DE89 3704 0044 0532 0130 00", "call 555-010-2030"]
    texts += ["x+1 202 555 0143", "tel. 1-800-FLOWERS.", "1-800-FLOWERS"]
    # Account numbers whose run starts long before or ends long after the account word.
    texts += ["Savings " + "AB " * 30 + "12345678 90", "X-12 " * 30 + "acct 4839201745"]
    texts += ["checking" + " and so on" * 8 + " 4839201745 is the account", "A/C 12 34 56 78"]
    # Account words far apart in a text of capitals, digits and spaces, which no number
    # is cut at: each stretch's scan must pick up where the last one stopped.
    texts += [("ACC" + " 12" * 60) * 20, ("ACC" + " X" * 60 + " 4839201745") * 20]
    # An account word as far after or before its number as a label may stand.
    texts += ["48392017;" + " " * 34 + "acct", "acct" + " " * 56 + "48392017"]
    return tuple(normalize(t, Budget.unlimited()).text for t in texts)


def _differences(engine: str) -> list[tuple[str, str]]:
    gates = _gates(engine)
    out = []
    read = 0
    for text in _texts():
        _, candidates = gates.read(text)
        if candidates is None:
            continue
        read += 1
        seeded = DetectorContext(candidates=candidates)
        for name in SEEDED:
            if list(DETECTORS[name](text, seeded)) != list(DETECTORS[name](text, CTX)):
                out.append((name, text))
    assert read > 0.8 * len(_texts())  # most texts were read from their candidates
    return out


@pytest.mark.parametrize("engine", available())
def test_seeded_detectors_find_what_the_whole_text_scan_finds(engine: str) -> None:
    """Phone numbers and IBANs found from the candidates are the ones found by reading
    the whole text, span for span, on either engine."""
    assert _differences(engine) == []


def test_candidates_are_none_where_the_gate_text_moves_offsets() -> None:
    """A character the gate text writes as two ("ß" as "ss") leaves the detectors the
    whole text to read; otherwise the offsets are the text's, the first one too."""
    gates = _gates("python")
    assert gates.read("Straße 555-010-2030")[1] is None
    _, candidates = gates.read("555-010-2030 or DE89 3704")
    assert candidates is not None
    assert candidates["phone.runs"][0] == 0 and 16 in candidates["iban"]


def test_a_seed_has_one_length_and_no_negated_class() -> None:
    """A seed whose matches vary in length, or that could match a character outside
    ASCII, is refused when written."""
    assert Seed.of("[0-9][0-9 ]{7}").length == 8
    with pytest.raises(ValueError):
        Seed.of("[0-9]{7,8}")
    with pytest.raises(ValueError):
        Seed.of("[0-9][^A-Za-z]")


def test_matches_tries_only_the_starts_and_resumes_after_each_match() -> None:
    """Trying the pattern at its starts gives the whole-text scan's matches, none found
    inside an earlier one; without starts it is that scan."""
    pattern = regex.compile(r"(?<![0-9])[0-9]{3}")
    text = "1234 567 890"
    whole = [m.span() for m in pattern.finditer(text)]
    assert [m.span() for m in matches(pattern, text, Budget.unlimited(), None)] == whole
    starts = [0, 1, 5, 6, 9]
    assert [m.span() for m in matches(pattern, text, Budget.unlimited(), starts)] == whole
    assert [m.span() for m in matches(pattern, text, Budget.unlimited(), [9])] == [(9, 12)]
