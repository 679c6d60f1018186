"""The local Slack itself: it reads bodies in each form slack-sdk may send them."""

from __future__ import annotations

import json

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

from tests.alerts.slack_server import CHANNEL, TOKEN, Received, SlackServer


async def test_form_bodies_are_recorded_with_blocks_parsed(slack_server: SlackServer) -> None:
    """A form-encoded chat.postMessage, blocks as a JSON string, is recorded like a JSON one."""
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*hi*"}}]
    form = {"channel": CHANNEL, "text": "hi", "blocks": json.dumps(blocks)}

    async with aiohttp.ClientSession() as session:
        client = AsyncWebClient(token=TOKEN, base_url=slack_server.base_url, session=session)
        answer = await client.api_call("chat.postMessage", data=form)

    assert answer["ok"] is True
    assert slack_server.messages == [Received("chat.postMessage", CHANNEL, "hi", blocks)]
