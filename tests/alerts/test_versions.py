"""An alert says when its window mixes check versions, and stays one per check per day,
on SQLite and PostgreSQL."""

from dataclasses import replace
from datetime import timedelta

from tests.alerts.fakes import START, Clock, Recorder, alerter, store_results, verdicts
from turncheck.alerts.examples import example_alert
from turncheck.alerts.notice import CheckAlert
from turncheck.alerts.render import Templates
from turncheck.worker.store import Store


async def test_an_alert_whose_window_mixes_check_versions_names_them(store: Store) -> None:
    """Results of two versions of the check in the window: the alert names both, oldest
    first, in the mail and in Slack; a second crossing that day is suppressed."""
    await store_results(store, verdicts(50), at=START - timedelta(hours=2), version="aaa111")
    await store_results(
        store, verdicts(0, 50), at=START - timedelta(minutes=5), prefix="u", version="bbb222"
    )
    senders = {"slack": Recorder("slack"), "mail": Recorder("mail")}
    clock = Clock()
    report = await alerter(store, clock, senders).run_once()
    assert report.sent == 2
    [notice] = senders["mail"].sent
    assert isinstance(notice, CheckAlert)
    assert notice.check_versions == ("aaa111", "bbb222") and notice.mixed_versions
    words = "These results mix 2 versions of the check, oldest first: aaa111, bbb222."
    templates = Templates()
    assert words in templates.mail(notice).text
    assert "aaa111, bbb222</code>" in templates.mail(notice).html
    assert words in str(templates.slack(notice).blocks)
    clock.advance(minutes=10)
    again = await alerter(store, clock, senders).run_once()
    assert again.raised == [] and again.suppressed == 1 and again.sent == 0


async def test_an_alert_of_one_version_says_nothing_of_versions(store: Store) -> None:
    """A window of one check version is not said to mix versions."""
    await store_results(store, verdicts(10, 90), at=START - timedelta(minutes=5))
    senders = {"slack": Recorder("slack"), "mail": Recorder("mail")}
    await alerter(store, Clock(), senders).run_once()
    [notice] = senders["mail"].sent
    assert isinstance(notice, CheckAlert) and notice.check_versions == ("v1",)
    assert "versions of the check" not in Templates().mail(notice).text


def test_many_versions_are_named_a_few_then_counted() -> None:
    """More than three versions: the first three are named, the rest counted."""
    alert = replace(example_alert(), check_versions=("a", "b", "c", "d", "e"))
    assert alert.versions_named == "a, b, c and 2 more"
