"""Passed results kept as one row per turn and write read back exactly as full rows, on
SQLite and PostgreSQL: a turn's results, pages, alert windows, erasure and purge."""

import asyncio
import json
from datetime import timedelta

from sqlalchemy import func, select

from tests.factories import FIXED_NOW, make_turn
from turncheck.worker.checks import CheckId, CheckResult, Span, Verdict
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef, TurnResults
from turncheck.worker.retention.erasure import Eraser
from turncheck.worker.retention.purge import Purger
from turncheck.worker.store import Store
from turncheck.worker.store.alert_readings import Readings
from turncheck.worker.store.pages import ResultFilter, ResultPages
from turncheck.worker.store.passed import decode, encode, entries_of
from turncheck.worker.store.tables import check_results, passed_results

RETENTION = timedelta(days=30)
POLITE = CheckId("polite", "j1", "judge", "output", "background")


def check(name: str, version: str = "v1") -> CheckId:
    return CheckId(name, version, "does_not_contain", "output", "block")


def ref(turn_id: str, person: str = "p-1") -> TurnRef:
    return TurnRef.of(make_turn(turn_id, person_id=person))


def at(turn_id: str, minutes: float) -> TurnRef:
    """A turn created ``minutes`` after ``FIXED_NOW``."""
    created_at = (FIXED_NOW + timedelta(minutes=minutes)).isoformat()
    return TurnRef.of(make_turn(turn_id, created_at=created_at))


def mixed(turn_id: str, person: str = "p-1") -> TurnResults:
    """a passes, b fails, c passes, d passes with a reason and a span (a full row)."""
    return TurnResults(
        ref(turn_id, person),
        [
            CheckResult(check("a"), Verdict.PASSED),
            CheckResult(
                check("b"), Verdict.FAILED, "Banned.", spans=(Span("output.text", 1, 4, "x"),)
            ),
            CheckResult(check("c"), Verdict.PASSED),
            CheckResult(check("d"), Verdict.PASSED, "Near a limit.", 0.9),
        ],
        RETENTION,
    )


async def rows(store: Store, table: object) -> int:
    async with store.database.transaction() as conn:
        query = select(func.count()).select_from(table)  # type: ignore[arg-type]
        return int((await conn.execute(query)).scalar_one())


async def test_passed_results_are_one_row_per_turn_and_read_back_in_order(store: Store) -> None:
    assert (await store.writer.save([mixed("t-1"), mixed("t-2")], FIXED_NOW)).new_results == 8
    assert await rows(store, passed_results) == 2
    assert await rows(store, check_results) == 4  # b and d of each turn
    got = await store.queries.results_for_turn("t-1")
    assert [(r.check, r.verdict, r.reason, r.score) for r in got] == [
        ("a", "passed", None, None),
        ("b", "failed", "Banned.", None),
        ("c", "passed", None, None),
        ("d", "passed", "Near a limit.", 0.9),
    ]
    a = got[0].as_dict()
    assert a["spans"] == [] and a["usage"] is None and a["answers"] is None
    assert (a["check_version"], a["kind"], a["stage"], a["mode"]) == (
        "v1",
        "does_not_contain",
        "output",
        "block",
    )
    assert (a["agent_id"], a["agent_version"], a["person_id"]) == ("support-bot", "7", "p-1")
    assert a["checked_at"] == FIXED_NOW.isoformat()
    assert a["expires_at"] == (got[0].turn_created_at + RETENTION).isoformat()


