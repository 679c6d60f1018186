"""Where results, pass-rate rollups, pending judgements and the event outbox live.

One ``Store`` over one database, in four parts: ``writer`` (a batch's results,
rollups, outbox rows and pending judgements, in one transaction), ``outbox``
(events waiting to be sent), ``queries`` (what people and alerts read) and
``rollouts`` (which checks are shadow, recorded when a worker starts).
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
from turncheck.worker.store.rollouts import KnownRollouts, Rollouts
from turncheck.worker.store.views import PassRate, PendingEvent, StoredResult
from turncheck.worker.store.writer import ResultWriter


@dataclass(frozen=True, slots=True)
class Store:
    database: Database
    writer: ResultWriter
    outbox: OutboxTable
    queries: Queries
    rollouts: Rollouts

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
            Rollouts(database),
        )

    async def close(self) -> None:
        await self.database.close()


__all__ = [
    "Database",
    "FailedSend",
    "KnownRollouts",
    "OutboxTable",
    "PassRate",
    "PendingEvent",
    "Queries",
    "ResultWriter",
    "Rollouts",
    "Store",
    "StoredResult",
    "create_engine",
]
