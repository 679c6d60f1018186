"""``@@{name}`` placeholders: the check's texts name a prompt variable, the turn gives its value."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.factories import FIXED_NOW, check_set, make_turn
from tests.judge.test_prompts import VARIABLE, judge, marked_turn, rendered, rubric
from turncheck.schemas.judged import JudgeCheck
from turncheck.worker.checks.result import Verdict
from turncheck.worker.errors import CheckDefinitionError
from turncheck.worker.judge.kinds import compile_judged
from turncheck.worker.judge.plan import TurnPlan, plan_turn

PLAN_RULE = {"good": ["Offers only what the @@{plan} plan includes."], "bad": ["Mocks @@{count}."]}


def test_the_system_part_names_the_variable_and_the_user_part_holds_its_value() -> None:
    """The rule refers to the variable by name; its value is quoted in the user part only."""
    system, user = rendered(judge(rule=PLAN_RULE), marked_turn())
    assert 'Offers only what the the value of prompt variable "plan"' in system
    assert "@@{" not in system and VARIABLE not in system
    section = user[user.index("<prompt_variables>") : user.index("</prompt_variables>")]
    assert f'<variable name="plan">\nGold {VARIABLE}\n</variable>' in section
    assert '<variable name="count">\n3\n</variable>' in section


def test_only_the_variables_the_rule_names_are_shown() -> None:
    """A variable the turn holds but the rule does not name stays out of the prompt."""
    _, user = rendered(judge(rule={"good": ["Mentions @@{count}."]}), marked_turn())
    assert '<variable name="count">' in user
    assert VARIABLE not in user


def test_a_value_cannot_close_its_section() -> None:
    """A variable's value is quoted like any text of the turn."""
    turn = marked_turn(input={"prompt_variables": {"plan": "x</variable></prompt_variables>"}})
    _, user = rendered(judge(rule=PLAN_RULE | {"bad": []}), turn)
    assert user.count("</prompt_variables>") == 1


def test_rubric_question_texts_take_placeholders_too() -> None:
    """A rubric question may name a variable; the value goes with the turn's texts."""
    check = rubric(
        questions=[{"id": "fits", "type": "yes_no", "text": "Does it suit the @@{plan} plan?"}],
        verdict={"question": "fits", "passing": ["yes"]},
    )
    system, user = rendered(check, marked_turn())
    assert 'Does it suit the the value of prompt variable "plan"' in system
    assert VARIABLE not in system and VARIABLE in user


def planned(check: JudgeCheck, **turn_fields: Any) -> TurnPlan:
    compiled = compile_judged(check, "v1")
    return plan_turn(
        make_turn(**turn_fields),
        [compiled],
        configured={"gpt-4o-mini"},
        room=10,
        now=FIXED_NOW,
        retention=timedelta(days=30),
        deadline_s=5,
        sample=False,
    )


@pytest.mark.parametrize(
    "variables",
    [{}, {"plan": True}, {"plan": {"tier": "gold"}}, {"plan": None}, {"plan": ["gold"]}],
)
def test_a_turn_without_a_usable_value_is_errored_naming_the_variable(
    variables: dict[str, Any],
) -> None:
    """A missing variable, or one that is not a string or a number, errs the result with a
    fixed reason naming it, and no judge request is built."""
    plan = planned(judge(rule=PLAN_RULE), input={"prompt_variables": {"count": 2, **variables}})
    assert plan.jobs == []
    [result] = plan.results
    assert result.verdict is Verdict.ERRORED
    assert result.reason == (
        'The turn has no prompt variable "plan" as a string or a number,'
        " and the check's text names it."
    )


def test_a_turn_with_every_variable_is_asked() -> None:
    """String and number values are enough to build the judge's request."""
    plan = planned(
        judge(rule=PLAN_RULE), input={"prompt_variables": {"plan": "gold", "count": 2.5}}
    )
    assert plan.results == [] and len(plan.jobs) == 1
    assert "2.5" in plan.jobs[0].request.user


@pytest.mark.parametrize("text", ["Uses @@{}.", "Uses @@{a b}.", "Uses @@{plan.", "@@{9lives}"])
def test_a_malformed_placeholder_is_refused_at_load_with_line_and_field(
    tmp_path: Path, text: str
) -> None:
    """A placeholder that names no variable is refused with its line and field."""
    yaml = (
        "agent: a\nchecks:\n  - name: j\n    kind: judge\n    rule:\n"
        f"      good: [Fine]\n      bad:\n        - '{text}'\n"
    )
    with pytest.raises(CheckDefinitionError) as caught:
        check_set(tmp_path, yaml)
    assert (caught.value.line, caught.value.check, caught.value.field) == (8, "j", "rule.bad.0")
    assert "@@{name}" in caught.value.message


def test_a_malformed_placeholder_in_a_rubric_question_is_refused(tmp_path: Path) -> None:
    """Question texts follow the same grammar as rule items."""
    yaml = (
        "agent: a\nchecks:\n  - name: r\n    kind: rubric\n    questions:\n"
        "      - {id: q, type: yes_no, text: 'Fits @@{ plan }?'}\n"
        "    verdict: {question: q, passing: ['yes']}\n"
    )
    with pytest.raises(CheckDefinitionError) as caught:
        check_set(tmp_path, yaml)
    assert (caught.value.line, caught.value.field) == (6, "questions.0.text")
