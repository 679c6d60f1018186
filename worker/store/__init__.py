"""Where results, pass-rate rollups and the event outbox live."""

from worker.store.records import PassRate, PendingEvent, StoredResult, TurnResults
from worker.store.sql import SqlStore, create_engine

__all__ = ["PassRate", "PendingEvent", "SqlStore", "StoredResult", "TurnResults", "create_engine"]
