"""Fixtures for the judge: a real fake provider on a loopback socket, and a store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.conftest import fresh_store
from tests.judge.fake_provider import FakeProvider
from turncheck.worker.store import Store


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A started ``FakeProvider``, closed (threads joined) after the test."""
    with FakeProvider() as server:
        yield server


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh SQLite store in ``tmp_path``, closed after the test."""
    s = await fresh_store(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    yield s
    await s.close()
