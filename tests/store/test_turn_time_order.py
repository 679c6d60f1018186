"""A check's latest results are its newest turns', whatever order the turns were stored in
(a replay of old turns after today's, a judged result written later), on SQLite and
PostgreSQL: alert windows, pages and the failures list."""

import random
from datetime import timedelta

from sqlalchemy import event

from tests.factories import FIXED_NOW, make_turn
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.pipeline.records import TurnRef, TurnResults
from turncheck.worker.store import Store
from turncheck.worker.store.alert_readings import Readings
from turncheck.worker.store.pages import ResultFilter, ResultPages
from turncheck.worker.store.views import StoredResult

RETENTION = timedelta(days=30)
AGENT = "support-bot"


def check(name: str, version: str = "v1") -> CheckId:
    return CheckId(name, version, "does_not_contain", "output", "block")


def at(turn_id: str, minutes: float) -> TurnRef:
    """A turn created ``minutes`` after ``FIXED_NOW``."""
    created_at = (FIXED_NOW + timedelta(minutes=minutes)).isoformat()
    return TurnRef.of(make_turn(turn_id, created_at=created_at))


def results(turns: list[tuple[str, float]], verdict: Verdict, name: str = "a") -> list[TurnResults]:
    return [
        TurnResults(at(turn_id, minutes), [CheckResult(check(name), verdict)], RETENTION)
        for turn_id, minutes in turns
    ]


def minutes(first: int, count: int, prefix: str) -> list[tuple[str, float]]:
    return [(f"{prefix}-{n}", n) for n in range(first, first + count)]


async def test_a_replay_of_old_failing_turns_does_not_fill_the_window_of_today(
    store: Store,
) -> None:
    """Today's turns are stored first, then two old weeks are replayed: the latest results
    are still today's, and the window reaches back into the replay only past them."""
    await store.writer.save(results(minutes(100, 5, "new"), Verdict.PASSED), FIXED_NOW)
    replay = results(minutes(0, 20, "old"), Verdict.FAILED)
    await store.writer.save(replay, FIXED_NOW + timedelta(hours=1))
    readings = Readings(store.database)
    window = await readings.latest_counts("a", AGENT, 5, [])
    assert (window.passed, window.failed) == (5, 0)
    assert window.oldest_at == FIXED_NOW + timedelta(minutes=100)
    wider = await readings.latest_counts("a", AGENT, 10, [])
    assert (wider.passed, wider.failed) == (5, 5)
    assert wider.oldest_at == FIXED_NOW + timedelta(minutes=15)
    failing = await store.queries.not_passed(
        "a", agent=None, since=FIXED_NOW + timedelta(minutes=50), limit=100
    )
    assert failing == []


async def test_a_replay_of_old_passing_turns_does_not_hide_today_s_failures(
    store: Store,
) -> None:
    """The other way round: today's failures stored first, old passed results after them."""
    await store.writer.save(results(minutes(100, 5, "new"), Verdict.FAILED), FIXED_NOW)
    replay = results(minutes(0, 20, "old"), Verdict.PASSED)
    await store.writer.save(replay, FIXED_NOW + timedelta(hours=1))
    window = await Readings(store.database).latest_counts("a", AGENT, 5, [])
    assert (window.passed, window.failed) == (0, 5)
    page, _ = await ResultPages(store.database).page(
        "a", ResultFilter(["passed", "failed"]), limit=7
    )
    assert [r.turn_id for r in page] == [f"new-{n}" for n in range(104, 99, -1)] + [
        "old-19",
        "old-18",
    ]


async def test_a_new_version_s_result_written_later_counts_at_its_turn_s_time(
    store: Store,
) -> None:
    """A redelivery with an edited check writes a later part of an old turn: it sorts
    with that turn, not above the newest turns."""
    await store.writer.save(results(minutes(0, 10, "t"), Verdict.PASSED), FIXED_NOW)
    edited = TurnResults(at("t-0", 0), [CheckResult(check("a", "v2"), Verdict.FAILED)], RETENTION)
    await store.writer.save([edited], FIXED_NOW + timedelta(hours=1))
    readings = Readings(store.database)
    assert (await readings.latest_counts("a", AGENT, 3, [])).failed == 0
    everything = await readings.latest_counts("a", AGENT, 20, [])
    assert (everything.passed, everything.failed) == (10, 1)
    page, _ = await ResultPages(store.database).page(
        "a", ResultFilter(["passed", "failed"]), limit=20
    )
    assert [(r.turn_id, r.check_version) for r in page][-3:] == [
        ("t-1", "v1"),
        ("t-0", "v2"),  # the later write of the same turn first
        ("t-0", "v1"),
    ]


