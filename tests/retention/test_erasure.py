"""Erasure by person, on SQLite and PostgreSQL: what it deletes, what it keeps, and that
nothing of the person comes back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from tests.factories import BANNED_WORDS_CHECKS, FIXED_NOW, check_set, make_turn, turn_bytes
from turncheck.worker.app import build_pipeline
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.errors import ConfigurationError, InvalidErasureRequest
from turncheck.worker.pipeline.batch import Pipeline, RawMessage, Rejected
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef, TurnResults
from turncheck.worker.retention.erasure import Eraser, decode_request
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.store.tables import check_results, erasures, judge_pending, outbox

KEY = b"test-erasure-key"
RETENTION = timedelta(days=30)
CHECK = CheckId("no-competitors", "v1", "does_not_contain", "output", "block")
JUDGED = CheckId("tone", "v1", "judge", "output", "background")


def turn_of(turn_id: str, person: str) -> TurnRef:
    return TurnRef.of(make_turn(turn_id, person_id=person))


async def seed(store: Store) -> None:
    """Two turns of alice (one failed, so one event; one with a pending judgement) and one
    failed turn of bob."""
    batch = [
        TurnResults(turn_of("a-1", "alice"), [CheckResult(CHECK, Verdict.FAILED)], RETENTION),
        TurnResults(
            turn_of("a-2", "alice"),
            [CheckResult(CHECK, Verdict.PASSED)],
            RETENTION,
            [PendingJudgement(turn_of("a-2", "alice"), JUDGED, FIXED_NOW + timedelta(minutes=2))],
        ),
        TurnResults(turn_of("b-1", "bob"), [CheckResult(CHECK, Verdict.FAILED)], RETENTION),
    ]
    await store.writer.save(batch, FIXED_NOW)


async def count(store: Store, table: object, *where: object) -> int:
    query = select(func.count()).select_from(table)  # type: ignore[arg-type]
    for clause in where:
        query = query.where(clause)  # type: ignore[arg-type]
    async with store.database.transaction() as conn:
        return int((await conn.execute(query)).scalar_one())


async def test_erasing_deletes_the_person_s_results_judgements_and_unsent_events(
    store: Store,
) -> None:
    await seed(store)
    receipt = await Eraser(store.database, KEY).erase(
        "alice", requested_at=FIXED_NOW, now=FIXED_NOW
    )
    assert (receipt.results, receipt.pending_judgements, receipt.events) == (2, 1, 1)
    assert await count(store, check_results, check_results.c.person_id == "alice") == 0
    assert await count(store, judge_pending) == 0
    assert await count(store, check_results, check_results.c.person_id == "bob") == 1
    assert await count(store, outbox) == 1  # bob's event stays


async def test_events_already_sent_are_not_touched(store: Store) -> None:
    """A sent event is the consumer's now; the outbox only loses what it has not sent."""
    await seed(store)
    async with store.database.transaction() as conn:
        await conn.execute(update(outbox).values(sent_at=FIXED_NOW))
    receipt = await Eraser(store.database, KEY).erase(
        "alice", requested_at=FIXED_NOW, now=FIXED_NOW
    )
    assert receipt.events == 0 and await count(store, outbox) == 2


async def test_the_ledger_keeps_a_keyed_hash_never_the_id(store: Store) -> None:
    eraser = Eraser(store.database, KEY)
    receipt = await eraser.erase("alice@example.com", requested_at=FIXED_NOW, now=FIXED_NOW)
    async with store.database.transaction() as conn:
        rows = (await conn.execute(select(erasures))).all()
    assert [row.person_key for row in rows] == [receipt.person_key]
    assert "alice" not in str(rows)
    assert Eraser(store.database, b"another key").person_key("alice@example.com") != (
        receipt.person_key
    )
    assert await eraser.erased(["alice@example.com", "bob"]) == {"alice@example.com"}


async def test_erasing_twice_is_harmless(store: Store) -> None:
    await seed(store)
    eraser = Eraser(store.database, KEY)
    await eraser.erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW)
    again = await eraser.erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW + timedelta(days=1))
    assert (again.results, again.pending_judgements, again.events) == (0, 0, 0)
    assert await count(store, erasures) == 1


async def test_a_judgement_that_answers_after_the_erasure_stores_nothing(store: Store) -> None:
    await seed(store)
    await Eraser(store.database, KEY).erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW)
    stored = await store.writer.save_judged(
        turn_of("a-2", "alice"),
        CheckResult(JUDGED, Verdict.FAILED, reason="Rude."),
        FIXED_NOW + RETENTION,
        FIXED_NOW,
    )
    assert not stored
    assert await count(store, check_results, check_results.c.person_id == "alice") == 0


