"""The Slack channel: posts a rendered alert with a bot token, or to an incoming webhook.

Contract:

* ``SlackConfig`` holds exactly one way to post, a bot token with a channel or a
  webhook URL; anything else is refused when it is built, with a
  ``ConfigurationError`` that names the ``TURNCHECK_ALERT_SLACK_*`` settings;
* ``SlackChannel.send`` returns once Slack took the message. Otherwise it raises
  ``DeliveryFailed("slack", reason)``: Slack's error code ("channel_not_found",
  "invalid_auth", "ratelimited", a webhook's "no_service"), else "http 500", or
  the cause of a timeout or a connection error ("timeout", "connection refused");
* one call is one attempt of at most ``timeout_s`` seconds. slack-sdk's own retries
  are off: its rate-limit handler would sleep out a ``Retry-After`` of minutes,
  and the caller already retries with backoff;
* each call opens an HTTP session of its own and closes it before returning.
  Alerts are a few a day, so there is nothing worth pooling, and a channel holds
  nothing to close;
* neither the token nor the webhook URL (its path is a secret too) appear in a
  reason, in the config's repr or in slack-sdk's logs.

slack-sdk and aiohttp errors are translated here and nowhere else.
"""

from __future__ import annotations

import logging
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from turncheck.alerts.rendered import ChannelName, SlackMessage
from turncheck.worker.errors import ConfigurationError, DeliveryFailed

NAME: ChannelName = "slack"
TOKEN_SETTING = "TURNCHECK_ALERT_SLACK_TOKEN"
CHANNEL_SETTING = "TURNCHECK_ALERT_SLACK_CHANNEL"
WEBHOOK_SETTING = "TURNCHECK_ALERT_SLACK_WEBHOOK_URL"
DEFAULT_BASE_URL = "https://slack.com/api/"
DEFAULT_TIMEOUT_S = 15.0

# slack-sdk's webhook client logs its URL at DEBUG; its clients log here, never below INFO.
_sdk_log = logging.getLogger(f"{__name__}.sdk")
_sdk_log.setLevel(logging.INFO)

_SLACK_CODE = re.compile(r"[a-z][a-z0-9_]{0,63}")
"""What Slack's error codes look like; any other body (a proxy's HTML page) is not quoted."""


@dataclass(frozen=True, slots=True)
class SlackConfig:
    """A bot token with the channel it posts to, or an incoming webhook URL; never both.

    Raises ``ConfigurationError`` naming the settings at fault. Blank strings count as unset.
    """

    token: str | None = field(default=None, repr=False)
    channel: str | None = None
    webhook_url: str | None = field(default=None, repr=False)
    base_url: str = DEFAULT_BASE_URL
    """The Web API's root; tests point it at a local server."""
    proxy: str | None = field(default=None, repr=False)
    """An HTTP proxy to reach Slack through (its URL may hold a password)."""
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        token, channel, webhook = bool(self.token), bool(self.channel), bool(self.webhook_url)
        if token and webhook:
            raise ConfigurationError(
                f"invalid setting {WEBHOOK_SETTING}: set it, or {TOKEN_SETTING} and "
                f"{CHANNEL_SETTING}, not both"
            )
        if token and not channel:
            raise ConfigurationError(
                f"{TOKEN_SETTING} is set but {CHANNEL_SETTING} is not: the bot needs a channel"
            )
        if channel and not token:
            # An incoming webhook posts to the channel it was made for; this one would be ignored.
            raise ConfigurationError(f"{CHANNEL_SETTING} is set but {TOKEN_SETTING} is not")
        if not token and not webhook:
            raise ConfigurationError(
                f"Slack alerts need {TOKEN_SETTING} and {CHANNEL_SETTING}, or {WEBHOOK_SETTING}"
            )
        if webhook and not _is_http_url(self.webhook_url or ""):
            raise ConfigurationError(f"invalid setting {WEBHOOK_SETTING}: not an http(s) URL")
        if self.timeout_s <= 0:
            raise ConfigurationError("invalid setting TURNCHECK_ALERT_SEND_TIMEOUT_S: not > 0")

    @property
    def uses_webhook(self) -> bool:
        return not self.token


