"""What every route reads: the settings, the store and the clock, set once by ``create_app``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from fastapi import Request

from turncheck.worker.settings import Settings
from turncheck.worker.store import Store


@dataclass(frozen=True, slots=True)
class ApiContext:
    settings: Settings
    store: Store
    clock: Callable[[], datetime]


def context(request: Request) -> ApiContext:
    found: ApiContext = request.app.state.turncheck
    return found
