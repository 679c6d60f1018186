"""The bounded, mergeable tallies a backtest report is made of: example turns, reasons,
the comparison with the live check, the labelled turns. Each holds a few counters and at
most ``EXAMPLES_KEPT`` turn ids or ``REASONS_KEPT`` reasons, whatever the range, and
merges with the tally of another part of the range into the tally of the whole.

Examples are chosen by a hash of the turn id, the lowest kept: the same turns whatever
order they were read in and however the work was split, so a merge keeps exactly the
examples one run over the whole would have kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REASONS_KEPT = 20
"""Reasons counted per check; rule checks give fixed sentences, so a few in practice.
Past this many, further reasons are counted as ``other_reasons``."""
REASONS_SHOWN = 5
EXAMPLES_KEPT = 10


def _rank(turn_id: str) -> str:
    return hashlib.blake2b(turn_id.encode(), digest_size=8).hexdigest()


@dataclass(slots=True)
class Examples:
    """At most ``EXAMPLES_KEPT`` turn ids, the same ones in any order of arrival."""

    ids: list[str] = field(default_factory=list)

    def add(self, turn_id: str) -> None:
        if turn_id in self.ids:
            return
        self.ids.append(turn_id)
        if len(self.ids) > EXAMPLES_KEPT:
            self.ids.sort(key=_rank)
            del self.ids[EXAMPLES_KEPT:]

    def merge(self, other: Examples) -> None:
        for turn_id in other.ids:
            self.add(turn_id)

    def as_list(self) -> list[str]:
        return sorted(self.ids)


@dataclass(slots=True)
class Reasons:
    """How often each reason was given, for at most ``REASONS_KEPT`` reasons."""

    counts: dict[str, int] = field(default_factory=dict)
    other: int = 0

    def add(self, reason: str | None, n: int = 1) -> None:
        text = reason or "(no reason given)"
        if text in self.counts or len(self.counts) < REASONS_KEPT:
            self.counts[text] = self.counts.get(text, 0) + n
        else:
            self.other += n

    def merge(self, other: Reasons) -> None:
        for text, n in other.counts.items():
            self.add(text, n)
        self.other += other.other

    def top(self, n: int | None = None) -> list[tuple[str, int]]:
        ranked = sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))
        return ranked if n is None else ranked[:n]


@dataclass(slots=True)
class LiveComparison:
    """The draft's verdicts against the newest stored result of the live check of the same
    name on the same turns. "Failing" is not passing: failed or errored, as alerts count."""

    newly_failing: int = 0
    newly_passing: int = 0
    unchanged: int = 0
    no_live_result: int = 0
    newly_failing_examples: Examples = field(default_factory=Examples)
    newly_passing_examples: Examples = field(default_factory=Examples)

    @property
    def stored(self) -> int:
        """Turns on which the live check has a stored result."""
        return self.newly_failing + self.newly_passing + self.unchanged

    def add(self, turn_id: str, draft_passed: bool, live_passed: bool | None) -> None:
        if live_passed is None:
            self.no_live_result += 1
        elif live_passed == draft_passed:
            self.unchanged += 1
        elif live_passed:
            self.newly_failing += 1
            self.newly_failing_examples.add(turn_id)
        else:
            self.newly_passing += 1
            self.newly_passing_examples.add(turn_id)

    def merge(self, other: LiveComparison) -> None:
        self.newly_failing += other.newly_failing
        self.newly_passing += other.newly_passing
        self.unchanged += other.unchanged
        self.no_live_result += other.no_live_result
        self.newly_failing_examples.merge(other.newly_failing_examples)
        self.newly_passing_examples.merge(other.newly_passing_examples)

    def as_dict(self) -> dict[str, Any]:
        return {
            "newly_failing": self.newly_failing,
            "newly_passing": self.newly_passing,
            "unchanged": self.unchanged,
            "no_live_result": self.no_live_result,
            "newly_failing_examples": self.newly_failing_examples.as_list(),
            "newly_passing_examples": self.newly_passing_examples.as_list(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LiveComparison:
        return cls(
            int(data["newly_failing"]),
            int(data["newly_passing"]),
            int(data["unchanged"]),
            int(data["no_live_result"]),
            Examples(list(data["newly_failing_examples"])),
            Examples(list(data["newly_passing_examples"])),
        )


@dataclass(slots=True)
class Labelled:
    """The draft on turns a person labelled for a check of its name: confirmed failures it
    still catches or now misses, false alarms it still raises or now clears."""

    confirmed_caught: int = 0
    confirmed_missed: int = 0
    false_alarms_raised: int = 0
    false_alarms_cleared: int = 0
    missed_examples: Examples = field(default_factory=Examples)
    raised_examples: Examples = field(default_factory=Examples)

    @property
    def total(self) -> int:
        return (
            self.confirmed_caught
            + self.confirmed_missed
            + self.false_alarms_raised
            + self.false_alarms_cleared
        )

    def add(self, turn_id: str, label: str, draft_passed: bool) -> None:
        if label == "confirmed":
            if draft_passed:
                self.confirmed_missed += 1
                self.missed_examples.add(turn_id)
            else:
                self.confirmed_caught += 1
        elif label == "false_alarm":
            if draft_passed:
                self.false_alarms_cleared += 1
            else:
                self.false_alarms_raised += 1
                self.raised_examples.add(turn_id)

    def merge(self, other: Labelled) -> None:
        self.confirmed_caught += other.confirmed_caught
        self.confirmed_missed += other.confirmed_missed
        self.false_alarms_raised += other.false_alarms_raised
        self.false_alarms_cleared += other.false_alarms_cleared
        self.missed_examples.merge(other.missed_examples)
        self.raised_examples.merge(other.raised_examples)

    def as_dict(self) -> dict[str, Any]:
        return {
            "confirmed_caught": self.confirmed_caught,
            "confirmed_missed": self.confirmed_missed,
            "false_alarms_raised": self.false_alarms_raised,
            "false_alarms_cleared": self.false_alarms_cleared,
            "missed_examples": self.missed_examples.as_list(),
            "raised_examples": self.raised_examples.as_list(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Labelled:
        return cls(
            int(data["confirmed_caught"]),
            int(data["confirmed_missed"]),
            int(data["false_alarms_raised"]),
            int(data["false_alarms_cleared"]),
            Examples(list(data["missed_examples"])),
            Examples(list(data["raised_examples"])),
        )
