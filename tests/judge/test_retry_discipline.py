"""A judge that will not answer costs a bounded number of requests and log lines, its
results are stored ``errored`` with its reason, and the worker goes on to the next job:
"abandoned" is left for judgements whose worker stopped."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.cli.test_commands import turncheck
from tests.conftest import fresh_store
from tests.factories import FIXED_NOW, check_set, make_turn, turn_bytes
from tests.judge.fake_provider import FakeProvider, Scripted
from tests.judge.provider_bodies import MESSAGE_WORDS, OPENAI_QUOTA, OPENAI_RATE_LIMIT
from turncheck.worker.judge.config import JudgeEndpoint
from turncheck.worker.judge.http import HttpJudgeClient, JudgeRetry
from turncheck.worker.judge.plan import JudgeJob, plan_turn
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.judge.types import JudgeClient, JudgeReply, JudgeRequest
from turncheck.worker.pipeline.records import TurnResults
from turncheck.worker.store import Store

ATTEMPTS = 3
RETRY = JudgeRetry(attempts=ATTEMPTS, min_wait_s=0.01, first_backoff_s=0.01, max_backoff_s=0.05)
RATE_LIMITED = Scripted(status=429, headers={"Retry-After": "0"}, body=OPENAI_RATE_LIMIT)
PASS = '{"verdict": "pass", "score": 0.9, "reason": "Kind."}'
GAVE_UP = f"The judge did not answer in {ATTEMPTS} attempts (last: HTTP 429 rate_limit_exceeded)."

DOWN_AND_UP = """
agent: support-bot
checks:
  - {name: polite, kind: judge, criteria: polite_tone, mode: background,
     sample_rate: 1.0, judge_model: judge-down}
  - {name: formatted, kind: judge, criteria: correct_format, mode: background,
     sample_rate: 1.0, judge_model: judge-up}
