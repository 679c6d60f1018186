"""The stored results a backtest compares its draft with: read only, a batch at a time.

A backtest never writes to the store. An embedded SQLite store that does not exist yet
is not created: there is nothing to compare with, and the report has no ``live`` part.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from turncheck.worker.store.backtests_reads import Verdicts, newest_verdicts, open_results
from turncheck.worker.store.database import Database
from turncheck.worker.store.probe import database_errors


class LiveResults:
    """The newest stored verdicts of checks by name; ``open`` gives None without a store.
    A database that stops answering raises ``ServiceUnavailable``."""

    def __init__(self, database: Database, url: str) -> None:
        self.database = database
        self.url = url

    @classmethod
    async def open(cls, url: str) -> LiveResults | None:
        with database_errors(url):
            database = await open_results(url)
        return None if database is None else cls(database, url)

    async def verdicts(self, turn_ids: Sequence[str], names: Iterable[str]) -> Verdicts:
        with database_errors(self.url):
            return await newest_verdicts(self.database, turn_ids, names)

    async def close(self) -> None:
        await self.database.close()
