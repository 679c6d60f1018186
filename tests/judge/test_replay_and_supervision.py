"""No judgement is silently lost: a runner's workers come back after a failure, and
``turncheck replay`` waits for every judgement it asked for and settles old ones first."""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from tests.conftest import fresh_store
from tests.factories import FIXED_NOW, check_set, make_turn, turn_bytes
from tests.judge.fake_provider import FakeProvider, Scripted
from turncheck.worker.app import plan, replay
from turncheck.worker.checks import CheckId, CheckResult
from turncheck.worker.judge.config import JudgeEndpoint
from turncheck.worker.judge.http import HttpJudgeClient
from turncheck.worker.judge.plan import plan_turn
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef, TurnResults
from turncheck.worker.settings import Settings
from turncheck.worker.store import ResultWriter
from turncheck.worker.store.tables import check_results, judge_pending

JUDGED = """
agent: support-bot
checks:
  - {name: polite, kind: judge, criteria: polite_tone, mode: background,
     sample_rate: 1.0, judge_model: judge-small}
"""


class FailsOnce(ResultWriter):
    """Refuses the first judged result with an error that is not an outage."""

    failed = False

    async def save_judged(
        self, turn: TurnRef, result: CheckResult, expires_at: datetime, now: datetime
    ) -> bool:
        if not self.failed:
            self.failed = True
            raise RuntimeError("a bug in the writer")
        return await super().save_judged(turn, result, expires_at, now)


def judged_by(
    provider: FakeProvider, url: str, checks: Path, *, workers: int, deadline_s: float
) -> Settings:
    """Settings that judge ``checks`` with the fake provider, ``workers`` at a time."""
    judges = {
        "judge-small": {
            "provider": "openai",
            "base_url": provider.openai_url,
            "max_concurrency": workers,
        }
    }
    return Settings(
        database_url=url,
        checks=[checks],
        judges=json.dumps(judges),
        judge_deadline_s=deadline_s,
        judge_workers=workers,
    )


