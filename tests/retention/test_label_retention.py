"""Labels go with their results, on SQLite and PostgreSQL: the retention purge deletes
expired ones, and erasure by person deletes and counts them."""

from __future__ import annotations

from datetime import timedelta

from tests.factories import FIXED_NOW
from tests.retention.test_purge import DAY, batch
from turncheck.worker.retention.erasure import Eraser
from turncheck.worker.retention.purge import Purger
from turncheck.worker.store import Store
from turncheck.worker.store.labels import LabelTable

CHECK = "no-competitors"


async def test_the_purge_deletes_expired_labels_with_their_results(store: Store) -> None:
    await store.writer.save(batch("old", 3, created_days_ago=31), FIXED_NOW - 31 * DAY)
    await store.writer.save(batch("new", 2, created_days_ago=1), FIXED_NOW)
    labels = LabelTable(store.database)
    for turn_id in ("old-0", "old-1", "new-0"):
        await labels.set(
            turn_id, CHECK, "false_alarm", "kept only while its result is", now=FIXED_NOW
        )
    report = await Purger(store.database, chunk_rows=2).purge(FIXED_NOW)
    assert (report.results, report.labels) == (3, 2)
    assert report.as_dict()["labels"] == 2
    assert [label.turn_id for label in await labels.export()] == ["new-0"]


async def test_erasing_a_person_deletes_their_labels_and_counts_them(store: Store) -> None:
    await store.writer.save(batch("a", 3, created_days_ago=1, person="alice"), FIXED_NOW)
    await store.writer.save(batch("b", 1, created_days_ago=1, person="bob"), FIXED_NOW)
    labels = LabelTable(store.database)
    for turn_id in ("a-0", "a-2", "b-0"):
        await labels.set(turn_id, CHECK, "confirmed", "a person's words", now=FIXED_NOW)
    eraser = Eraser(store.database, b"key")
    receipt = await eraser.erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW)
    assert (receipt.results, receipt.labels) == (3, 2)
    assert receipt.as_dict()["deleted"]["labels"] == 2  # type: ignore[index]
    assert [label.turn_id for label in await labels.export()] == ["b-0"]
    again = await eraser.erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW + timedelta(1))
    assert again.labels == 0
