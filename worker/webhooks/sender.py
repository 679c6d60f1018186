"""One signed POST of one event to one endpoint, and what became of it.

Every httpx error is translated here into an ``WebhookReply``; nothing else in turncheck
sees httpx's exceptions. Redirects are not followed (a 3xx could point anywhere,
private addresses included) and proxy variables are not read (``trust_env=False``):
only the settings module reads the environment. The response body is never read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

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


def retry_after_s(value: str | None, now: datetime) -> float | None:
    """``Retry-After`` in seconds from ``now``: delta-seconds or an HTTP date; None when
    absent or unreadable. Never negative."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - now).total_seconds())


class WebhookSender:
    """Posts events; ``aclose()`` when done. ``allow_private`` lifts the address rule."""

    def __init__(self, timeout_s: float, allow_private: bool) -> None:
        self._allow_private = allow_private
        self._client = httpx.AsyncClient(timeout=timeout_s, trust_env=False, follow_redirects=False)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def post(
        self, endpoint: Endpoint, event_id: str, body: bytes, now: datetime
    ) -> WebhookReply:
        """Sign and send ``body`` as event ``event_id``; never raises for the endpoint's
        faults (they are the ``WebhookReply``)."""
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
