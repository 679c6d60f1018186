"""Backtests of a draft on a file of turns: the report's figures, labels, and bounds."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.api.conftest import save, turn
from tests.backtest.conftest import write
from tests.conftest import fresh_store
from tests.factories import FIXED_NOW, turn_bytes, turn_dict
from turncheck.worker.backtest import BacktestRequest, Report, merge, run_backtest
from turncheck.worker.backtest.report import THREADS_KEPT
from turncheck.worker.backtest.tallies import EXAMPLES_KEPT
from turncheck.worker.checks import Verdict, load_checks
from turncheck.worker.retention.erasure import Eraser
from turncheck.worker.settings import Settings
from turncheck.worker.store.labels import LabelTable

KEY = "backtest-test-key"

DRAFT = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [HelpCo]
  - name: no-ticket-ids
    kind: pattern
    pattern: 'TCK-[0-9]{6}'
  - name: polite
    kind: judge
    criteria: polite_tone
    mode: background
"""


def lines(*items: bytes | str) -> str:
    return "".join((item.decode() if isinstance(item, bytes) else item) + "\n" for item in items)


def backtest(tmp_path: Path, turns: str, **options: object) -> Report:
    draft = load_checks([write(tmp_path / "draft.yaml", DRAFT)])
    request = BacktestRequest(draft=draft, file=write(tmp_path / "turns.jsonl", turns), **options)  # type: ignore[arg-type]
    return backtest_of(request, tmp_path)


def backtest_of(request: BacktestRequest, tmp_path: Path) -> Report:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path}/no/store.db", kafka_bootstrap=None
    )
    return run_backtest(request, settings)


def row(report: Report, name: str) -> dict[str, object]:
    [found] = [r for r in report.as_dict()["checks"] if r["check"] == name]
    return found


def test_a_file_report_counts_would_fail_reasons_examples_and_unreadable_lines(
    tmp_path: Path,
) -> None:
    """On a hand-made file, each check's would-fail count and rate, its reasons and
    example turns, the unreadable lines and the turns of other agents are as written."""
    other_agent = dict(turn_dict("t-9", "Ask HelpCo."), agent={"id": "sales-bot", "version": 1})
    turns = lines(
        turn_bytes("t-1", "Try HelpCo."),
        turn_bytes("t-2", "Your ticket TCK-123456 and HelpCo."),
        turn_bytes("t-3", "Hello there."),
        turn_bytes("t-4", "See TCK-654321."),
        "",
        "not json",
        json.dumps({"schema": "turn.stored/v1", "turn_id": "t-bad"}),
        json.dumps(other_agent),
    )
    report = backtest(tmp_path, turns)
    assert (report.turns_read, report.unreadable, report.unchecked) == (5, 2, 1)
    competitors = row(report, "no-competitors")
    assert competitors["turns_read"] == 4
    assert (competitors["would_fail"], competitors["errored"], competitors["passed"]) == (2, 0, 2)
    assert competitors["would_fail_rate"] == 0.5
    assert competitors["examples"] == ["t-1", "t-2"]
    assert competitors["reasons"] == [{"reason": "The text contains a banned phrase.", "count": 2}]
    tickets = row(report, "no-ticket-ids")
    assert tickets["examples"] == ["t-2", "t-4"] and tickets["would_fail"] == 2
    assert report.judged_skipped == ("polite",)
    assert report.source == f"file:{tmp_path / 'turns.jsonl'}"


def test_labelled_turns_say_what_the_draft_still_catches_and_still_raises(tmp_path: Path) -> None:
    """Over labelled turns, the draft's confirmed failures still caught or missed and its
    false alarms still raised or cleared are counted, with the turns it misses and raises."""
    turns = lines(
        turn_bytes("t-1", "Try HelpCo."),
        turn_bytes("t-2", "Hello there."),
        turn_bytes("t-3", "HelpCo is fine."),
        turn_bytes("t-4", "Hi."),
        turn_bytes("t-5", "Hi again."),
    )
    labels = {
        ("t-1", "no-competitors"): "confirmed",
        ("t-2", "no-competitors"): "confirmed",
        ("t-3", "no-competitors"): "false_alarm",
        ("t-4", "no-competitors"): "false_alarm",
        ("t-5", "another-check"): "confirmed",
    }
    report = backtest(tmp_path, turns, labels=labels)
    assert row(report, "no-competitors")["labelled"] == {
        "confirmed_caught": 1,
        "confirmed_missed": 1,
        "false_alarms_raised": 1,
        "false_alarms_cleared": 1,
        "missed_examples": ["t-2"],
        "raised_examples": ["t-3"],
    }
    assert row(report, "no-ticket-ids")["labelled"]["confirmed_caught"] == 0  # type: ignore[index]


