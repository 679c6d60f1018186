"""Checks scoped to agent versions: which turns get them, and what a file may not say."""

from pathlib import Path

import pytest

from tests.factories import check_set, make_turn
from turncheck.schemas.agent_versions import scope_of
from turncheck.worker.checks import load_checks
from turncheck.worker.errors import CheckDefinitionError
from turncheck.worker.pipeline.evaluate import evaluate

SCOPED = """agent: support-bot
checks:
  - name: everywhere
    kind: pattern
    pattern: 'zzz'
  - name: old-rule
    kind: pattern
    pattern: 'zzz'
    agent_versions: [6, 7]
  - name: new-rule
    kind: pattern
    pattern: 'zzz'
    agent_versions: ">=8"
  - name: polite
    kind: judge
    criteria: polite_tone
    mode: background
    agent_versions: "<7"
"""

TWO_DEFINITIONS = """agent: support-bot
checks:
  - name: no-refunds
    kind: does_not_contain
    phrases: [refund]
    agent_versions: "<=7"
  - name: no-refunds
    kind: does_not_contain
    phrases: [refund, money back]
    agent_versions: ">=8,<10"
"""


def names(results: list[object]) -> list[str]:
    return [r.check.name for r in results]  # type: ignore[attr-defined]


def refuse(tmp_path: Path, text: str) -> CheckDefinitionError:
    with pytest.raises(CheckDefinitionError) as caught:
        check_set(tmp_path, text)
    return caught.value


def test_a_turn_of_version_7_gets_only_the_checks_of_version_7(tmp_path: Path) -> None:
    """A turn of agent version 7 is checked by the unscoped and the 7-scoped checks only."""
    checks = check_set(tmp_path, SCOPED)
    seven = make_turn(agent={"id": "support-bot", "version": 7})
    nine = make_turn(agent={"id": "support-bot", "version": 9})
    assert names(evaluate(seven, checks)) == ["everywhere", "old-rule"]
    assert names(evaluate(nine, checks)) == ["everywhere", "new-rule"]
    assert [c.name for c in checks.judged_for_agent("support-bot", 7)] == []
    assert [c.name for c in checks.judged_for_agent("support-bot", 6)] == ["polite"]


def test_a_version_written_as_text_is_the_same_version(tmp_path: Path) -> None:
    """A turn whose version is the string "7" gets the checks of version 7; a version that
    is no integer is in no range."""
    checks = check_set(tmp_path, SCOPED)
    as_text = make_turn(agent={"id": "support-bot", "version": "7"})
    assert names(evaluate(as_text, checks)) == ["everywhere", "old-rule"]
    beta = make_turn(agent={"id": "support-bot", "version": "9-beta"})
    assert names(evaluate(beta, checks)) == ["everywhere"]


def test_the_file_scopes_its_checks_and_a_check_says_its_own(tmp_path: Path) -> None:
    """``agent_versions`` at the top applies to every check that does not say its own."""
    checks = check_set(
        tmp_path,
        'agent: a\nagent_versions: ">=7"\nchecks:\n'
        "  - {name: x, kind: pattern, pattern: a}\n"
        "  - {name: y, kind: pattern, pattern: a, agent_versions: [3]}\n",
    )
    assert [c.name for c in checks.for_agent("a", 8)] == ["x"]
    assert [c.name for c in checks.for_agent("a", 3)] == ["y"]
    assert checks.for_agent("a", 5) == ()


def test_one_name_in_disjoint_scopes_gives_two_versions(tmp_path: Path) -> None:
    """Two definitions of one name for other agent versions are both loaded, each a check
    version of its own, and a turn gets the one of its version."""
    checks = check_set(tmp_path, TWO_DEFINITIONS)
    old = evaluate(make_turn(output="A refund.", agent={"id": "support-bot", "version": 7}), checks)
    new = evaluate(make_turn(output="A refund.", agent={"id": "support-bot", "version": 9}), checks)
    assert names(old) == names(new) == ["no-refunds"]
    assert old[0].check.version != new[0].check.version
    assert evaluate(make_turn(agent={"id": "support-bot", "version": 10}), checks) == []


