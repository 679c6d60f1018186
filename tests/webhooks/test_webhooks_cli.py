"""`turncheck webhooks status` and `enable`, run as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_commands import turncheck
from tests.conftest import fresh_store
from tests.store.outbox_rows import add_events
from tests.webhooks.support import Clock
from turncheck.worker.store.webhook_admin import Configured, WebhookEndpoints
from turncheck.worker.store.webhooks import WebhookTable


async def test_status_shows_a_disabled_endpoint_and_enable_brings_it_back(tmp_path: Path) -> None:
    """Status tells why an endpoint is disabled and its backlog; enable clears it; an unknown name exits 1."""
    url = f"sqlite+aiosqlite:///{tmp_path}/t.db"
    store = await fresh_store(url)
    clock = Clock()
    await WebhookEndpoints(store.database).sync([Configured("ops", "d1", True)], clock())
    await add_events(store, 2, now=clock())
    table = WebhookTable(store.database)
    assert await table.claim("ops", "me", clock(), clock())
    await table.disable("ops", "me", status=410, reason="HTTP 410 Gone", now=clock())
    await store.close()
    env = {"TURNCHECK_DATABASE_URL": url}

    shown = turncheck("webhooks", "status", "--json", cwd=tmp_path, **env)
    assert shown.returncode == 0, shown.stderr
    [row] = json.loads(shown.stdout)
    assert (row["name"], row["enabled"], row["disabled_reason"]) == ("ops", False, "HTTP 410 Gone")
    assert (row["backlog"], row["last_status"]) == (2, 410)

    table_text = turncheck("webhooks", "status", cwd=tmp_path, **env)
    assert "disabled: HTTP 410 Gone" in table_text.stdout.decode()

    enabled = turncheck("webhooks", "enable", "ops", cwd=tmp_path, **env)
    assert enabled.returncode == 0, enabled.stderr
    [row] = json.loads(turncheck("webhooks", "status", "--json", cwd=tmp_path, **env).stdout)
    assert (row["enabled"], row["disabled_reason"]) == (True, None)

    unknown = turncheck("webhooks", "enable", "nope", cwd=tmp_path, **env)
    assert unknown.returncode == 1
    assert b"no webhook endpoint named 'nope'" in unknown.stderr
