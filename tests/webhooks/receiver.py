"""A real HTTP receiver on 127.0.0.1 for webhook tests: it records every request and
answers from a script (status and headers per request), 204 once the script is done."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from aiohttp import web


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str = ""
    requests: list[Request] = field(default_factory=list)
    script: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    delay_s: float = 0.0

    @property
    def ids(self) -> list[str]:
        """The ``webhook-id`` of every request, in arrival order."""
        return [r.headers["webhook-id"] for r in self.requests]

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.requests.append(Request(request.path, dict(request.headers), body))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        status, headers = self.script.pop(0) if self.script else (204, {})
        return web.Response(status=status, headers=headers)


@asynccontextmanager
async def receiving(path: str = "/hooks") -> AsyncIterator[Receiver]:
    """A receiver listening on 127.0.0.1 at a free port; ``url`` is where it listens."""
    receiver = Receiver()
    app = web.Application()
    app.router.add_post(path, receiver._handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    receiver.url = f"http://127.0.0.1:{port}{path}"
    try:
        yield receiver
    finally:
        await runner.cleanup()
