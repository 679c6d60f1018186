"""Writing turns' results once, in their two shapes, with their rollups and events.

A write of a turn is one ``passed_results`` row (its compact results) and a full
``check_results`` row for each other result, pointing at it. A turn's first write
inserts part 0 of the turn: that insert is the claim. Most turns are new and their
claim goes in: every result is new, nothing is read first. A turn whose claim is
refused was written before (a redelivery, a judged result arriving later): what its
parts and full rows hold is read, and only results not stored yet are written, as the
turn's next part. Within one write of a batch (one moment), turns take their write ids
in turn id order.

Writers of one turn's next part at the same moment (its judged results answered
together by several judge workers or replicas, redeliveries with new check versions)
take turns on its part 0: each locks it in a statement of its own, then reads the
turn's parts in the next. On PostgreSQL (read committed) a statement sees what was
committed when it began, so that read sees every part written by those who held the
lock before. Read in the locking statement itself it would not: the writers would
pick the same next part and all but one lose their results to ON CONFLICT DO NOTHING.
Not an advisory lock per turn: each holds a slot of the server's shared lock table
until commit (``max_locks_per_transaction`` x connections, 6400 by default), so a few
replicas redelivering batches of 2000 turns would fill it and fail every query that
needs a lock; a row lock is kept in the row. Not a retry on conflict alone: a writer
would read again once for each writer that beat it. A part found taken anyway (the
turn's part 0 was purged meanwhile, leaving nothing to wait on) is read again and
taken next, up to ``PART_ATTEMPTS`` times; then the write raises ``TurnContended``,
is rolled back whole and tried again like an outage, so a result is never dropped.
Claims and part 0 locks are taken in turn id order, so two replicas storing the same
turns never deadlock. SQLite lets one transaction write at a time and needs no lock.

On PostgreSQL a table's rows go in by COPY through a staging table (``staging``) when a
write has enough of them (``CopyFrom``), by statements otherwise and on SQLite: the
same rows, in the same order, with the same ``ON CONFLICT`` and ``RETURNING``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from turncheck.worker.checks import CheckResult, Verdict
from turncheck.worker.errors import TurnContended
from turncheck.worker.pipeline.records import TurnRef
from turncheck.worker.store.database import Database
from turncheck.worker.store.passed import Entry, is_compact
from turncheck.worker.store.rows import (
    RESULT_KEY,
    ROLLUP_COUNTS,
    ROLLUP_KEY,
    event_row,
    passed_row,
    result_row,
    rollup_values,
)
from turncheck.worker.store.staging import copy_in, recorder
from turncheck.worker.store.tables import check_results, outbox, pass_rate_rollups, passed_results
from turncheck.worker.store.turn_parts import lock_claims, stored_keys

CHUNK_ROWS = 250
"""Rows built and sent per statement. Building and encoding rows is CPU work on the
event loop; in chunks, heartbeats and the outbox run between them."""

PART_CHUNK_ROWS = 1000
"""Parts per statement: a part's row is small and quick to build (a few microseconds),
so a chunk of 1000 holds the loop about as long as 250 full rows, and a batch of
2000 turns takes two round trips instead of eight."""

PART_TYPES = {
    "turn_id": "varchar[]",
    "part": "int[]",
    "thread_id": "varchar[]",
    "person_id": "varchar[]",
    "agent_id": "varchar[]",
    "agent_version": "varchar[]",
    "turn_created_at": "timestamptz[]",
    "checked_at": "timestamptz[]",
    "expires_at": "timestamptz[]",
    "checks": "text[]",
    "passed": "int[]",
}
UNNEST_PARTS = text(
    f"INSERT INTO passed_results ({', '.join(PART_TYPES)}) SELECT * FROM unnest("
    + ", ".join(f"CAST(:{name} AS {kind})" for name, kind in PART_TYPES.items())
    + ") ON CONFLICT (turn_id, part) DO NOTHING RETURNING turn_id, id"
)
"""PostgreSQL: a chunk of parts as one array per column. Measured 1.3-1.5x faster than
the same rows as a multi-row VALUES: one parameter per column instead of one per cell."""


PART_RECORD = recorder("passed_results")
RESULT_RECORD = recorder("check_results")
EVENT_RECORD = recorder("outbox")


@dataclass(frozen=True, slots=True)
class CopyFrom:
    """From how many rows of a table in one write they go in by COPY, not statements: a
    COPY and its move cost more round trips than one statement, and pay per row. Passed
    results gain little per row (they go as one array per column otherwise), full
    results and events much (a parameter per cell otherwise); ``bench/README.md``."""

    passed_rows: int = 1000
    full_rows: int = 100
    event_rows: int = 100


COPY_FROM = CopyFrom()
COPY_ALWAYS = CopyFrom(1, 1, 1)
"""Every table's rows by COPY, however few (the tests of the COPY path)."""

