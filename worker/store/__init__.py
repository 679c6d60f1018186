"""Where results, pass-rate rollups, pending judgements and the event outbox live."""

from turncheck.worker.store.records import (
    PassRate,
    PendingEvent,
    PendingJudgement,
    SaveReport,
    StoredResult,
    TurnRef,
    TurnResults,
)
from turncheck.worker.store.sql import SqlStore, create_engine

__all__ = [
    "PassRate",
    "PendingEvent",
    "PendingJudgement",
    "SaveReport",
    "SqlStore",
    "StoredResult",
    "TurnRef",
    "TurnResults",
    "create_engine",
]
