"""A ``script`` check is refused at load when its program is missing, doubled, unreadable
or does not compile, with the line to fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import check_set, make_turn
from turncheck.worker.checks import Verdict
from turncheck.worker.errors import CheckDefinitionError
from turncheck.worker.pipeline.evaluate import evaluate

HEAD = "agent: support-bot\nchecks:\n  - name: scripted\n    kind: script\n"


def refusal(tmp_path: Path, body: str) -> CheckDefinitionError:
    with pytest.raises(CheckDefinitionError) as caught:
        check_set(tmp_path, HEAD + body)
    return caught.value


def test_a_syntax_error_in_a_block_names_its_line_in_the_check_file(tmp_path: Path) -> None:
    """Line 6 holds `script: |`; the program's third line is the file's ninth."""
    error = refusal(
        tmp_path,
        "    description: competitors\n"
        "    script: |\n"
        "      const a = 1;\n"
        "      const b = 2;\n"
        "      response.setResponse({pass: (a + b});\n",
    )
    assert (error.line, error.check, error.field) == (9, "scripted", "script")
    assert "SyntaxError" in error.message


def test_a_syntax_error_on_one_line_names_the_key_line(tmp_path: Path) -> None:
    """A program written on the key's own line is refused at that line."""
    error = refusal(tmp_path, "    script: 'response.setResponse({pass: true}'\n")
    assert (error.line, error.field) == (5, "script")


def test_a_syntax_error_in_a_script_file_names_the_file_and_its_line(tmp_path: Path) -> None:
    """The .js file and its own line are named, beside the check file's `script_file` line."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "bad.js").write_text("const ok = 1;\n\nif (ok {\n")
    error = refusal(tmp_path, "    script_file: rules/bad.js\n")
    assert (error.line, error.field) == (5, "script_file")
    assert error.message.startswith("rules/bad.js:3: ")


def test_a_script_file_is_read_from_the_check_files_folder(tmp_path: Path) -> None:
    """`script_file` is relative to the check file, not to the working directory."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "ok.js").write_text("response.setResponse({pass: false});\n")
    checks = check_set(tmp_path, HEAD + "    script_file: rules/ok.js\n")
    [result] = evaluate(make_turn(), checks)
    assert result.verdict is Verdict.FAILED


def test_a_missing_script_file_is_refused(tmp_path: Path) -> None:
    """A file that cannot be read is refused at load, not errored on every turn."""
    error = refusal(tmp_path, "    script_file: rules/none.js\n")
    assert error.field == "script_file" and "cannot read" in error.message


@pytest.mark.parametrize(
    "body",
    [
        "    stage: output\n",
        "    script: 'response.setResponse({pass: true})'\n    script_file: a.js\n",
    ],
)
def test_the_program_is_given_exactly_once(tmp_path: Path, body: str) -> None:
    """Neither or both of `script` and `script_file`: refused."""
    assert "either `script` or `script_file`" in refusal(tmp_path, body).message


def test_an_input_stage_is_refused_at_its_line(tmp_path: Path) -> None:
    """A script reads the answer: `stage: input` is refused with its line and field."""
    error = refusal(
        tmp_path, "    stage: input\n    script: 'response.setResponse({pass: true})'\n"
    )
    assert (error.line, error.field) == (5, "stage")


@pytest.mark.parametrize(("field", "value"), [("timeout_ms", 2001), ("memory_mb", 4)])
def test_limits_past_their_bounds_are_refused(tmp_path: Path, field: str, value: int) -> None:
    """No script may run longer than two seconds, or with a heap too small to start."""
    error = refusal(
        tmp_path, f"    {field}: {value}\n    script: 'response.setResponse({{pass: true}})'\n"
    )
    assert (error.line, error.field) == (5, field)
