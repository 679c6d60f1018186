"""An alert links its newest failing turns to their pages on the chat platform
(TURNCHECK_TURN_URL), in the Slack message and the mail a real server receives."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.alerts.fakes import AGENT, START, Clock, Recorder, alerter, store_results, verdicts
from tests.alerts.mail_server import Catcher, mail_catcher
from tests.alerts.slack_server import CHANNEL, TOKEN, SlackServer
from turncheck.alerts.alerter import FAILING_SHOWN
from turncheck.alerts.notice import CheckAlert
from turncheck.alerts.setup import senders, templates
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store

__all__ = ["mail_catcher"]  # a fixture, used by name

TEMPLATE = "https://chat.example.com/a/{agent_id}/t/{thread_id}?turn={turn_id}&token=tok-42"
PREFIX = "web/2026 t?é"
"""The failing turns' ids begin so: a slash, a space, a question mark, non-ASCII."""
QUOTED = "web%2F2026%20t%3F%C3%A9"


def settings(slack: SlackServer, mail: Catcher, **more: object) -> Settings:
    return Settings(
        alert_slack_token=TOKEN,
        alert_slack_channel=CHANNEL,
        alert_slack_base_url=slack.base_url,
        alert_mail_host="127.0.0.1",
        alert_mail_port=mail.port,
        alert_mail_security="none",
        alert_mail_to=["ops@example.com"],
        **more,
    )


async def test_the_alert_links_its_newest_failing_turns_in_slack_and_mail(
    store: Store, slack_server: SlackServer, mail_catcher: Catcher
) -> None:
    """80 passed, 20 not: the 5 newest of the 20 are linked, each id quoted in its link."""
    await store_results(store, verdicts(80, 15, 5), at=START - timedelta(minutes=5), prefix=PREFIX)
    s = settings(slack_server, mail_catcher, turn_url=TEMPLATE)
    report = await alerter(
        store, Clock(), senders(s, templates(s)), turn_url=s.turn_url_template
    ).run_once()
    assert report.sent == 2
    # Stored last, newest first among turns of the same moment: 99, 98, ...
    shown = [f"{PREFIX}-{n}" for n in range(99, 99 - FAILING_SHOWN, -1)]
    links = [
        f"https://chat.example.com/a/{AGENT}/t/th-1?turn={QUOTED}-{n}&token=tok-42"
        for n in range(99, 99 - FAILING_SHOWN, -1)
    ]
    [message] = slack_server.messages
    blocks = json.dumps(message.blocks, ensure_ascii=False)
    for turn_id, link in zip(shown, links, strict=True):
        assert f"<{link}|{turn_id}>" in blocks
    assert f"{PREFIX}-{99 - FAILING_SHOWN}" not in blocks
    [mail] = mail_catcher.messages()
    text = mail.get_body(("plain",)).get_content().replace("\r\n", "\n")  # type: ignore[union-attr]
    html = mail.get_body(("html",)).get_content()  # type: ignore[union-attr]
    for turn_id, link in zip(shown, links, strict=True):
        assert turn_id in text and f"\n    {link}\n" in text
        assert f'<a href="{link.replace("&", "&amp;")}"><code>{turn_id}</code></a>' in html


async def test_without_a_template_an_alert_lists_no_turns(store: Store) -> None:
    """No TURNCHECK_TURN_URL: the alert says what it always said (the golden files)."""
    await store_results(store, verdicts(80, 20), at=START - timedelta(minutes=5))
    recorder = Recorder("slack")
    await alerter(store, Clock(), {"slack": recorder}).run_once()
    [notice] = recorder.sent
    assert isinstance(notice, CheckAlert) and notice.failing == ()


async def test_turns_without_a_thread_are_left_out_when_the_link_needs_one(store: Store) -> None:
    await store_results(store, verdicts(80, 20), at=START - timedelta(minutes=5), thread_id=None)
    recorder = Recorder("slack")
    await alerter(store, Clock(), {"slack": recorder}, turn_url=TEMPLATE).run_once()
    [notice] = recorder.sent
    assert isinstance(notice, CheckAlert) and notice.failing == ()


def test_an_own_template_that_breaks_on_linked_turns_is_refused_at_start(
    tmp_path: Path,
) -> None:
    """With TURNCHECK_TURN_URL set, the templates are also tried on an alert with links."""
    (tmp_path / "mail_alert.text.j2").write_text(
        "{% for turn in alert.failing %}{{ turn.page }}{% endfor %}"
    )
    assert templates(Settings(alert_templates=tmp_path)) is not None
    with pytest.raises(ConfigurationError, match=r"mail_alert\.text\.j2"):
        templates(Settings(alert_templates=tmp_path, turn_url=TEMPLATE))
