"""How long the web pages take over a large results table, PostgreSQL.

Seeds RESULTS results (bench/seeding.py: 30 checks of one agent over 14 days, as the
store keeps them), serves the app under uvicorn on loopback as ``turncheck serve`` does,
signs in, and times each page over HTTP, median of nine after a warm-up: the overview,
a check page (its charts, counts, reasons and first page of failing turns), that check's
next page of failing turns, a turn, the alerts. Beside them in the same run, the API's
own JSON answer for the same figures (``/v1/pass-rates`` for the overview, the check's
``/v1/checks/{check}/results`` for its page): a page's ratio to it is the figure that
survives a noisy machine.

Works in a database of its own on the server of ``TURNCHECK_TEST_DATABASE_URL``,
dropped at the end. Needs `eval "$(bash scripts/services.sh start)"`.
Run: python bench/pages.py [RESULTS]
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from seeding import AGENT, CHECKS, seed  # noqa: E402

from tests.api.conftest import api_settings, running_api  # noqa: E402
from tests.conftest import scratch_database  # noqa: E402
from turncheck.worker.settings import Settings  # noqa: E402
from turncheck.worker.store import Store  # noqa: E402
from turncheck.worker.store.migrate import migrate  # noqa: E402

RUNS = 9
TOKEN = "bench-token"


async def median_s(client: httpx.AsyncClient, path: str, **params: str) -> float:
    response = await client.get(path, params=params)  # the warm-up, and a check it answers
    assert response.status_code == 200, (path, response.status_code, response.text[:300])
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        response = await client.get(path, params=params)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200
    return statistics.median(times)


async def main(total: int) -> None:
    server = os.environ["TURNCHECK_TEST_DATABASE_URL"]
    async with scratch_database(server, "bench_pages") as url:
        await asyncio.to_thread(migrate, url)
        store = Store.open(url, events_topic="bench.events")
        try:
            seeded = time.perf_counter()
            await seed(store.database, total)
            seeded = time.perf_counter() - seeded
            settings = api_settings(url, api_token=TOKEN)
            figures, peers = await measure(settings, store)
        finally:
            await store.close()
    print(f"results: {total:,} over {CHECKS} checks and 14 days (seeded in {seeded:.0f} s)")
    for name, seconds in figures.items():
        peer = peers.get(name)
        versus = f"   {seconds / peer:5.1f}x the API's JSON ({peer * 1000:.1f} ms)" if peer else ""
        print(f"{name:<18} {seconds * 1000:8.1f} ms{versus}")


async def measure(settings: Settings, store: Store) -> tuple[dict[str, float], dict[str, float]]:
    """Each page's median, and the API's for the same figures."""
    async with running_api(settings, store, clock=lambda: datetime.now(UTC)) as client:
        signed = await client.post("/ui/sign-in", data={"token": TOKEN, "next": "/ui/"})
        assert signed.status_code == 303, signed.text[:300]
        check = "check-3"
        since = (datetime.now(UTC) - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
        api = {"Authorization": f"Bearer {TOKEN}"}
        page = (await client.get(f"/ui/checks/{AGENT}/{check}")).text
        older = re.search(r'href="([^"]*(?:cursor|after|before)=[^"]*)"', page)
        turn = re.search(r'href="/ui/turns/([^"]+)"', page)
        figures = {
            "overview": await median_s(client, "/ui/"),
            "check": await median_s(client, f"/ui/checks/{AGENT}/{check}"),
            "check, next page": (
                await median_s(client, older.group(1).replace("&amp;", "&"))
                if older
                else float("nan")
            ),
            "turn": await median_s(client, f"/ui/turns/{turn.group(1)}") if turn else float("nan"),
            "alerts": await median_s(client, "/ui/alerts"),
        }
        client.headers.update(api)
        peers = {
            "overview": await median_s(client, "/v1/pass-rates", since=since),
            "check": await median_s(client, f"/v1/checks/{check}/results", since=since),
        }
    return figures, peers


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000))
