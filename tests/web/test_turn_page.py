"""The turn page on a real uvicorn over SQLite and PostgreSQL: the turn's metadata and
every stored result (verdict, reason, score, spans as offsets, judge tokens, a rubric's
answers), labels set, replaced and cleared from it, and what it refuses."""

from __future__ import annotations

import re

import httpx

from tests.api.conftest import AUTH, RETENTION, result, turn
from tests.factories import FIXED_NOW
from tests.web.signed_in import csrf_in, signed_in
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.pipeline.records import TurnResults
from turncheck.worker.store import Store

SECRET_TEXT = "HelpCo-is-better"
ZONE = "Pacific/Auckland"
"""UTC+13 in November: the turn's 10:00 UTC is 23:00 there, checked_at's 12:00 the next day."""


def judged() -> CheckResult:
    return CheckResult(
        CheckId("grounded", "j7", "llm_judge", "output", "background"),
        Verdict.PASSED,
        reason="The reply cites the help page.",
        score=0.82,
        usage={"input_tokens": 1234, "output_tokens": 56},
    )


def rubric() -> CheckResult:
    return CheckResult(
        CheckId("tone", "r3", "rubric", "output", "background"),
        Verdict.FAILED,
        reason="Curt to the person.",
        score=0.25,
        usage={"input_tokens": 900, "output_tokens": 12},
        answers={
            "polite": {"answer": "no", "probability": 0.91},
            "on_topic": {"answer": "yes", "probability": None},
        },
    )


async def seed(store: Store) -> None:
    """Turn t-1 (output with text that must never show) failed no-competitors, passed a
    judged check (shadow), failed a rubric, errored a fourth; turn c/d passed one check."""
    rows = [
        result("no-competitors", Verdict.FAILED),
        judged(),
        rubric(),
        result("pii", Verdict.ERRORED),
    ]
    first = turn("t-1", output=f"Try {SECRET_TEXT} instead.")
    await store.writer.save([TurnResults(first, rows, RETENTION)], FIXED_NOW)
    passed = [result("no-competitors", Verdict.PASSED)]
    await store.writer.save([TurnResults(turn("c/d"), passed, RETENTION)], FIXED_NOW)
    await store.rollouts.record({("support-bot", "grounded"): "shadow"}, FIXED_NOW)


def cells(html: str) -> str:
    """The page's text with tags and runs of spaces collapsed, to assert what is read."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


async def label(
    ui: httpx.AsyncClient, turn_path: str, check: str, action: str, note: str = ""
) -> httpx.Response:
    csrf = csrf_in((await ui.get(turn_path)).text)
    data = {"csrf_token": csrf, "check": check, "label": action, "note": note}
    return await ui.post(f"{turn_path}/label", data=data)


async def test_the_turn_page_shows_every_result_with_its_fields_and_no_turn_text(
    store: Store, database_url: str
) -> None:
    """Metadata in the configured zone, the conversation link, and per result its check
    link, version, rollout, verdict, reason, score, span offsets, tokens and answers."""
    await seed(store)
    turn_url = "https://chat.example/c/{thread_id}/{turn_id}"
    async with signed_in(store, database_url, alert_timezone=ZONE, turn_url=turn_url) as ui:
        response = await ui.get("/ui/turns/t-1")
    assert response.status_code == 200, response.text
    html, text = response.text, cells(response.text)
    assert SECRET_TEXT not in html and "p-1" not in html
    assert "support-bot" in text and "Agent version 7" in text and "th-1" in text
    assert "Turn ended 2026-11-29 23:00:00 (Pacific/Auckland)" in text
    assert 'href="https://chat.example/c/th-1/t-1"' in html
    for check in ("no-competitors", "grounded", "tone", "pii"):
        assert f'href="/ui/checks/support-bot/{check}"' in html
    assert "Checked at 2026-11-30 01:00:00" in text
    assert '<span class="state failed">failed</span>' in html
    assert '<span class="state passed">passed</span>' in html
    assert '<span class="state errored">errored</span>' in html
    assert html.count('class="state shadow"') == 1 and "Rollout shadow" in text
    assert "The text contains a banned phrase." in text
    assert "phrase output.text 3 9" in text
    assert "The reply cites the help page." in text and "Score 0.820" in text
    assert "Judge tokens 1234 in, 56 out" in text and "Judge tokens 900 in, 12 out" in text
    assert "polite no 0.910" in text and "on_topic yes unknown" in text
    assert "version j7" in text and "version r3" in text


async def test_a_label_is_set_replaced_and_cleared_from_the_turn_page(
    store: Store, database_url: str
) -> None:
    """Each POST answers 303 back to the turn, whose page then shows the label and its
    note (escaped); only failed results carry the form."""
    await seed(store)
    async with signed_in(store, database_url) as ui:
        page = (await ui.get("/ui/turns/t-1")).text
        forms = re.findall(r'name="check" value="([^"]+)"', page)
        assert forms == ["no-competitors", "tone"]

        set_ = await label(ui, "/ui/turns/t-1", "tone", "confirmed", "rude <b>really</b>")
        assert set_.status_code == 303 and set_.headers["location"] == "/ui/turns/t-1"
        shown = (await ui.get("/ui/turns/t-1")).text
        assert "<strong>confirmed</strong>" in shown
        assert "rude &lt;b&gt;really&lt;/b&gt;" in shown and "<b>really" not in shown

        replaced = await label(ui, "/ui/turns/t-1", "tone", "false_alarm")
        assert replaced.status_code == 303
        shown = (await ui.get("/ui/turns/t-1")).text
        assert "<strong>false alarm</strong>" in shown and "really" not in shown

        cleared = await label(ui, "/ui/turns/t-1", "tone", "clear")
        assert cleared.status_code == 303
        assert "<strong>" not in (await ui.get("/ui/turns/t-1")).text
        api = (await ui.get("/v1/turns/t-1/results", headers=AUTH)).json()["results"]
        assert [r["label"] for r in api] == [None, None, None, None]


async def test_a_turn_id_with_a_slash_is_shown_and_labelled(
    store: Store, database_url: str
) -> None:
    """``c/d`` quoted as ``c%2Fd`` opens its page; its passed result has no form and a
    label posted anyway is refused with the API's sentence."""
    await seed(store)
    async with signed_in(store, database_url) as ui:
        page = await ui.get("/ui/turns/c%2Fd")
        assert page.status_code == 200 and "<code>c/d</code>" in page.text
        assert 'name="check"' not in page.text
        refused = await label(ui, "/ui/turns/c%2Fd", "no-competitors", "confirmed")
    assert refused.status_code == 409
    assert "The result is passed: only a failed result can be labelled." in refused.text


