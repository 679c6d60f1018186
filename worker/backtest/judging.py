"""Judged checks in a backtest (``--judge``): helper "btapi" builds this module.

The engine calls ``open_judge(options, draft, settings)`` once per run when the request
has ``judge``, then ``judge(turn)`` per turn, then ``aclose()``; a run that judges has one
process.
"""

from __future__ import annotations

from turncheck.worker.backtest.engine import TurnJudge
from turncheck.worker.checks import CheckSet
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.settings import Settings


async def open_judge(options: object, draft: CheckSet, settings: Settings) -> TurnJudge:
    raise ConfigurationError("--judge is not available yet: backtests run rule checks only")
