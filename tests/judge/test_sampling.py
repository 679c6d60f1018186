import uuid

from turncheck.worker.judge.sampling import in_sample


def test_one_in_ten_of_a_thousand_turns_are_judged_give_or_take_thirty() -> None:
    """The sample is close to its rate on every check, not only on average."""
    turns = [f"turn-{uuid.UUID(int=i)}" for i in range(1000)]
    for check in ("polite", "grounded", "format", "resolution"):
        judged = sum(in_sample(t, check, 0.1) for t in turns)
        assert 70 <= judged <= 130, (check, judged)


def test_the_same_turn_and_check_always_get_the_same_decision() -> None:
    decisions = [in_sample("t-42", "polite", 0.5) for _ in range(5)]
    assert len(set(decisions)) == 1
    assert {in_sample(f"t-{i}", "polite", 0.5) for i in range(50)} == {True, False}


def test_checks_sample_independently() -> None:
    """Two checks at 0.1 do not judge the same turns: the name is part of the hash."""
    turns = [f"t-{i}" for i in range(2000)]
    a = {t for t in turns if in_sample(t, "a", 0.1)}
    b = {t for t in turns if in_sample(t, "b", 0.1)}
    assert len(a & b) < 60


def test_rates_of_zero_and_one_are_none_and_all() -> None:
    assert not any(in_sample(f"t-{i}", "c", 0.0) for i in range(100))
    assert all(in_sample(f"t-{i}", "c", 1.0) for i in range(100))
