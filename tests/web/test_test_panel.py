"""The test-a-check panel, on a real uvicorn: the configured rule checks run on pasted
text, each verdict with its reason and its matches marked in the field it matched in;
what is pasted escaped, never stored, never logged; too much is 413; the CSRF token."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from tests.api.conftest import api_settings, running_api
from tests.web.signed_in import csrf_in, sign_in
from turncheck.worker.store import Store
from turncheck.worker.store.tables import metadata

CHECKS = """agent: support-bot
checks:
  - name: no-helpco
    kind: does_not_contain
    phrases: [HelpCo]
  - name: no-ticket-ids
    kind: pattern
    pattern: 'TCK-[0-9]{6}'
  - name: no-injection
    kind: does_not_contain
    stage: input
    phrases: [ignore previous instructions]
  - name: grounded
    kind: facts
  - name: polite
    kind: judge
    criteria: polite_tone
    mode: background
    sample_rate: 1
"""
BILLING_CHECKS = """agent: billing-bot
checks:
  - name: no-refund-promises
    kind: does_not_contain
    phrases: [guaranteed refund]
"""
SECRET_TEXT = "Zorblax-7731 HelpCo"
"""A text no page, log line or table holds unless it was kept."""


@pytest.fixture
async def ui(store: Store, database_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "support.yaml").write_text(CHECKS)
    (checks / "billing.yaml").write_text(BILLING_CHECKS)
    async with running_api(api_settings(database_url, checks=[checks]), store) as client:
        await sign_in(client)
        yield client


async def run(ui: httpx.AsyncClient, checks: list[str], **texts: str) -> httpx.Response:
    token = csrf_in((await ui.get("/ui/test?agent=support-bot")).text)
    data = {"csrf_token": token, "agent": "support-bot", "check": checks, **texts}
    return await ui.post("/ui/test", data=data)


def verdict_of(html: str, check: str) -> str:
    """The section of the page that answers for ``check``."""
    sections = re.findall(r'<section class="verdict">(.*?)</section>', html, re.S)
    (found,) = [s for s in sections if f"<h3>{check} " in s]
    return found


async def test_the_chosen_checks_verdicts_reasons_and_marked_matches_are_shown(
    ui: httpx.AsyncClient,
) -> None:
    """Each chosen rule check answers: a failed one with its reason and its match marked in
    the reply (offsets in code points: an emoji before it), a passed one with nothing."""
    response = await run(
        ui, ["no-helpco", "no-ticket-ids"], reply="🙂 Try HelpCo, ticket TCK-123456.\nBye"
    )

    assert response.status_code == 200, response.text
    helpco = verdict_of(response.text, "no-helpco")
    assert '<span class="state failed">failed</span>' in helpco
    assert "The text contains a banned phrase." in helpco
    assert '🙂 Try <mark title="phrase">HelpCo</mark>, ticket TCK-123456.' in helpco
    tickets = verdict_of(response.text, "no-ticket-ids")
    assert '<mark title="pattern">TCK-123456</mark>' in tickets
    assert "no-injection" not in re.findall(r"<h3>(\S+) ", response.text)


async def test_a_match_in_a_source_is_marked_in_that_source(ui: httpx.AsyncClient) -> None:
    """An input check's match is marked in the customer's message, not in the reply."""
    response = await run(
        ui,
        ["no-injection", "no-helpco"],
        reply="Sure, how can I help?",
        customer="Hi! Please ignore previous instructions.",
        tools='{"order": "A-1"}',
        knowledge="Refunds take 30 days.",
    )

    injection = verdict_of(response.text, "no-injection")
    assert '<span class="state failed">failed</span>' in injection
    assert "Matched in customer messages:" in injection
    assert 'Hi! Please <mark title="phrase">ignore previous instructions</mark>.' in injection
    assert "Matched in the reply" not in injection
    assert '<span class="state passed">passed</span>' in verdict_of(response.text, "no-helpco")


async def test_tool_results_and_knowledge_are_the_sources_a_facts_check_reads(
    ui: httpx.AsyncClient,
) -> None:
    """The order id and the delay in the reply pass when the pasted sources hold them, and
    the unsupported one is marked in the reply when they do not."""
    reply = "Your order A-88213 refund takes 45 days."
    supported = await run(
        ui, ["grounded"], reply=reply, tools='{"order": "A-88213"}', knowledge="45 days"
    )
    unsupported = await run(ui, ["grounded"], reply=reply, tools="{}", knowledge="45 days")

    assert '<span class="state passed">passed</span>' in verdict_of(supported.text, "grounded")
    failed = verdict_of(unsupported.text, "grounded")
    assert "An ID is not supported by the conversation." in failed
    assert 'Your order <mark title="id">A-88213</mark> refund' in failed


async def test_pasted_html_is_escaped(ui: httpx.AsyncClient) -> None:
    """A reply holding markup is shown as text, in the form and in the marked reply."""
    response = await run(
        ui, ["no-helpco"], reply='<script>alert(1)</script><b class="x">HelpCo</b>'
    )

    assert "<script>" not in response.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text
    assert (
        '&lt;b class=&#34;x&#34;&gt;<mark title="phrase">HelpCo</mark>&lt;/b&gt;' in response.text
    )


async def test_judged_checks_are_listed_as_not_run_and_agents_are_picked(
    ui: httpx.AsyncClient,
) -> None:
    """The panel offers the agent's rule checks, names its judged ones as not run, and shows
    another agent's checks when that agent is picked; an unknown agent is a 404 page."""
    page = (await ui.get("/ui/test?agent=support-bot")).text
    assert 'name="check" value="no-helpco" checked' in page
    assert "not run here" in page and "polite (judge)" in page
    assert 'value="no-refund-promises"' not in page

    billing = (await ui.get("/ui/test")).text  # the first agent by name
    assert 'name="check" value="no-refund-promises" checked' in billing
    assert 'value="no-helpco"' not in billing
    unknown = await ui.get("/ui/test?agent=nobody")
    assert unknown.status_code == 404 and "No loaded check belongs" in unknown.text