def test_a_limit_stops_the_file_after_that_many_turns(tmp_path: Path) -> None:
    """--limit 3 reads three lines of a longer file."""
    turns = lines(*(turn_bytes(f"t-{n}", "Try HelpCo.") for n in range(8)))
    report = backtest(tmp_path, turns, limit=3)
    assert report.turns_read == 3
    assert row(report, "no-competitors")["would_fail"] == 3


def test_examples_are_bounded_and_the_same_in_any_order_or_split(tmp_path: Path) -> None:
    """However many turns fail, the report keeps EXAMPLES_KEPT of them, the same ones
    whether the file is read forwards, backwards or in two halves merged."""
    failing = [turn_bytes(f"t-{n:03d}", "Try HelpCo.") for n in range(60)]
    forwards = backtest(tmp_path, lines(*failing))
    backwards = backtest(tmp_path, lines(*reversed(failing)))
    halves = merge(
        [backtest(tmp_path, lines(*failing[:30])), backtest(tmp_path, lines(*failing[30:]))]
    )
    kept = row(forwards, "no-competitors")["examples"]
    assert isinstance(kept, list) and len(kept) == EXAMPLES_KEPT
    assert row(backwards, "no-competitors")["examples"] == kept
    assert row(halves, "no-competitors")["examples"] == kept
    assert row(halves, "no-competitors")["would_fail"] == 60


def test_a_report_read_back_from_its_json_is_the_same_report(tmp_path: Path) -> None:
    """``Report.from_dict(report.as_dict())`` gives back every figure."""
    turns = lines(turn_bytes("t-1", "Try HelpCo."), turn_bytes("t-2", "Fine."), "not json")
    report = backtest(tmp_path, turns, labels={("t-1", "no-competitors"): "false_alarm"})
    again = Report.from_dict(json.loads(json.dumps(report.as_dict())))
    assert again.as_dict() == report.as_dict()


def test_the_turns_of_erased_persons_are_left_out(database_url: str, tmp_path: Path) -> None:
    """A turn of a person in the erasure ledger is neither checked nor an example; it is
    counted as erased."""

    async def erase() -> None:
        store = await fresh_store(database_url)
        try:
            await Eraser(store.database, KEY.encode()).erase(
                "p-gone", requested_at=FIXED_NOW, now=FIXED_NOW
            )
        finally:
            await store.close()

    asyncio.run(erase())
    turns = lines(
        turn_bytes("t-1", "Try HelpCo.", person_id="p-gone"),
        turn_bytes("t-2", "Try HelpCo.", person_id="p-kept"),
        turn_bytes("t-3", "Try HelpCo.", person_id=None),
    )
    draft = load_checks([write(tmp_path / "draft.yaml", DRAFT)])
    request = BacktestRequest(draft=draft, file=write(tmp_path / "turns.jsonl", turns))
    settings = Settings(database_url=database_url, kafka_bootstrap=None, erasure_key=SecretStr(KEY))
    report = run_backtest(request, settings)
    assert (report.turns_read, report.erased) == (3, 1)
    assert row(report, "no-competitors")["examples"] == ["t-2", "t-3"]
    assert row(report, "no-competitors")["turns_read"] == 2


