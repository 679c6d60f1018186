"""One signed POST of one event to one endpoint, and what became of it.

Every httpx error is translated here into an ``WebhookReply``; nothing else in turncheck
sees httpx's exceptions. Redirects are not followed (a 3xx could point anywhere,
private addresses included) and proxy variables are not read (``trust_env=False``):
only the settings module reads the environment. The response body is never read.

httpx's timeout bounds each read and write, not a request: a receiver that trickles
its answer a byte at a time never trips it. So the whole request, the name's lookup
included, also has ``timeout_s`` as its deadline; missing it is a "timeout" like any
other, retried with backoff.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

import httpx

from turncheck.worker.runtime.retry_after import retry_after_s
from turncheck.worker.webhooks.config import Endpoint
from turncheck.worker.webhooks.guard import AddressRefused, resolve
from turncheck.worker.webhooks.signing import signed_headers


@dataclass(frozen=True, slots=True)
class WebhookReply:
    """``delivered``: a 2xx. ``gone``: a 410, the receiver wants no more. Otherwise a
    failure to retry, after ``retry_after_s`` when the receiver said so. ``error`` is a
    few words safe to store: the status, a kind of address, an exception's type."""

    status: int | None
    error: str | None = None
    retry_after_s: float | None = None

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def gone(self) -> bool:
        return self.status == 410


class WebhookSender:
    """Posts events; ``aclose()`` when done. ``allow_private`` lifts the address rule."""

    def __init__(self, timeout_s: float, allow_private: bool) -> None:
        self._timeout_s = timeout_s
        self._allow_private = allow_private
        self._client = httpx.AsyncClient(timeout=timeout_s, trust_env=False, follow_redirects=False)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def post(
        self, endpoint: Endpoint, event_id: str, body: bytes, now: datetime
    ) -> WebhookReply:
        """Sign and send ``body`` as event ``event_id`` within the deadline; never raises
        for the endpoint's faults (they are the ``WebhookReply``)."""
        try:
            async with asyncio.timeout(self._timeout_s):
                return await self._post(endpoint, event_id, body, now)
        except TimeoutError:
            return WebhookReply(None, "timeout")

    async def _post(
        self, endpoint: Endpoint, event_id: str, body: bytes, now: datetime
    ) -> WebhookReply:
        url = httpx.URL(endpoint.url)
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            address = await resolve(url.host, port, self._allow_private)
        except AddressRefused as exc:
            return WebhookReply(None, f"refused: {exc.reason}")
        headers = signed_headers(endpoint.key, event_id, int(now.timestamp()), body)
        # Connect to the address just checked; the name stays in Host and in TLS (SNI and
        # the certificate check), so a second lookup cannot send the request elsewhere.
        headers["host"] = url.netloc.decode("ascii")
        extensions = {"sni_hostname": url.host} if url.scheme == "https" else {}
        request = self._client.build_request(
            "POST",
            url.copy_with(host=str(address)),
            content=body,
            headers=headers,
            extensions=extensions,
        )
        try:
            response = await self._client.send(request, stream=True)
            await response.aclose()
        except httpx.TimeoutException:
            return WebhookReply(None, "timeout")
        except httpx.HTTPError as exc:
            return WebhookReply(None, type(exc).__name__)
        status = response.status_code
        if 200 <= status < 300:
            return WebhookReply(status)
        wait = retry_after_s(response.headers.get("retry-after"), now)
        return WebhookReply(status, f"HTTP {status}", wait)
