"""``script`` checks: what a program reads, how it reports, and how it is held to its limits."""

from __future__ import annotations

import json
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.factories import check_set, make_turn
from turncheck.worker.checks import CheckSet, Verdict
from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.result import CheckResult
from turncheck.worker.pipeline.evaluate import evaluate
from turncheck.worker.turns.structs import Turn

COMPETITORS = """
const competitors = ['Acme Support', 'HelpCo'];
const text = variables.response.toLowerCase();
const matches = [];
for (const name of competitors) {
  const at = text.indexOf(name.toLowerCase());
  if (at >= 0) matches.push(variables.response.slice(at, at + name.length));
}
response.setResponse({pass: matches.length === 0, reason: 'named ' + matches, matches});
"""


def script_checks(tmp_path: Path, program: str, **fields: Any) -> CheckSet:
    extra = "".join(f"    {name}: {value}\n" for name, value in fields.items())
    body = textwrap.indent(textwrap.dedent(program).strip(), " " * 6)
    return check_set(
        tmp_path,
        f"agent: support-bot\nchecks:\n  - name: scripted\n    kind: script\n{extra}"
        f"    script: |\n{body}\n",
    )


def result_of(checks: CheckSet, turn: Turn) -> CheckResult:
    [result] = evaluate(turn, checks)
    return result


def test_a_script_fails_the_reply_and_marks_what_it_matched(tmp_path: Path) -> None:
    """A failing script gives the fixed reason, never its own, and spans of its matches."""
    checks = script_checks(tmp_path, COMPETITORS)
    text = "You could ask HELPCO or Acme Support."
    result = result_of(checks, make_turn(output=text))
    assert result.verdict is Verdict.FAILED
    assert result.reason == "The script failed the reply."
    assert [text[s.start : s.end] for s in result.spans] == ["HELPCO", "Acme Support"]
    assert {(s.field, s.label) for s in result.spans} == {("output.text", "script")}
    assert result_of(checks, make_turn(output="We can help.")).verdict is Verdict.PASSED


def test_the_history_holds_the_thread_the_input_and_the_tool_results(tmp_path: Path) -> None:
    """variables.history is a JSON string: earlier messages, this turn's input, tool results."""
    checks = script_checks(
        tmp_path,
        """
        const seen = JSON.parse(variables.history);
        response.setResponse({pass: false, matches: [JSON.stringify(seen)]});
        """,
    )
    history = [{"role": "assistant", "name": "bot", "content": "Hello"}]
    rounds = [
        {
            "tool_calls": [{"id": "c1", "name": "stock", "arguments": {}}],
            "tool_results": [
                {"call_id": "c1", "name": "stock", "content": {"sku": "X1", "stock": 0}},
                {"call_id": "c1", "content": "plain"},
            ],
        }
    ]
    expected = [
        {"role": "assistant", "content": "Hello", "name": "bot"},
        {"role": "user", "content": "Hi"},
        {"role": "tool", "content": '{"sku":"X1","stock":0}', "name": "stock"},
        {"role": "tool", "content": "plain"},
    ]
    text = json.dumps(expected, separators=(",", ":"))
    turn = make_turn(output=text, history=history, rounds=rounds)
    assert len(result_of(checks, turn).spans) == 1


def test_segment_is_the_whole_response(tmp_path: Path) -> None:
    """A background check sees the whole reply: variables.segment is variables.response."""
    checks = script_checks(
        tmp_path, "response.setResponse({pass: variables.segment === variables.response})"
    )
    assert result_of(checks, make_turn(output="One. Two.")).verdict is Verdict.PASSED


def test_equal_matches_mark_successive_occurrences_and_strays_are_ignored(
    tmp_path: Path,
) -> None:
    """Two equal matches mark two occurrences; text not in the reply and non-strings count
    for nothing."""
    checks = script_checks(
        tmp_path,
        "response.setResponse({pass: false, matches: ['ab', 'ab', 'zz', 7, null, '', 'ab']})",
    )
    result = result_of(checks, make_turn(output="ab-ab"))
    assert result.verdict is Verdict.FAILED
    assert [(s.start, s.end) for s in result.spans] == [(0, 2), (3, 5)]


def test_the_first_report_counts(tmp_path: Path) -> None:
    """A second call to setResponse changes nothing."""
    checks = script_checks(
        tmp_path,
        "response.setResponse({pass: true}); response.setResponse({pass: false});",
    )
    assert result_of(checks, make_turn()).verdict is Verdict.PASSED


@pytest.mark.parametrize(
    ("program", "reason"),
    [
        ("throw new Error('no')", "The script threw an error."),
        ("response.setResponse({pass: true}); null.x;", "The script threw an error."),
        ("const unused = 1;", "The script never called response.setResponse."),
        (
            "response.setResponse({pass: 'yes'})",
            "The script called response.setResponse without pass: true or false.",
        ),
        (
            "response.setResponse(true)",
            "The script called response.setResponse without pass: true or false.",
        ),
        (
            "Promise.resolve().then(() => response.setResponse({pass: true}))",
            "The script never called response.setResponse.",
        ),
    ],
)
def test_a_script_that_does_not_decide_is_errored_with_a_fixed_reason(
    tmp_path: Path, program: str, reason: str
) -> None:
    """Throwing, never reporting, a report without a boolean pass, or reporting only in a
    promise job: errored, with a reason that says which."""
    result = result_of(script_checks(tmp_path, program), make_turn())
    assert (result.verdict, result.reason) == (Verdict.ERRORED, reason)