async def test_a_redelivery_with_an_edited_check_stores_only_the_new_version(
    store: Store,
) -> None:
    await store.writer.save([mixed("t-1")], FIXED_NOW)
    edited = TurnResults(
        ref("t-1"),
        [CheckResult(check("a", "v2"), Verdict.PASSED), *mixed("t-1").results[1:]],
        RETENTION,
    )
    again = await store.writer.save([edited, mixed("t-1")], FIXED_NOW + timedelta(minutes=1))
    assert again.new_results == 1
    got = await store.queries.results_for_turn("t-1")
    assert [(r.check, r.check_version) for r in got] == [
        ("a", "v1"),
        ("b", "v1"),
        ("c", "v1"),
        ("d", "v1"),
        ("a", "v2"),
    ]
    [rate] = await store.queries.pass_rates(check="a")
    assert (rate.passed, rate.failed) == (2, 0)
    assert len(await store.outbox.pending_events(10)) == 1  # b's, once


async def test_two_writers_of_the_same_turns_store_each_result_once(store: Store) -> None:
    batch = [mixed(f"t-{n:03d}") for n in range(200)]
    reports = await asyncio.gather(
        store.writer.save(batch, FIXED_NOW), store.writer.save(batch[::-1], FIXED_NOW)
    )
    assert sum(r.new_results for r in reports) == 800
    rates = {r.check: r for r in await store.queries.pass_rates()}
    assert (rates["a"].passed, rates["b"].failed, rates["d"].passed) == (200, 200, 200)
    assert len(await store.queries.results_for_turn("t-007")) == 4


async def test_a_judged_passed_result_is_found_by_every_reader(store: Store) -> None:
    turn = ref("t-1")
    pending = PendingJudgement(turn, POLITE, FIXED_NOW)
    await store.writer.save(
        [TurnResults(turn, mixed("t-1").results, RETENTION, [pending])], FIXED_NOW
    )
    later = FIXED_NOW + timedelta(minutes=5)
    judged = CheckResult(POLITE, Verdict.PASSED)
    assert await store.writer.save_judged(turn, judged, turn.created_at + RETENTION, later)
    got = await store.queries.results_for_turn("t-1")
    assert [(r.check, r.verdict, r.checked_at) for r in got][-1] == ("polite", "passed", later)
    page, _ = await ResultPages(store.database).page("polite", ResultFilter(["passed"]), limit=10)
    assert [(r.turn_id, r.verdict) for r in page] == [("t-1", "passed")]
    window = await Readings(store.database).latest_counts("polite", "support-bot", 10, [])
    # Stored later, it counts among the results of its turn's time.
    assert (window.passed, window.failed, window.oldest_at) == (1, 0, turn.created_at)
    [rate] = await store.queries.pass_rates(check="polite")
    assert rate.passed == 1


async def test_pages_of_passed_and_failed_results_interleave_as_stored(store: Store) -> None:
    """Ties on checked_at break on the order of storing, across both shapes."""
    expected = []
    for minute in range(3):
        batch = []
        for n in range(4):
            turn_id = f"t-{minute}-{n}"
            verdict = Verdict.FAILED if n % 2 else Verdict.PASSED
            batch.append(TurnResults(ref(turn_id), [CheckResult(check("a"), verdict)], RETENTION))
            expected.append((turn_id, verdict.value))
        await store.writer.save(batch, FIXED_NOW + timedelta(minutes=minute))
    pages, after = ResultPages(store.database), None
    seen = []
    while True:
        where = ResultFilter(["passed", "failed"], agent=None)
        page, after = await pages.page("a", where, limit=5, after=after)
        seen += [(r.turn_id, r.verdict) for r in page]
        if after is None:
            break
    assert seen == expected[::-1]
    only_passed, _ = await pages.page("a", ResultFilter(["passed"], "support-bot"), limit=100)
    assert [r.turn_id for r in only_passed] == [t for t, v in expected[::-1] if v == "passed"]