async def test_a_redelivered_turn_of_an_erased_person_is_dropped(
    store: Store, tmp_path: Path
) -> None:
    """The pipeline leaves the person's turns out; the others are stored and committed."""
    eraser = Eraser(store.database, KEY)
    await eraser.erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW)
    rejected: list[Rejected] = []

    async def dead_letter(items: Sequence[Rejected]) -> None:
        rejected.extend(items)

    pipeline = Pipeline(
        checks=check_set(tmp_path, BANNED_WORDS_CHECKS),
        store=store.writer,
        dead_letter=dead_letter,
        clock=lambda: FIXED_NOW,
        retention=RETENTION,
        ledger=eraser,
    )
    commits = []

    async def commit() -> None:
        commits.append(1)

    report = await pipeline.handle_batch(
        [
            RawMessage(turn_bytes("a-9", "Ask HelpCo.", person_id="alice"), offset=0),
            RawMessage(turn_bytes("b-9", "Ask HelpCo.", person_id="bob"), offset=1),
            RawMessage(turn_bytes("n-9", "Ask HelpCo.", person_id=None), offset=2),
        ],
        commit,
    )
    assert (report.turns, report.erased) == (2, 1) and commits == [1] and rejected == []
    assert await store.queries.results_for_turn("a-9") == []
    assert await store.queries.results_for_turn("b-9") != []
    assert await count(store, outbox, outbox.c.key == "a-9") == 0


async def test_a_process_without_the_key_stores_no_batch_once_anyone_is_erased(
    store: Store, tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Without TURNCHECK_ERASURE_KEY the pipeline cannot tell an erased person's turns:
    once another process has erased anyone, a batch is refused whole, before anything is
    stored or committed, with an error line naming the setting."""
    settings = Settings(database_url=database_url, erasure_key=None)
    commits: list[int] = []

    async def commit() -> None:
        commits.append(1)

    checks = check_set(tmp_path, BANNED_WORDS_CHECKS)
    pipeline = build_pipeline(settings, checks, store, _no_dead_letters, lambda: FIXED_NOW)
    await pipeline.handle_batch([RawMessage(turn_bytes("b-1", person_id="bob"))], commit)
    assert await store.queries.results_for_turn("b-1") != []
    await Eraser(store.database, KEY).erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW)
    batch = [
        RawMessage(turn_bytes("a-2", "Ask HelpCo.", person_id="alice")),
        RawMessage(turn_bytes("n-2", "Ask HelpCo.", person_id=None)),
    ]
    with pytest.raises(ConfigurationError, match="TURNCHECK_ERASURE_KEY is not set, but 1 person"):
        await pipeline.handle_batch(batch, commit)
    assert commits == [1]
    assert await store.queries.results_for_turn("a-2") == []
    assert await store.queries.results_for_turn("n-2") == []
    assert await count(store, outbox) == 0
    [line] = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert line.startswith("batch refused, nothing stored: TURNCHECK_ERASURE_KEY is not set")


async def _no_dead_letters(rejected: Sequence[Rejected]) -> None:
    assert not rejected


def test_erasure_needs_its_key() -> None:
    with pytest.raises(ConfigurationError, match="TURNCHECK_ERASURE_KEY"):
        Eraser(None, b"")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (None, "a tombstone is not an erasure request"),
        (b"{oops", "not valid JSON"),
        (b'{"requested_at": "2026-12-01T10:00:00Z"}', "person_id: Field required"),
        (b'{"person_id": "alice", "requested_at": "2026-12-01T10:00:00"}', "requested_at:"),
        (b'{"person_id": "", "requested_at": "2026-12-01T10:00:00Z"}', "person_id:"),
        (
            b'{"person_id": "alice", "requested_at": "0001-01-01T00:00:00+14:00"}',
            "requested_at: out of range once converted to UTC",
        ),
        (
            b'{"person_id": "alice", "requested_at": "9999-12-31T23:00:00-02:00"}',
            "requested_at: out of range once converted to UTC",
        ),
    ],
)
def test_a_bad_request_names_what_is_wrong_never_the_person(
    value: bytes | None, reason: str
) -> None:
    with pytest.raises(InvalidErasureRequest) as caught:
        decode_request(value)
    assert caught.value.reason.startswith(reason)
    assert "alice" not in caught.value.reason


def test_a_request_is_read() -> None:
    request = decode_request(b'{"person_id": "alice", "requested_at": "2026-12-01T10:00:00Z"}')
    assert request.person_id == "alice" and request.requested_at.tzinfo is not None


async def test_no_person_id_in_any_table_after_erasure(store: Store) -> None:
    """A scan of every text column of every table for the id finds nothing."""
    await seed(store)
    await Eraser(store.database, KEY).erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW)
    async with store.database.transaction() as conn:
        for table in (check_results, judge_pending, outbox, erasures):
            rows = (await conn.execute(select(table))).all()
            assert "alice" not in str(rows), table.name