def test_overlapping_scopes_of_one_name_are_refused_naming_both(tmp_path: Path) -> None:
    """Two definitions of one name that both apply to a version are refused with the line of
    the second and the place of the first."""
    error = refuse(tmp_path, TWO_DEFINITIONS.replace(">=8,<10", ">=7"))
    assert (error.line, error.check, error.field) == (10, "no-refunds", "agent_versions")
    assert f"{tmp_path / 'checks.yaml'}:3" in error.message
    assert "version 7" in error.message


def test_overlap_across_files_is_refused(tmp_path: Path) -> None:
    """The same name for one agent in two files is refused when their scopes overlap."""
    (tmp_path / "a.yaml").write_text(
        "agent: a\nagent_versions: [7, 8]\nchecks:\n  - {name: x, kind: pattern, pattern: a}\n"
    )
    (tmp_path / "b.yaml").write_text(
        "agent: a\nchecks:\n  - {name: x, kind: pattern, pattern: b, agent_versions: '>=8'}\n"
    )
    with pytest.raises(CheckDefinitionError) as caught:
        load_checks([tmp_path])
    assert caught.value.file == str(tmp_path / "b.yaml")
    assert "version 8" in caught.value.message and "a.yaml:4" in caught.value.message


def test_the_alert_of_one_name_is_the_same_in_every_definition(tmp_path: Path) -> None:
    """Definitions of one name for disjoint versions still share the check's alert."""
    text = TWO_DEFINITIONS + "    alert: off\n"
    error = refuse(tmp_path, text)
    assert (error.check, error.field, error.line) == ("no-refunds", "alert", 11)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ('">7,<=7"', "holds no version"),
        ('"~7"', "is not a bound"),
        ('">=7,"', "is not a bound"),
        ('">= 7.5"', "is not a bound"),
        ("[]", "at least one version"),
        ("[7, 7]", "named twice"),
        ("[7.5]", "is not a version"),
        ("[true]", "is not a version"),
        ("{at: 7}", "a list of versions"),
    ],
)
def test_a_bad_agent_versions_is_refused_with_line_and_field(
    tmp_path: Path, value: str, words: str
) -> None:
    """A value that is no list of versions nor a range is refused at load, at its line."""
    error = refuse(
        tmp_path,
        f"agent: a\nchecks:\n  - name: x\n    kind: pattern\n    pattern: a\n"
        f"    agent_versions: {value}\n",
    )
    assert (error.line, error.check, error.field) == (6, "x", "agent_versions")
    assert words in error.message


def test_a_bad_file_level_agent_versions_is_refused(tmp_path: Path) -> None:
    """The file's own ``agent_versions`` is refused at its line too."""
    error = refuse(tmp_path, 'agent: a\nagent_versions: "7"\nchecks: []\n')
    assert (error.line, error.field) == (2, "agent_versions")
    assert "'7' is not a bound" in error.message


@pytest.mark.parametrize(
    ("written", "inside", "outside"),
    [
        (">=7", [7, 10, "12"], [6, "7.1", "v8"]),
        ("<9", [8, -1], [9, 10]),
        (">=7,<9", [7, 8], [6, 9]),
        (" > 7 , <= 9 ", [8, 9], [7, 10]),
        ("==8", [8, "8"], [7, 9, "08"]),
    ],
)
def test_a_range_holds_the_integers_that_meet_every_bound(
    written: str, inside: list[int | str], outside: list[int | str]
) -> None:
    """Integers compare as integers; a version that is not an integer is in no range."""
    scope = scope_of(written)
    assert all(scope.covers(v) for v in inside)
    assert not any(scope.covers(v) for v in outside)
