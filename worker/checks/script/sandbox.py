"""One script check's V8 context: the program compiled once, run on each turn.

What a script can reach: the ECMAScript built-ins and nothing else. A bare V8 isolate
has no network, file system, ``require`` or ``fetch``; ``WebAssembly`` is deleted.
mini-racer adds ``setTimeout``/``clearTimeout`` (built on ``Atomics.waitAsync``): all
three are taken out, so no timer fires between turns. ``console`` is kept as a no-op, so
a script cannot write turn text to the worker's output.

What one run can leave for the next: nothing it could read back. After the program is
compiled, every object reachable from the global (the global, the built-ins, their
prototypes) is frozen, and RegExp's legacy statics (``RegExp.$1``, ``lastMatch``, ...,
which would hold the last match) are deleted; each run gets new frozen ``variables`` and
``response`` objects. A script that assigns to a built-in or an undeclared name has no
effect (sloppy mode), or throws (strict mode). Measured (2026-12-06, two shared cores):
freezing the ~900 objects takes 1.7 ms once per context and nothing per run, where a
fresh context for each run would take 6.9 ms a turn (a run here: about 0.2 ms).

Promise jobs (``async`` functions, ``then`` callbacks) run after the program returns,
when the decision is already taken: they cannot change it. Jobs that never end (a
promise loop) keep the context busy: the check's next runs, queued behind them, are
errored (past their time limit) until the chain outgrows ``memory_mb`` and V8 stops it;
the runs after that decide again (measured: one to five runs, by how busy the machine is).

Limits: ``timeout_ms`` per run (V8 stops the call), ``memory_mb`` for the context's
heap (V8's hard limit, the turn's text included). A stopped run leaves the context
usable: nothing it made is reachable (the global is frozen). After a memory stop the
limit is set again (``_recover``) and the next run goes on in the same context; closing
it instead would race mini-racer's callback for the stopped call (seen: "Event loop is
closed" raised in mini-racer's callback thread).

Processes and threads: V8 cannot be used across ``fork`` (the backtest's processes), so
a context belongs to the process that built it (keyed on ``os.getpid()``) and a forked
process builds its own on its first run. Runs of one context are serialised by a lock
(rule checks run in worker threads: the pipeline's and the test panel's
``asyncio.to_thread``); V8 runs the program on mini-racer's own thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import cast

import py_mini_racer as v8

from turncheck.worker.errors import ScriptSourceError

PRELUDE = r"""
'use strict';
(() => {
  const g = globalThis;
  for (const name of ['setTimeout', 'clearTimeout', '__timer_manager']) g[name] = undefined;
  delete Atomics.waitAsync;
  delete g.WebAssembly;
  const quiet = () => undefined;
  g.console = {log: quiet, info: quiet, warn: quiet, error: quiet, debug: quiet};
  for (const key of Object.getOwnPropertyNames(RegExp)) {
    if (!['length', 'name', 'prototype', 'escape'].includes(key)) delete RegExp[key];
  }
})();
"""

HARNESS = r"""
'use strict';
globalThis.DECIDE = (() => {
  const program = new Function('variables', 'response', SOURCE);
  return (text, history) => {
    const report = {called: false, value: undefined};
    const response = Object.freeze({setResponse(value) {
      if (!report.called) { report.called = true; report.value = value; }
    }});
    const variables = Object.freeze({response: text, segment: text, history});
    try {
      program.call(undefined, variables, response);
      if (!report.called) return '{"outcome":"silent"}';
      const value = report.value;
      if (value === null || typeof value !== 'object' || typeof value.pass !== 'boolean') {
        return '{"outcome":"shape"}';
      }
      const matches = Array.isArray(value.matches)
        ? value.matches.slice(0, MAX_MATCHES).filter(m => typeof m === 'string' && m !== '')
        : [];
      return JSON.stringify({outcome: 'decided', pass: value.pass, matches});
    } catch (error) {
      return '{"outcome":"threw"}';
    }
  };
})()
"""

FREEZE = r"""
'use strict';
(() => {
  const seen = new Set();
  const todo = [globalThis];
  while (todo.length) {
    const o = todo.pop();
    if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o)) continue;
    seen.add(o);
    for (const key of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, key);
      if ('value' in d) todo.push(d.value); else todo.push(d.get, d.set);
    }
    todo.push(Object.getPrototypeOf(o));
    Object.freeze(o);
  }
})();
"""

MAX_MATCHES = 100
"""Matches read from a run; a result keeps no more spans than this (``MAX_SPANS``)."""

RECOVERY_TRIES = 3

DECIDE = "__turncheck_decide"
"""The harness's name on the global (frozen with it, so a program cannot replace it)."""

