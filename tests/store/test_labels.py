"""Labels on stored results, on SQLite and PostgreSQL: which result a label goes on, one
label per turn and check, and the pass rates and precision they give."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.api.conftest import result, save, turn
from tests.factories import FIXED_NOW
from turncheck.worker.checks import Verdict
from turncheck.worker.errors import ConfigurationError, NoStoredResult, NotLabellable
from turncheck.worker.labels import read_labels, write_lines
from turncheck.worker.pipeline.records import TurnResults
from turncheck.worker.store import Store
from turncheck.worker.store.label_rates import label_counts, labelled_buckets, labelled_rates
from turncheck.worker.store.labels import LabelTable
from turncheck.worker.store.queries import DAY
from turncheck.worker.store.rows import ROLLUP_BUCKET

C = "no-competitors"
LATER = FIXED_NOW + timedelta(minutes=5)


async def seed(store: Store) -> None:
    """no-competitors: a, b, c failed at 10:00, 10:30 and 11:15; d passed; e errored."""
    for turn_id, at in (("a", "10:00"), ("b", "10:30"), ("c", "11:15")):
        await save(store, [turn(turn_id, created_at=f"2026-11-29T{at}:00Z")], [(C, Verdict.FAILED)])
    await save(store, [turn("d")], [(C, Verdict.PASSED)])
    await save(store, [turn("e")], [(C, Verdict.ERRORED)])


async def rates(store: Store, *, exclude: bool) -> list[tuple[int, int, int, int, float | None]]:
    found = await store.queries.pass_rates(check=C)
    counts = await label_counts(store.database, since=None, until=None, check=C)
    return [
        (r.passed, r.failed, r.false_alarms, r.confirmed, r.precision)
        for r in labelled_rates(found, counts, exclude_false_alarms=exclude)
    ]


async def test_a_false_alarm_counts_as_passed_only_when_asked(store: Store) -> None:
    """Without exclusion the counts are the raw verdicts; with it, each false alarm moves
    from failed to passed and the turn still counts once."""
    await seed(store)
    labels = LabelTable(store.database)
    await labels.set("a", C, "false_alarm", None, now=LATER)
    await labels.set("b", C, "confirmed", None, now=LATER)
    assert await rates(store, exclude=False) == [(1, 3, 1, 1, 0.5)]
    assert await rates(store, exclude=True) == [(2, 2, 1, 1, 0.5)]
    [rate] = labelled_rates(
        await store.queries.pass_rates(check=C),
        await label_counts(store.database, since=None, until=None, check=C),
        exclude_false_alarms=True,
    )
    assert (rate.total, rate.pass_rate) == (5, 0.4)


async def test_precision_is_the_confirmed_share_of_labelled_failures(store: Store) -> None:
    await seed(store)
    labels = LabelTable(store.database)
    assert await rates(store, exclude=False) == [(1, 3, 0, 0, None)]  # no labels, no precision
    for turn_id in ("a", "b", "c"):
        await labels.set(turn_id, C, "confirmed", None, now=LATER)
    await labels.set("c", C, "false_alarm", "the phrase was quoted", now=LATER)
    [(_, _, false_alarms, confirmed, precision)] = await rates(store, exclude=False)
    assert (false_alarms, confirmed) == (1, 2)
    assert precision == pytest.approx(2 / 3)


async def test_labels_are_counted_in_the_hours_and_days_the_rollups_count(store: Store) -> None:
    """A window widened to whole hours, and per-bucket counts, match the rollups' buckets."""
    await seed(store)
    labels = LabelTable(store.database)
    await labels.set("a", C, "false_alarm", None, now=LATER)  # 10:00
    await labels.set("c", C, "false_alarm", None, now=LATER)  # 11:15
    since, until = FIXED_NOW.replace(hour=10, minute=20), FIXED_NOW.replace(hour=10, minute=40)
    window = await label_counts(store.database, since=since, until=until, check=C)
    assert {key[1:3]: v.false_alarms for key, v in window.items()} == {(C, "support-bot"): 1}
    hourly = labelled_buckets(
        await store.queries.bucketed_pass_rates(ROLLUP_BUCKET, since=FIXED_NOW - DAY, check=C),
        await label_counts(
            store.database, since=FIXED_NOW - DAY, until=None, check=C, bucket=ROLLUP_BUCKET
        ),
        exclude_false_alarms=True,
    )
    assert [(start.hour, r.passed, r.failed, r.false_alarms) for start, r in hourly] == [
        (10, 2, 1, 1),
        (11, 1, 0, 1),
    ]
    daily = labelled_buckets(
        await store.queries.bucketed_pass_rates(DAY, since=FIXED_NOW - DAY, check=C),
        await label_counts(store.database, since=FIXED_NOW - DAY, until=None, check=C, bucket=DAY),
        exclude_false_alarms=True,
    )
    assert [(r.passed, r.failed, r.false_alarms) for _, r in daily] == [(3, 1, 2)]