class SlackChannel:
    """Posts alerts to Slack as ``config`` says; holds no connection between calls."""

    name: ChannelName = NAME

    def __init__(self, config: SlackConfig) -> None:
        self.config = config

    async def send(self, message: SlackMessage) -> None:
        """Post ``message``; raises ``DeliveryFailed`` unless Slack took it. Not idempotent:
        a timeout after Slack took the message is a failure, and a retry posts it again."""
        blocks = message.blocks or None  # Slack refuses an empty list of blocks
        with _delivery_errors():
            async with self._session() as session:
                if self.config.uses_webhook:
                    answer = await self._webhook(session).send(text=message.text, blocks=blocks)
                    if not 200 <= answer.status_code < 300:
                        raise DeliveryFailed(NAME, _webhook_reason(answer.status_code, answer.body))
                else:
                    await self._web(session).chat_postMessage(
                        channel=self.config.channel or "", text=message.text, blocks=blocks
                    )

    async def check(self) -> str:
        """Who posts, for the start-up log: "team Acme as bot turncheck" from ``auth.test``.

        A webhook is not called (its only method posts a message): "incoming webhook".
        Raises ``DeliveryFailed`` as ``send`` does.
        """
        if self.config.uses_webhook:
            return "incoming webhook"
        with _delivery_errors():
            async with self._session() as session:
                answer = await self._web(session).auth_test()
        identity: Any = answer.data
        role = "bot" if identity.get("bot_id") else "user"
        return f"team {identity.get('team')} as {role} {identity.get('user')}"

    def _session(self) -> aiohttp.ClientSession:
        # The session's timeout bounds the whole call: slack-sdk applies its own `timeout`
        # only to sessions it makes, and takes whole seconds there.
        return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.config.timeout_s))

    def _web(self, session: aiohttp.ClientSession) -> AsyncWebClient:
        client = AsyncWebClient(
            token=self.config.token,
            base_url=self.config.base_url,
            session=session,
            logger=_sdk_log,
            retry_handlers=[],  # the caller retries, with backoff
        )
        # slack-sdk reads HTTPS_PROXY itself; here only the settings module reads the env.
        client.proxy = self.config.proxy
        return client

    def _webhook(self, session: aiohttp.ClientSession) -> AsyncWebhookClient:
        client = AsyncWebhookClient(
            self.config.webhook_url or "", session=session, logger=_sdk_log, retry_handlers=[]
        )
        client.proxy = self.config.proxy
        return client


@contextmanager
def _delivery_errors() -> Iterator[None]:
    """slack-sdk's and aiohttp's errors become ``DeliveryFailed``. The chain is cut
    (``from None``): their messages may quote the webhook URL."""
    try:
        yield
    except SlackApiError as exc:
        raise DeliveryFailed(NAME, _api_reason(exc.response)) from None
    except (SlackClientError, aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise DeliveryFailed(NAME, _cause(exc)) from None


def _api_reason(response: Any) -> str:
    """Slack's error code, else the status. ``response`` is slack-sdk's, or aiohttp's when
    the body was not JSON."""
    status = getattr(response, "status_code", None) or getattr(response, "status", None)
    data = getattr(response, "data", None)
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, str) and _SLACK_CODE.fullmatch(error):
        return error
    if status == 429:
        return "ratelimited"
    return f"http {status}" if status and status != 200 else "unexpected answer"


def _webhook_reason(status: int, body: str) -> str:
    if status == 429:  # the Web API's code, so that both modes report a rate limit alike
        return "ratelimited"
    code = body.strip()
    return code if _SLACK_CODE.fullmatch(code) else f"http {status}"


def _cause(exc: BaseException) -> str:
    """A few words from the error's type and errno; never its message, which may hold the URL."""
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, aiohttp.ClientConnectorError) and isinstance(exc.os_error, socket.gaierror):
        return "unknown host"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "server disconnected"
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno).lower()
    return type(exc).__name__


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)
