"""The alerts page on a real uvicorn over SQLite and PostgreSQL: alerts counted per day
(the alert time zone's) and channel, each delivery with its status and a failed send's
error, and a bad ``days`` answered as a page."""

from __future__ import annotations

import re
from datetime import date, timedelta

from tests.factories import FIXED_NOW
from tests.web.signed_in import signed_in
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import CHECK, DIGEST, AlertKey, AlertStore

ZONE = "Pacific/Auckland"
"""UTC+13 in November: at the API's 13:00 UTC on the 29th it is already the 30th there."""
TODAY = date(2026, 11, 30)
SENT_AT = FIXED_NOW + timedelta(minutes=30)
ERROR = "SMTP 550 mailbox unavailable"


async def seed(store: Store) -> None:
    """Today: no-competitors sent on slack, failed for good on mail, 2 crossings held back;
    the digest pending on slack. Yesterday: tone pending on slack. 41 days ago: one more."""
    alerts = AlertStore(store.database)

    async def raise_(kind: str, check: str, agent: str, day: date, channels: list[str]) -> None:
        key = AlertKey(kind, check, agent, day)
        raised = await alerts.raise_alert(
            key, snapshot="{}", channels=channels, now=FIXED_NOW, give_up_at=FIXED_NOW
        )
        assert raised

    await raise_(CHECK, "no-competitors", "support-bot", TODAY, ["mail", "slack"])
    for due in await alerts.due(FIXED_NOW):
        if due.channel == "slack":
            await alerts.delivered(due, SENT_AT)
        else:
            await alerts.failed(due, ERROR, retry_at=None)
    key = AlertKey(CHECK, "no-competitors", "support-bot", TODAY)
    assert await alerts.count_suppressed(key, 1) and await alerts.count_suppressed(key, 2)
    await raise_(DIGEST, "", "", TODAY, ["slack"])
    await raise_(CHECK, "tone", "support-bot", TODAY - timedelta(days=1), ["slack"])
    await raise_(CHECK, "tone", "support-bot", TODAY - timedelta(days=41), ["slack"])


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def sections(html: str) -> dict[str, str]:
    """Each day's section of the page, by its day, in page order."""
    parts = html.split('<section class="alert-day" id="day-')[1:]
    return {part[:10]: part.split("</section>", 1)[0] for part in parts}


async def test_alerts_are_counted_per_day_and_channel_in_the_alert_time_zone(
    store: Store, database_url: str
) -> None:
    """Newest day first over 30 days; per channel sent, pending, failed and suppressed;
    each delivery with its check's link, the time it was sent and a failed send's error."""
    await seed(store)
    async with signed_in(store, database_url, alert_timezone=ZONE) as ui:
        response = await ui.get("/ui/alerts")
    assert response.status_code == 200, response.text
    html = response.text
    assert '<a href="/ui/alerts" aria-current="page">' in html
    days = sections(html)
    assert list(days) == ["2026-11-30", "2026-11-29"]
    today, yesterday = text_of(days["2026-11-30"]), text_of(days["2026-11-29"])
    assert "mail 0 0 1 2" in today and "slack 1 1 0 2" in today
    assert "slack 0 1 0 0" in yesterday
    assert "From 2026-11-01 to 2026-11-30" in text_of(html) and ZONE in html
    assert 'href="/ui/checks/support-bot/no-competitors"' in days["2026-11-30"]
    assert 'href="/ui/checks/support-bot/tone"' in days["2026-11-29"]
    assert "daily digest" in today and 'href="/ui/checks/"' not in html
    assert "slack sent 1 2026-11-30 01:30:00 2" in today
    assert f"mail failed 1 not sent 2 {ERROR}" in today


async def test_days_counts_back_from_the_zones_today(store: Store, database_url: str) -> None:
    """``days=1`` is the zone's today (the 30th) alone, though in UTC it is still the 29th;
    ``days=2`` adds the 29th; a day past ``days`` is left out."""
    await seed(store)
    async with signed_in(store, database_url, alert_timezone=ZONE) as ui:
        one = await ui.get("/ui/alerts", params={"days": "1"})
        two = await ui.get("/ui/alerts", params={"days": "2"})
        year = await ui.get("/ui/alerts", params={"days": "366"})
    assert list(sections(one.text)) == ["2026-11-30"]
    assert list(sections(two.text)) == ["2026-11-30", "2026-11-29"]
    assert list(sections(year.text)) == ["2026-11-30", "2026-11-29", "2026-10-20"]


async def test_without_alerts_the_page_says_so(store: Store, database_url: str) -> None:
    """No alert in the days asked is a sentence, not an empty table."""
    async with signed_in(store, database_url) as ui:
        response = await ui.get("/ui/alerts", params={"days": "7"})
    assert response.status_code == 200
    assert "No alerts in these 7 days." in response.text


async def test_a_bad_days_is_a_400_page(store: Store, database_url: str) -> None:
    """Zero, negative, past the bound or not a number: an HTML 400 with the sentence."""
    async with signed_in(store, database_url) as ui:
        for bad in ("0", "-1", "367", "abc", "1.5"):
            response = await ui.get("/ui/alerts", params={"days": bad})
            assert response.status_code == 400, bad
            assert "text/html" in response.headers["content-type"]
            assert "days must be a whole number from 1 to 366." in response.text
