"""Ending tasks a part started, the one way every part does it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any


async def cancel_all(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel the tasks and wait until every one has ended. What a task raised is not
    raised here: a part's tasks report their own errors (``supervised``, the send loops),
    and a stop must finish stopping."""
    pending = list(tasks)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
