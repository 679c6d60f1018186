"""Backtests: a draft check file tried on past turns, read from the turns topic (by time,
per partition, outside the live consumer group) or from a file, storing nothing.

``run_backtest(request, settings)`` blocks until the ``Report`` is made; the command
line (``turncheck backtest``, ``worker/cli/backtest.py``) and the API run it alike. One
module a step: ``request`` (what to try, on which turns), ``sources`` (the turns, from
Kafka or a file), ``engine`` (one process's run), ``parallel`` (several processes, one
report), ``counting`` (the turns read, shared across them), ``live`` (the stored results
and labels the draft is compared with), ``tallies`` and ``report`` (what it found,
bounded, JSON-able and mergeable), ``render`` (the report in a terminal), ``judging``
(``--judge``: the judged checks on their sample, capped), ``estimate`` (what a judged
run would ask, before it asks), ``background`` (the API's queue: one backtest at a time
per process, in a thread, on the ``backtests`` table).
"""

from turncheck.worker.backtest.engine import run_backtest
from turncheck.worker.backtest.report import CheckReport, Report, merge
from turncheck.worker.backtest.request import BacktestRequest, Progress

__all__ = ["BacktestRequest", "CheckReport", "Progress", "Report", "merge", "run_backtest"]
