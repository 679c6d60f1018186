"""The answer's facts and the sources' dates read from the seeds of the gates' scan are
the ones a scan of the whole text finds, fact for fact and date for date, on every
corpus text, disguised copies, the bench's answers and sources, and random texts, with
the seeds of either engine."""

from __future__ import annotations

import random
from datetime import date
from functools import cache

import pytest

from tests.checks.gates.texts import bench_turn_texts, corpus_texts, disguise, random_text
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.extract import Fact, extract_facts
from turncheck.worker.checks.facts.index import SourceIndex, source_gates
from turncheck.worker.checks.gates import Gates, available, use
from turncheck.worker.checks.gates.facts import FACT_GATES, FACT_SEEDS
from turncheck.worker.checks.textmap import normalize

TODAY = date(2026, 11, 29)
MONTHS = ("Jan", "feb", "MAR", "April", "may", "JUNE", "jul", "Aug.", "sept", "Oct", "nov", "Dec")


def _fact_text(rng: random.Random) -> str:
    """Card endings, dates and email addresses in every case and spacing, glued to words or not, among
    the characters the lookarounds read."""
    month = rng.choice(MONTHS)
    pieces = [
        f"card ending in {rng.randrange(10_000):04d}",
        f"LAST FOUR DIGITS ARE {rng.randrange(10_000):04d}",
        f"ends with •••• {rng.randrange(10_000):04d}",
        f"la\u017ft 4 {rng.randrange(10_000):04d}",
        f"{month} {rng.randrange(1, 32)}, {rng.randrange(1990, 2030)}",
        f"{rng.randrange(1, 32)}th of {month}",
        f"{month} {rng.randrange(1990, 2030)}",
        f"x{month}{rng.randrange(1, 32)}",
        f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 32):02d}",
        f"{rng.randrange(1, 13)}/{rng.randrange(1, 32)}/26",
        "weekend",
        "blend",
        "remarkable marjan",
        "Decemberjanuary",
        "mail a.b_c+d%e-f@shop.example.com",
        "x@y@z.co",
        "\u00e9t\u00e9@example.org",
        ".@@a.io",
        "@@",
        "first.last@",
        "ops@corp.shopwell.example",
    ]
    glue = ["", " ", ".", ",", "/", "-", "\n", "_", "(", "\u00a0"]
    return "".join(rng.choice(pieces) + rng.choice(glue) for _ in range(rng.randrange(1, 8)))


@cache
def _texts() -> tuple[str, ...]:
    rng = random.Random(21)
    texts = list(corpus_texts())
    texts += [disguise(t, rng) for t in texts for _ in range(2)]
    texts += bench_turn_texts(rng, 200)
    texts += [random_text(rng, rng.randrange(1, 400)) for _ in range(1000)]
    texts += [_fact_text(rng) for _ in range(1500)]
    texts += [disguise(_fact_text(rng), rng) for _ in range(500)]
    return tuple(normalize(t, Budget.unlimited()).text for t in texts)


def _facts(gates: Gates, text: str) -> tuple[list[Fact], list[Fact]] | None:
    """The facts of ``text`` read from the seeds, and from the whole text; None when the
    gates' scan gives no seeds for it."""
    opened, starts = gates.read(text)
    if starts is None:
        return None
    budget = Budget.unlimited()
    return extract_facts(text, budget, opened, starts), extract_facts(text, budget, opened)


def _dates(text: str, gates: Gates | None) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    index = SourceIndex(text, TODAY, 3, Budget.unlimited(), gates)
    return [(m.span(), m.groupdict()) for m in index.date_matches]


@pytest.mark.parametrize("engine", available())
def test_seeded_extraction_finds_what_the_whole_text_scan_finds(engine: str) -> None:
    """Every fact (kind, span, keys, flags) read with the seeds' starts is the one read
    from the whole text, on either engine; most texts are read from their seeds."""
    gates = Gates(FACT_GATES, engine, seeds=FACT_SEEDS)
    differences, seeded = [], 0
    for text in _texts():
        got = _facts(gates, text)
        if got is None:
            continue
        seeded += 1
        if got[0] != got[1]:
            differences.append(text)
    assert differences == []
    assert seeded > 0.8 * len(_texts())


@pytest.mark.parametrize("engine", available())
def test_seeded_source_dates_are_the_whole_text_scans(engine: str) -> None:
    """The dates a source index reads from its gates' month seeds are the ones it reads
    with no gates, span and groups alike, on either engine."""
    with use(engine):
        gates = source_gates(seeded=True)
    differences = [t for t in _texts() if _dates(t, gates) != _dates(t, None)]
    assert differences == []


def test_seeds_find_card_endings_and_months_in_any_case() -> None:
    """The seeds' starts hold the card ending's and each month's first letter, in any
    case, and every "@"; a text whose gate text moves offsets ("ß") gets none, and is
    read whole."""
    gates = Gates(FACT_GATES, "python", seeds=FACT_SEEDS)
    text = "Card ENDING in 4170, last 4 1234, on 4 MARCH and may 2, a_b@x.io"
    opened, starts = gates.read(text)
    assert starts is not None
    assert list(starts["card_ending"]) == [5, 21]
    assert list(starts["months"]) == [text.index("MARCH"), text.index("may")]
    assert list(starts["email"]) == [text.index("@")]
    facts = extract_facts(text, Budget.unlimited(), opened, starts)
    assert [f.keys for f in facts if f.tail] == [("4170",), ("1234",)]
    assert [f.keys for f in facts if f.kind == "email"] == [("a_b@x.io",)]
    assert gates.read("Straße, card ending 4170")[1] is None
