"""The test-a-check panel runs ``script`` checks on pasted text, off the event loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import api_settings, running_api
from tests.web.signed_in import sign_in
from tests.web.test_test_panel import run, verdict_of
from turncheck.worker.store import Store

CHECKS = """agent: support-bot
checks:
  - name: sold-out-offered
    kind: script
    script: |
      const tools = JSON.parse(variables.history).filter(m => m.role === 'tool');
      const soldOut = tools.some(m => m.content.includes('"stock": 0'));
      const offered = variables.response.indexOf('in stock');
      const fails = soldOut && offered >= 0;
      response.setResponse({pass: !fails, matches: fails ? ['in stock'] : []});
"""


@pytest.fixture
async def ui(store: Store, database_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "support.yaml").write_text(CHECKS)
    async with running_api(api_settings(database_url, checks=[checks]), store) as client:
        await sign_in(client)
        yield client


async def test_a_script_check_reads_the_pasted_tool_results(ui: httpx.AsyncClient) -> None:
    """The pasted tool results are the script's history: its verdict and match are shown."""
    response = await run(
        ui, ["sold-out-offered"], reply="The X1 is in stock.", tools='{"sku": "X1", "stock": 0}'
    )
    assert response.status_code == 200, response.text
    found = verdict_of(response.text, "sold-out-offered")
    assert '<span class="state failed">failed</span>' in found
    assert "The script failed the reply." in found
    assert 'The X1 is <mark title="script">in stock</mark>.' in found