LITERAL_CHARS_MAX = 100_000
"""Up to this many characters of variables, a run is one ``eval`` of a call with the
texts as JSON literals; past it, a call of the function object with the texts passed as
strings. Measured (2026-12-06, two shared cores): a function-object call costs about
0.55 ms however short the texts, an ``eval`` about 0.25 ms, but parsing 1 MB of literal
takes 13 ms where passing it as a string takes 3 ms."""

# mini-racer's message for a program that does not compile: "undefined:4: SyntaxError: ...",
# counted in the function ``new Function`` builds, whose body starts on its third line.
_SYNTAX_ERROR_LINE = 2


@dataclass(frozen=True, slots=True)
class Run:
    """What one run came to: ``outcome`` is ``decided`` (with ``passed`` and ``matches``),
    ``silent`` (no setResponse), ``shape`` (setResponse without a true or false pass),
    ``threw``, ``timeout`` or ``memory``."""

    outcome: str
    passed: bool = False
    matches: tuple[str, ...] = ()


@dataclass(slots=True)
class _Context:
    racer: v8.MiniRacer
    decide: v8.JSFunction
    lock: threading.Lock


class Sandbox:
    """Builds and holds one context per process for one program."""

    def __init__(self, source: str, timeout_ms: int, memory_mb: int) -> None:
        self.source, self.timeout_s, self.memory_bytes = source, timeout_ms / 1000, memory_mb << 20
        self._contexts: dict[int, _Context] = {}
        self._locks: dict[int, threading.Lock] = {}

    def compile(self) -> None:
        """Build this process's context; raises ``ScriptSourceError`` when the program does
        not compile, with its line."""
        with self._lock():
            self._context()

    def run(self, text: str, history: str) -> Run:
        """Run the program once on a turn's variables; never raises for what it does."""
        with self._lock():
            context = self._context()
            racer = context.racer
            if racer.was_hard_memory_limit_reached():  # set by jobs a run left behind
                racer.set_hard_memory_limit(self.memory_bytes)
            try:
                if len(text) + len(history) <= LITERAL_CHARS_MAX:
                    call = f"{DECIDE}({json.dumps(text)},{json.dumps(history)})"
                    answer = racer.eval(call, timeout_sec=self.timeout_s)
                else:
                    answer = context.decide(text, history, timeout_sec=self.timeout_s)
            except v8.JSTimeoutException:
                return Run("timeout")
            except v8.JSEvalException:
                if not racer.was_hard_memory_limit_reached():
                    return Run("threw")
                self._recover(racer)
                return Run("memory")
        found = json.loads(cast(str, answer))
        return Run(found["outcome"], found.get("pass", False), tuple(found.get("matches", ())))

    def _recover(self, racer: v8.MiniRacer) -> None:
        """After a memory stop: the limit stays reached until it is set again, and the
        next call after it is still refused (measured: once); a trivial call takes that."""
        for _ in range(RECOVERY_TRIES):
            racer.set_hard_memory_limit(self.memory_bytes)
            try:
                racer.eval("0", timeout_sec=self.timeout_s)
            except v8.JSEvalException:
                continue
            return

    def _lock(self) -> threading.Lock:
        # One lock per process: a lock held by another thread when the process forked
        # would stay held in the child.
        return self._locks.setdefault(os.getpid(), threading.Lock())

    def _context(self) -> _Context:
        context = self._contexts.get(os.getpid())
        if context is None:
            context = self._contexts[os.getpid()] = self._build()
        return context

    def _build(self) -> _Context:
        racer = _new_racer()
        try:
            racer.set_hard_memory_limit(self.memory_bytes)
            racer.eval(PRELUDE)
            # The program last: its own text may hold the word MAX_MATCHES.
            harness = (
                HARNESS.replace("DECIDE", DECIDE)
                .replace("MAX_MATCHES", str(MAX_MATCHES))
                .replace("SOURCE", json.dumps(self.source))
            )
            try:
                decide = racer.eval(harness)
            except v8.JSEvalException as exc:
                raise _syntax_error(str(exc)) from None
            racer.eval(FREEZE)
        except BaseException:
            racer.close()
            raise
        return _Context(racer, cast(v8.JSFunction, decide), self._lock())


def _new_racer() -> v8.MiniRacer:
    """A MiniRacer on its own event loop thread: one built in a thread that runs an event
    loop would use that loop, and could then not be called with a timeout from it."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return v8.MiniRacer()
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(v8.MiniRacer).result()


def _syntax_error(message: str) -> ScriptSourceError:
    head = message.split("\n", 1)[0]
    where, _, what = head.partition(": ")
    line_text = where.rpartition(":")[2]
    if not line_text.isdigit() or not what:
        return ScriptSourceError(f"the program does not compile: {head}")
    line = max(1, int(line_text) - _SYNTAX_ERROR_LINE)
    return ScriptSourceError(f"the program does not compile: {what}", line)