@pytest.mark.parametrize(
    ("runaway", "limit", "reason"),
    [
        ("while (true) {}", "timeout_ms: 200", "The script ran past its time limit of 200 ms."),
        (
            "const hoard = []; while (true) hoard.push(new Array(100000).fill(1.5));",
            "memory_mb: 32",
            "The script ran out of memory (32 MB).",
        ),
    ],
)
def test_a_script_stopped_at_its_limit_is_errored_and_the_next_turn_runs(
    tmp_path: Path, runaway: str, limit: str, reason: str
) -> None:
    """An endless loop, or a program outgrowing its heap, is stopped and errored with the
    limit it passed; the same check decides the next turn."""
    field, value = limit.split(": ")
    checks = script_checks(
        tmp_path,
        f"if (variables.response === 'run away') {{ {runaway} }}\n"
        "response.setResponse({pass: true});",
        **{field: value},
    )
    stopped = result_of(checks, make_turn(output="run away"))
    assert (stopped.verdict, stopped.reason) == (Verdict.ERRORED, reason)
    assert result_of(checks, make_turn(output="calm")).verdict is Verdict.PASSED


def test_an_endless_promise_chain_errors_the_next_runs_and_then_clears(tmp_path: Path) -> None:
    """Promise jobs run after the decision: a chain that never ends errors the check's runs
    until it outgrows the memory limit, which stops it; then the check decides again."""
    checks = script_checks(
        tmp_path,
        """
        if (variables.response === 'chain') { const again = () => Promise.resolve().then(again); again(); }
        response.setResponse({pass: true});
        """,
        timeout_ms=200,
    )
    assert result_of(checks, make_turn(output="chain")).verdict is Verdict.PASSED
    # How many runs the chain spoils depends on how fast it fills the heap: a busy machine
    # fills it later, so it is counted up to a bound, not to a number.
    verdicts = [result_of(checks, make_turn(output="calm")).verdict]
    while verdicts[-1] is not Verdict.PASSED and len(verdicts) < 50:
        verdicts.append(result_of(checks, make_turn(output="calm")).verdict)
    assert verdicts[0] is Verdict.ERRORED
    assert verdicts[-1] is Verdict.PASSED
    assert result_of(checks, make_turn(output="calm")).verdict is Verdict.PASSED


def test_one_run_leaves_nothing_the_next_can_read(tmp_path: Path) -> None:
    """What a run writes on the global, a built-in or RegExp's last match is not seen by
    the next run."""
    checks = script_checks(
        tmp_path,
        """
        const seen = typeof stash !== 'undefined' || [].stash !== undefined
          || String(RegExp.$1).includes('secret') || JSON.stash !== undefined;
        try { globalThis.stash = variables.response; } catch (e) {}
        try { Array.prototype.stash = variables.response; } catch (e) {}
        try { JSON.stash = variables.response; } catch (e) {}
        /(secret)/.exec(variables.response);
        response.setResponse({pass: !seen});
        """,
    )
    for _ in range(3):
        assert result_of(checks, make_turn(output="a secret")).verdict is Verdict.PASSED


def test_a_script_has_no_timers_network_or_modules(tmp_path: Path) -> None:
    """setTimeout, WebAssembly, require and fetch are absent; console writes nowhere."""
    checks = script_checks(
        tmp_path,
        """
        console.log(variables.response);
        const absent = [typeof setTimeout, typeof clearTimeout, typeof WebAssembly,
          typeof require, typeof fetch, typeof Atomics.waitAsync];
        response.setResponse({pass: absent.every(t => t === 'undefined')});
        """,
    )
    assert result_of(checks, make_turn()).verdict is Verdict.PASSED


def test_a_one_megabyte_reply_is_checked_within_the_limits(tmp_path: Path) -> None:
    """A reply of a million characters is read whole and its match found at the end."""
    checks = script_checks(tmp_path, COMPETITORS, memory_mb=32)
    text = "x" * 1_000_000 + " HelpCo"
    result = result_of(checks, make_turn(output=text))
    assert result.verdict is Verdict.FAILED
    assert [(s.start, s.end) for s in result.spans] == [(1_000_001, 1_000_007)]


def test_two_threads_running_one_check_each_get_their_own_answer(tmp_path: Path) -> None:
    """Runs of one check from two threads at once decide each turn on its own text."""
    checks = script_checks(tmp_path, COMPETITORS)
    wrong: list[str] = []

    def work(text: str, verdict: Verdict) -> None:
        for _ in range(50):
            if result_of(checks, make_turn(output=text)).verdict is not verdict:
                wrong.append(text)

    threads = [
        threading.Thread(target=work, args=("Try HelpCo.", Verdict.FAILED)),
        threading.Thread(target=work, args=("We help.", Verdict.PASSED)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_a_spent_turn_budget_stops_the_script_before_it_starts(tmp_path: Path) -> None:
    """When the rule checks' shared budget is gone, the script raises BudgetSpent."""
    [compiled] = script_checks(tmp_path, COMPETITORS).by_agent["support-bot"]
    with pytest.raises(BudgetSpent):
        compiled.run(make_turn(), Budget(0.0, clock=lambda: 1.0))


def test_a_slow_script_leaves_the_other_checks_their_budget(tmp_path: Path) -> None:
    """A script using 300 ms of its own limit does not spend the 50 ms the Python rule
    checks of the turn share: the check after it still decides."""
    checks = check_set(
        tmp_path,
        """agent: support-bot
checks:
  - name: slow
    kind: script
    script: |
      const until = Date.now() + 300;
      while (Date.now() < until) {}
      response.setResponse({pass: true});
  - name: no-helpco
    kind: does_not_contain
    phrases: [HelpCo]
""",
    )
    slow, after = evaluate(make_turn(output="Ask HelpCo."), checks)
    assert slow.verdict is Verdict.PASSED
    assert after.verdict is Verdict.FAILED
