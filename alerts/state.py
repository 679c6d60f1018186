"""Where a watched check stands, in the words every message says it: "below threshold",
"ok", or "too few results (12 of 50)". Decided here and nowhere else: the templates and
``turncheck alerts preview`` only print it, so a check with fewer results than its
``min_results`` is never shown as ok, whatever its rate.
"""

from __future__ import annotations

from dataclasses import dataclass

from turncheck.alerts.policy import AlertPolicy
from turncheck.worker.store.alert_readings import Standing, WindowCounts


@dataclass(frozen=True, slots=True)
class CheckState:
    standing: Standing
    results: int
    min_results: int
    pass_rate: float | None
    min_pass_rate: float

    @property
    def below(self) -> bool:
        return self.standing is Standing.BELOW

    @property
    def words(self) -> str:
        if self.standing is Standing.TOO_FEW:
            return f"too few results ({self.results} of {self.min_results})"
        return "below threshold" if self.below else "ok"

    @property
    def summary(self) -> str:
        """The words and the numbers behind them, as every message's verdict line says it."""
        found = (
            f"{pct(self.pass_rate)} of the latest {self.results} results passed"
            if self.results
            else "no results yet"
        )
        return f"{self.words}, {found} (threshold {pct(self.min_pass_rate)})"


def state_of(counts: WindowCounts, min_pass_rate: float, min_results: int) -> CheckState:
    """Too few results (fewer than ``min_results``, or none), else below the threshold
    when too few of them passed (errored and not judged count as not passed), else ok."""
    standing = counts.standing(min_pass_rate, min_results)
    return CheckState(standing, counts.total, min_results, counts.pass_rate, min_pass_rate)


def crossed(counts: WindowCounts, policy: AlertPolicy) -> bool:
    """Whether the check's alert is due: its state is below threshold."""
    return state_of(counts, policy.min_pass_rate, policy.min_results).below


def pct(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value * 100:.{digits}f}%"
