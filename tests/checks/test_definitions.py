from pathlib import Path

import pytest

from tests.factories import check_set
from turncheck.worker.checks import load_checks
from turncheck.worker.errors import CheckDefinitionError


def refuse(tmp_path: Path, text: str) -> CheckDefinitionError:
    with pytest.raises(CheckDefinitionError) as caught:
        check_set(tmp_path, text)
    return caught.value


def test_an_invalid_regex_is_refused_with_line_check_and_field(tmp_path: Path) -> None:
    error = refuse(
        tmp_path,
        "agent: a\nchecks:\n  - name: ok\n    kind: pattern\n    pattern: 'x'\n"
        "  - name: broken\n    kind: pattern\n    pattern: 'TCK-(\\d'\n",
    )
    assert (error.line, error.check, error.field) == (8, "broken", "pattern")
    assert "regular expression" in error.message
    assert str(error).startswith(
        str(tmp_path / "checks.yaml") + ":8: check 'broken': field 'pattern'"
    )


def test_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    error = refuse(tmp_path, "agent: a\nchecks:\n  - name: x\n    kind: telepathy\n")
    assert (error.line, error.check, error.field) == (4, "x", "kind")


def test_an_unknown_field_is_refused(tmp_path: Path) -> None:
    error = refuse(
        tmp_path,
        "agent: a\nchecks:\n  - name: x\n    kind: does_not_contain\n    phrases: [a]\n    phrase: [b]\n",
    )
    assert (error.line, error.check, error.field) == (6, "x", "phrase")


def test_a_bad_flag_points_at_its_line(tmp_path: Path) -> None:
    error = refuse(
        tmp_path,
        "agent: a\nchecks:\n  - name: x\n    kind: pattern\n    pattern: a\n    flags:\n      - loud\n",
    )
    assert (error.line, error.check, error.field) == (7, "x", "flags.0")


def test_a_missing_field_points_at_its_check(tmp_path: Path) -> None:
    error = refuse(tmp_path, "agent: a\nchecks:\n  - name: x\n    kind: pattern\n")
    assert (error.line, error.check, error.field) == (3, "x", "pattern")


def test_rule_checks_cannot_run_in_the_background(tmp_path: Path) -> None:
    error = refuse(
        tmp_path,
        "agent: a\nchecks:\n  - name: x\n    kind: pattern\n    pattern: a\n    mode: background\n",
    )
    assert error.check == "x"


def test_duplicate_names_and_bad_yaml_are_refused(tmp_path: Path) -> None:
    dup = "agent: a\nchecks:\n  - {name: x, kind: pattern, pattern: a}\n  - {name: x, kind: pattern, pattern: b}\n"
    assert "already used" in refuse(tmp_path, dup).message
    assert refuse(tmp_path, "agent: a\nchecks: [\n").message.startswith("not valid YAML")


def test_version_changes_with_the_definition_only(tmp_path: Path) -> None:
    one = check_set(tmp_path, "agent: a\nchecks:\n  - {name: x, kind: pattern, pattern: a}\n")
    same = check_set(
        tmp_path, "agent: a\nchecks:\n  - name: x\n    kind: pattern\n    pattern: a\n"
    )
    other = check_set(tmp_path, "agent: a\nchecks:\n  - {name: x, kind: pattern, pattern: b}\n")
    version = one.for_agent("a", 7)[0].id.version
    assert same.for_agent("a", 7)[0].id.version == version
    assert other.for_agent("a", 7)[0].id.version != version


def test_the_example_checks_load() -> None:
    checks = load_checks([Path(__file__).parents[2] / "examples" / "checks.yaml"])
    assert len(checks) >= 5


def test_the_example_judged_checks_and_judges_load() -> None:
    """The example judged checks name judges the example judges define, as the README runs them."""
    from turncheck.worker.judge.config import load_judges, require_judges

    examples = Path(__file__).parents[2] / "examples"
    checks = load_checks([examples / "judged-checks.yaml"])
    assert [c.name for c in checks.judged_for_agent("support-bot", 7)] == [
        "polite",
        "answers-the-question",
        "grounded-in-sources",
    ]
    judges = load_judges(str(examples / "judges.yaml"))
    assert set(judges) == {"gpt-4o-mini", "claude-haiku", "llama3"}
    require_judges(checks, judges)


def test_a_judged_check_is_refused_with_its_line_when_its_rubric_is_inconsistent(
    tmp_path: Path,
) -> None:
    error = refuse(
        tmp_path,
        "agent: a\nchecks:\n  - name: r\n    kind: rubric\n    questions:\n"
        "      - {id: q, type: yes_no, text: ok}\n    verdict: {question: q, passing: [maybe]}\n",
    )
    assert (error.check, error.line) == ("r", 3)
    assert "cannot give" in error.message


def test_a_background_check_on_the_input_is_refused(tmp_path: Path) -> None:
    error = refuse(
        tmp_path,
        "agent: a\nchecks:\n  - name: j\n    kind: judge\n    stage: input\n    mode: background\n"
        "    rule: {bad: [rude]}\n",
    )
    assert "only output checks" in error.message
