"""The Slack channel against a real local Slack, through slack-sdk's own clients."""

from __future__ import annotations

import logging
import time
import traceback
from dataclasses import replace
from typing import Any

import pytest

from tests.alerts.slack_server import CHANNEL, TOKEN, Failure, Received, SlackServer
from turncheck.alerts.rendered import SlackMessage
from turncheck.alerts.slack import SlackChannel, SlackConfig
from turncheck.worker.errors import ConfigurationError, DeliveryFailed

TOKEN_SETTING = "TURNCHECK_ALERT_SLACK_TOKEN"
CHANNEL_SETTING = "TURNCHECK_ALERT_SLACK_CHANNEL"
WEBHOOK_SETTING = "TURNCHECK_ALERT_SLACK_WEBHOOK_URL"
TIMEOUT_S = 2.0
MODES = ["token", "webhook"]
BLOCKS: list[dict[str, Any]] = [
    {"type": "header", "text": {"type": "plain_text", "text": "refund-policy is failing"}},
    {"type": "section", "text": {"type": "mrkdwn", "text": "*81%* of the last 200 turns passed"}},
]
MESSAGE = SlackMessage(text="refund-policy passed 81% of its last 200 turns", blocks=BLOCKS)


def channel_for(server: SlackServer, mode: str, **changes: Any) -> SlackChannel:
    if mode == "token":
        config = SlackConfig(
            token=TOKEN, channel=CHANNEL, base_url=server.base_url, timeout_s=TIMEOUT_S
        )
    else:
        config = SlackConfig(webhook_url=server.webhook_url, timeout_s=TIMEOUT_S)
    return SlackChannel(replace(config, **changes))


async def failure_of(channel: SlackChannel, message: SlackMessage = MESSAGE) -> DeliveryFailed:
    with pytest.raises(DeliveryFailed) as caught:
        await channel.send(message)
    assert caught.value.channel == "slack"
    return caught.value


async def test_message_reaches_the_channel_with_its_text_and_blocks(
    slack_server: SlackServer,
) -> None:
    """With a bot token, the message is posted to the configured channel, text and blocks."""
    await channel_for(slack_server, "token").send(MESSAGE)

    assert slack_server.messages == [Received("chat.postMessage", CHANNEL, MESSAGE.text, BLOCKS)]


async def test_webhook_delivers_text_and_blocks(slack_server: SlackServer) -> None:
    """With an incoming webhook, the message is posted to it, text and blocks."""
    await channel_for(slack_server, "webhook").send(MESSAGE)

    assert slack_server.messages == [Received("webhook", None, MESSAGE.text, BLOCKS)]


async def test_message_without_blocks_is_sent_as_text(slack_server: SlackServer) -> None:
    """A message with no blocks goes out as its text alone (Slack refuses an empty list)."""
    await channel_for(slack_server, "token").send(SlackMessage(text="plain"))

    assert slack_server.messages == [Received("chat.postMessage", CHANNEL, "plain", None)]


async def test_invalid_token_fails_with_invalid_auth(slack_server: SlackServer) -> None:
    """A token Slack does not know fails the send with Slack's "invalid_auth"."""
    failed = await failure_of(channel_for(slack_server, "token", token="xoxb-revoked"))

    assert failed.reason == "invalid_auth"
    assert slack_server.messages == []


async def test_unknown_channel_fails_with_channel_not_found(slack_server: SlackServer) -> None:
    """A channel the bot cannot post to fails the send with Slack's "channel_not_found"."""
    failed = await failure_of(channel_for(slack_server, "token", channel="C0NOWHERE"))

    assert failed.reason == "channel_not_found"


async def test_any_slack_error_code_is_the_reason(slack_server: SlackServer) -> None:
    """Whatever code Slack answers with ``ok: false`` is the reason, e.g. "is_archived"."""
    slack_server.fail_next(Failure.api_error("is_archived"))

    failed = await failure_of(channel_for(slack_server, "token"))

    assert failed.reason == "is_archived"


async def test_unknown_webhook_fails_with_slacks_code(slack_server: SlackServer) -> None:
    """A webhook Slack no longer knows fails the send with its body's code, "no_service"."""
    url = slack_server.webhook_url.rsplit("/", 1)[0] + "/deleted"
    failed = await failure_of(channel_for(slack_server, "webhook", webhook_url=url))

    assert failed.reason == "no_service"