async def test_a_walk_over_passed_results_alone_gives_every_one_of_them(store: Store) -> None:
    """Pages of compact results only: each page reads on past the previous page's last
    write, so the walk does not stop a page early."""
    for n in range(30):
        item = TurnResults(ref(f"t-{n:02d}"), [CheckResult(check("a"), Verdict.PASSED)], RETENTION)
        await store.writer.save([item], FIXED_NOW + timedelta(minutes=n))
    pages, after, seen = ResultPages(store.database), None, []
    while True:
        page, after = await pages.page("a", ResultFilter(["passed"]), limit=9, after=after)
        seen += [r.turn_id for r in page]
        if after is None:
            break
    assert seen == [f"t-{n:02d}" for n in range(29, -1, -1)]


async def test_an_alert_window_counts_the_latest_results_of_both_shapes(store: Store) -> None:
    for minute in range(10):
        verdict = Verdict.FAILED if minute in (0, 8) else Verdict.PASSED
        item = TurnResults(at(f"t-{minute}", minute), [CheckResult(check("a"), verdict)], RETENTION)
        await store.writer.save([item], FIXED_NOW + timedelta(minutes=minute))
    window = await Readings(store.database).latest_counts("a", "support-bot", 5, [])
    assert (window.passed, window.failed, window.errored) == (4, 1, 0)
    assert window.oldest_at == FIXED_NOW + timedelta(minutes=5)
    everything = await Readings(store.database).latest_counts("a", "support-bot", 50, [])
    assert (everything.passed, everything.failed, everything.oldest_at) == (8, 2, FIXED_NOW)


async def test_erasure_and_the_purge_count_every_result_they_delete(store: Store) -> None:
    await store.writer.save([mixed("a-1", "alice"), mixed("b-1", "bob")], FIXED_NOW)
    receipt = await Eraser(store.database, b"key").erase(
        "alice", requested_at=FIXED_NOW, now=FIXED_NOW
    )
    assert receipt.results == 4
    assert await store.queries.results_for_turn("a-1") == []
    report = await Purger(store.database).purge(FIXED_NOW + RETENTION + timedelta(days=1))
    assert report.results == 4
    assert await store.queries.results_for_turn("b-1") == []
    assert await rows(store, passed_results) == 0


async def test_a_result_listed_twice_in_a_turn_is_stored_once(store: Store) -> None:
    twice = TurnResults(
        ref("t-1"),
        [CheckResult(check("a"), Verdict.PASSED), CheckResult(check("a"), Verdict.PASSED)],
        RETENTION,
    )
    assert (await store.writer.save([twice], FIXED_NOW)).new_results == 1
    assert len(await store.queries.results_for_turn("t-1")) == 1


async def test_checks_whose_names_differ_only_in_case_are_read_apart(store: Store) -> None:
    for minute, name in enumerate(["cards", "cards", "Cards"]):
        item = TurnResults(
            ref(f"t-{minute}"), [CheckResult(check(name), Verdict.PASSED)], RETENTION
        )
        await store.writer.save([item], FIXED_NOW + timedelta(minutes=minute))
    window = await Readings(store.database).latest_counts("Cards", "support-bot", 10, [])
    assert window.passed == 1
    page, _ = await ResultPages(store.database).page("cards", ResultFilter(["passed"]), limit=10)
    assert [r.turn_id for r in page] == ["t-1", "t-0"]


def test_compact_entries_are_written_as_one_json_list_and_read_back() -> None:
    """Entries made once and joined read back exactly, and keep the text readers of one
    check search for (names with quotes, backslashes and non-ASCII letters included)."""
    names = ["plain", 'say "hi"', "back\\slash", "naïve ünïcode", "plain"]
    entries = [(check(name, f"v{i}"), i) for i, name in enumerate(names)]
    text = encode(entries)
    assert json.loads(text) == [
        [c.name, c.version, c.kind, c.stage, c.mode, position] for c, position in entries
    ]
    assert text == json.dumps(json.loads(text), separators=(",", ":"))
    assert decode(text) == entries
    assert entries_of(text, "plain") == [entries[0], entries[4]]
    assert entries_of(text, "naïve ünïcode") == [entries[3]]
    assert encode([]) == "[]"
