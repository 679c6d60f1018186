"""A ``script`` check compiled in one process runs in the processes forked from it, as a
parallel backtest forks them, and from the command line."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tests.cli.test_commands import turncheck
from tests.factories import check_set, make_turn, turn_bytes
from turncheck.worker.backtest.counting import FORK
from turncheck.worker.checks import CheckSet
from turncheck.worker.pipeline.evaluate import evaluate

CHECKS = """agent: support-bot
checks:
  - name: no-helpco
    kind: script
    script: |
      const at = variables.response.indexOf('HelpCo');
      response.setResponse({pass: at < 0, matches: at < 0 ? [] : ['HelpCo']});
"""

_inherited: CheckSet | None = None


def _verdicts_in_child(texts: list[str]) -> list[str]:
    assert _inherited is not None
    checks = _inherited

    async def part() -> list[str]:
        # As a backtest's process does: on an event loop of its own.
        return [evaluate(make_turn(output=t), checks)[0].verdict.value for t in texts]

    return asyncio.run(part())


def test_forked_processes_run_a_script_the_parent_already_ran(tmp_path: Path) -> None:
    """V8 is not used across fork: each forked process builds its own context and decides."""
    global _inherited
    checks = check_set(tmp_path, CHECKS)
    assert evaluate(make_turn(output="Ask HelpCo."), checks)[0].verdict.value == "failed"
    _inherited = checks
    try:
        with ProcessPoolExecutor(2, mp_context=FORK) as pool:
            shares = [["Ask HelpCo.", "Fine."], ["Fine.", "HelpCo!"]]
            found = list(pool.map(_verdicts_in_child, shares, timeout=60))
    finally:
        _inherited = None
    assert found == [["failed", "passed"], ["passed", "failed"]]
    assert evaluate(make_turn(output="Fine."), checks)[0].verdict.value == "passed"


def test_the_check_command_runs_script_checks(tmp_path: Path) -> None:
    """`turncheck check` prints a script check's verdict and spans for each turn on stdin."""
    (tmp_path / "checks.yaml").write_text(CHECKS)
    stdin = turn_bytes("t-1", "Ask HelpCo.") + b"\n" + turn_bytes("t-2", "Fine.") + b"\n"
    done = turncheck("check", "--checks", "checks.yaml", cwd=tmp_path, stdin=stdin)
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line)["results"][0] for line in done.stdout.splitlines())
    assert first["verdict"] == "failed"
    assert first["reason"] == "The script failed the reply."
    assert first["spans"] == [{"field": "output.text", "start": 4, "end": 10, "label": "script"}]
    assert second["verdict"] == "passed"
