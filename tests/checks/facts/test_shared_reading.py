"""Several ``facts`` checks on one turn read its answer and its sources once, and still
judge each turn by its own conversation and each check by its own definition."""

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from tests.checks.facts.turns import facts_check, support_turn, tool_round
from tests.corpus.corpus import disguised_cases, facts_cases
from tests.corpus.test_quality import corpus_turn, private_digests
from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.facts import compile_check, reading
from turncheck.worker.checks.result import Outcome, Verdict
from turncheck.worker.turns.structs import Turn

ORDER = tool_round("get_order", {"id": "A-88213", "total": "$42.50", "eta": "2026-03-04"})
ANSWER = "Order A-88213 came to $42.50 and arrives on March 4, 2026."


def _count_source_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time a turn's sources are joined into one text."""
    joined: list[int] = []
    real = reading.join_sources

    def counting(*args: object, **kwargs: object) -> str:
        joined.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reading, "join_sources", counting)
    return joined


def test_checks_sharing_a_budget_read_the_sources_once(monkeypatch: pytest.MonkeyPatch) -> None:
    joined = _count_source_reads(monkeypatch)
    amounts = compile_check(facts_check(kinds=["amount", "date"]))
    ids = compile_check(facts_check(kinds=["id"]))
    turn, budget = support_turn(ANSWER, rounds=[ORDER]), Budget.unlimited()
    assert amounts(turn, budget).verdict == Verdict.PASSED
    assert ids(turn, budget).verdict == Verdict.PASSED
    assert len(joined) == 1


def test_each_check_still_sees_only_its_own_kinds() -> None:
    """The answer's facts are extracted once for every kind; each check keeps its own."""
    turn, budget = support_turn("Order B-55555 came to $42.50.", rounds=[ORDER]), Budget.unlimited()
    amounts = compile_check(facts_check(kinds=["amount"]))
    ids = compile_check(facts_check(kinds=["id"]))
    assert amounts(turn, budget).verdict == Verdict.PASSED
    failed = ids(turn, budget)
    assert failed.verdict == Verdict.FAILED
    assert [s.label for s in failed.spans] == ["id"]


def test_an_allowed_value_supports_only_its_own_checks_facts() -> None:
    """``allowed`` is a source of its check alone: the next check builds its own index."""
    turn, budget = support_turn("Call us on 0800 123 4567.", rounds=[ORDER]), Budget.unlimited()
    lenient = compile_check(facts_check(kinds=["phone"], allowed=["0800 123 4567"]))
    strict = compile_check(facts_check(kinds=["phone"]))
    # The allowed value is written in the answer too: stated beside it in the sources, it
    # is not; the strict check must not find it in the lenient check's index.
    assert lenient(turn, budget).verdict == Verdict.PASSED
    assert strict(turn, budget).verdict == Verdict.FAILED
    assert lenient(turn, budget).verdict == Verdict.PASSED


def test_another_turn_is_read_from_its_own_conversation() -> None:
    """Same answer, same budget object: the second turn has no source for it and fails."""
    run = compile_check(facts_check())
    budget = Budget.unlimited()
    sourced, bare = support_turn(ANSWER, rounds=[ORDER]), support_turn(ANSWER)
    assert run(sourced, budget).verdict == Verdict.PASSED
    assert run(bare, budget).verdict == Verdict.FAILED
    assert run(sourced, budget).verdict == Verdict.PASSED


