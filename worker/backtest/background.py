"""Backtests in the background of the API (``turncheck serve``, or the API inside ``run``):
one at a time per process, each in a worker thread, so the event loop keeps answering.

A backtest accepted here is a ``backtests`` row (``worker/store/backtests.py``) held by
this process: queued, then running, then done with its report or failed with a fixed
reason. Progress is written about once a second; the estimate of a judged backtest is
made as soon as it is accepted, so it shows while the backtest waits. While a row is
queued or running this process renews its lease; a row whose lease ran out was left by
a process that stopped, and any process marks it failed ("interrupted") when it starts
and at each renewal. Stopping marks this process's own queued and running backtests
failed the same way; the one running stops at its next progress report.

The draft's text is never written: the row keeps its digest and its checks' names.
Finished backtests are deleted once they are older than the retention window
(``TURNCHECK_RETENTION_DAYS``), when this process starts and after each backtest.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from turncheck.worker.backtest.request import BacktestRequest, Progress
from turncheck.worker.clock import Clock
from turncheck.worker.errors import (
    ConfigurationError,
    JudgeError,
    ServiceUnavailable,
    StoreUnavailable,
)
from turncheck.worker.runtime.tasks import cancel_all
from turncheck.worker.settings import Settings
from turncheck.worker.store.backtests import INTERRUPTED, BacktestTable

log = logging.getLogger(__name__)

LEASE_S = 60.0
"""How long a process holds its backtests without renewing them."""
RENEW_EVERY_S = 15.0
PROGRESS_EVERY_S = 1.0

Runner = Callable[..., Any]
"""``run_backtest(request, settings, progress=...) -> Report`` (the engine's)."""
Estimator = Callable[[BacktestRequest, Settings], Mapping[str, Any] | None]
"""What a judged backtest is estimated to cost, as JSON; None: nothing to estimate."""


class BacktestStopped(Exception):
    """Raised in the backtest's thread, at its next progress report, when the process stops."""


@dataclass(frozen=True, slots=True)
class Accepted:
    id: str
    request: BacktestRequest
    estimate: asyncio.Future[Mapping[str, Any] | None] | None


def new_id() -> str:
    return f"bt_{secrets.token_hex(10)}"


def failure_reason(exc: BaseException) -> str:
    """A fixed reason for the row: never a message that could quote a turn or name a host."""
    if isinstance(exc, BacktestStopped):
        return INTERRUPTED
    if isinstance(exc, ServiceUnavailable):
        return f"{exc.service} unavailable: {exc.cause}"
    if isinstance(exc, StoreUnavailable):
        return "database unavailable"
    if isinstance(exc, JudgeError):
        return "the judge failed"
    if isinstance(exc, ConfigurationError):
        return str(exc)  # names the option or setting at fault, never a value of a turn
    if isinstance(exc, OSError):
        return "the turns file cannot be read (TURNCHECK_TURNS_FILE)"
    return "internal error"


class BacktestQueue:
    """Accepts backtests and runs them one after another. ``start`` and ``stop`` on the
    event loop that serves the API; ``submit`` starts it if nobody did."""

    def __init__(
        self,
        settings: Settings,
        table: BacktestTable,
        clock: Clock,
        *,
        runner: Runner | None = None,
        estimator: Estimator | None = None,
    ) -> None:
        self.settings = settings
        self.table = table
        self.clock = clock
        self.owner = uuid.uuid4().hex
        self._runner = runner
        self._estimator = estimator
        self._queue: asyncio.Queue[Accepted] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = threading.Event()
        self._started = False
        self._running: str | None = None

    async def start(self) -> None:
        """Mark failed what stopped processes left, delete old backtests, start running."""
        if self._started:
            return
        self._started = True
        try:
            await self._tidy()
        except StoreUnavailable:  # the API still answers (503s); the next renewal tidies
            log.warning("backtests not tidied at start: database unavailable")
        self._tasks = [
            asyncio.create_task(self._run_forever()),
            asyncio.create_task(self._renew_forever()),
        ]

    async def _tidy(self) -> None:
        now = self.clock()
        interrupted = await self.table.interrupt_stale(now)
        if interrupted:
            log.warning("backtests left by a stopped process marked failed count=%d", interrupted)
        await self.table.purge(now - self.settings.retention)

    async def submit(self, request: BacktestRequest, options: Mapping[str, Any]) -> str:
        """Write the queued row and return its id; the backtest runs when its turn comes."""
        await self.start()
        backtest_id = new_id()
        now = self.clock()
        await self.table.add(
            backtest_id, options, owner=self.owner, now=now, lease_until=self._lease_end()
        )
        estimate = None
        if request.judge is not None and self._estimator is not None:
            estimate = asyncio.ensure_future(self._estimate(backtest_id, request))
        self._queue.put_nowait(Accepted(backtest_id, request, estimate))
        log.info("backtest queued id=%s waiting=%d", backtest_id, self._queue.qsize())
        return backtest_id

    async def stop(self) -> None:
        """Stop the backtest running (at its next progress report) and fail the queued."""
        self._stopping.set()
        while not self._queue.empty():
            waiting = self._queue.get_nowait()
            await self._fail(waiting.id, INTERRUPTED)
        await cancel_all(self._tasks)
        self._tasks = []
        if self._running is not None:
            # Its thread ends at its next progress report; what it finds is not kept.
            await self._fail(self._running, INTERRUPTED)

    def _lease_end(self) -> Any:
        return self.clock() + timedelta(seconds=LEASE_S)

    async def _estimate(
        self, backtest_id: str, request: BacktestRequest
    ) -> Mapping[str, Any] | None:
        assert self._estimator is not None
        estimate = await asyncio.to_thread(self._estimator, request, self.settings)
        if estimate is not None:
            await self.table.record(backtest_id, owner=self.owner, estimate=estimate)
        return estimate

    async def _run_forever(self) -> None:
        while True:
            accepted = await self._queue.get()
            self._running = accepted.id
            try:
                await self._run(accepted)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a refused write must not stop the queue
                log.error("backtest failed id=%s error=%s", accepted.id, type(exc).__name__)
                with contextlib.suppress(Exception):
                    await self._fail(accepted.id, failure_reason(exc))
            self._running = None

    async def _run(self, accepted: Accepted) -> None:
        if accepted.estimate is not None:
            try:
                await accepted.estimate
            except Exception as exc:
                await self._fail(accepted.id, failure_reason(exc))
                return
        if not await self.table.start(accepted.id, owner=self.owner, now=self.clock()):
            return  # marked interrupted meanwhile
        log.info("backtest started id=%s", accepted.id)
        latest: list[Progress] = []
        stopping = self._stopping

        def progress(now: Progress) -> None:
            if stopping.is_set():
                raise BacktestStopped
            latest[:] = [now]

        thread = asyncio.ensure_future(
            asyncio.to_thread(self._engine(), accepted.request, self.settings, progress=progress)
        )
        written: Progress | None = None
        while not thread.done():
            await asyncio.wait({thread}, timeout=PROGRESS_EVERY_S)
            if latest and latest[0] != written:
                written = latest[0]
                with contextlib.suppress(StoreUnavailable):  # the next second writes it
                    await self.table.record(accepted.id, owner=self.owner, progress=_json(written))
        now = self.clock()
        try:
            report = thread.result()
        except Exception as exc:
            log.warning("backtest failed id=%s error=%s", accepted.id, type(exc).__name__)
            await self._fail(accepted.id, failure_reason(exc))
            return
        final = latest[0] if latest else None
        await self.table.finish(
            accepted.id,
            owner=self.owner,
            now=now,
            report=report.as_dict(),
            progress=_json(final) if final else None,
        )
        log.info("backtest done id=%s turns=%d", accepted.id, report.turns_read)
        await self.table.purge(now - self.settings.retention)

    def _engine(self) -> Runner:
        if self._runner is not None:
            return self._runner
        from turncheck.worker.backtest.engine import run_backtest

        return run_backtest

    async def _fail(self, backtest_id: str, reason: str) -> None:
        await self.table.finish(backtest_id, owner=self.owner, now=self.clock(), error=reason)

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY_S)
            try:
                await self.table.renew(owner=self.owner, lease_until=self._lease_end())
                await self._tidy()
            except StoreUnavailable:
                log.warning("backtest lease not renewed: database unavailable")


def _json(progress: Progress) -> dict[str, Any]:
    return {
        "turns_read": progress.turns_read,
        "turns_expected": progress.turns_expected,
        "elapsed_s": round(progress.elapsed_s, 3),
    }
