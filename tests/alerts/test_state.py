"""Where a watched check stands: decided once, in the words every message prints."""

from __future__ import annotations

import pytest

from tests.alerts.fakes import POLICY
from turncheck.alerts.state import Standing, crossed, state_of
from turncheck.worker.store.alert_readings import WindowCounts


@pytest.mark.parametrize(
    ("counts", "standing", "summary"),
    [
        (
            WindowCounts(passed=80, failed=20),
            Standing.BELOW,
            "below threshold, 80.0% of the latest 100 results passed (threshold 90.0%)",
        ),
        (
            WindowCounts(passed=95, errored=5),
            Standing.OK,
            "ok, 95.0% of the latest 100 results passed (threshold 90.0%)",
        ),
        (
            WindowCounts(passed=12),
            Standing.TOO_FEW,
            "too few results (12 of 20), 100.0% of the latest 12 results passed (threshold 90.0%)",
        ),
        (
            WindowCounts(passed=6, failed=6),
            Standing.TOO_FEW,
            "too few results (12 of 20), 50.0% of the latest 12 results passed (threshold 90.0%)",
        ),
        (
            WindowCounts(),
            Standing.TOO_FEW,
            "too few results (0 of 20), no results yet (threshold 90.0%)",
        ),
    ],
)
def test_a_check_is_below_ok_or_on_too_few_results_to_say(
    counts: WindowCounts, standing: Standing, summary: str
) -> None:
    """Fewer results than min_results is never ok, whatever the rate; only below alerts."""
    state = state_of(counts, POLICY.min_pass_rate, POLICY.min_results)
    assert state.standing is standing and state.summary == summary
    assert crossed(counts, POLICY) is (standing is Standing.BELOW)


def test_not_judged_results_count_against_the_rate() -> None:
    state = state_of(WindowCounts(passed=89, not_judged=11), 0.9, 20)
    assert state.words == "below threshold"
