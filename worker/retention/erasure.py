"""Erasure by person: delete what is stored of a person and keep them out for good.

``Eraser.erase`` deletes the person's results (in both shapes), their labels, pending
judgements and unsent events in one transaction and writes the ledger row first, a keyed hash of the
person id (never the id itself). The pipeline drops the turns of anyone in the ledger,
so a replay or a late redelivery of their old turns stores nothing. Pass-rate rollups
are left as they are: anonymous counts per check and hour, with no person in them.

Erasure holds whatever a process is configured with. One without
``TURNCHECK_ERASURE_KEY`` cannot hash a person id, so it cannot tell whose turns are
erased: its ledger is a ``KeylessLedger``, which refuses every batch once the ledger
holds anyone (``ErasureKeyMissing``), and the commands that store turns refuse to start.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError

from turncheck.schemas.erasure import ErasureRequest
from turncheck.worker.errors import ConfigurationError, ErasureKeyMissing, InvalidErasureRequest
from turncheck.worker.store.database import Database
from turncheck.worker.store.erasures import ErasureTable

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ErasureReceipt:
    """What an erasure deleted, and when: returned by the CLI, the API and the log."""

    person_key: str
    """The keyed hash the ledger holds; never the person id."""
    requested_at: datetime
    erased_at: datetime
    results: int
    pending_judgements: int
    events: int
    labels: int = 0

    def as_dict(self) -> dict[str, object]:
        return {
            "person_key": self.person_key,
            "requested_at": self.requested_at.isoformat(),
            "erased_at": self.erased_at.isoformat(),
            "deleted": {
                "results": self.results,
                "pending_judgements": self.pending_judgements,
                "events": self.events,
                "labels": self.labels,
            },
        }


def person_key(key: bytes, person_id: str) -> str:
    """HMAC-SHA256 of the person id: equal ids match, and without the key no id can be
    found again by hashing candidates."""
    return hmac.new(key, person_id.encode(), hashlib.sha256).hexdigest()


class Eraser:
    def __init__(self, database: Database, key: bytes) -> None:
        if not key:
            raise ConfigurationError("TURNCHECK_ERASURE_KEY is not set: erasure needs it")
        self.table = ErasureTable(database)
        self.key = key

    def person_key(self, person_id: str) -> str:
        return person_key(self.key, person_id)

    async def erase(
        self, person_id: str, *, requested_at: datetime, now: datetime
    ) -> ErasureReceipt:
        """Idempotent: erasing twice deletes nothing more and keeps the first ledger row."""
        key = self.person_key(person_id)
        deleted = await self.table.erase(key, person_id, requested_at=requested_at, now=now)
        return ErasureReceipt(
            person_key=key,
            requested_at=requested_at,
            erased_at=now,
            results=deleted.results,
            pending_judgements=deleted.pending_judgements,
            events=deleted.events,
            labels=deleted.labels,
        )

    async def erased(self, person_ids: Iterable[str]) -> set[str]:
        """Which of these person ids are in the ledger."""
        by_key = {self.person_key(pid): pid for pid in set(person_ids)}
        if not by_key:
            return set()
        return {by_key[key] for key in await self.table.known(list(by_key))}


class KeylessLedger:
    """The ledger of a process without ``TURNCHECK_ERASURE_KEY``: empty, it erases no one;
    holding anyone, it refuses to let any turn be stored."""

    def __init__(self, database: Database) -> None:
        self.table = ErasureTable(database)

    async def refuse_if_held(self) -> None:
        """Raise ``ErasureKeyMissing`` if anyone was ever erased."""
        if await self.table.holds_any():
            raise ErasureKeyMissing(await self.table.count())

    async def erased(self, person_ids: Iterable[str]) -> set[str]:
        """None of them, while the ledger is empty; else the batch is refused."""
        try:
            await self.refuse_if_held()
        except ErasureKeyMissing as exc:
            log.error("batch refused, nothing stored: %s", exc)
            raise
        return set()


def decode_request(value: bytes | None) -> ErasureRequest:
    """An erasure request from a message; ``InvalidErasureRequest`` names what is wrong,
    never a value (a person id is personal data)."""
    if value is None:
        raise InvalidErasureRequest("a tombstone is not an erasure request")
    try:
        return ErasureRequest.model_validate_json(value)
    except ValidationError as exc:
        error = exc.errors(include_input=False, include_url=False)[0]
        if error["type"] == "json_invalid":
            raise InvalidErasureRequest("not valid JSON") from None
        where = ".".join(str(part) for part in error["loc"]) or "request"
        raise InvalidErasureRequest(f"{where}: {error['msg']}") from None
