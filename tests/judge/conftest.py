"""Fixtures for the judge: a real fake provider on a loopback socket."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.judge.fake_provider import FakeProvider


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A started ``FakeProvider``, closed (threads joined) after the test."""
    with FakeProvider() as server:
        yield server
