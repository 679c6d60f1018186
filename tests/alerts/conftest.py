"""Fixtures for alert channels: a real Slack on a loopback socket."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.alerts.slack_server import SlackServer


@pytest.fixture
async def slack_server() -> AsyncIterator[SlackServer]:
    """A started ``SlackServer`` that knows ``TOKEN`` and ``CHANNEL``; stopped after the test."""
    async with SlackServer() as server:
        yield server
