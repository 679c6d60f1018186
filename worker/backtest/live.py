"""The store as a backtest sees it: read only, a batch at a time. The newest stored
verdicts the draft is compared with, the labels its labelled section counts, and the
erasure ledger, whose persons' turns a
backtest leaves out as the worker does (without ``TURNCHECK_ERASURE_KEY``, once anyone
was erased, it refuses to run: ``ErasureKeyMissing``, as the worker refuses to store).

A backtest never writes to the store. An embedded SQLite store that does not exist yet
is not created: there is nothing to compare with and no one erased.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from pydantic import SecretStr

from turncheck.worker.retention.erasure import Eraser, KeylessLedger
from turncheck.worker.store.backtests_reads import Verdicts, newest_verdicts, open_results
from turncheck.worker.store.database import Database
from turncheck.worker.store.labels import LabelTable
from turncheck.worker.store.probe import database_errors


class LiveResults:
    """The store's results and ledger; ``open`` gives None without a store. A database
    that stops answering raises ``ServiceUnavailable``."""

    def __init__(self, database: Database, url: str, ledger: Eraser | KeylessLedger) -> None:
        self.database = database
        self.url = url
        self.ledger = ledger

    @classmethod
    async def open(cls, url: str, erasure_key: SecretStr | None) -> LiveResults | None:
        with database_errors(url):
            database = await open_results(url)
        if database is None:
            return None
        ledger = (
            KeylessLedger(database)
            if erasure_key is None
            else Eraser(database, erasure_key.get_secret_value().encode())
        )
        return cls(database, url, ledger)

    async def verdicts(self, turn_ids: Sequence[str], names: Iterable[str]) -> Verdicts:
        with database_errors(self.url):
            return await newest_verdicts(self.database, turn_ids, names)

    async def labels(self, names: Collection[str]) -> dict[tuple[str, str], str]:
        """The stored labels of these checks: (turn_id, check name) → label."""
        with database_errors(self.url):
            return dict(await LabelTable(self.database).labels_for_checks(names))

    async def erased(self, person_ids: Iterable[str]) -> set[str]:
        with database_errors(self.url):
            return await self.ledger.erased(person_ids)

    async def close(self) -> None:
        await self.database.close()
