"""Probe the broker before a command uses it.

A command whose broker does not answer is refused at its start with
``ServiceUnavailable``, naming each bootstrap server and why; the probe gives up
after ``PROBE_TIMEOUT_S``. aiokafka's and socket errors are translated here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from urllib.parse import urlsplit

from aiokafka import AIOKafkaClient
from aiokafka.errors import KafkaError

from turncheck.worker.errors import ConfigurationError, ServiceUnavailable, os_cause, type_words
from turncheck.worker.settings import PROBE_TIMEOUT_S

KAFKA_DEFAULT_PORT = 9092
KAFKA = "Kafka"


async def probe_broker(bootstrap: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Return once a bootstrap server answers as a Kafka broker; raise ``ServiceUnavailable``
    naming each server's cause if none does within ``timeout_s``."""
    servers = _parse_bootstrap(bootstrap)
    location = ",".join(servers)
    client = AIOKafkaClient(
        bootstrap_servers=bootstrap,
        client_id="turncheck-preflight",
        request_timeout_ms=int(timeout_s * 1000),
    )
    try:
        with _quiet("aiokafka"):
            async with asyncio.timeout(timeout_s):
                await client.bootstrap()
        return
    except (KafkaError, OSError):
        pass  # aiokafka does not say why; ask each server over plain TCP below
    finally:
        await client.close()
    causes = await asyncio.gather(*(_tcp_cause(server, timeout_s) for server in servers))
    if len(servers) > 1:
        causes = [f"{server} {cause}" for server, cause in zip(servers, causes, strict=True)]
    raise ServiceUnavailable(KAFKA, location, "; ".join(causes))


def _parse_bootstrap(bootstrap: str) -> list[str]:
    servers = []
    for item in (part.strip() for part in bootstrap.split(",")):
        try:
            parts = urlsplit(f"//{item}")
            host, port = parts.hostname, parts.port
        except ValueError:
            host = None
        if not host or parts.path or parts.username:
            raise ConfigurationError(
                f"invalid setting TURNCHECK_KAFKA_BOOTSTRAP: {item!r} is not host:port"
            )
        servers.append(f"{parts.netloc}" if port else f"{parts.netloc}:{KAFKA_DEFAULT_PORT}")
    return servers


async def _tcp_cause(server: str, timeout_s: float) -> str:
    parts = urlsplit(f"//{server}")
    try:
        async with asyncio.timeout(timeout_s):
            _, writer = await asyncio.open_connection(parts.hostname, parts.port)
    except TimeoutError:
        return f"no answer within {timeout_s:g} s"
    except OSError as exc:
        return os_cause(exc) or type_words(type(exc).__name__)
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return "accepts connections but does not answer as a Kafka broker"


@contextlib.contextmanager
def _quiet(name: str) -> Iterator[None]:
    """aiokafka logs every failed connection at ERROR; the probe reports it once, itself."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)
