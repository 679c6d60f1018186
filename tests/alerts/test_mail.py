"""The mail channel against real SMTP servers on 127.0.0.1."""

from __future__ import annotations

import io
import logging
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.alerts.mail_server import (
    PASSWORD,
    USER,
    Catcher,
    mail_catcher,
    mail_implicit_tls_catcher,
    mail_silent_port,
    mail_tls_catcher,
)
from tests.factories import FIXED_NOW
from turncheck.alerts.chart import CHART_SIZE, daily_chart_png
from turncheck.alerts.mail import MailChannel, MailConfig
from turncheck.alerts.rendered import MailMessage
from turncheck.worker.errors import ConfigurationError, DeliveryFailed

# The fixtures are used by name, which linters cannot see.
__all__ = ["mail_catcher", "mail_implicit_tls_catcher", "mail_silent_port", "mail_tls_catcher"]

ADMINS = ["ops@example.com", "lead@example.com"]
CHART = daily_chart_png([(date(2026, 11, 28), 0.9), (date(2026, 11, 29), None)], 0.95)
MESSAGE = MailMessage(
    subject="[turncheck] no-refund-promises passes 90% of turns",
    text="no-refund-promises passed 90% of its last 200 turns (threshold 95%).",
    html='<p>no-refund-promises passed <b>90%</b></p><img src="cid:chart" alt="trend">',
    chart_png=CHART,
)


def config(port: int, **overrides: Any) -> MailConfig:
    values: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": port,
        "security": "none",
        "sender": "Turncheck <alerts@turncheck.example>",
        "recipients": ADMINS,
        "timeout_s": 5.0,
    }
    return MailConfig(**(values | overrides))


def channel(port: int, **overrides: Any) -> MailChannel:
    return MailChannel(config(port, **overrides), clock=lambda: FIXED_NOW)


async def failure(port: int, **overrides: Any) -> DeliveryFailed:
    with pytest.raises(DeliveryFailed) as caught:
        await channel(port, **overrides).send(MESSAGE)
    return caught.value


async def test_a_mail_arrives_with_headers_text_html_and_the_inline_chart(
    mail_catcher: Catcher,
) -> None:
    """The mail has its headers, text and HTML alternatives, and the chart inline as cid:chart."""
    await channel(mail_catcher.port).send(MESSAGE)

    [received] = mail_catcher.messages()
    assert received["From"] == "Turncheck <alerts@turncheck.example>"
    assert received["To"] == "ops@example.com, lead@example.com"
    assert received["Subject"] == MESSAGE.subject
    assert received["Date"].datetime == FIXED_NOW
    assert received["Message-ID"].endswith("@turncheck.example>")
    assert received.get_content_type() == "multipart/alternative"
    text_part, html_part = received.iter_parts()
    assert text_part.get_content_type() == "text/plain"
    assert text_part.get_content().strip() == MESSAGE.text
    assert html_part.get_content_type() == "multipart/related"
    html, image = html_part.iter_parts()
    assert html.get_content_type() == "text/html"
    assert 'src="cid:chart"' in html.get_content()
    assert image.get_content_type() == "image/png"
    assert image["Content-ID"] == "<chart>"
    assert image.get_content_disposition() == "inline"
    png = image.get_content()
    assert png == CHART
    with Image.open(io.BytesIO(png)) as opened:
        assert opened.size == CHART_SIZE


async def test_a_mail_without_a_chart_has_only_the_text_and_html_parts(
    mail_catcher: Catcher,
) -> None:
    """Without a chart the HTML part is plain text/html, not multipart/related."""
    message = MailMessage(subject="s", text="plain", html="<p>html</p>")
    await channel(mail_catcher.port).send(message)

    [received] = mail_catcher.messages()
    assert [part.get_content_type() for part in received.iter_parts()] == [
        "text/plain",
        "text/html",
    ]


async def test_a_subject_with_line_breaks_is_sent_on_one_line(mail_catcher: Catcher) -> None:
    """Line breaks in a rendered subject become spaces instead of breaking the headers."""
    message = MailMessage(subject="check failed\r\nBcc: x@example.com", text="t", html="h")
    await channel(mail_catcher.port).send(message)

    [received] = mail_catcher.messages()
    assert received["Subject"] == "check failed Bcc: x@example.com"
    assert received["Bcc"] is None


async def test_every_recipient_is_in_the_envelope(mail_catcher: Catcher) -> None:
    """One message goes to every configured recipient."""
    await channel(mail_catcher.port).send(MESSAGE)

    [envelope] = mail_catcher.envelopes
    assert envelope.rcpt_tos == ADMINS
    assert envelope.mail_from == "alerts@turncheck.example"


async def test_a_refused_recipient_is_logged_and_the_others_still_get_the_mail(
    mail_catcher: Catcher, caplog: pytest.LogCaptureFixture
) -> None:
    """One refused address does not fail the send, which a retry would repeat for the others."""
    mail_catcher.refuse = {"lead@example.com"}
    with caplog.at_level(logging.WARNING, logger="turncheck.alerts.mail"):
        await channel(mail_catcher.port).send(MESSAGE)

    assert [envelope.rcpt_tos for envelope in mail_catcher.envelopes] == [["ops@example.com"]]
    assert "1 of 2 recipients refused, smtp [550]" in caplog.text


async def test_all_recipients_refused_fails_with_the_smtp_code(mail_catcher: Catcher) -> None:
    """When every address is refused the reason is the reply code in words."""
    mail_catcher.refuse = set(ADMINS)

    error = await failure(mail_catcher.port)

    assert error.channel == "mail"
    assert error.reason == "smtp 550 recipient refused"
    assert mail_catcher.envelopes == []