def test_the_same_turn_under_a_new_budget_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new budget is a new evaluation: its scans must check that budget, not the last."""
    joined = _count_source_reads(monkeypatch)
    run = compile_check(facts_check())
    turn = support_turn(ANSWER, rounds=[ORDER])
    run(turn, Budget.unlimited())
    run(turn, Budget.unlimited())
    assert len(joined) == 2
    with pytest.raises(BudgetSpent):
        run(turn, Budget(deadline_s=0.0, clock=lambda: 1.0))


def test_a_check_that_ran_out_of_time_leaves_nothing_half_read() -> None:
    """Wherever the budget runs out (after 1, 2, ... checks of the clock), the next check on
    the turn, once time is given back, judges as a check on a fresh turn would."""
    run = compile_check(facts_check())
    answer = f"{ANSWER} Call (555) 010-2030 or see acme.com, ref TP 202."
    expected = run(support_turn(answer, rounds=[ORDER]), Budget.unlimited())
    assert expected.verdict == Verdict.FAILED
    for spent_after in range(1, 400):
        turn = support_turn(answer, rounds=[ORDER])
        clock = map(float, range(1_000_000)).__next__
        budget = Budget(deadline_s=float(spent_after), clock=clock)
        try:
            first = run(turn, budget)
        except BudgetSpent:
            budget.deadline_s = float("inf")
            assert run(turn, budget) == expected
        else:
            assert first == expected
            return
    raise AssertionError("the budget never sufficed")


def test_threads_keep_their_own_turns() -> None:
    """A reading is per thread: checks on two turns in two threads never mix them."""
    run = compile_check(facts_check())
    sourced, bare = support_turn(ANSWER, rounds=[ORDER]), support_turn(ANSWER)
    verdicts: dict[str, list[Verdict]] = {"sourced": [], "bare": []}
    start = threading.Barrier(2)

    def judge(name: str, turn: object) -> None:
        start.wait()
        for _ in range(50):
            verdicts[name].append(run(turn, Budget.unlimited()).verdict)  # type: ignore[arg-type]

    threads = [
        threading.Thread(target=judge, args=("sourced", sourced)),
        threading.Thread(target=judge, args=("bare", bare)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(verdicts["sourced"]) == {Verdict.PASSED}
    assert set(verdicts["bare"]) == {Verdict.FAILED}


# Definitions a check set may hold side by side: every kind, the kinds split, an allowed
# value (a source of its own check only), a tighter sums search.
SIDE_BY_SIDE: list[dict[str, Any]] = [
    {},
    {"kinds": ["amount", "date"]},
    {"kinds": ["email", "phone", "link"]},
    {"kinds": ["id", "quote"]},
    {"allowed": ["30 days", "support@example.com", "+1 800-555-0100", "A-88213"]},
    {"kinds": ["amount"], "max_sum_terms": 2},
]


def _corpus() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(id, facts definition, turn fields) of every facts case in the corpora."""
    cases = [(c["id"], c.get("check", {}), c["turn"]) for c in facts_cases()]
    for file_cases in disguised_cases().values():
        for case in file_cases:
            check = dict(case["check"])
            if check.pop("kind") == "facts":
                fields = dict(case["turn"])
                fields["private_values"] = private_digests(fields.get("private_values", []), "x")
                cases.append((case["id"], check, fields))
    return cases


def test_checks_side_by_side_judge_every_corpus_turn_as_each_alone() -> None:
    """On every facts turn of the corpora (facts*.jsonl, disguised*.jsonl), several facts
    checks sharing the turn's reading (one budget, as ``evaluate`` runs them) give each
    check the verdict, reason and spans it gives run alone, whichever reads the turn first."""
    cases = _corpus()
    assert len(cases) > 500
    side_by_side = [compile_check(facts_check(**d)) for d in SIDE_BY_SIDE]
    compiled: dict[str, Callable[[Turn, Budget], Outcome]] = {}
    for case_id, own, fields in cases:
        key = json.dumps(own, sort_keys=True)
        if key not in compiled:
            compiled[key] = compile_check(facts_check(**own))
        runs = [compiled[key], *side_by_side]
        for order in (runs, runs[::-1]):
            turn, budget = corpus_turn(case_id, **fields), Budget.unlimited()
            together = [run(turn, budget) for run in order]
            alone = [run(corpus_turn(case_id, **fields), Budget.unlimited()) for run in order]
            assert together == alone, case_id
