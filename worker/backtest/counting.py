"""Turns read so far, against ``--limit``: one count shared by every process of a run,
so the limit holds across them and the parent can show progress."""

from __future__ import annotations

import multiprocessing

FORK = multiprocessing.get_context("fork")
"""Processes of a run are forked: they inherit the compiled draft and this count."""


class TurnCount:
    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._read = FORK.Value("q", 0)

    @property
    def read(self) -> int:
        return int(self._read.value)

    def take(self, n: int) -> int:
        """How many of ``n`` more messages may be read (all of them without a limit)."""
        with self._read.get_lock():
            room = n if self.limit is None else max(0, min(n, self.limit - self._read.value))
            self._read.value += room
        return room
