"""Prometheus itself on the operators' view: promtool accepts the scrape config and parses
every dashboard query, and a real Prometheus, scraping a real API with the shipped scrape
config, answers each query with a series (the lag's with the real broker only). Skipped
without Prometheus' tools on the PATH (Debian: ``apt-get install prometheus``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.api.conftest import AUTH, TOKEN, result
from tests.kafka.backends import RealBackend, topic_names
from tests.test_ops_dashboard import OPS, PROMETHEUS, expressions, promql, seeded_api
from turncheck.worker.checks import Verdict
from turncheck.worker.runtime import metrics as process

PROMTOOL = shutil.which("promtool")
SERVER = shutil.which("prometheus")
# Under CI (scripts/test.sh installs Debian's prometheus there) a missing tool fails the
# tests instead of skipping them, so a green CI always ran them.
_UNDER_CI = bool(os.environ.get("CI"))
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None and not _UNDER_CI, reason="promtool is not installed"
)
needs_prometheus = pytest.mark.skipif(
    SERVER is None and not _UNDER_CI, reason="prometheus is not installed"
)

# Series only a broker gives: the API under test has none configured.
FROM_THE_BROKER = "turncheck_consumer_lag"


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=60)


@needs_promtool
def test_promtool_accepts_the_scrape_config() -> None:
    """``promtool check config`` on ops/prometheus/prometheus.yml as shipped."""
    done = promtool("check", "config", str(OPS / "prometheus/prometheus.yml"))
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_promtool_parses_every_dashboard_query(tmp_path: Path) -> None:
    """Each query, Grafana's variables put in, is valid PromQL: promtool checks them as the
    expressions of recording rules."""
    rules = [
        {"record": f"dashboard:query_{n}", "expr": promql(expr)}
        for n, (_, expr) in enumerate(expressions())
    ]
    path = tmp_path / "queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    done = promtool("check", "rules", str(path))
    assert done.returncode == 0, done.stdout + done.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@asynccontextmanager
async def prometheus(tmp_path: Path, target: str, token: str) -> AsyncIterator[httpx.AsyncClient]:
    """Prometheus on a free loopback port with the shipped scrape config, pointed at
    ``target`` with ``token`` and scraping every second; a client of its HTTP API."""
    assert SERVER is not None
    config: dict[str, Any] = yaml.safe_load(yaml.safe_dump(PROMETHEUS))
    config["global"]["scrape_interval"] = "1s"
    [job] = config["scrape_configs"]
    job["static_configs"] = [{"targets": [target]}]
    job["authorization"]["credentials"] = token
    job["scrape_timeout"] = "1s"
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log = (tmp_path / "prometheus.log").open("w")
    server = await asyncio.create_subprocess_exec(
        SERVER,
        f"--config.file={tmp_path / 'prometheus.yml'}",
        f"--storage.tsdb.path={tmp_path / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=log,
    )
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
            for _ in range(100):
                try:
                    if (await client.get("/-/ready")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert server.returncode is None, (tmp_path / "prometheus.log").read_text()
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("Prometheus was not ready within 10 s")
            yield client
    finally:
        server.terminate()
        await server.wait()
        log.close()


async def query(client: httpx.AsyncClient, expr: str) -> list[Any]:
    response = await client.get("/api/v1/query", params={"query": expr})
    assert response.status_code == 200, response.text
    found: list[Any] = response.json()["data"]["result"]
    return found


async def answers(tmp_path: Path, api: httpx.AsyncClient) -> dict[str, list[Any]]:
    """Each dashboard query (by "panel: query") as a real Prometheus answers it, scraping
    ``api`` with the shipped config while the process counts what a pipeline would."""
    async with prometheus(tmp_path, api.base_url.netloc.decode(), TOKEN) as client:
        await scraped(client, times=3)
        # Counted between scrapes, so that rates have a rise.
        stored = [result("a", Verdict.PASSED), result("b", Verdict.FAILED)]
        process.batch_stored(2, stored, expired=1, shadow=stored[1:])
        process.alert_sent("sent")
        await scraped(client, times=2)
        return {
            f"{title}: {expr}": await query(client, promql(expr)) for title, expr in expressions()
        }


@needs_prometheus
async def test_a_real_prometheus_answers_every_dashboard_query(tmp_path: Path) -> None:
    """Prometheus scrapes a real API (bearer token, /metrics) and each query gives a series,
    but the broker's lag, which an API without a broker leaves out."""
    async with seeded_api(tmp_path) as api:
        found = await answers(tmp_path, api)
    assert [q for q, series in found.items() if not series and FROM_THE_BROKER not in q] == []


@needs_prometheus
@pytest.mark.kafka
async def test_with_a_broker_the_lag_panels_have_a_line_per_partition(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    """With the real broker, the lag queries answer too: one series per partition."""
    names = topic_names()
    backend = RealBackend(kafka_bootstrap)
    await backend.create_topics(names["topic_turns"])
    await backend.produce(names["topic_turns"], [(b"k", b"{}")] * 9)
    settings = {
        "kafka_bootstrap": kafka_bootstrap,
        "topic_turns": names["topic_turns"],
        "group_id": names["group_id"],
    }
    async with seeded_api(tmp_path, **settings) as api:
        for _ in range(50):  # a new topic's partitions take a moment to have leaders
            if FROM_THE_BROKER in (await api.get("/metrics", headers=AUTH)).text:
                break
            await asyncio.sleep(0.1)
        found = await answers(tmp_path, api)
    assert [q for q, series in found.items() if not series] == []
    [per_partition] = [s for q, s in found.items() if q.startswith("Consumer lag per partition")]
    assert sorted(s["metric"]["partition"] for s in per_partition) == ["0", "1", "2"]


async def scraped(client: httpx.AsyncClient, times: int) -> None:
    """Wait until Prometheus has scraped the API ``times`` more times, all successfully."""
    count = 'count_over_time(up{job="turncheck"}[1h])'
    start = await query(client, count)
    before = int(start[0]["value"][1]) if start else 0
    for _ in range(200):
        now = await query(client, count)
        if now and int(now[0]["value"][1]) >= before + times:
            assert (await query(client, 'up{job="turncheck"}'))[0]["value"][1] == "1"
            return
        await asyncio.sleep(0.1)
    raise AssertionError("Prometheus did not scrape the API")
