"""What a backtest found: per draft check, and in total. Bounded whatever the range (a
few counters, at most ``REASONS_KEPT`` reasons and ``EXAMPLES_KEPT`` turn ids per list),
JSON-able (``as_dict`` / ``from_dict``) and mergeable (``merge``): reports of disjoint
partitions, processes or machines merge into the report of the whole.

Its parts are the tallies of ``tallies.py``. The thread id of each example turn is
kept beside them (``Report.threads``), so that ``turn_urls`` can link them as every other
listing of turns does (``TURNCHECK_TURN_URL``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from turncheck.worker.backtest.tallies import Examples, Labelled, LiveComparison, Reasons
from turncheck.worker.runtime.links import turn_link

SCHEMA = "turncheck.backtest/v1"
THREADS_KEPT = 300
"""Thread ids held before those of turns no example list holds any more are let go: the
map stays within twice the examples held (at least this many) whatever the range."""


CheckKey = tuple[str, str, str]
"""(agent id, check name, check version): one draft definition."""


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(slots=True)
class CheckReport:
    """One draft check over the turns of its agent that were read."""

    agent_id: str
    check: str
    check_version: str
    kind: str
    turns_read: int = 0
    passed: int = 0
    would_fail: int = 0
    errored: int = 0
    reasons: Reasons = field(default_factory=Reasons)
    """Of the results that did not pass."""
    examples: Examples = field(default_factory=Examples)
    """Turns it would fail (failed or errored)."""
    live: LiveComparison | None = None
    """None: no stored result of a check of this name on any turn read."""
    labelled: Labelled | None = None
    """None: no turn read is labelled for a check of this name."""
    not_judged_cap: int = 0
    """A judged check's sampled turns left unjudged once ``--max-judgements`` was spent."""
    judge_input_tokens: int = 0
    judge_output_tokens: int = 0

    @property
    def key(self) -> CheckKey:
        return (self.agent_id, self.check, self.check_version)

    def example_lists(self) -> list[Examples]:
        """Every list of example turns the row holds."""
        lists = [self.examples]
        if self.live is not None:
            lists += [self.live.newly_failing_examples, self.live.newly_passing_examples]
        if self.labelled is not None:
            lists += [self.labelled.missed_examples, self.labelled.raised_examples]
        return lists

    @property
    def would_fail_rate(self) -> float | None:
        return _rate(self.would_fail, self.turns_read)

    @property
    def errored_rate(self) -> float | None:
        return _rate(self.errored, self.turns_read)

    def merge(self, other: CheckReport) -> None:
        self.turns_read += other.turns_read
        self.passed += other.passed
        self.would_fail += other.would_fail
        self.errored += other.errored
        self.reasons.merge(other.reasons)
        self.examples.merge(other.examples)
        if other.live is not None:
            self.live = self.live or LiveComparison()
            self.live.merge(other.live)
        if other.labelled is not None:
            self.labelled = self.labelled or Labelled()
            self.labelled.merge(other.labelled)
        self.not_judged_cap += other.not_judged_cap
        self.judge_input_tokens += other.judge_input_tokens
        self.judge_output_tokens += other.judge_output_tokens

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "check": self.check,
            "check_version": self.check_version,
            "kind": self.kind,
            "turns_read": self.turns_read,
            "passed": self.passed,
            "would_fail": self.would_fail,
            "errored": self.errored,
            "would_fail_rate": self.would_fail_rate,
            "errored_rate": self.errored_rate,
            "reasons": [{"reason": text, "count": n} for text, n in self.reasons.top()],
            "other_reasons": self.reasons.other,
            "examples": self.examples.as_list(),
            "live": None if self.live is None else self.live.as_dict(),
            "labelled": None if self.labelled is None else self.labelled.as_dict(),
            "not_judged_cap": self.not_judged_cap,
            "judge_input_tokens": self.judge_input_tokens,
            "judge_output_tokens": self.judge_output_tokens,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CheckReport:
        reasons = Reasons({r["reason"]: int(r["count"]) for r in data["reasons"]})
        reasons.other = int(data.get("other_reasons", 0))
        return cls(
            agent_id=str(data["agent_id"]),
            check=str(data["check"]),
            check_version=str(data["check_version"]),
            kind=str(data["kind"]),
            turns_read=int(data["turns_read"]),
            passed=int(data["passed"]),
            would_fail=int(data["would_fail"]),
            errored=int(data["errored"]),
            reasons=reasons,
            examples=Examples(list(data["examples"])),
            live=None if data.get("live") is None else LiveComparison.from_dict(data["live"]),
            labelled=(
                None if data.get("labelled") is None else Labelled.from_dict(data["labelled"])
            ),
            not_judged_cap=int(data.get("not_judged_cap", 0)),
            judge_input_tokens=int(data.get("judge_input_tokens", 0)),
            judge_output_tokens=int(data.get("judge_output_tokens", 0)),
        )