@pytest.mark.parametrize("mode", MODES)
async def test_server_error_fails_with_the_status_and_the_retry_goes_through(
    slack_server: SlackServer, mode: str
) -> None:
    """An HTTP 500 fails the send as "http 500"; the channel's next send is delivered."""
    channel = channel_for(slack_server, mode)
    slack_server.fail_next(Failure.http(500))

    failed = await failure_of(channel)
    await channel.send(MESSAGE)

    assert failed.reason == "http 500"
    assert len(slack_server.messages) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_rate_limit_fails_at_once_as_ratelimited(
    slack_server: SlackServer, mode: str
) -> None:
    """A 429 fails the send as "ratelimited" at once: slack-sdk neither waits nor retries."""
    slack_server.fail_next(Failure.rate_limited(retry_after_s=30))

    started = time.monotonic()
    failed = await failure_of(channel_for(slack_server, mode))

    assert failed.reason == "ratelimited"
    assert time.monotonic() - started < 10  # waiting out the Retry-After would take 30 s
    assert len(slack_server.calls) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_slow_answer_fails_as_timeout_within_the_timeout(
    slack_server: SlackServer, mode: str
) -> None:
    """A server slower than ``timeout_s`` fails the send as "timeout" about then."""
    slack_server.fail_next(Failure.slow(delay_s=30))

    started = time.monotonic()
    failed = await failure_of(channel_for(slack_server, mode, timeout_s=0.3))

    assert failed.reason == "timeout"
    assert 0.25 < time.monotonic() - started < 10  # the answer would come after 30 s
    assert len(slack_server.calls) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_unreachable_server_fails_as_connection_refused(closed_port: int, mode: str) -> None:
    """With nothing listening, the send fails as "connection refused"."""
    if mode == "token":
        config = SlackConfig(
            token=TOKEN, channel=CHANNEL, base_url=f"http://127.0.0.1:{closed_port}/api/"
        )
    else:
        config = SlackConfig(webhook_url=f"http://127.0.0.1:{closed_port}/services/T/B/secret")

    failed = await failure_of(SlackChannel(replace(config, timeout_s=TIMEOUT_S)))

    assert failed.reason == "connection refused"


@pytest.mark.parametrize(
    "failure",
    [Failure.http(500), Failure.http(400, "invalid_payload"), Failure.slow(delay_s=30)],
    ids=["500", "400", "timeout"],
)
@pytest.mark.parametrize("mode", MODES)
async def test_failures_never_show_the_token_or_the_webhook_url(
    slack_server: SlackServer, mode: str, failure: Failure, caplog: pytest.LogCaptureFixture
) -> None:
    """Neither the token nor the webhook URL appear in the error, its traceback, or DEBUG logs."""
    caplog.set_level(logging.DEBUG)
    channel = channel_for(slack_server, mode, timeout_s=0.3)
    slack_server.fail_next(failure)

    failed = await failure_of(channel)
    shown = [str(failed), repr(failed), *traceback.format_exception(failed), repr(channel.config)]
    shown.append(caplog.text)

    secret = slack_server.webhook_path.rsplit("/", 1)[1]
    assert not [text for text in shown if TOKEN in text or secret in text]


async def test_check_names_the_team_and_bot(slack_server: SlackServer) -> None:
    """``check`` names the team and the bot the token belongs to, through auth.test."""
    described = await channel_for(slack_server, "token").check()

    assert described == "team Acme as bot turncheck"
    assert slack_server.calls == ["auth.test"]


async def test_check_fails_for_a_bad_token(slack_server: SlackServer) -> None:
    """``check`` with a token Slack does not know fails with "invalid_auth"."""
    channel = channel_for(slack_server, "token", token="xoxb-revoked")

    with pytest.raises(DeliveryFailed) as caught:
        await channel.check()

    assert caught.value.reason == "invalid_auth"


async def test_check_of_a_webhook_posts_nothing(slack_server: SlackServer) -> None:
    """``check`` of a webhook answers "incoming webhook" without calling it."""
    described = await channel_for(slack_server, "webhook").check()

    assert described == "incoming webhook"
    assert slack_server.calls == []


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({}, [TOKEN_SETTING, CHANNEL_SETTING, WEBHOOK_SETTING]),
        ({"token": TOKEN}, [TOKEN_SETTING, CHANNEL_SETTING]),
        ({"channel": CHANNEL}, [CHANNEL_SETTING, TOKEN_SETTING]),
        (
            {"token": TOKEN, "channel": CHANNEL, "webhook_url": "https://x.test/h"},
            [WEBHOOK_SETTING],
        ),
        ({"webhook_url": "hooks.slack.com/services/T/B/secret"}, [WEBHOOK_SETTING]),
        ({"token": TOKEN, "channel": CHANNEL, "timeout_s": 0}, ["TURNCHECK_ALERT_SEND_TIMEOUT_S"]),
    ],
    ids=["nothing", "token-alone", "channel-alone", "both-ways", "webhook-not-url", "timeout"],
)
def test_config_errors_name_the_settings(values: dict[str, Any], named: list[str]) -> None:
    """A config without exactly one way to post is refused, naming the settings at fault."""
    with pytest.raises(ConfigurationError) as caught:
        SlackConfig(**values)

    message = str(caught.value)
    assert [name for name in named if name not in message] == []
    assert "secret" not in message


@pytest.mark.parametrize("mode", MODES)
async def test_dropped_connection_fails_without_a_retry(
    slack_server: SlackServer, mode: str
) -> None:
    """A connection dropped unanswered fails the send once; slack-sdk does not post again."""
    slack_server.fail_next(Failure.dropped())

    failed = await failure_of(channel_for(slack_server, mode))

    assert failed.reason == "server disconnected"
    assert len(slack_server.calls) == 1
    assert slack_server.messages == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_configured_proxy_carries_the_post(slack_server: SlackServer, mode: str) -> None:
    """Slack's own host does not resolve here: the message only arrives through the proxy."""
    proxy = slack_server.base_url.removesuffix("api/")
    if mode == "token":
        channel = channel_for(slack_server, mode, base_url="http://slack.invalid/api/", proxy=proxy)
    else:
        hook = slack_server.webhook_url.replace(proxy.rstrip("/"), "http://slack.invalid")
        channel = channel_for(slack_server, mode, webhook_url=hook, proxy=proxy)
    await channel.send(MESSAGE)
    assert [m.text for m in slack_server.messages] == [MESSAGE.text]
