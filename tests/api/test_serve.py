"""``turncheck serve`` as a user runs it, and the API inside ``turncheck run``."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import AUTH, TOKEN
from tests.cli.test_commands import turncheck
from tests.conftest import fresh_store
from tests.factories import BANNED_WORDS_CHECKS, turn_bytes
from tests.kafka.backends import MemoryBackend, topic_names
from turncheck.worker.app import build_worker, plan
from turncheck.worker.settings import Settings


def test_serve_without_a_token_on_a_public_host_is_refused_before_the_database(
    tmp_path: Path, closed_port: int
) -> None:
    done = turncheck(
        "serve",
        cwd=tmp_path,
        TURNCHECK_API_HOST="0.0.0.0",
        TURNCHECK_DATABASE_URL=f"postgresql+asyncpg://u:p@127.0.0.1:{closed_port}/x",
    )
    assert done.returncode == 2
    assert b"TURNCHECK_API_TOKEN" in done.stderr and b"Traceback" not in done.stderr


def test_serve_on_a_port_in_use_is_one_line_naming_it(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = turncheck("serve", cwd=tmp_path, TURNCHECK_API_PORT=str(port))
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}".encode() in done.stderr
    assert b"Traceback" not in done.stderr


def test_serve_answers_until_sigterm(tmp_path: Path, closed_port: int) -> None:
    port = closed_port
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "turncheck.worker", "serve"],
        cwd=tmp_path,
        env={**clean, "TURNCHECK_API_PORT": str(port), "TURNCHECK_API_TOKEN": TOKEN},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/v1/pass-rates", headers=AUTH)
                break
            except httpx.ConnectError:
                assert process.poll() is None, process.communicate()[1]
                assert time.monotonic() < deadline, "serve did not start"
                time.sleep(0.1)
        assert response.status_code == 200
        assert response.json()["rates"] == []
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, stderr
    assert b"/v1/pass-rates" not in stderr  # no access log: paths hold person ids


async def test_the_worker_serves_the_api_on_its_own_loop(tmp_path: Path, closed_port: int) -> None:
    """With api_in_run, `turncheck run` answers on the API port and stops it on shutdown."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    backend = MemoryBackend()
    settings = Settings(
        kafka_bootstrap=backend.bootstrap,
        database_url=f"sqlite+aiosqlite:///{tmp_path}/t.db",
        checks=[checks],
        batch_timeout_ms=50,
        shutdown_timeout_s=5,
        api_in_run=True,
        api_port=closed_port,
        api_token=TOKEN,
        **topic_names(),
    )
    store = await fresh_store(settings.database_url)
    app = build_worker(plan(settings), store=store)
    base = f"http://127.0.0.1:{closed_port}"
    async with backend.running(app, []), httpx.AsyncClient(base_url=base, headers=AUTH) as client:
        await backend.produce(settings.topic_turns, [(b"t-1", turn_bytes("t-1", "Ask HelpCo."))])
        for _ in range(200):
            response = await client.get("/v1/turns/t-1/results")
            if response.status_code == 200:
                break
            await asyncio.sleep(0.05)
        assert response.status_code == 200, response.text
        verdicts = {r["check"]: r["verdict"] for r in response.json()["results"]}
        assert verdicts == {"no-competitors": "failed", "no-ticket-ids": "passed"}
    async with httpx.AsyncClient() as after:
        with pytest.raises(httpx.ConnectError):
            await after.get(f"{base}/healthz")
