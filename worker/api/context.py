"""What every route reads: the settings, the store, the clock and the backtests queue,
set once by ``create_app``."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from turncheck.worker.backtest.background import BacktestQueue
from turncheck.worker.clock import Clock
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store


@dataclass(frozen=True, slots=True)
class ApiContext:
    settings: Settings
    store: Store
    clock: Clock
    backtests: BacktestQueue


def context(request: Request) -> ApiContext:
    found: ApiContext = request.app.state.turncheck
    return found