def test_the_stored_labels_of_the_draft_checks_are_counted_and_a_file_s_label_wins(
    database_url: str, tmp_path: Path
) -> None:
    """Labels people set on stored failures are the backtest's labelled turns without a
    --labels file; a label given in the request replaces the stored one of its turn."""

    async def label() -> None:
        store = await fresh_store(database_url)
        try:
            turns = [turn(turn_id) for turn_id in ("t-1", "t-2", "t-3")]
            await save(store, turns, [("no-competitors", Verdict.FAILED)])
            labels = LabelTable(store.database)
            await labels.set("t-1", "no-competitors", "confirmed", None, now=FIXED_NOW)
            await labels.set("t-2", "no-competitors", "false_alarm", None, now=FIXED_NOW)
            await labels.set("t-3", "no-competitors", "false_alarm", None, now=FIXED_NOW)
        finally:
            await store.close()

    asyncio.run(label())
    turns = lines(
        turn_bytes("t-1", "Try HelpCo."),
        turn_bytes("t-2", "Hello there."),
        turn_bytes("t-3", "HelpCo again."),
    )
    draft = load_checks([write(tmp_path / "draft.yaml", DRAFT)])
    request = BacktestRequest(
        draft=draft,
        file=write(tmp_path / "turns.jsonl", turns),
        labels={("t-3", "no-competitors"): "confirmed"},
    )
    settings = Settings(database_url=database_url, kafka_bootstrap=None)
    labelled = row(run_backtest(request, settings), "no-competitors")["labelled"]
    assert labelled == {
        "confirmed_caught": 2,
        "confirmed_missed": 0,
        "false_alarms_raised": 0,
        "false_alarms_cleared": 1,
        "missed_examples": [],
        "raised_examples": [],
    }


LINKS = "https://chat.example.com/t/{thread_id}?turn={turn_id}"


def test_the_threads_of_example_turns_stay_bounded_however_many_turns_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of failing turns, each on a thread of its own: the report never holds
    more than THREADS_KEPT threads, and ends with those of its examples, each linked."""
    most = 0
    keep = Report.keep_thread

    def counted(report: Report, turn_id: str, thread_id: str | None) -> None:
        nonlocal most
        keep(report, turn_id, thread_id)
        most = max(most, len(report.threads))

    monkeypatch.setattr(Report, "keep_thread", counted)
    failing = [turn_bytes(f"t-{n:04d}", "Try HelpCo.", thread_id=f"th-{n}") for n in range(3000)]
    report = backtest(tmp_path, lines(*failing))

    assert 0 < most <= THREADS_KEPT
    examples = row(report, "no-competitors")["examples"]
    assert isinstance(examples, list) and len(examples) == EXAMPLES_KEPT
    urls = report.turn_urls(LINKS)
    assert urls == {t: f"https://chat.example.com/t/th-{int(t[2:])}?turn={t}" for t in examples}
    assert report.as_dict()["threads"] == {t: f"th-{int(t[2:])}" for t in examples}


def test_merged_reports_keep_the_links_of_their_examples(tmp_path: Path) -> None:
    """Halves merged (as processes hand them over, through their JSON) link the same example
    turns as one run over the whole."""
    failing = [turn_bytes(f"t-{n:03d}", "Try HelpCo.", thread_id=f"th-{n}") for n in range(60)]
    whole = backtest(tmp_path, lines(*failing))
    halves = [backtest(tmp_path, lines(*failing[:30])), backtest(tmp_path, lines(*failing[30:]))]
    merged = merge(Report.from_dict(json.loads(json.dumps(h.as_dict()))) for h in halves)
    assert len(whole.turn_urls(LINKS)) == EXAMPLES_KEPT
    assert merged.turn_urls(LINKS) == whole.turn_urls(LINKS)


def test_a_report_read_back_without_threads_links_its_turns_without_them(
    tmp_path: Path,
) -> None:
    """A report written before threads were kept still reads back: its turns link where the
    template needs no thread, and not where it needs one."""
    report = backtest(tmp_path, lines(turn_bytes("t-1", "Try HelpCo.")))
    saved = report.as_dict()
    del saved["threads"]
    again = Report.from_dict(saved)
    assert again.turn_urls("https://chat.example.com/turns/{turn_id}") == {
        "t-1": "https://chat.example.com/turns/t-1"
    }
    assert again.turn_urls(LINKS) == {}
