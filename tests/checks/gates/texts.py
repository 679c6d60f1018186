"""Texts the gate tests read: every corpus text, disguised copies of each, the bench's
generated turns, random Unicode and long texts. One place, so both differential tests
(engines agree; gates change no result) read the same ones."""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[3]
CORPUS = ROOT / "tests" / "corpus"
BENCH = ROOT / "bench"

DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
# Zero (the first digit) of decimal digit blocks in other scripts: Arabic-Indic,
# extended Arabic-Indic, Devanagari, Bengali, Thai, full-width.
DIGIT_ZEROS = (0x660, 0x6F0, 0x966, 0x9E6, 0xE50, 0xFF10)
INVISIBLES = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
SEPARATORS = (" ", "\t", "  ", ".", "/", "-", " - ", "\u00a0", " / ", "\n    ")


def corpus_rows() -> list[dict[str, Any]]:
    """Every line of every ``tests/corpus/*.jsonl`` file, whatever its shape."""
    rows = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


def strings_in(value: Any) -> Iterator[str]:
    """Every string in a JSON value (keys too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from strings_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from strings_in(inner)


@cache
def corpus_texts() -> tuple[str, ...]:
    """Every text of the corpus: detector texts, instructions, answers and their sources."""
    found: dict[str, None] = {}
    for row in corpus_rows():
        for text in strings_in({k: v for k, v in row.items() if k not in ("id", "note")}):
            if len(text) > 3:
                found[text] = None
    return tuple(found)


def disguise(text: str, rng: random.Random) -> str:
    """``text`` written the way detectors are being taught to see through: other dashes,
    digits of another script, odd separators between digit groups, obfuscated at signs,
    invisible characters, markup, trademark signs, capitals and accents."""
    way = rng.randrange(10)
    if way == 0:
        return "".join(rng.choice(DASHES) if ch == "-" else ch for ch in text)
    if way == 1:
        zero = rng.choice(DIGIT_ZEROS)
        return "".join(chr(zero + int(ch)) if ch.isdigit() and ch.isascii() else ch for ch in text)
    if way == 2:
        sep = rng.choice(SEPARATORS)
        return re.sub(r"(?<=[0-9])[ .\-](?=[0-9])", lambda _: sep, text)
    if way == 3:
        at = rng.choice([" [at] ", "(at)", " @ ", " AT ", " (at) "])
        dot = rng.choice([" [dot] ", "(dot)", " . ", " DOT "])
        head, _, tail = text.partition("@")
        return head + at + tail.replace(".", dot, 2) if tail else text
    if way == 4:
        return "".join(ch + rng.choice(INVISIBLES) if rng.random() < 0.2 else ch for ch in text)
    if way == 5:
        words = text.split(" ")
        marks = ["**{}**", "_{}_", "<b>{}</b>", "{}\u2122", "{}\u00ae", "`{}`"]
        return " ".join(
            rng.choice(marks).format(w) if w and rng.random() < 0.3 else w for w in words
        )
    if way == 6:
        return text.upper()
    if way == 7:
        accents = {"e": "\u00e9", "a": "\u00e0", "o": "\u00f6", "i": "\u0130", "s": "\u017f"}
        return "".join(accents.get(ch, ch) if rng.random() < 0.1 else ch for ch in text)
    if way == 8:
        return text.replace(" ", rng.choice(["\u00a0", "\u2009", "\u3000", "  "]))
    return text.replace("-", " - ").replace("@", " @ ")


def random_text(rng: random.Random, size: int) -> str:
    """Random characters, weighted towards the ones gates and detectors care about."""
    pools = [
        "0123456789",
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        " \t\n-./:@_%+=#()[]*\\",
        DASHES + INVISIBLES + "\u0130\u0131\u017f\u212a\u00df\u2122\u00e9\u0301",
    ]
    out = []
    for _ in range(size):
        pool = rng.randrange(6)
        if pool < 4:
            out.append(rng.choice(pools[pool]))
        elif pool == 4:
            out.append(chr(rng.choice(DIGIT_ZEROS) + rng.randrange(10)))
        else:
            out.append(chr(rng.randrange(0x80, 0x3000)))
    return "".join(out)


def bench_module() -> Any:
    """``bench/rules.py``, for its turn generator."""
    sys.path.insert(0, str(BENCH))
    try:
        import rules
    finally:
        sys.path.remove(str(BENCH))
    return rules


def bench_turn_texts(rng: random.Random, count: int) -> list[str]:
    """The answer and the joined sources of ``count`` of the bench's turns, rich and clean
    in turn, as ``facts`` reads them."""
    from turncheck.worker.checks.budget import Budget
    from turncheck.worker.checks.facts.sources import join_sources, source_texts
    from turncheck.worker.turns.decode import decode_turn

    rules, texts = bench_module(), []
    for i in range(count):
        turn = decode_turn(rules.make_turn(rng, i, clean=i % 2 == 1))
        texts.append(turn.output.text)
        texts.append(join_sources(source_texts(turn, (), Budget.unlimited()), Budget.unlimited()))
    return texts
