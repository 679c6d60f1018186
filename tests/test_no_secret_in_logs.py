"""A scan with canary secrets and person ids: the real ``turncheck run`` and ``turncheck
serve``, on the real broker, PostgreSQL, webhook receivers and judge on loopback, write
no webhook token or password, judge key, API token, turn link token, person id or turn
text to any log line, in either format, at their own level and at DEBUG."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import make_url

from tests.conftest import fresh_store, scratch_database, service
from tests.factories import turn_bytes
from tests.judge.fake_provider import FakeProvider, Scripted
from tests.kafka.backends import RealBackend, topic_names
from tests.kafka.test_worker_contract import stored_turns, wait_for
from tests.tcp_proxy import TcpProxy
from tests.webhooks.receiver import Receiver, receiving
from tests.webhooks.support import SECRET
from turncheck.worker.store import Store
from turncheck.worker.store.webhook_admin import WebhookEndpoints

pytestmark = [pytest.mark.kafka, pytest.mark.postgres]

ROOT = Path(__file__).parents[1]
TOKEN = "CANARYTOKEN4q"
PASSWORD = "CANARYPW8z"
JUDGE_KEY = "CANARYKEY2m"
API_TOKEN = "CANARYAPI5k"
TEXT = "CANARYTEXT3w"  # in the turns' answers, which the judge reads too
LINK_TOKEN = "CANARYLINK7r"  # in TURNCHECK_TURN_URL's query
KAFKA_PERSON = "canary.kafka@example.com"
API_PERSON = "canary.person@example.com"
DOWN_PERSON = "canary.down@example.com"
TURN_PERSON = "canary.turn@example.com"
CANARIES = (TOKEN, PASSWORD, JUDGE_KEY, API_TOKEN, TEXT, LINK_TOKEN, "canary.")
ERASURE_KEY = "test-erasure-key"
CHECKS = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [HelpCo]
  - name: polite
    kind: judge
    criteria: polite_tone
    mode: background
    sample_rate: 1.0
    judge_model: judge-small
"""

LEVELS = [
    pytest.param("text", None, id="text"),
    pytest.param("json", None, id="json"),
    pytest.param("text", "debug", id="text-debug"),
    pytest.param("json", "debug", id="json-debug"),
]


def leaks(log: str) -> dict[str, int]:
    """How many times each canary appears in ``log``."""
    found = {canary: log.count(canary) for canary in CANARIES}
    return {canary: n for canary, n in found.items() if n}


def clean_env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    return {**env, "TURNCHECK_RETENTION_DAYS": "36500", **values}


async def turncheck(command: str, env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "turncheck.worker",
        command,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


async def stop(process: asyncio.subprocess.Process) -> str:
    """SIGTERM, then everything the process wrote on standard error."""
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.communicate()
    return stderr.decode()


@asynccontextmanager
async def canary_receivers(closed_port: int) -> AsyncIterator[tuple[Receiver, Receiver, str]]:
    """Two receivers, one behind a token in the query string that first answers 500, one
    behind a user and password; and a webhook URL where nothing listens."""
    async with receiving() as by_token, receiving() as by_password:
        by_token.script = [(500, {})]
        hooks = [
            {"name": "token", "url": f"{by_token.url}?token={TOKEN}", "secret": SECRET},
            {
                "name": "password",
                "url": by_password.url.replace("http://", f"http://ops:{PASSWORD}@"),
                "secret": SECRET,
            },
            {
                "name": "down",
                "url": f"http://127.0.0.1:{closed_port}/hooks?token={TOKEN}",
                "secret": SECRET,
            },
        ]
        yield by_token, by_password, json.dumps(hooks)


async def run_worker(
    env: dict[str, str], store: Store, backend: RealBackend, topics: dict[str, str], closed: int
) -> str:
    """``turncheck run`` until the receivers have events, the judge answered and the person
    erased on the erasure topic is gone; its log."""
    with FakeProvider() as judge:
        # A provider's real 401 body, then good answers.
        judge.script(Scripted(status=401, body=b'{"error": {"message": "Incorrect API key"}}'))
        async with canary_receivers(closed) as (by_token, by_password, hooks):
            judges = {
                "judge-small": {
                    "provider": "openai",
                    "base_url": judge.openai_url,
                    "api_key_env": "CANARY_JUDGE_KEY",
                }
            }
            worker = await turncheck(
                "run",
                {
                    **env,
                    "TURNCHECK_WEBHOOKS": hooks,
                    "TURNCHECK_JUDGES": json.dumps(judges),
                    "CANARY_JUDGE_KEY": JUDGE_KEY,
                },
            )
            try:
                endpoints = WebhookEndpoints(store.database)

                async def recorded() -> bool:
                    assert worker.returncode is None, "the worker stopped"
                    return len(await endpoints.status()) == 3

                await wait_for(recorded, timeout_s=60)
                now = datetime.now(UTC).isoformat()
                turns = [
                    (f"k-{n}".encode(), turn_bytes(f"k-{n}", f"Ask HelpCo. {TEXT}", **person))
                    for n, person in enumerate(
                        [
                            {"person_id": KAFKA_PERSON, "created_at": now},
                            {"person_id": API_PERSON, "created_at": now},
                            {"person_id": TURN_PERSON, "created_at": now},
                        ]
                    )
                ]
                await backend.produce(topics["topic_turns"], turns)
                await wait_for(lambda: stored_turns(store, "k-0", "k-1", "k-2"), timeout_s=60)
                request = {"person_id": KAFKA_PERSON, "requested_at": now}
                await backend.produce(
                    topics["topic_erasure"], [(KAFKA_PERSON.encode(), json.dumps(request).encode())]
                )

                async def settled() -> bool:
                    erased = not await store.queries.results_for_turn("k-0")
                    judged = len(judge.requests) >= 3
                    delivered = by_token.requests and by_password.requests
                    return bool(erased and judged and delivered and len(by_token.requests) > 1)

                await wait_for(settled, timeout_s=60)
            finally:
                log = await stop(worker)
    return log


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def run_serve(env: dict[str, str], database_url: str) -> str:
    """``turncheck serve`` behind a proxy to PostgreSQL: a person erased, then the
    database cut and more persons asked for; its log."""
    url = make_url(database_url)
    proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.start()
    port = _free_port()
    proxied = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    server = await turncheck(
        "serve",
        {**env, "TURNCHECK_DATABASE_URL": proxied, "TURNCHECK_API_PORT": str(port)},
    )
    auth = {"Authorization": f"Bearer {API_TOKEN}"}
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=auth) as api:
            deadline = time.monotonic() + 60
            while True:
                try:
                    erased = await api.delete(f"/v1/persons/{API_PERSON}")
                    break
                except httpx.TransportError:
                    assert server.returncode is None, "serve stopped"
                    assert time.monotonic() < deadline, "serve did not start"
                    await asyncio.sleep(0.1)
            assert erased.status_code == 200, erased.text
            assert erased.json()["deleted"]["results"] >= 1
            assert (await api.get(f"/v1/persons/{API_PERSON}?token={TOKEN}")).status_code < 500
            await proxy.cut()
            down = await api.delete(f"/v1/persons/{DOWN_PERSON}?token={TOKEN}")
            assert down.status_code == 503, down.text
    finally:
        log = await stop(server)
        await proxy.cut()
    return log