async def test_labelling_again_replaces_the_label(store: Store) -> None:
    await seed(store)
    labels = LabelTable(store.database)
    await labels.set("a", C, "false_alarm", "looked wrong", now=LATER)
    again = await labels.set("a", C, "confirmed", None, now=LATER + timedelta(minutes=1))
    [only] = await labels.export()
    assert only == again
    assert (only.label, only.note, only.labelled_at) == (
        "confirmed",
        None,
        LATER + timedelta(minutes=1),
    )


async def test_a_label_goes_on_the_newest_result_and_records_its_version(store: Store) -> None:
    """Checked again with a new version, a turn is labelled on its newest result; one whose
    newest result passed takes no label, whatever an older version said."""
    one, two = turn("x"), turn("y")
    for t, newer in ((one, Verdict.FAILED), (two, Verdict.PASSED)):
        await store.writer.save(
            [TurnResults(t, [result(C, Verdict.FAILED, "v1")], timedelta(days=30))], FIXED_NOW
        )
        await store.writer.save(
            [TurnResults(t, [result(C, newer, "v2")], timedelta(days=30))], FIXED_NOW
        )
    labels = LabelTable(store.database)
    label = await labels.set("x", C, "false_alarm", None, now=LATER)
    assert label.check_version == "v2"
    with pytest.raises(NotLabellable, match="is passed: only a failed result can be labelled"):
        await labels.set("y", C, "false_alarm", None, now=LATER)
    shown = {(r.check_version, r.verdict) for r in await store.queries.results_for_turn("x")}
    of_turn = await labels.of_turn("x")
    assert shown == {("v1", "failed"), ("v2", "failed")}
    assert list(of_turn) == [("x", C, "v2")]  # the v1 result shows no label


@pytest.mark.parametrize("verdict", [Verdict.PASSED, Verdict.ERRORED])
async def test_only_a_failed_result_takes_a_label(store: Store, verdict: Verdict) -> None:
    await save(store, [turn("p")], [(C, verdict)])
    with pytest.raises(NotLabellable):
        await LabelTable(store.database).set("p", C, "confirmed", None, now=LATER)
    assert await LabelTable(store.database).export() == []


async def test_an_unknown_result_is_refused_naming_the_turn_and_check(store: Store) -> None:
    await seed(store)
    labels = LabelTable(store.database)
    with pytest.raises(NoStoredResult, match=r"^turn 'zz' has no stored result of check 'no-comp"):
        await labels.set("zz", C, "confirmed", None, now=LATER)
    with pytest.raises(NoStoredResult):
        await labels.set("a", "grounded", "confirmed", None, now=LATER)
    with pytest.raises(NoStoredResult):
        await labels.clear("zz", C)


async def test_clearing_removes_the_label_once(store: Store) -> None:
    await seed(store)
    labels = LabelTable(store.database)
    await labels.set("a", C, "false_alarm", None, now=LATER)
    assert await labels.clear("a", C) is True
    assert await labels.clear("a", C) is False
    assert await rates(store, exclude=True) == [(1, 3, 0, 0, None)]


async def test_exported_labels_read_back_as_the_stored_ones(store: Store, tmp_path: Path) -> None:
    """`labels export` lines, read back for a backtest, equal the store's own mapping."""
    await seed(store)
    labels = LabelTable(store.database)
    await labels.set("a", C, "false_alarm", 'quoted "HelpCo"\nin a list', now=LATER)
    await labels.set("b", C, "confirmed", None, now=LATER)
    path = tmp_path / "labels.jsonl"
    with path.open("w") as out:
        assert write_lines(await labels.export(), out) == 2
    stored = await labels.labels_for_checks([C])
    assert read_labels(path) == stored == {("a", C): "false_alarm", ("b", C): "confirmed"}
    assert await labels.labels_for_checks(["grounded"]) == {}


def test_a_bad_labels_line_is_refused_naming_the_line_and_field_never_the_note(
    tmp_path: Path,
) -> None:
    path = tmp_path / "labels.jsonl"
    good = (
        '{"turn_id": "a", "agent_id": "support-bot", "check": "c", "check_version": "v1", '
        '"label": "confirmed", "note": null, "labelled_at": "2026-11-29T10:00:00Z"}'
    )
    path.write_text(
        good + "\n\n" + good.replace('"confirmed", "note": null', '"maybe", "note": "SECRETNOTE"')
    )
    with pytest.raises(ConfigurationError) as refused:
        read_labels(path)
    assert str(refused.value).startswith(f"invalid labels {path}:3: label: Input should be")
    assert "SECRETNOTE" not in str(refused.value)
    with pytest.raises(ConfigurationError, match=r"^no such file"):
        read_labels(tmp_path / "none.jsonl")
