"""Hostile turns: every rule check ends within the turn's budget, right or errored, never stalled.

Each check kind (and each sensitive-data detector alone) runs on each hostile
turn with the default budget of 50 ms. The limit is on the thread's CPU time,
which a loaded machine does not stretch the way it stretches wall time, and
generous: the point is that no input stalls the worker for seconds. A result that is not ``errored`` must be the one an unhurried run
gives; an ``errored`` one must say the budget ran out (or, for a pattern with
the default ``timeout_ms``, its own limit), never that the check crashed.
"""

from __future__ import annotations

import random
import time
from functools import cache
from typing import Any

import pytest

from tests.factories import turn_dict, turn_from
from turncheck.schemas.checkfile import DETECTOR_NAMES, CheckFile
from turncheck.worker.checks import CheckSet, Verdict
from turncheck.worker.checks.definitions import check_set
from turncheck.worker.pipeline.evaluate import OUT_OF_TIME, evaluate
from turncheck.worker.turns.structs import Turn

CPU_LIMIT_S = 1.0
UNHURRIED_MS = 120_000.0

PATTERN_LIMIT = "The pattern ran past its time limit of 20 ms."

PROSE = (
    "Thanks for your patience while I looked into your account. Refunds go back to the "
    "original card within 5 to 10 business days; the routing number and your date of birth "
    "stay on file. Call us or write to the support team about your driver's license, SSN or "
    "order, and most items can be sent back within 30 days of delivery if they are unused. "
)
# Accents, full-width digits and letters, zero-width and ideographic spaces, a ligature.
NON_ASCII = (
    "Crème brûlée à \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff10\uff12\uff10 "
    "7946\u200b0958 café ñandú über straße \ufb01le é\u0301 \uff45\uff58\uff41\uff4d\uff50"
    "\uff4c\uff45\u3000naïve. "
)
# Every kind of markup the phrase and copy matchers read through.
MARKUP = (
    "<p>**Acme** <b>Support</b>&trade; [the tool](https://x.example/a_(b)) &amp; _it_</p>\n"
    "1. `HelpCo`\u00ae <!-- note --> ~~old~~<br>2) "
)
ANSWER = (
    "Your order A-88213 for $42.50 ships 2026-03-04; see https://example.com/returns or call "
    "+1 555 010 2030."
)


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _digits_and_separators(size: int) -> str:
    rng = random.Random(20261129)
    return "".join(rng.choices("0123456789" * 4 + " -./,:()+", k=size))


def _many_facts(count: int) -> str:
    rng = random.Random(2)
    forms = (
        lambda: f"${rng.randint(1, 99_999):,}.{rng.randint(0, 99):02d}",
        lambda: f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        lambda: f"March {rng.randint(1, 28)}, 20{rng.randint(10, 30)}",
        lambda: f"{rng.randint(10, 99)}%",
        lambda: f"{rng.randint(10, 999_999)}",
    )
    return "Your figures: " + ", ".join(forms[i % len(forms)]() for i in range(count)) + "."


# Each builds the turn's fields: the answer, and any source besides.
HOSTILE: dict[str, Any] = {
    "5 MB of prose": lambda: {"output": _repeat(PROSE, 5_000_000)},
    "5 MB of digits and separators": lambda: {"output": _digits_and_separators(5_000_000)},
    "200,000 at signs": lambda: {"output": "@" * 200_000},
    "1 MB of non-ASCII text": lambda: {"output": _repeat(NON_ASCII, 1_000_000)},
    "1 MB of instructions": lambda: {
        "output": ANSWER,
        "instructions": _repeat(PROSE, 1_000_000),
    },
    "1 MB of knowledge": lambda: {
        "output": ANSWER,
        "knowledge": [{"source": "kb", "content": _digits_and_separators(1_000_000)}],
    },
    "1 MB of history": lambda: {
        "output": ANSWER,
        "history": [{"role": "user", "content": _repeat(NON_ASCII, 1_000_000)}],
    },
    "2,000 numbers, amounts and dates": lambda: {"output": _many_facts(2_000)},
    "1 MB of markup": lambda: {"output": _repeat(MARKUP, 1_000_000)},
    "1 MB copied from instructions the knowledge repeats": lambda: {
        "output": _repeat(PROSE, 1_000_000),
        "instructions": _repeat(PROSE, 30_000),
        "knowledge": [{"source": "kb", "content": _repeat(PROSE, 1_000_000)}],
    },
}

CHECKS: dict[str, dict[str, Any]] = {
    "pattern": {"kind": "pattern", "pattern": r"(?<![0-9])[0-9]{3}[ .-][0-9]{4}(?![0-9])"},
    "pattern with keywords and luhn": {
        "kind": "pattern",
        "pattern": r"[0-9](?:[ -]?[0-9])+",
        "luhn": True,
        "context_keywords": ["card", "account"],
        "timeout_ms": 1000,
    },
    "does_not_contain": {
        "kind": "does_not_contain",
        "phrases": ["as an AI language model", "HelpCo", "crème brûlée", "the tool"],
    },
    **{
        f"sensitive_data {name}": {"kind": "sensitive_data", "detectors": [name]}
        for name in DETECTOR_NAMES
    },
    "facts": {"kind": "facts", "allowed": ["30 days"]},
    "action_claims": {"kind": "action_claims"},
}


@cache
def _turn(name: str) -> Turn:
    fields = HOSTILE[name]()
    salt = "s4lt"
    private = [{"salt": salt, "sha256": "0" * 64}]  # the detector hashes every candidate
    return turn_from(turn_dict(private_values=private, **fields))


@cache
def _checks(name: str) -> CheckSet:
    definition = {"name": "hostile", **CHECKS[name]}
    return check_set(CheckFile.model_validate({"agent": "support-bot", "checks": [definition]}))


@pytest.mark.parametrize("check_name", CHECKS)
@pytest.mark.parametrize("turn_name", HOSTILE)
def test_a_hostile_turn_gets_a_result_within_the_budget(turn_name: str, check_name: str) -> None:
    """The check ends in bounded time; it is right, or errored because the budget ran out."""
    turn, checks = _turn(turn_name), _checks(check_name)
    start = time.thread_time()
    [result] = evaluate(turn, checks)
    cpu_s = time.thread_time() - start
    assert cpu_s < CPU_LIMIT_S, f"{cpu_s:.2f} s of CPU"
    if result.verdict is Verdict.ERRORED:
        allowed = {OUT_OF_TIME.reason}
        if CHECKS[check_name]["kind"] == "pattern":
            allowed.add(PATTERN_LIMIT)
        assert result.reason in allowed
    else:
        # It finished in the budget, so an unhurried run takes as long: it must agree.
        [unhurried] = evaluate(turn, checks, budget_ms=UNHURRIED_MS)
        assert result == unhurried