PART_ATTEMPTS = 3
"""Rounds of a write of next parts: with part 0 to wait on, the first stores them all."""


def _columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {name: [row[name] for row in rows] for name in PART_TYPES}


New = tuple[TurnRef, Sequence[CheckResult]]
"""A turn and its results that were new."""


@dataclass(frozen=True, slots=True)
class TurnWrite:
    """A turn's results to store, in the order they were made, each key once; split into
    the compact ones (with their positions) and those that need a full row."""

    turn: TurnRef
    results: list[CheckResult]
    expires_at: datetime
    compact: list[Entry]
    full: list[tuple[int, CheckResult]]

    @classmethod
    def of(cls, turn: TurnRef, results: list[CheckResult], expires_at: datetime) -> TurnWrite:
        compact: list[Entry] = []
        full: list[tuple[int, CheckResult]] = []
        for position, result in enumerate(results):
            if is_compact(result):
                compact.append((result.check, position))
            else:
                full.append((position, result))
        return cls(turn, results, expires_at, compact, full)


def chunks(items: Sequence[Any], size: int = CHUNK_ROWS) -> Iterable[Sequence[Any]]:
    return (items[start : start + size] for start in range(0, len(items), size))


class TurnWriter:
    def __init__(
        self,
        database: Database,
        *,
        events_topic: str,
        shadow: frozenset[tuple[str, str]] = frozenset(),
        copy: bool = True,
        copy_from: CopyFrom = COPY_FROM,
    ) -> None:
        self.database = database
        self.events_topic = events_topic
        self.shadow = shadow
        """(agent, check name) of the shadow checks: their results get no event."""
        self.copy = copy and database.dialect == "postgresql"
        """A table's rows go in by COPY through a staging table (``staging``) when they are
        as many as ``copy_from`` says; else by statements."""
        self.copy_from = copy_from

    async def write(
        self, conn: AsyncConnection, writes: Sequence[TurnWrite], now: datetime
    ) -> list[New]:
        """Store what is new of these turns' results, add it to the rollups and put an
        event in the outbox for each new result that did not pass, but a shadow check's;
        the new results."""
        # Claims in turn id order: two replicas storing the same turns (a rebalance) wait
        # on each other's claims in one order, so they never deadlock.
        in_order = sorted(writes, key=lambda w: w.turn.turn_id)
        claimed = await self._insert_parts(conn, [(w, 0) for w in in_order], now)
        new = await self._insert_full(conn, writes, claimed, now)
        seen = [w for w in writes if w.turn.turn_id not in claimed]
        if seen:
            new += await self._write_again(conn, seen, now)
        await self._add_to_rollups(conn, new)
        shadow = self.shadow
        not_passed = [
            (turn, r)
            for turn, results in new
            for r in results
            if r.verdict is not Verdict.PASSED and (turn.agent_id, r.check.name) not in shadow
        ]
        if self.copy and len(not_passed) >= max(1, self.copy_from.event_rows):
            topic = self.events_topic
            events = (EVENT_RECORD(event_row(turn, r, topic, now)) for turn, r in not_passed)
            await copy_in(conn, "outbox", events, conflict="event_id")
            return new
        for chunk in chunks(not_passed):
            rows = [event_row(turn, r, self.events_topic, now) for turn, r in chunk]
            await conn.execute(
                self.database.insert(outbox).on_conflict_do_nothing(index_elements=["event_id"]),
                rows,
            )
        return new

    async def _insert_parts(
        self, conn: AsyncConnection, parts: list[tuple[TurnWrite, int]], now: datetime
    ) -> dict[str, int]:
        """Insert these parts, skipping any the turn already has; turn id → the write's id."""
        statement = (
            self.database.insert(passed_results)
            .on_conflict_do_nothing(index_elements=["turn_id", "part"])
            .returning(passed_results.c.turn_id, passed_results.c.id)
        )
        written: dict[str, int] = {}
        if self.copy and len(parts) >= max(1, self.copy_from.passed_rows):
            records = (
                PART_RECORD(passed_row(w.turn, w.compact, part, now, w.expires_at))
                for w, part in parts
            )
            claimed = await copy_in(
                conn,
                "passed_results",
                records,
                conflict="turn_id, part",
                returning=("turn_id", "id"),
            )
            written.update((turn_id, write_id) for turn_id, write_id in claimed)
            return written
        for chunk in chunks(parts, PART_CHUNK_ROWS):
            rows = [passed_row(w.turn, w.compact, part, now, w.expires_at) for w, part in chunk]
            if self.database.dialect == "postgresql":
                inserted = await conn.execute(UNNEST_PARTS, _columns(rows))
            else:
                inserted = await conn.execute(statement, rows)
            written.update((turn_id, write_id) for turn_id, write_id in inserted)
        return written

    async def _insert_full(
        self,
        conn: AsyncConnection,
        writes: Sequence[TurnWrite],
        write_ids: dict[str, int],
        now: datetime,
    ) -> list[New]:
        """The full rows of the writes that went in; every result they hold is new, the
        compact ones already stored with their part."""
        new: list[New] = []
        full: list[tuple[TurnWrite, int, CheckResult]] = []
        for w in writes:
            if w.turn.turn_id not in write_ids:
                continue
            if w.full:
                full += [(w, position, result) for position, result in w.full]
                new.append((w.turn, [w.results[position] for _, position in w.compact]))
            else:
                new.append((w.turn, w.results))
        statement = (
            self.database.insert(check_results)
            .on_conflict_do_nothing(index_elements=list(RESULT_KEY))
            .returning(*(check_results.c[name] for name in RESULT_KEY))
        )
        if self.copy and len(full) >= max(1, self.copy_from.full_rows):
            records = (
                RESULT_RECORD(
                    result_row(w.turn, r, now, w.expires_at, (write_ids[w.turn.turn_id], position))
                )
                for w, position, r in full
            )
            inserted = set(
                await copy_in(
                    conn,
                    "check_results",
                    records,
                    conflict=", ".join(RESULT_KEY),
                    returning=RESULT_KEY,
                )
            )
            return new + [(w.turn, [r]) for w, _, r in full if w.turn.key(r.check) in inserted]
        for chunk in chunks(full):
            rows = [
                result_row(w.turn, r, now, w.expires_at, (write_ids[w.turn.turn_id], position))
                for w, position, r in chunk
            ]
            inserted = {tuple(row) for row in await conn.execute(statement, rows)}
            new += [(w.turn, [r]) for w, _, r in chunk if w.turn.key(r.check) in inserted]
        return new

    async def _write_again(
        self, conn: AsyncConnection, writes: list[TurnWrite], now: datetime
    ) -> list[New]:
        """Turns written before: store, as each one's next part, the results it lacks."""
        new: list[New] = []
        for _ in range(PART_ATTEMPTS):
            turn_ids = [w.turn.turn_id for w in writes]
            if self.database.dialect == "postgresql":
                await lock_claims(conn, turn_ids)
            stored, last_part = await stored_keys(conn, turn_ids)
            missing = []
            for w in writes:
                results = [r for r in w.results if w.turn.key(r.check) not in stored]
                if results:
                    missing.append(TurnWrite.of(w.turn, results, w.expires_at))
            parts = [(w, last_part.get(w.turn.turn_id, -1) + 1) for w in missing]
            written = await self._insert_parts(conn, parts, now)
            new += await self._insert_full(conn, missing, written, now)
            # A part taken all the same was committed by its writer (ON CONFLICT waits for
            # it), so the next round's read sees it, and what it stored.
            writes = [w for w in missing if w.turn.turn_id not in written]
            if not writes:
                return new
        raise TurnContended(f"turns={len(writes)} attempts={PART_ATTEMPTS}")

    async def _add_to_rollups(self, conn: AsyncConnection, new: list[New]) -> None:
        values = rollup_values(new)
        if not values:
            return
        statement = self.database.insert(pass_rate_rollups)
        statement = statement.on_conflict_do_update(
            index_elements=list(ROLLUP_KEY),
            set_={
                name: pass_rate_rollups.c[name] + statement.excluded[name] for name in ROLLUP_COUNTS
            },
        )
        await conn.execute(statement, values)
