"""Running the API under uvicorn: alone (``turncheck serve``) or on the worker's event
loop (``turncheck run`` with ``TURNCHECK_API_IN_RUN``).

``check_api_settings`` refuses, before any service is reached, an API that would
answer every caller: no ``TURNCHECK_API_TOKEN`` is allowed on a loopback host only (and
then only requests addressed to a loopback name are answered, ``hosts.py``).
``listen`` binds the socket itself, so a port in use is one line naming it, not a
uvicorn traceback. Access logs are off: a path holds person ids (``DELETE
/v1/persons/…``), and logs carry no personal data.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Iterator

import uvicorn
from fastapi import FastAPI

from turncheck.worker.api.app import create_app
from turncheck.worker.api.auth import configured_token
from turncheck.worker.api.errors import AnsweredErrors
from turncheck.worker.api.hosts import is_loopback
from turncheck.worker.clock import Clock, utc_now
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def check_api_settings(settings: Settings) -> str:
    """Refuse an API open to the network; say how it will run."""
    if configured_token(settings) is None:
        if not is_loopback(settings.api_host):
            raise ConfigurationError(
                "invalid setting TURNCHECK_API_TOKEN: required when the API listens on "
                f"{settings.api_host} (only a loopback host may go without)"
            )
        return f"api on {settings.api_host}:{settings.api_port} without a token (loopback only)"
    return f"api on {settings.api_host}:{settings.api_port}"


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); port 0 picks a free one."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        why = (exc.strerror or type(exc).__name__).lower()
        raise ConfigurationError(
            f"invalid setting TURNCHECK_API_HOST/TURNCHECK_API_PORT: cannot listen on "
            f"{host}:{port}: {why}"
        ) from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


class _Embedded(uvicorn.Server):
    """A server that leaves signals to its host: inside the worker, FastStream handles
    SIGTERM and stops the API with the rest."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class _Standalone(uvicorn.Server):
    """SIGTERM or SIGINT finishes the requests in hand and returns; a second one stops at
    once. Unlike uvicorn's own handling, the signal is not raised again afterwards, so
    ``turncheck serve`` exits 0 from a clean stop, as ``turncheck run`` does."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        loop = asyncio.get_running_loop()
        for sig in SIGNALS:
            loop.add_signal_handler(sig, self._stop)
        try:
            yield
        finally:
            for sig in SIGNALS:
                loop.remove_signal_handler(sig)

    def _stop(self) -> None:
        if self.should_exit:
            self.force_exit = True
        self.should_exit = True


def uvicorn_config(app: FastAPI) -> uvicorn.Config:
    return uvicorn.Config(
        AnsweredErrors(app),
        log_config=None,  # keep worker/runtime/logs.py's format
        access_log=False,
        server_header=False,
        lifespan="off",  # the caller owns the store; the app has nothing to start
    )


async def serve(settings: Settings, store: Store, sock: socket.socket) -> None:
    """Serve on ``sock`` until SIGTERM or SIGINT (``turncheck serve``)."""
    log.info(check_api_settings(settings))
    app = create_app(settings, store)
    await with_backtests(app, _Standalone(uvicorn_config(app)), sock)


async def with_backtests(app: FastAPI, server: uvicorn.Server, sock: socket.socket) -> None:
    """Serve with the app's backtests queue: started first (it marks failed what a stopped
    process left running), stopped last (the one running ends, the queued fail)."""
    queue = app.state.turncheck.backtests
    await queue.start()
    try:
        await server.serve(sockets=[sock])
    finally:
        await queue.stop()


class EmbeddedApi:
    """The API as a task on the worker's loop. The socket is bound when this is built,
    before the worker starts, so a port in use refuses the start; ``start`` after the
    worker's startup, ``stop`` first on its shutdown."""

    def __init__(self, settings: Settings, store: Store, clock: Clock = utc_now) -> None:
        self.description = check_api_settings(settings)
        self.app = create_app(settings, store, clock=clock)
        self.server = _Embedded(uvicorn_config(self.app))
        self.sock = listen(settings.api_host, settings.api_port)
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        log.info(self.description)
        self.task = asyncio.create_task(with_backtests(self.app, self.server, self.sock))

    async def stop(self) -> None:
        """Finish the requests in hand and stop listening."""
        if self.task is None:
            self.sock.close()
            return
        self.server.should_exit = True
        await self.task