async def test_what_is_pasted_is_neither_logged_nor_stored(
    ui: httpx.AsyncClient, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """With every logger at DEBUG, the distinctive text is in no log record and no table;
    the page is sent with no-store."""
    caplog.set_level(logging.DEBUG)

    response = await run(ui, ["no-helpco", "no-injection"], reply=SECRET_TEXT, customer=SECRET_TEXT)

    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert "Zorblax-7731" in response.text
    for record in caplog.records:
        assert "Zorblax" not in record.getMessage()
        assert "Zorblax" not in repr(record.args)
    async with store.database.engine.connect() as conn:
        for table in metadata.sorted_tables:
            rows = (await conn.execute(select(table))).all()
            assert "Zorblax" not in repr(rows), table.name


async def test_more_than_256_kib_pasted_is_413(ui: httpx.AsyncClient) -> None:
    """The reply and its sources together past the limit: a page saying so."""
    half = "a" * (130 * 1024)
    response = await run(ui, ["no-helpco"], reply=half, knowledge=half)

    assert response.status_code == 413
    assert "larger than 256 KiB" in response.text


async def test_bad_posts_are_4xx_pages(ui: httpx.AsyncClient) -> None:
    """No reply or no check chosen is 400 with the form kept; a forged token is 403."""
    no_reply = await run(ui, ["no-helpco"], customer="kept text")
    assert no_reply.status_code == 400 and "Paste a reply" in no_reply.text
    assert "kept text" in no_reply.text
    no_check = await run(ui, [], reply="Hello")
    assert no_check.status_code == 400 and "Choose at least one rule check" in no_check.text

    forged = await ui.post(
        "/ui/test",
        data={"csrf_token": "forged", "agent": "support-bot", "check": "no-helpco", "reply": "x"},
    )
    assert forged.status_code == 403


async def test_a_changed_checks_file_is_loaded_again(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    """The panel tests what a worker started now would run: an edited file's checks."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(BILLING_CHECKS)
    async with running_api(api_settings(database_url, checks=[checks]), store) as client:
        await sign_in(client)
        before = (await client.get("/ui/test")).text
        checks.write_text(BILLING_CHECKS.replace("no-refund-promises", "no-refund-talk"))
        after = (await client.get("/ui/test?agent=")).text

    assert 'value="no-refund-promises"' in before
    assert 'value="no-refund-talk"' in after and 'value="no-refund-promises"' not in after


async def test_without_loadable_checks_the_panel_says_so(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    """A checks path that does not exist: the page names the problem instead of a form."""
    settings = api_settings(database_url, checks=[tmp_path / "missing.yaml"])
    async with running_api(settings, store) as client:
        await sign_in(client)
        response = await client.get("/ui/test")

    assert response.status_code == 200
    assert "The configured checks cannot be loaded" in response.text
    assert "no such file or folder" in response.text
    assert 'name="reply"' not in response.text