@dataclass(slots=True)
class Report:
    """A backtest's findings. ``wall_time_s`` is the run's own; merged reports of runs side
    by side take the longest, and ``turns_per_s`` is every turn over that."""

    source: str
    """``kafka:TOPIC`` or ``file:PATH``."""
    checks: dict[CheckKey, CheckReport] = field(default_factory=dict)
    turns_read: int = 0
    unreadable: int = 0
    """Messages that are not turns (a tombstone, bad JSON, not the contract): counted, skipped."""
    unchecked: int = 0
    """Turns of agents the draft has no rule check for."""
    erased: int = 0
    """Turns of persons in the erasure ledger: left out, as the worker leaves them out."""
    partitions: tuple[int, ...] = ()
    processes: int = 1
    wall_time_s: float = 0.0
    judged_skipped: tuple[str, ...] = ()
    """Judged checks of the draft left out: a backtest judges only when asked."""
    threads: dict[str, str] = field(default_factory=dict)
    """turn id → thread id, for the example turns (and, until pruned, a few turns more):
    what their links are made of. A turn without a thread is not in it."""
    _prune_at: int = field(default=THREADS_KEPT, init=False, repr=False, compare=False)

    @property
    def turns_per_s(self) -> float | None:
        return self.turns_read / self.wall_time_s if self.wall_time_s > 0 else None

    def check(self, agent_id: str, name: str, version: str, kind: str) -> CheckReport:
        """The row of one draft check, made on first use."""
        key = (agent_id, name, version)
        found = self.checks.get(key)
        if found is None:
            found = self.checks[key] = CheckReport(agent_id, name, version, kind)
        return found

    def example_ids(self) -> set[str]:
        """The turn ids any example list of any check holds."""
        return {
            turn_id
            for row in self.checks.values()
            for examples in row.example_lists()
            for turn_id in examples.ids
        }

    def keep_thread(self, turn_id: str, thread_id: str | None) -> None:
        """Hold the thread of a turn that is, or may become, an example."""
        if thread_id is None:
            return
        self.threads[turn_id] = thread_id
        if len(self.threads) >= self._prune_at:
            self.prune_threads()

    def prune_threads(self) -> None:
        """Let go of the threads of turns no example list holds: an example turned out is
        never taken back (a lower hash holds its place), so none is needed again."""
        held = self.example_ids()
        self.threads = {t: thread for t, thread in self.threads.items() if t in held}
        self._prune_at = max(THREADS_KEPT, 2 * len(self.threads))

    def turn_urls(self, template: str | None) -> dict[str, str]:
        """Each example turn's page on the chat platform (``TURNCHECK_TURN_URL``), by turn
        id; empty without a template. A turn with no thread kept (a report read back from
        JSON written without ``threads``) is linked without one."""
        urls: dict[str, str] = {}
        if template is None:
            return urls
        for row in self.checks.values():
            for examples in row.example_lists():
                for turn_id in examples.ids:
                    thread_id = self.threads.get(turn_id)
                    url = turn_link(
                        template, turn_id=turn_id, thread_id=thread_id, agent_id=row.agent_id
                    )
                    if url is not None:
                        urls.setdefault(turn_id, url)
        return dict(sorted(urls.items()))

    def as_dict(self) -> dict[str, Any]:
        wall_time_s = round(self.wall_time_s, 3)  # and the speed of that: read back, the same
        return {
            "schema": SCHEMA,
            "source": self.source,
            "totals": {
                "turns_read": self.turns_read,
                "unreadable": self.unreadable,
                "unchecked": self.unchecked,
                "erased": self.erased,
                "partitions": list(self.partitions),
                "processes": self.processes,
                "wall_time_s": wall_time_s,
                "turns_per_s": round(self.turns_read / wall_time_s, 1) if wall_time_s else None,
            },
            "judged_skipped": list(self.judged_skipped),
            "checks": [self.checks[key].as_dict() for key in sorted(self.checks)],
            "threads": {
                t: self.threads[t] for t in sorted(self.example_ids()) if t in self.threads
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Report:
        """A report ``as_dict`` wrote; ``ValueError`` (or ``KeyError``, ``TypeError``) when
        it is not one."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a backtest report (schema is not {SCHEMA!r})")
        totals = data["totals"]
        rows = [CheckReport.from_dict(row) for row in data["checks"]]
        return cls(
            source=str(data["source"]),
            checks={row.key: row for row in rows},
            turns_read=int(totals["turns_read"]),
            unreadable=int(totals["unreadable"]),
            unchecked=int(totals["unchecked"]),
            erased=int(totals.get("erased", 0)),
            partitions=tuple(int(p) for p in totals["partitions"]),
            processes=int(totals["processes"]),
            wall_time_s=float(totals["wall_time_s"]),
            judged_skipped=tuple(str(name) for name in data["judged_skipped"]),
            threads={str(t): str(thread) for t, thread in (data.get("threads") or {}).items()},
        )


def merge(reports: Iterable[Report]) -> Report:
    """One report of several over disjoint turns (partitions, processes, machines): counts
    add up, examples and reasons merge, the wall time is the longest (they ran side by
    side). ``ValueError`` for no report at all."""
    reports = list(reports)
    if not reports:
        raise ValueError("no report to merge")
    sources = sorted({r.source for r in reports})
    merged = Report(source=sources[0] if len(sources) == 1 else ",".join(sources))
    for report in reports:
        for row in report.checks.values():
            merged.check(row.agent_id, row.check, row.check_version, row.kind).merge(row)
        merged.turns_read += report.turns_read
        merged.unreadable += report.unreadable
        merged.unchecked += report.unchecked
        merged.erased += report.erased
        merged.partitions = tuple(sorted({*merged.partitions, *report.partitions}))
        merged.processes += report.processes
        merged.wall_time_s = max(merged.wall_time_s, report.wall_time_s)
        merged.judged_skipped = tuple(sorted({*merged.judged_skipped, *report.judged_skipped}))
        for turn_id, thread_id in report.threads.items():
            merged.keep_thread(turn_id, thread_id)
    merged.prune_threads()
    merged.processes -= 1  # the empty start counted one
    return merged
