import time

import pytest

from turncheck.worker.checks.budget import Budget, BudgetSpent


def test_a_spent_wall_clock_counts_only_once_the_cpu_time_is_spent_too() -> None:
    """A worker descheduled on a busy machine keeps its budget: only the checks' own work counts."""
    cpu = [0.0]
    budget = Budget(deadline_s=1.0, clock=lambda: 5.0, cpu_clock=lambda: cpu[0], cpu_deadline_s=1.0)
    budget.check()  # wall time is past, CPU time is not
    assert budget.remaining_s() == pytest.approx(1.0)
    cpu[0] = 1.5
    with pytest.raises(BudgetSpent):
        budget.check()


def test_real_work_spends_the_real_budget() -> None:
    budget = Budget.of_ms(5)
    with pytest.raises(BudgetSpent):
        while True:
            sum(range(1000))
            budget.check()


def test_sleeping_does_not_spend_the_budget() -> None:
    budget = Budget.of_ms(5)
    time.sleep(0.02)
    budget.check()


def test_a_capped_budget_ends_at_the_sooner_of_the_two() -> None:
    """A pattern's own limit shortens the turn's budget, and never lengthens it."""
    now = [0.0]
    turn = Budget(deadline_s=1.0, clock=lambda: now[0])
    assert turn.capped_ms(200).remaining_s() == pytest.approx(0.2)
    assert turn.capped_ms(5_000).remaining_s() == pytest.approx(1.0)
    now[0] = 0.5
    with pytest.raises(BudgetSpent):
        turn.capped_ms(0).check()