async def test_windows_and_pages_agree_with_every_result_sorted_by_turn_time(
    store: Store,
) -> None:
    """Turns with shared times, stored in shuffled batches at shuffled moments, a rule
    check on every turn, an edited version on some, a judged check on a sample written
    later: every window and every page walk is the sorted list of all results."""
    draw = random.Random(15)
    turns = [at(f"t-{n:03d}", draw.randrange(0, 60 * 24 * 14, 30)) for n in range(150)]
    verdicts = [Verdict.PASSED] * 6 + [Verdict.FAILED, Verdict.ERRORED]
    items = []
    for turn in turns:
        result = CheckResult(check("a"), draw.choice(verdicts))
        if draw.random() < 0.1:
            result = CheckResult(check("a"), Verdict.PASSED, "Close to a phrase.")  # a full row
        other = CheckResult(check("b"), Verdict.PASSED)
        items.append(TurnResults(turn, [other, result], RETENTION))
    draw.shuffle(items)
    moment = FIXED_NOW + timedelta(days=15)
    for start in range(0, len(items), 20):
        moment += timedelta(minutes=draw.randrange(-30, 30))
        await store.writer.save(items[start : start + 20], moment)
    later = [t for t in turns if draw.random() < 0.2]
    for turn in later:
        edited = CheckResult(check("a", "v2"), draw.choice(verdicts))
        judged = CheckResult(CheckId("a", "j1", "judge", "output", "background"), Verdict.PASSED)
        await store.writer.save(
            [TurnResults(turn, [draw.choice([edited, judged])], RETENTION)],
            moment + timedelta(minutes=draw.randrange(0, 600)),
        )

    stored: list[StoredResult] = []
    for turn in turns:
        stored += [r for r in await store.queries.results_for_turn(turn.turn_id) if r.check == "a"]
    newest_first = sorted(stored, key=lambda r: r.order, reverse=True)

    readings = Readings(store.database)
    for latest in (1, 7, 50, 120, 200):
        window = await readings.latest_counts("a", AGENT, latest, [])
        expected = newest_first[:latest]
        assert (window.passed, window.failed, window.errored) == tuple(
            sum(r.verdict == v for r in expected) for v in ("passed", "failed", "errored")
        ), latest
        assert window.oldest_at == expected[-1].turn_created_at

    pages = ResultPages(store.database)
    for wanted in (["passed", "failed", "errored"], ["passed"], ["failed", "errored"]):
        for size in (9, 40):
            seen, after = [], None
            while True:
                page, after = await pages.page("a", ResultFilter(wanted), limit=size, after=after)
                seen += [(r.turn_id, r.check_version, r.verdict) for r in page]
                if after is None:
                    break
            assert seen == [
                (r.turn_id, r.check_version, r.verdict) for r in newest_first if r.verdict in wanted
            ], (wanted, size)


async def test_every_reader_of_the_latest_results_walks_an_index_without_sorting(
    store: Store,
) -> None:
    """The alert window, the pages (on from a cursor too) and the failures list of one
    agent ask for rows in the order of an index: no database sorts a check's results."""
    old = minutes(0, 10, "old")
    await store.writer.save(
        results(old, Verdict.FAILED) + results(minutes(20, 10, "ok"), Verdict.PASSED), FIXED_NOW
    )
    asked: list[tuple[str, object]] = []

    def record(
        conn: object, cursor: object, statement: str, parameters: object, *rest: object
    ) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "ORDER BY" in statement:
            asked.append((statement, parameters))

    engine = store.database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        await Readings(store.database).latest_counts("a", AGENT, 5, [])
        pages = ResultPages(store.database)
        where = ResultFilter(["passed", "failed", "errored"], AGENT, since=FIXED_NOW)
        _, after = await pages.page("a", where, limit=3)
        await pages.page("a", where, limit=3, after=after)
        await store.queries.not_passed("a", agent=AGENT, since=FIXED_NOW, limit=5)
    finally:
        event.remove(engine, "before_cursor_execute", record)

    reading = [(s, p) for s, p in asked if "check_results" in s or "passed_results" in s]
    assert len(reading) >= 6
    async with store.database.engine.connect() as conn:
        postgres = conn.dialect.name == "postgresql"
        if postgres:
            # Whatever the planner thinks of a small table: a sort only where no index
            # gives the order.
            for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort", "jit"):
                await conn.exec_driver_sql(f"SET {setting} = off")
        for statement, parameters in reading:
            explain = "EXPLAIN " if postgres else "EXPLAIN QUERY PLAN "
            plan = "\n".join(
                str(row[-1]) for row in await conn.exec_driver_sql(explain + statement, parameters)
            )
            assert "_latest" in plan, plan
            assert "Sort" not in plan and "TEMP B-TREE" not in plan, (statement, plan)