"""


async def stored_jobs(
    store: Store, tmp_path: Path, turn_ids: tuple[str, ...], *, only: str | None = None
) -> list[JudgeJob]:
    """The jobs of ``turn_ids`` (of check ``only``, if given), their pending judgements
    stored first, as the pipeline does."""
    checks = check_set(tmp_path, DOWN_AND_UP).judged_for_agent("support-bot", 7)
    jobs = [
        job
        for turn_id in turn_ids
        for job in plan_turn(
            make_turn(turn_id),
            checks,
            configured={"judge-down", "judge-up"},
            room=10,
            now=FIXED_NOW,
            retention=timedelta(days=30),
            deadline_s=10,
        ).jobs
        if only is None or job.check.name == only
    ]
    await store.writer.save(
        [TurnResults(job.turn, [], timedelta(days=30), [job.pending]) for job in jobs], FIXED_NOW
    )
    return jobs


async def judge_with_one_worker(client: JudgeClient, store: Store, jobs: list[JudgeJob]) -> int:
    """Judge ``jobs`` with one worker, then sweep an hour later; how many were swept."""
    now = [FIXED_NOW]
    clock: Callable[[], datetime] = lambda: now[0]  # noqa: E731
    runner = JudgeRunner(client, store.writer, clock, workers=1, deadline_s=10)
    runner.start()
    runner.submit(jobs)
    await runner.join()
    now[0] = FIXED_NOW + timedelta(hours=1)
    swept = await runner.sweep()
    await runner.stop()
    return swept


async def test_a_judge_rate_limiting_forever_leaves_errored_results_and_the_worker_judges_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One worker, a judge answering 429 ``Retry-After: 0`` to everything: each judgement
    asks it ``attempts`` times and is stored errored with the judge's reason, the other
    judge's jobs behind it are judged, and nothing is left for the sweep to abandon."""
    store = await fresh_store(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    jobs = await stored_jobs(store, tmp_path, ("t-1", "t-2"))
    with FakeProvider() as down, FakeProvider() as up:
        down.script([RATE_LIMITED] * 10_000)
        up.responder = lambda request: PASS
        endpoints = {
            "judge-down": JudgeEndpoint(provider="openai", base_url=down.openai_url),
            "judge-up": JudgeEndpoint(provider="openai", base_url=up.openai_url),
        }
        client = HttpJudgeClient(endpoints, {}, retry=RETRY)
        with caplog.at_level(logging.INFO, logger="turncheck"):
            swept = await judge_with_one_worker(client, store, jobs)
        await client.aclose()
        asked = (len(down.requests), len(up.requests))
    results = {
        t: {r.check: r for r in await store.queries.results_for_turn(t)} for t in ("t-1", "t-2")
    }
    await store.close()
    assert (asked, swept) == ((2 * ATTEMPTS, 2), 0)
    for found in results.values():
        assert (found["polite"].verdict, found["polite"].reason) == ("errored", GAVE_UP)
        assert found["formatted"].verdict == "passed"
    # Per failed judgement: a line per retry, one when the client gives up, one from the runner.
    assert len([r for r in caplog.records if r.name.startswith("turncheck")]) == 2 * (ATTEMPTS + 1)
    assert "restarting" not in caplog.text
    for words in MESSAGE_WORDS:
        assert words not in caplog.text


class CrashesOnce:
    """A judge client with a bug that shows on its first call only."""

    def __init__(self, inner: JudgeClient) -> None:
        self.inner, self.crashed = inner, False

    async def complete(self, request: JudgeRequest, *, deadline_s: float) -> JudgeReply:
        if not self.crashed:
            self.crashed = True
            raise OverflowError(34, "Numerical result out of range")
        return await self.inner.complete(request, deadline_s=deadline_s)


async def test_an_error_in_asking_the_judge_is_an_errored_result_not_a_dead_worker(
    tmp_path: Path, fake_provider: FakeProvider, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug raising inside the judge call is stored errored, naming only the error's
    type; the same worker judges the next job and the sweep finds nothing abandoned."""
    store = await fresh_store(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    jobs = await stored_jobs(store, tmp_path, ("t-1", "t-2"), only="formatted")
    fake_provider.responder = lambda request: PASS
    endpoint = JudgeEndpoint(provider="openai", base_url=fake_provider.openai_url)
    client = HttpJudgeClient({"judge-up": endpoint}, {}, retry=RETRY)
    with caplog.at_level(logging.INFO, logger="turncheck"):
        swept = await judge_with_one_worker(CrashesOnce(client), store, jobs)
    await client.aclose()
    first = await store.queries.results_for_turn("t-1")
    second = await store.queries.results_for_turn("t-2")
    await store.close()
    assert swept == 0
    assert [(r.verdict, r.reason) for r in first] == [
        ("errored", "The judge could not be asked (overflow error).")
    ]
    assert [r.verdict for r in second] == ["passed"]
    assert "restarting" not in caplog.text and "Numerical" not in caplog.text


def test_check_asks_a_rate_limited_judge_only_the_attempts_set_and_a_spent_quota_once(
    tmp_path: Path,
) -> None:
    """`turncheck check` with TURNCHECK_JUDGE_ATTEMPTS=3: the first turn's judgement gives up
    after 3 rate-limited requests, the second stops at the first quota 429, the third is
    judged; both failures are errored with a fixed reason and the providers' words nowhere."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(
        "agent: support-bot\nchecks:\n"
        "  - {name: polite, kind: judge, criteria: polite_tone, mode: background,"
        " judge_model: judge-small}\n"
    )
    quota = Scripted(status=429, headers={"Retry-After": "0"}, body=OPENAI_QUOTA)
    with FakeProvider() as server:
        server.script([RATE_LIMITED] * ATTEMPTS, quota)
        server.responder = lambda request: PASS
        judges = json.dumps({"judge-small": {"provider": "openai", "base_url": server.openai_url}})
        done = turncheck(
            "check",
            "--checks",
            str(checks),
            cwd=tmp_path,
            stdin=b"\n".join(turn_bytes(f"t-{i}") for i in range(1, 4)) + b"\n",
            TURNCHECK_JUDGES=judges,
            TURNCHECK_JUDGE_ATTEMPTS=str(ATTEMPTS),
            TURNCHECK_JUDGE_RETRY_MIN_S="0.01",
            TURNCHECK_JUDGE_DEADLINE_S="10",
        )
        asked = len(server.requests)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["verdict"], r["reason"]) for line in lines for r in line["results"]][:2] == [
        ("errored", GAVE_UP),
        ("errored", "The judge's quota or spend limit is exhausted (HTTP 429 insufficient_quota)."),
    ]
    assert lines[2]["results"][0]["verdict"] == "passed"
    assert asked == ATTEMPTS + 2
    for words in MESSAGE_WORDS:
        assert words.encode() not in done.stdout + done.stderr