async def test_a_judge_worker_that_fails_is_restarted_and_judges_the_next_turns(
    tmp_path: Path, fake_provider: FakeProvider, caplog: pytest.LogCaptureFixture
) -> None:
    store = await fresh_store(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    writer = FailsOnce(store.database, events_topic="events")
    endpoint = JudgeEndpoint(provider="openai", base_url=fake_provider.openai_url)
    client = HttpJudgeClient({"judge-small": endpoint}, {})
    client.open()
    runner = JudgeRunner(client, writer, lambda: FIXED_NOW, workers=1)
    checks = check_set(tmp_path, JUDGED).judged_for_agent("support-bot", 7)
    jobs = [
        job
        for turn_id in ("t-1", "t-2", "t-3")
        for job in plan_turn(
            make_turn(turn_id),
            checks,
            configured={"judge-small"},
            room=10,
            now=FIXED_NOW,
            retention=timedelta(days=30),
            deadline_s=5,
        ).jobs
    ]
    # As the pipeline does: the pending judgements are stored before the runner gets them.
    await store.writer.save(
        [TurnResults(job.turn, [], timedelta(days=30), [job.pending]) for job in jobs], FIXED_NOW
    )
    runner.start()
    with caplog.at_level(logging.ERROR):
        runner.submit(jobs)
        await runner.join()
    await runner.stop()
    await client.aclose()
    judged = {t: await store.queries.results_for_turn(t) for t in ("t-1", "t-2", "t-3")}
    await store.close()
    assert [t for t, found in judged.items() if found] == ["t-2", "t-3"]
    assert "judge worker failed, restarting error=RuntimeError" in caplog.text


async def test_replay_waits_for_every_judgement_and_settles_abandoned_ones_first(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """Behind a slow judge one at a time, 24 judgements take far longer than one
    deadline; replay stores every one of them and leaves nothing pending."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(JUDGED)
    url = f"sqlite+aiosqlite:///{tmp_path}/t.db"
    store = await fresh_store(url)
    old = TurnRef.of(make_turn("t-old"))
    polite = CheckId("polite", "old-version", "judge", "output", "background")
    abandoned = PendingJudgement(old, polite, FIXED_NOW - timedelta(days=1))
    await store.writer.save([TurnResults(old, [], timedelta(days=30), [abandoned])], FIXED_NOW)
    turns = tmp_path / "turns.jsonl"
    turns.write_bytes(b"\n".join(turn_bytes(f"t-{i}") for i in range(24)))
    fake_provider.script([Scripted(delay_s=0.3)] * 24)
    fake_provider.responder = lambda request: '{"verdict": "pass", "score": 0.9, "reason": "Kind."}'
    settings = judged_by(fake_provider, url, checks, workers=1, deadline_s=1.0)
    totals = await replay(plan(settings), str(turns))
    async with store.database.engine.connect() as conn:
        judged = (
            await conn.execute(
                select(func.count())
                .select_from(check_results)
                .where(check_results.c.check_name == "polite", check_results.c.verdict == "passed")
            )
        ).scalar_one()
        pending = (await conn.execute(select(func.count()).select_from(judge_pending))).scalar_one()
    [settled] = await store.queries.results_for_turn("t-old")
    await store.close()
    assert totals.turns == 24
    assert (judged, pending) == (24, 0)
    assert (settled.verdict, settled.check_version) == ("errored", "old-version")
    assert "abandoned" in (settled.reason or "")


FOUR_JUDGED = """
agent: support-bot
checks:
  - {name: polite, kind: judge, criteria: polite_tone, mode: background,
     sample_rate: 1.0, judge_model: judge-small}
  - {name: formatted, kind: judge, criteria: correct_format, mode: background,
     sample_rate: 1.0, judge_model: judge-small}
  - {name: grounded, kind: judge, criteria: no_made_up_facts, mode: background,
     sample_rate: 1.0, judge_model: judge-small}
  - name: no-dates
    kind: judge
    mode: background
    sample_rate: 1.0
    judge_model: judge-small
    rule: {good: ["Answers the question"], bad: ["Promises a delivery date"]}
"""


@pytest.mark.postgres
async def test_judge_workers_store_every_judgement_of_a_turn_answered_together(
    tmp_path: Path, fake_provider: FakeProvider, postgres_url: str
) -> None:
    """Four judge workers on PostgreSQL, the judge answering a turn's four judgements at
    the same moment: replay stores all twenty, once each, and leaves nothing pending."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(FOUR_JUDGED)
    store = await fresh_store(postgres_url)
    turns = tmp_path / "turns.jsonl"
    turns.write_bytes(b"\n".join(turn_bytes(f"t-{i}") for i in range(5)))
    # Each answer waits for the other three requests in flight: workers take a turn's four
    # judgements from the queue together, so their answers arrive and are stored together.
    together = threading.Barrier(4, timeout=60)

    def answer(request: dict[str, list[dict[str, str]]]) -> str:
        together.wait()
        if "delivery date" in request["messages"][0]["content"]:
            return '{"verdict": "fail", "score": 0.1, "reason": "Promises a date."}'
        return '{"verdict": "pass", "score": 0.9, "reason": "Fine."}'

    fake_provider.responder = answer
    settings = judged_by(fake_provider, postgres_url, checks, workers=4, deadline_s=90.0)
    totals = await replay(plan(settings), str(turns))
    async with store.database.engine.connect() as conn:
        pending = (await conn.execute(select(func.count()).select_from(judge_pending))).scalar_one()
    stored = {f"t-{i}": await store.queries.results_for_turn(f"t-{i}") for i in range(5)}
    rates = {r.check: r for r in await store.queries.pass_rates()}
    events = [json.loads(e.payload)["data"] for e in await store.outbox.pending_events(100)]
    await store.close()
    assert (totals.turns, pending, fake_provider.max_in_flight) == (5, 0, 4)
    for found in stored.values():
        assert sorted(r.check for r in found) == ["formatted", "grounded", "no-dates", "polite"]
        assert {r.check for r in found if r.verdict == "failed"} == {"no-dates"}
    assert {name: (r.passed, r.failed) for name, r in rates.items()} == {
        "formatted": (5, 0),
        "grounded": (5, 0),
        "no-dates": (0, 5),
        "polite": (5, 0),
    }
    assert sorted((e["turn_id"], e["check"]) for e in events) == [
        (f"t-{i}", "no-dates") for i in range(5)
    ]
