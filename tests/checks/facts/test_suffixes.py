"""Suffixes: how source numbers end, answered by bisection as every tail in a set once was."""

import random

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.suffixes import Suffixes


def _tails(numbers: set[str]) -> set[str]:
    """The set the index once built: every tail of seven digits or more, shorter than its number."""
    return {n[i:] for n in numbers for i in range(1, len(n) - 6)}


def test_lookups_agree_with_every_tail_in_a_set() -> None:
    """Longer numbers ending with a query, and numbers ending a query, as the tail set said."""
    rng = random.Random(3)
    for _ in range(200):
        numbers = {
            "".join(rng.choices("0123", k=rng.randint(1, 14))) for _ in range(rng.randint(0, 12))
        }
        suffixes = Suffixes(numbers, Budget.unlimited())
        tails = _tails(numbers)
        for query in [*numbers, *tails, *("".join(rng.choices("0123", k=9)) for _ in range(9))]:
            proper = len(query) >= 7 and suffixes.ending_with(query, longer=True)
            assert proper == (query in tails)
            assert suffixes.ending_with(query) == any(n.endswith(query) for n in numbers)
            ended = any(query[i:] in numbers for i in range(1, len(query) - 6))
            assert suffixes.ending(query, 7) == ended


def test_a_long_run_of_digits_costs_no_more_than_its_length() -> None:
    """A megabyte-long number has a million tails; none of them is built."""
    run = "1234567" * 150_000
    suffixes = Suffixes({run, "5550102030"}, Budget.unlimited())
    assert suffixes.ending_with("1234567", longer=True)
    assert suffixes.ending_with("0102030", longer=True)
    assert not suffixes.ending_with("7654321")