async def test_starttls_with_login_delivers_when_the_ca_file_trusts_the_server(
    mail_tls_catcher: Catcher,
) -> None:
    """STARTTLS verifies the server against ca_file, then logs in and delivers."""
    await channel(
        mail_tls_catcher.port,
        security="starttls",
        ca_file=mail_tls_catcher.cert,
        username=USER,
        password=PASSWORD,
    ).send(MESSAGE)

    assert len(mail_tls_catcher.envelopes) == 1


async def test_a_wrong_password_fails_with_535_and_never_names_the_password(
    mail_tls_catcher: Catcher,
) -> None:
    """A refused login is "smtp 535 authentication failed", with no password in it."""
    wrong = "wrong-Pa55word"

    error = await failure(
        mail_tls_catcher.port,
        security="starttls",
        ca_file=mail_tls_catcher.cert,
        username=USER,
        password=wrong,
    )

    assert error.reason == "smtp 535 authentication failed"
    assert wrong not in str(error)
    assert error.__cause__ is None and error.__suppress_context__
    assert mail_tls_catcher.envelopes == []


async def test_a_certificate_the_system_does_not_trust_fails_as_tls(
    mail_tls_catcher: Catcher,
) -> None:
    """Without ca_file a self-signed certificate is refused, before any password is sent."""
    error = await failure(
        mail_tls_catcher.port, security="starttls", username=USER, password=PASSWORD
    )

    assert error.reason == "tls certificate not trusted"
    assert mail_tls_catcher.envelopes == []


async def test_starttls_is_not_skipped_when_the_server_does_not_offer_it(
    mail_catcher: Catcher,
) -> None:
    """A server without STARTTLS is refused rather than spoken to in plain text."""
    error = await failure(mail_catcher.port, security="starttls")

    assert error.reason == "server does not offer starttls"
    assert mail_catcher.envelopes == []


async def test_a_login_is_refused_when_the_server_offers_no_auth(mail_catcher: Catcher) -> None:
    """A user name set for a server without AUTH fails rather than sending unauthenticated."""
    error = await failure(mail_catcher.port, username=USER, password=PASSWORD)

    assert error.reason == "server does not offer auth"
    assert mail_catcher.envelopes == []


async def test_no_login_where_the_server_requires_one_fails_with_530(
    mail_tls_catcher: Catcher,
) -> None:
    """Without a user name a server that requires AUTH refuses the mail with 530."""
    error = await failure(mail_tls_catcher.port, security="starttls", ca_file=mail_tls_catcher.cert)

    assert error.reason == "smtp 530 authentication required"


async def test_implicit_tls_delivers_to_a_server_speaking_tls_from_the_start(
    mail_implicit_tls_catcher: Catcher,
) -> None:
    """Security "tls" speaks TLS from the first byte and verifies the server against ca_file."""
    catcher = mail_implicit_tls_catcher
    await channel(catcher.port, security="tls", ca_file=catcher.cert).send(MESSAGE)

    assert len(catcher.envelopes) == 1


async def test_a_closed_port_fails_quickly_as_connection_refused(closed_port: int) -> None:
    """Nothing listening is "connection refused", at once rather than after the timeout."""
    started = time.monotonic()

    error = await failure(closed_port, timeout_s=30)

    assert error.reason == "connection refused"
    assert time.monotonic() - started < 10  # not the 30 s timeout


async def test_a_server_that_never_answers_times_out_after_timeout_s(
    mail_silent_port: int,
) -> None:
    """A server that accepts and says nothing is "timeout" after about timeout_s."""
    started = time.monotonic()

    error = await failure(mail_silent_port, timeout_s=0.5)

    assert error.reason == "timeout"
    assert 0.4 < time.monotonic() - started < 10  # the server would never answer


@pytest.mark.parametrize(
    ("overrides", "setting"),
    [
        ({"host": None}, "TURNCHECK_ALERT_MAIL_HOST"),
        ({"host": ""}, "TURNCHECK_ALERT_MAIL_HOST"),
        ({"recipients": []}, "TURNCHECK_ALERT_MAIL_TO"),
        ({"username": USER}, "TURNCHECK_ALERT_MAIL_PASSWORD"),
    ],
)
def test_an_incomplete_config_is_refused_naming_the_setting(
    overrides: dict[str, Any], setting: str
) -> None:
    """A missing server, no recipients, or a user without a password is a ConfigurationError."""
    with pytest.raises(ConfigurationError, match=setting):
        config(25, **overrides)


def test_an_unreadable_ca_file_is_refused_when_the_channel_is_made(tmp_path: Path) -> None:
    """A ca_file that does not exist is a ConfigurationError at start, not a failed send."""
    with pytest.raises(ConfigurationError, match="TURNCHECK_ALERT_MAIL_CA_FILE"):
        MailChannel(config(25, security="starttls", ca_file=tmp_path / "missing.pem"))


def test_the_config_repr_hides_the_password() -> None:
    """A logged config shows no password."""
    assert PASSWORD not in repr(config(25, username=USER, password=PASSWORD))


def test_recipients_are_kept_as_given_even_if_the_list_changes() -> None:
    """The config copies the recipients, so a later change to the caller's list is not seen."""
    recipients = list(ADMINS)
    frozen = config(25, recipients=recipients)
    recipients.append("intruder@example.com")

    assert list(frozen.recipients) == ADMINS
