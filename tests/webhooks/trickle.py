"""A raw HTTP/1.1 receiver on 127.0.0.1 that answers as badly as a real one can: it
reads each request whole, then trickles a header one byte every ``interval_s`` and
never finishes it, or, once ``answer`` is set, sends exactly those bytes (a 204, a 503
with a ``Retry-After`` no library would write...)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

NO_CONTENT = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n"


@dataclass
class Trickler:
    url: str = ""
    interval_s: float = 0.2
    answer: bytes | None = None
    """None: trickle; else the whole reply to the next requests."""
    ids: list[str] = field(default_factory=list)
    """The ``webhook-id`` of every request read, in arrival order."""
    trickling: int = 0
    """Replies being trickled right now."""
    _handlers: dict[asyncio.Task[None], asyncio.StreamWriter] = field(default_factory=dict)
    _closed: bool = False

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers[task] = writer
        try:
            while True:  # keep-alive: one request after another on the connection
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
                headers = {
                    name.strip().lower(): value.strip()
                    for name, _, value in (line.partition(":") for line in head.split("\r\n")[1:])
                    if name
                }
                await reader.readexactly(int(headers.get("content-length", "0")))
                self.ids.append(headers["webhook-id"])
                if self.answer is None:
                    await self._trickle(writer)
                    return
                writer.write(self.answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the client hung up
        finally:
            self._handlers.pop(task, None)
            writer.close()

    async def _trickle(self, writer: asyncio.StreamWriter) -> None:
        """Until the client hangs up."""
        self.trickling += 1
        try:
            writer.write(b"HTTP/1.1 200 OK\r\n")
            while not (writer.is_closing() or self._closed):  # a header that never ends
                writer.write(b"x")
                await writer.drain()
                await asyncio.sleep(self.interval_s)
        finally:
            self.trickling -= 1

    async def close(self) -> None:
        """Hang up on every client and wait for the handlers to end. Not by cancelling
        them: asyncio's server logs a handler task that ends cancelled as an error."""
        self._closed = True
        handlers = list(self._handlers)
        for writer in self._handlers.values():
            writer.close()  # a handler waiting for a next request reads the end
        if handlers:
            await asyncio.wait(handlers)


@asynccontextmanager
async def trickling(interval_s: float = 0.2, path: str = "/hooks") -> AsyncIterator[Trickler]:
    """A trickling receiver at a free port of 127.0.0.1; ``url`` is where it listens."""
    trickler = Trickler(interval_s=interval_s)
    server = await asyncio.start_server(trickler._serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    trickler.url = f"http://127.0.0.1:{port}{path}"
    try:
        yield trickler
    finally:
        server.close()
        await trickler.close()
        await server.wait_closed()