async def test_labels_are_refused_without_csrf_and_for_what_cannot_take_them(
    store: Store, database_url: str
) -> None:
    """No CSRF token: 403 and nothing changes; an unknown check 404, an errored result
    409, a note too long or a bad choice 400, each an HTML page with the sentence."""
    await seed(store)
    async with signed_in(store, database_url) as ui:
        forged = await ui.post("/ui/turns/t-1/label", data={"check": "tone", "label": "confirmed"})
        assert forged.status_code == 403 and "text/html" in forged.headers["content-type"]
        assert "<strong>" not in (await ui.get("/ui/turns/t-1")).text

        missing = await label(ui, "/ui/turns/t-1", "nope", "confirmed")
        assert missing.status_code == 404
        assert "This turn has no stored result of that check." in missing.text
        errored = await label(ui, "/ui/turns/t-1", "pii", "false_alarm")
        assert errored.status_code == 409 and "The result is errored" in errored.text
        long = await label(ui, "/ui/turns/t-1", "tone", "confirmed", "NOTE" * 251)
        assert long.status_code == 400 and "longer than 1000 characters" in long.text
        assert "NOTENOTE" not in long.text
        odd = await label(ui, "/ui/turns/t-1", "tone", "maybe")
        assert odd.status_code == 400 and "Choose false alarm, confirmed or clear." in odd.text
        assert "<strong>" not in (await ui.get("/ui/turns/t-1")).text


async def test_an_unknown_or_erased_turn_is_a_404_page(store: Store, database_url: str) -> None:
    """No results (never stored, or the person erased) is an HTML 404 saying why."""
    await seed(store)
    async with signed_in(store, database_url) as ui:
        unknown = await ui.get("/ui/turns/never-seen")
        assert unknown.status_code == 404 and "text/html" in unknown.headers["content-type"]
        assert "This turn has no stored results" in unknown.text
        erased = await ui.delete("/v1/persons/p-1", headers=AUTH)
        assert erased.status_code == 200, erased.text
        gone = await ui.get("/ui/turns/t-1")
    assert gone.status_code == 404 and "This turn has no stored results" in gone.text


async def test_the_turn_page_needs_a_session(store: Store, database_url: str) -> None:
    """Without signing in the page sends the visitor to sign in, showing nothing."""
    await seed(store)
    async with signed_in(store, database_url) as ui:
        ui.cookies.clear()
        response = await ui.get("/ui/turns/t-1")
    assert response.status_code == 303
    assert response.headers["location"].startswith("/ui/sign-in?next=/ui/turns/t-1")
