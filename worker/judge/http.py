"""The judge client over HTTP: one pooled ``httpx.AsyncClient``, one adapter per provider.

Contract of ``HttpJudgeClient.complete``:

* the overall deadline is ``min(deadline_s, endpoint.deadline_s)`` seconds from
  the call; waiting for a free slot, every attempt and every backoff count
  against it. One attempt lasts at most ``endpoint.timeout_s``, never past it;
* at most ``JudgeRetry.attempts`` requests per call, the first included;
* at most ``endpoint.max_concurrency`` requests per configured model are in
  flight; the slot is released while backing off;
* retried while the deadline and the attempts allow: HTTP 429, 408 and 5xx
  (``Retry-After`` honoured, in ASCII delay-seconds or as an HTTP date; else
  exponential backoff with jitter, at most ``max_backoff_s``; never sooner than
  ``min_wait_s``, a ``Retry-After: 0`` included), timeouts, connection errors,
  and a malformed 2xx body once (``JudgeRetry.malformed_retries``: a proxy that
  cut the body short is the usual cause; a second one means the endpoint does
  not speak the provider's format). When the next wait would pass the deadline,
  or no attempt is left: ``JudgeUnavailable``;
* ``JudgeRejected`` at once, without retry: an unknown model, a missing key
  variable, a URL or header httpx cannot send, a quota or spend limit that only
  a person can lift (``provider_errors.WILL_NOT_CLEAR``, whatever the status),
  any other non-2xx status, a judge that refused to answer.

Every httpx exception is translated here. Logs and reasons name the model, status
codes, the provider's error type or code when it is a known one, and attempt
counts, never bodies, prompts or keys. Proxy variables are not read
(``trust_env=False``): only the settings module reads the environment.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import httpx

from turncheck.worker.errors import JudgeRejected, JudgeUnavailable
from turncheck.worker.judge import anthropic_api, openai_api, provider_errors
from turncheck.worker.judge.config import JudgeEndpoint
from turncheck.worker.judge.types import REFUSED_REASON, JudgeRefusal, JudgeReply, JudgeRequest
from turncheck.worker.runtime.backoff import doubled_s
from turncheck.worker.runtime.retry_after import retry_after_s
from turncheck.worker.settings import DEFAULTS, Settings

log = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({408, 429})  # and every 5xx


@dataclass(frozen=True, slots=True)
class JudgeRetry:
    """How one judgement is retried: at most ``attempts`` requests; between two, the
    judge's ``Retry-After``, else ``first_backoff_s * 2**(n-1)`` capped at ``max_backoff_s``
    with jitter; never less than ``min_wait_s``."""

    attempts: int = DEFAULTS.judge_attempts
    min_wait_s: float = DEFAULTS.judge_retry_min_s
    first_backoff_s: float = DEFAULTS.judge_retry_first_s
    max_backoff_s: float = DEFAULTS.judge_retry_max_s
    malformed_retries: int = 1

    @classmethod
    def of(cls, settings: Settings) -> JudgeRetry:
        return cls(
            attempts=settings.judge_attempts,
            min_wait_s=settings.judge_retry_min_s,
            first_backoff_s=settings.judge_retry_first_s,
            max_backoff_s=settings.judge_retry_max_s,
        )

    def backoff_s(self, attempt: int) -> float:
        """The wait after failed attempt ``attempt`` (1-based): half fixed, half random;
        at most ``max_backoff_s`` for any ``attempt``."""
        ceiling = doubled_s(self.first_backoff_s, self.max_backoff_s, attempt)
        # Jitter spreads the retries of many workers hit by the same outage.
        return ceiling * (0.5 + random.random() / 2)

    def wait_s(self, attempt: int, retry_after_s: float | None) -> float:
        """The wait after failed attempt ``attempt``: what the judge asked, else the
        backoff; at least ``min_wait_s``, so a judge answering ``Retry-After: 0`` is not
        asked again in a tight loop."""
        wait_s = self.backoff_s(attempt) if retry_after_s is None else retry_after_s
        return max(self.min_wait_s, wait_s)


DEFAULT_RETRY = JudgeRetry()


class _Provider(Protocol):
    def request(
        self, name: str, endpoint: JudgeEndpoint, judge_request: JudgeRequest, key: str | None
    ) -> tuple[str, dict[str, str], dict[str, Any]]: ...

    def parse(self, body: bytes) -> JudgeReply | JudgeRefusal | None: ...


_PROVIDERS: dict[str, _Provider] = {"openai": openai_api, "anthropic": anthropic_api}


@dataclass(frozen=True, slots=True)
class _Failure:
    """A failed attempt worth retrying; ``last`` is safe to store."""

    last: str
    retry_after_s: float | None = None
    malformed: bool = False


class HttpJudgeClient:
    """A ``JudgeClient`` over HTTP. Call ``aclose()`` when done; safe to call twice."""

    def __init__(
        self,
        endpoints: Mapping[str, JudgeEndpoint],
        environ: Mapping[str, str],
        *,
        retry: JudgeRetry = DEFAULT_RETRY,
    ) -> None:
        self._endpoints = dict(endpoints)
        self._environ = environ
        self._retry = retry
        self._slots = {
            name: asyncio.Semaphore(endpoint.max_concurrency)
            for name, endpoint in self._endpoints.items()
        }
        self._client: httpx.AsyncClient | None = None

    async def __aenter__(self) -> HttpJudgeClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def open(self) -> None:
        """Build the connection pool now (TLS set-up takes tens of milliseconds), at start
        rather than inside the first batch that asks the judge."""
        if self._endpoints:
            self._http()

    async def aclose(self) -> None:
        """Close the connection pool; a later ``complete`` opens a new one."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    @property
    def endpoints(self) -> Mapping[str, JudgeEndpoint]:
        """The configured judge models by name."""
        return self._endpoints

    async def complete(self, request: JudgeRequest, *, deadline_s: float) -> JudgeReply:
        """Ask the judge; see the module docstring for what is retried and what raises."""
        endpoint = self._endpoints.get(request.model)
        if endpoint is None:
            raise JudgeRejected(f"No judge is configured for model {request.model!r}.")
        provider = _PROVIDERS[endpoint.provider]
        url, headers, body = provider.request(request.model, endpoint, request, self._key(endpoint))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(deadline_s, endpoint.deadline_s)
        slot = self._slots[request.model]
        last, malformed, attempt = "no free slot", 0, 0
        while True:
            attempt += 1
            try:
                async with asyncio.timeout_at(deadline):
                    await slot.acquire()
            except TimeoutError:
                raise JudgeUnavailable(_late(last)) from None
            try:
                outcome = await self._attempt(provider, endpoint, url, headers, body, deadline)
            except JudgeRejected as exc:
                # Asking again would not help (a key, a quota): one line says what to fix.
                log.warning(
                    "judge %s: not retried, attempt %d: %s", request.model, attempt, exc.reason
                )
                raise
            finally:
                slot.release()
            if isinstance(outcome, JudgeReply):
                return outcome
            last = outcome.last
            malformed += outcome.malformed
            if malformed > self._retry.malformed_retries:
                log.warning("judge %s: malformed response, attempt %d", request.model, attempt)
                raise JudgeUnavailable("The judge's response was malformed.")
            if attempt >= self._retry.attempts:
                log.warning(
                    "judge %s: %s, attempt %d, no attempt left", request.model, last, attempt
                )
                raise JudgeUnavailable(
                    f"The judge did not answer in {attempt} attempts (last: {last})."
                )
            wait_s = self._retry.wait_s(attempt, outcome.retry_after_s)
            if loop.time() + wait_s >= deadline:
                log.warning("judge %s: %s, attempt %d, deadline", request.model, last, attempt)
                raise JudgeUnavailable(_late(last))
            log.info(
                "judge %s: %s, attempt %d, retry in %.2fs", request.model, last, attempt, wait_s
            )
            await asyncio.sleep(wait_s)

    async def _attempt(
        self,
        provider: _Provider,
        endpoint: JudgeEndpoint,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any],
        deadline: float,
    ) -> JudgeReply | _Failure:
        """One POST within its time budget: a reply, a retryable failure, or JudgeRejected."""
        loop = asyncio.get_running_loop()
        end = min(loop.time() + endpoint.timeout_s, deadline)
        try:
            # httpx's timeout bounds each phase; timeout_at bounds the whole attempt.
            async with asyncio.timeout_at(end):
                response = await self._http().post(
                    url, headers=headers, json=body, timeout=max(end - loop.time(), 0.001)
                )
        except (TimeoutError, httpx.TimeoutException):
            return _Failure("timeout")
        except (httpx.InvalidURL, httpx.UnsupportedProtocol, httpx.LocalProtocolError):
            raise JudgeRejected(
                "The judge's request could not be sent (check its base_url)."
            ) from None
        except httpx.DecodingError:
            return _Failure("malformed response", malformed=True)
        except httpx.HTTPError:
            return _Failure("connection error")
        status = response.status_code
        if 200 <= status < 300:
            reply = provider.parse(response.content)
            if isinstance(reply, JudgeRefusal):
                raise JudgeRejected(REFUSED_REASON)  # an answer: asking again pays again
            return reply if reply is not None else _Failure("malformed response", malformed=True)
        name = provider_errors.error_name(response.content)
        said = f"HTTP {status} {name}" if name else f"HTTP {status}"
        if name in provider_errors.WILL_NOT_CLEAR:
            raise JudgeRejected(f"The judge's quota or spend limit is exhausted ({said}).")
        if status in RETRYABLE_STATUSES or status >= 500:
            return _Failure(
                said, retry_after_s(response.headers.get("retry-after"), datetime.now(UTC))
            )
        raise JudgeRejected(f"The judge refused the request ({said}).")

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            slots = max(1, sum(endpoint.max_concurrency for endpoint in self._endpoints.values()))
            self._client = httpx.AsyncClient(
                limits=httpx.Limits(max_connections=slots, max_keepalive_connections=slots),
                trust_env=False,
                follow_redirects=False,
            )
        return self._client

    def _key(self, endpoint: JudgeEndpoint) -> str | None:
        """The endpoint's key, read now so a rotated key is picked up; None: no key needed."""
        if endpoint.api_key_env is None:
            return None
        key = self._environ.get(endpoint.api_key_env, "").strip()
        if not key:
            raise JudgeRejected(f"The judge's key variable {endpoint.api_key_env} is not set.")
        # httpx would echo a bad header value in its error; refuse it here without the value.
        if not (key.isascii() and key.isprintable()):
            raise JudgeRejected(f"The judge's key variable {endpoint.api_key_env} is not a key.")
        return key


def _late(last: str) -> str:
    return f"The judge did not answer before the deadline (last: {last})."
