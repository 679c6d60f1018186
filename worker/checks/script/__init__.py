"""``script``: a short JavaScript program decides whether the answer passes (seed 000).

The program is a function body. It reads ``variables``:

- ``variables.response``: the answer (``output.text``);
- ``variables.segment``: the same text (a background check sees the whole answer);
- ``variables.history``: a JSON string of an array of ``{role, name?, content}``: the
  thread's earlier messages, then this turn's input messages, then this turn's tool
  results (role ``tool``, the tool's name, the content as text, or as JSON when the tool
  gave structured data).

It reports with ``response.setResponse({pass, reason, matches})``:

- ``pass`` must be true or false; anything else errors the result;
- the first call counts; later calls are ignored;
- ``reason`` is never kept: the program may put the turn's text in it, and a rule's
  reason is a fixed sentence that goes to events, pages and logs; a failed result's
  reason is ``REASON``;
- ``matches``: exact pieces of the answer. Each becomes a span of ``output.text``
  (label ``script``) at its first occurrence not taken by an earlier equal match, so two
  equal matches mark two occurrences; a match found nowhere in the answer, one that is not
  a string, and the empty string are ignored, as are matches past the first
  ``MAX_MATCHES``. Spans are kept for a failed result only.

A program that throws (even after reporting), runs past ``timeout_ms``, outgrows
``memory_mb`` or never reports is ``errored`` with a fixed reason saying which.

Time: the program's own ``timeout_ms`` (at most 2 s), not the turn's shared rule-check
budget (``budget.py``, 50 ms, for the Python checks): a script has its own limit, and runs
on V8's thread, so the budget, counted on the calling thread's CPU time, is not spent by
it. When the turn's budget is already spent before the program starts, the check raises
``BudgetSpent`` like every kind. A run blocks its caller for up to ``timeout_ms``; the
callers keep it off any shared event loop: the pipeline (``pipeline/batch.py``), the test
panel and the ``check`` command run rule checks in ``asyncio.to_thread``; a backtest runs
them on an event loop of its own, in its own thread or forked process.

The sandbox, what it leaves between runs, processes and threads: ``sandbox.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from turncheck.schemas.checkfile import ScriptCheck
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.result import PASSED, Outcome, Span, Verdict
from turncheck.worker.checks.script.sandbox import MAX_MATCHES, Run, Sandbox
from turncheck.worker.errors import ScriptSourceError
from turncheck.worker.turns.structs import Turn

__all__ = ["MAX_MATCHES", "REASON", "compile_check", "errored_reasons", "history_json"]

REASON = "The script failed the reply."
LABEL = "script"
FIELD = "output.text"


def errored_reasons(timeout_ms: int, memory_mb: int) -> dict[str, str]:
    """The fixed reason of an errored result, by what stopped the run."""
    return {
        "threw": "The script threw an error.",
        "timeout": f"The script ran past its time limit of {timeout_ms} ms.",
        "memory": f"The script ran out of memory ({memory_mb} MB).",
        "silent": "The script never called response.setResponse.",
        "shape": "The script called response.setResponse without pass: true or false.",
    }


def compile_check(
    definition: ScriptCheck, base_dir: Path | None = None
) -> Callable[[Turn, Budget], Outcome]:
    """Compile the program once, in this process; raises ``ScriptSourceError`` when it
    cannot be read or does not compile. ``base_dir``: where ``script_file`` is looked up
    (the check file's folder); None: the working directory."""
    sandbox = Sandbox(_source(definition, base_dir), definition.timeout_ms, definition.memory_mb)
    try:
        sandbox.compile()
    except ScriptSourceError as exc:
        if definition.script_file is not None:
            raise ScriptSourceError(exc.message, exc.line, definition.script_file) from None
        raise
    errored = {
        outcome: Outcome.errored(reason)
        for outcome, reason in errored_reasons(definition.timeout_ms, definition.memory_mb).items()
    }

    def run(turn: Turn, budget: Budget) -> Outcome:
        budget.check()
        text = turn.output.text
        found = sandbox.run(text, history_json(turn))
        if found.outcome != "decided":
            return errored[found.outcome]
        if found.passed:
            return PASSED
        return Outcome(Verdict.FAILED, REASON, _spans(text, found))

    return run


def _source(definition: ScriptCheck, base_dir: Path | None) -> str:
    if definition.script is not None:
        return definition.script
    path = Path(definition.script_file or "")
    if not path.is_absolute():
        path = (base_dir or Path.cwd()) / path
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptSourceError(
            f"cannot read the program: {type(exc).__name__}", None, definition.script_file
        ) from None


def _spans(text: str, found: Run) -> tuple[Span, ...]:
    taken: set[tuple[int, int]] = set()
    spans = []
    for match in found.matches:
        start = text.find(match)
        while start != -1 and (start, start + len(match)) in taken:
            start = text.find(match, start + 1)
        if start != -1:
            taken.add((start, start + len(match)))
            spans.append(Span(FIELD, start, start + len(match), LABEL))
    return tuple(sorted(spans, key=lambda span: (span.start, span.end)))


class _Message(msgspec.Struct, omit_defaults=True):
    role: str
    content: str
    name: str | None = None


_encode = msgspec.json.Encoder().encode


def history_json(turn: Turn) -> str:
    """``variables.history``: the thread's messages, this turn's input, its tool results."""
    messages = [_Message(m.role, m.content, m.name) for m in turn.history]
    messages.extend(_Message(m.role, m.content) for m in turn.input.messages)
    for round_ in turn.rounds:
        for result in round_.tool_results:
            content = result.content
            text = content if isinstance(content, str) else _encode(content).decode()
            messages.append(_Message("tool", text, result.name))
    return _encode(messages).decode()
