"""scan: whole-text scans that find what a plain scan finds, within the turn's budget."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any, cast

import pytest
import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget, BudgetSpent

RE_PATTERNS = [
    re.compile(r"[0-9]+(?:[.,][0-9]+)*"),
    re.compile(r"(?<![\w.])[A-Za-z]+-[0-9]{2,}(?![\w-])"),
    re.compile(r"^[ \t]*[0-9]{1,3}[.)](?=\s)", re.MULTILINE),
    re.compile(r"\bx*"),  # empty matches too
]


def _text(seed: int, size: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choices("ab-1.,2 \n\tx" + "0123", k=size))


def _spans(matches: Iterator[Any]) -> list[tuple[int, int]]:
    return [m.span() for m in matches]


@pytest.mark.parametrize("pattern", RE_PATTERNS, ids=lambda p: p.pattern)
def test_an_re_scan_over_windows_finds_what_one_scan_finds(
    pattern: re.Pattern[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows that overlap by more than a match reads give the matches of one whole scan."""
    monkeypatch.setattr(scan, "LONG_TEXT_CHARS", 50)
    monkeypatch.setattr(scan, "WINDOW_CHARS", 37)
    monkeypatch.setattr(scan, "OVERLAP_CHARS", 40)
    for seed in range(40):
        text = _text(seed, 2_000)
        expected = _spans(pattern.finditer(text))
        assert _spans(scan.finditer(pattern, text, Budget.unlimited())) == expected
        assert _spans(scan.finditer(pattern, text, Budget.unlimited(), 100, 1_500)) == _spans(
            pattern.finditer(text, 100, 1_500)
        )


def test_a_regex_scan_without_a_budget_runs_to_its_end() -> None:
    """An unlimited budget is no timeout at all (the engine would read infinity as none left)."""
    pattern = regex.compile(r"(?<![0-9])[0-9]{3}(?![0-9])")
    text = _text(1, 3 * scan.LONG_TEXT_CHARS)
    found = _spans(scan.finditer(pattern, text, Budget.unlimited()))
    assert found == _spans(pattern.finditer(text)) and found


def test_findall_gives_what_findall_gives_on_a_long_text() -> None:
    """Strings without groups, the group with one, tuples with several, "" for a group unmatched."""
    text = _text(2, 3 * scan.LONG_TEXT_CHARS)
    for source in (r"[0-9]+", r"([0-9]+)(x)?", r"(a)|(b)"):
        for pattern in (re.compile(source), regex.compile(source)):
            assert scan.findall(pattern, text, Budget.unlimited()) == pattern.findall(text)


def test_search_finds_the_first_match_or_none() -> None:
    text = "a" * (2 * scan.LONG_TEXT_CHARS) + "12"
    budget = Budget.unlimited()
    found = scan.search(re.compile(r"[0-9]+"), text, budget)
    assert found is not None and found.span() == (len(text) - 2, len(text))
    assert scan.search(regex.compile(r"[0-9]{3}"), text, budget) is None


@pytest.mark.parametrize("pattern", [re.compile(r"[0-9]"), regex.compile(r"[0-9]")])
def test_a_long_scan_stops_when_the_budget_is_spent(pattern: Any) -> None:
    """Thousands of matches on a long text: the budget is checked between them."""
    now = [0.0]
    budget = Budget(deadline_s=1.0, clock=lambda: now[0])
    seen = 0
    with pytest.raises(BudgetSpent):
        for _ in scan.finditer(pattern, "1" * (2 * scan.LONG_TEXT_CHARS), budget):
            seen += 1
            if seen == 100:
                now[0] = 2.0
    assert seen == 100


def test_a_regex_scan_that_runs_past_the_budget_raises_budget_spent() -> None:
    """The engine's timeout is the budget left; its TimeoutError becomes BudgetSpent."""
    runaway = regex.compile(r"(x+x+)+y")
    with pytest.raises(BudgetSpent):
        list(scan.finditer(runaway, "x" * 5_000, Budget.of_ms(5), runaway=True))


class _Interrupted:
    """A regex pattern whose first scan times out after two matches, as the engine does when
    another thread's CPU time counts against the timeout."""

    def __init__(self, pattern: regex.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls: list[int] = []

    def finditer(
        self, text: str, pos: int, endpos: int, timeout: float | None
    ) -> Iterator[regex.Match[str]]:
        self.calls.append(pos)
        for i, match in enumerate(self.pattern.finditer(text, pos, endpos)):
            if len(self.calls) == 1 and i == 2:
                raise TimeoutError("regex timed out")
            yield match


def test_a_timeout_before_the_budget_is_spent_resumes_the_scan() -> None:
    """The scan goes on from its last match, and no match is given twice."""
    pattern = regex.compile(r"[0-9]+")
    text = " ".join(str(i) for i in range(20_000))
    interrupted = _Interrupted(pattern)
    found = _spans(scan.finditer(cast(regex.Pattern[str], interrupted), text, Budget.of_ms(10_000)))
    assert found == _spans(pattern.finditer(text))
    assert interrupted.calls == [0, len("0 1")]