@pytest.mark.parametrize(("log_format", "log_level"), LEVELS)
async def test_no_secret_or_person_id_in_any_log_line_of_run_or_serve(
    log_format: str, log_level: str | None, kafka_bootstrap: str, closed_port: int, tmp_path: Path
) -> None:
    """Webhook tokens and passwords, the judge key, the API token, TURNCHECK_TURN_URL's
    token and person ids erased
    by the API and on the erasure topic appear in no log line of ``run`` or ``serve``."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(CHECKS)
    topics = {**topic_names(), "topic_erasure": f"erasure-{topic_names()['group_id']}"}
    backend = RealBackend(kafka_bootstrap)
    await backend.create_topics(*(v for k, v in topics.items() if k.startswith("topic_")))
    async with AsyncExitStack() as stack:
        database_url = await stack.enter_async_context(
            scratch_database(service("TURNCHECK_TEST_DATABASE_URL"), "canary")
        )
        store = await fresh_store(database_url, topics["topic_events"])
        stack.push_async_callback(store.close)
        env = clean_env(
            TURNCHECK_KAFKA_BOOTSTRAP=kafka_bootstrap,
            TURNCHECK_DATABASE_URL=database_url,
            TURNCHECK_CHECKS=str(checks),
            TURNCHECK_LOG_FORMAT=log_format,
            TURNCHECK_ERASURE_KEY=ERASURE_KEY,
            TURNCHECK_API_TOKEN=API_TOKEN,
            TURNCHECK_TURN_URL=f"https://chat.example.com/t/{{turn_id}}?token={LINK_TOKEN}",
            TURNCHECK_WEBHOOK_ALLOW_PRIVATE="true",
            TURNCHECK_WEBHOOK_INTERVAL_S="0.05",
            TURNCHECK_WEBHOOK_RETRY_FIRST_S="0.1",
            TURNCHECK_OUTBOX_INTERVAL_S="0.05",
            TURNCHECK_BATCH_TIMEOUT_MS="50",
            TURNCHECK_SHUTDOWN_TIMEOUT_S="5",
            **{f"TURNCHECK_{name.upper()}": value for name, value in topics.items()},
            **({"TURNCHECK_LOG_LEVEL": log_level} if log_level else {}),
        )
        worker_log = await run_worker(env, store, backend, topics, closed_port)
        serve_log = await run_serve(env, database_url)
    found = {"run": leaks(worker_log), "serve": leaks(serve_log)}
    assert found == {"run": {}, "serve": {}}, (found, _lines_with_canaries(worker_log + serve_log))
    # The lines the canaries would have been in were written.
    assert "/v1/persons/{person_id}" in serve_log
    assert "webhook" in worker_log
    if log_format == "json":
        for line in (worker_log + serve_log).splitlines():
            json.loads(line)


def _lines_with_canaries(log: str) -> list[str]:
    return [line[:300] for line in log.splitlines() if leaks(line)][:10]
