"""``turncheck serve``: the HTTP API alone, under uvicorn. ``worker/cli/main.py`` registers it."""

from __future__ import annotations

import asyncio
import logging
import socket

from turncheck.worker.app import open_store
from turncheck.worker.cli import startup
from turncheck.worker.settings import Settings


def serve() -> None:
    """Serve the HTTP API on TURNCHECK_API_HOST:TURNCHECK_API_PORT until SIGTERM or SIGINT.

    Without TURNCHECK_API_TOKEN it starts only on a loopback host, and answers anyone
    there. See the README's HTTP API section for the endpoints.
    """
    # Imported here: every command loads this module, only `serve` needs FastAPI.
    from turncheck.worker.api import check_api_settings, listen

    settings = startup.settings(logging.INFO)
    check_api_settings(settings)
    startup.reach(settings)  # the broker is not needed to serve; /readyz reports it
    startup.embedded_schema(settings)
    sock = listen(settings.api_host, settings.api_port)
    asyncio.run(_serve(settings, sock))


async def _serve(settings: Settings, sock: socket.socket) -> None:
    from turncheck.worker.api import serve as serve_api

    store = open_store(settings)
    try:
        await serve_api(settings, store, sock)
    finally:
        await store.close()
