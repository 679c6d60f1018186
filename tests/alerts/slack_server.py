"""A real Slack on a loopback socket: the Web API methods turncheck calls, and a webhook.

``SlackServer`` is an ``aiohttp.web`` server on ``127.0.0.1`` (port picked by the OS),
started and stopped as an async context manager on the test's loop:

* ``POST /api/chat.postMessage`` (JSON or form body, ``Authorization: Bearer`` or a
  ``token`` field): ``{"ok": true, "channel", "ts"}``, or ``{"ok": false, "error"}``
  with "not_authed", "invalid_auth" or "channel_not_found", as Slack answers (HTTP 200);
* ``POST /api/auth.test``: the team and bot of ``TOKEN``, or "invalid_auth";
* ``POST /services/T0000TEAM/B0000BOT/<secret>``: an incoming webhook answering "ok";
  any other webhook path answers 404 "no_service", as Slack does.

Every call is counted in ``server.calls`` (its method, or "webhook"); every message
taken is recorded in ``server.messages``. ``server.fail_next(Failure...)`` makes the
next calls, of any path, fail as scripted, one failure per call:

    async with SlackServer() as server:
        server.fail_next(Failure.rate_limited(retry_after_s=30))
        ...  # AsyncWebClient(base_url=server.base_url, token=TOKEN)
        assert server.calls == ["chat.postMessage"]

Leaving the context wakes any answer still waiting out its delay, so no handler
outlives the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections import deque
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from aiohttp import web

TOKEN = "xoxb-0000-test-token-do-not-leak"
CHANNEL = "C0ALERTS"
TEAM = "Acme"
BOT = "turncheck"


@dataclass(frozen=True, slots=True)
class Received:
    """One message taken by the server."""

    via: str
    """"chat.postMessage" or "webhook"."""
    channel: str | None
    """None for a webhook, which posts to its own channel."""
    text: str | None
    blocks: list[dict[str, Any]] | None


@dataclass(frozen=True, slots=True)
class Failure:
    """How one call fails; build one with the presets."""

    status: int = 200
    error: str | None = None
    """Web API: the ``ok: false`` error code; webhook: the body."""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Wait this long before answering (as scripted otherwise, or as usual)."""
    answer: bool = True
    """False: after the delay, answer as usual instead of failing."""
    disconnect: bool = False
    """Drop the connection without an answer."""

    @classmethod
    def http(cls, status: int, body: str = "") -> Failure:
        return cls(status=status, error=body or None)

    @classmethod
    def api_error(cls, code: str) -> Failure:
        return cls(error=code)

    @classmethod
    def rate_limited(cls, retry_after_s: int) -> Failure:
        return cls(status=429, error="ratelimited", headers={"Retry-After": str(retry_after_s)})

    @classmethod
    def dropped(cls) -> Failure:
        return cls(disconnect=True)

    @classmethod
    def slow(cls, delay_s: float) -> Failure:
        return cls(delay_s=delay_s, answer=False)


class SlackServer:
    def __init__(self, token: str = TOKEN, channels: frozenset[str] = frozenset({CHANNEL})):
        self.token, self.channels = token, channels
        self.calls: list[str] = []
        self.messages: list[Received] = []
        self.webhook_path = f"/services/T0000TEAM/B0000BOT/{secrets.token_hex(12)}"
        self._failures: deque[Failure] = deque()
        self._closing = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def base_url(self) -> str:
        """The Web API root for ``AsyncWebClient(base_url=...)``: ``http://127.0.0.1:PORT/api/``."""
        return f"http://127.0.0.1:{self._port}/api/"

    @property
    def webhook_url(self) -> str:
        return f"http://127.0.0.1:{self._port}{self.webhook_path}"

    def fail_next(self, *failures: Failure) -> None:
        """The next calls answer these failures, in order; then calls are served as usual."""
        self._failures.extend(failures)

    async def __aenter__(self) -> SlackServer:
        app = web.Application()
        app.router.add_post("/api/chat.postMessage", self._post_message)
        app.router.add_post("/api/auth.test", self._auth_test)
        app.router.add_post("/services/{path:.+}", self._webhook)
        # A short shutdown grace: a handler still running has been woken by `_closing`.
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _post_message(self, request: web.Request) -> web.StreamResponse:
        self.calls.append("chat.postMessage")
        body = await _body(request)
        if (scripted := await self._scripted(request, web_api=True)) is not None:
            return scripted
        if (refused := self._refuse_token(request, body)) is not None:
            return refused
        channel = body.get("channel")
        if channel not in self.channels:
            return web.json_response({"ok": False, "error": "channel_not_found"})
        self.messages.append(
            Received("chat.postMessage", channel, body.get("text"), _blocks(body.get("blocks")))
        )
        ts = f"{1_700_000_000 + len(self.messages)}.000100"
        return web.json_response({"ok": True, "channel": channel, "ts": ts})

    async def _auth_test(self, request: web.Request) -> web.StreamResponse:
        self.calls.append("auth.test")
        body = await _body(request)
        if (scripted := await self._scripted(request, web_api=True)) is not None:
            return scripted
        if (refused := self._refuse_token(request, body)) is not None:
            return refused
        return web.json_response(
            {"ok": True, "team": TEAM, "user": BOT, "team_id": "T0000TEAM", "bot_id": "B0000BOT"}
        )

    async def _webhook(self, request: web.Request) -> web.StreamResponse:
        self.calls.append("webhook")
        body = await _body(request)
        if (scripted := await self._scripted(request, web_api=False)) is not None:
            return scripted
        if request.path != self.webhook_path:
            return web.Response(status=404, text="no_service")
        self.messages.append(
            Received("webhook", None, body.get("text"), _blocks(body.get("blocks")))
        )
        return web.Response(text="ok")

    async def _scripted(self, request: web.Request, *, web_api: bool) -> web.Response | None:
        """The next scripted failure's answer, after its delay; None: serve as usual."""
        if not self._failures:
            return None
        failure = self._failures.popleft()
        if failure.delay_s:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), failure.delay_s)
        if self._closing.is_set():
            return web.Response(status=503)
        if not failure.answer:
            return None
        if failure.disconnect and request.transport is not None:
            request.transport.close()
        if web_api and failure.error is not None:
            return web.json_response(
                {"ok": False, "error": failure.error},
                status=failure.status,
                headers=failure.headers,
            )
        return web.Response(
            status=failure.status, text=failure.error or "", headers=failure.headers
        )

    def _refuse_token(self, request: web.Request, body: dict[str, Any]) -> web.Response | None:
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        token = bearer or body.get("token")
        if not token:
            return web.json_response({"ok": False, "error": "not_authed"})
        if token != self.token:
            return web.json_response({"ok": False, "error": "invalid_auth"})
        return None


async def _body(request: web.Request) -> dict[str, Any]:
    """The query, then the JSON or form body over it: slack-sdk sends each, by method."""
    values: dict[str, Any] = dict(request.query)
    if request.content_type == "application/json":
        values.update(await request.json())
    elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        values.update({key: str(value) for key, value in (await request.post()).items()})
    return values


def _blocks(value: Any) -> list[dict[str, Any]] | None:
    """Blocks arrive as a list in JSON bodies and as a JSON string in forms."""
    if isinstance(value, str):
        parsed: list[dict[str, Any]] = json.loads(value)
        return parsed
    return value if isinstance(value, list) else None
