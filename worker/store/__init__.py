"""Where results, pass-rate rollups, pending judgements and the event outbox live.

One ``Store`` over one database, in three parts: ``writer`` (a batch's results,
rollups, outbox rows and pending judgements, in one transaction), ``outbox``
(events waiting to be sent) and ``queries`` (what people and alerts read).
Results are kept in two shapes, read back as one: passed results with nothing
more to say in one row per turn and write (``passed``), every other a full row
(``turn_writes`` writes both, ``latest`` and ``pages`` read a check's across both;
``backtests_reads`` a turn's newest verdicts by check name, for backtests).
``labels`` holds a person's verdict on a failed result, ``label_rates`` what labels do
to pass rates.
"""

from __future__ import annotations

from dataclasses import dataclass

from turncheck.worker.store.database import Database, create_engine
from turncheck.worker.store.outbox_table import FailedSend, OutboxTable
from turncheck.worker.store.queries import Queries
from turncheck.worker.store.views import PassRate, PendingEvent, StoredResult
from turncheck.worker.store.writer import ResultWriter


@dataclass(frozen=True, slots=True)
class Store:
    database: Database
    writer: ResultWriter
    outbox: OutboxTable
    queries: Queries

    @classmethod
    def open(cls, url: str, *, events_topic: str) -> Store:
        return cls.over(Database(create_engine(url)), events_topic=events_topic)

    @classmethod
    def over(cls, database: Database, *, events_topic: str) -> Store:
        return cls(
            database,
            ResultWriter(database, events_topic=events_topic),
            OutboxTable(database),
            Queries(database),
        )

    async def close(self) -> None:
        await self.database.close()


__all__ = [
    "Database",
    "FailedSend",
    "OutboxTable",
    "PassRate",
    "PendingEvent",
    "Queries",
    "ResultWriter",
    "Store",
    "StoredResult",
    "create_engine",
]
