"""Background judging end to end: pipeline, runner, a real local judge server and a real store."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from tests.factories import FIXED_NOW, check_set, turn_bytes
from tests.judge.fake_provider import FakeProvider, Scripted
from turncheck.worker.judge.config import JudgeEndpoint
from turncheck.worker.judge.http import HttpJudgeClient
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.pipeline.batch import Judging, Pipeline, RawMessage
from turncheck.worker.pipeline.save import StoreRetry
from turncheck.worker.store import Store

CHECKS = """
agent: support-bot
checks:
  - name: no-ticket-ids
    kind: pattern
    pattern: 'TCK-[0-9]{6}'
  - name: polite
    kind: judge
    criteria: polite_tone
    mode: background
    sample_rate: 1.0
    judge_model: judge-small
  - name: resolution
    kind: rubric
    mode: background
    sample_rate: 1.0
    judge_model: judge-small
    questions:
      - {id: answers_question, type: yes_no, text: "Does the reply answer the question?"}
      - {id: tone, type: scale, text: "How is the tone?", labels: [hostile, cold, fine, warm]}
    verdict: {question: answers_question, passing: ["yes"]}
"""

INSTRUCTIONS = "SECRET-INSTRUCTIONS never reveal the discount code"
TOOL_OUTPUT = "SECRET-TOOL-RESULT balance 1200"
HISTORY = "SECRET-EARLIER-MESSAGE from last week"


def judge_reply(request: dict[str, object]) -> str:
    system = str(request["messages"][0]["content"])  # type: ignore[index]
    if "answers_question" in system:
        return '{"answers": {"answers_question": "yes", "tone": "warm"}, "reason": "Helpful."}'
    return '{"verdict": "fail", "score": 0.2, "reason": "The reply is curt."}'


def stored_turn(turn_id: str, **overrides: object) -> bytes:
    fields: dict[str, object] = {
        "instructions": INSTRUCTIONS,
        "history": [{"role": "user", "content": HISTORY}],
        "rounds": [
            {
                "text": "Looking it up.",
                "tool_calls": [{"id": "c1", "name": "balance", "arguments": {"q": "x"}}],
                "tool_results": [{"call_id": "c1", "name": "balance", "content": TOOL_OUTPUT}],
            }
        ],
        "input": {"messages": [{"role": "user", "content": "Where is my parcel?"}]},
    }
    fields.update(overrides)
    return turn_bytes(turn_id, "It ships Friday.", **fields)


def build(
    tmp_path: Path,
    store: Store,
    server: FakeProvider,
    *,
    capacity: int = 100,
    deadline_s: float = 5,
    checks: str = CHECKS,
) -> tuple[Pipeline, JudgeRunner, HttpJudgeClient]:
    endpoint = JudgeEndpoint(provider="openai", base_url=server.openai_url, max_concurrency=2)
    client = HttpJudgeClient({"judge-small": endpoint}, {})
    runner = JudgeRunner(
        client, store.writer, lambda: FIXED_NOW, capacity=capacity, workers=4, deadline_s=deadline_s
    )
    pipeline = Pipeline(
        checks=check_set(tmp_path, checks),
        store=store.writer,
        dead_letter=_no_dead_letters,
        clock=lambda: FIXED_NOW,
        retention=timedelta(days=30),
        retry=StoreRetry(first_s=0.01, max_s=0.05),
        judging=Judging(runner, frozenset({"judge-small"}), deadline_s),
    )
    return pipeline, runner, client


async def _no_dead_letters(rejected: object) -> None:
    raise AssertionError("no message should be rejected")


async def _commit() -> None:
    """Nothing to commit in these tests."""


async def test_sampled_turns_are_judged_after_their_rule_results_are_stored(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    fake_provider.responder = judge_reply
    pipeline, runner, client = build(tmp_path, store, fake_provider)
    runner.start()
    report = await pipeline.handle_batch([RawMessage(stored_turn("t-1"))], _commit)
    assert report.judging == 2
    await runner.join()
    await runner.stop()
    await client.aclose()

    results = {r.check: r for r in await store.queries.results_for_turn("t-1")}
    assert results["no-ticket-ids"].verdict == "passed"
    polite = results["polite"]
    assert (polite.verdict, polite.score, polite.reason) == ("failed", 0.2, "The reply is curt.")
    assert polite.usage is not None and polite.usage["input_tokens"] == 17
    rubric = results["resolution"]
    assert rubric.verdict == "passed"
    assert rubric.answers is not None
    assert rubric.answers["tone"]["answer"] == "warm"
    assert 0 < rubric.answers["tone"]["probability"] <= 1

    [rate] = await store.queries.pass_rates(check="polite")
    assert rate.failed == 1 and rate.judge_input_tokens == 17
    events = [json.loads(e.payload) for e in await store.outbox.pending_events(10)]
    assert [e["data"]["check"] for e in events] == ["polite"]
    assert "curt" not in json.dumps(events)


async def test_the_judge_reads_neither_instructions_nor_tools_nor_history(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    fake_provider.responder = judge_reply
    pipeline, runner, client = build(tmp_path, store, fake_provider)
    runner.start()
    await pipeline.handle_batch([RawMessage(stored_turn("t-1"))], _commit)
    await runner.join()
    await runner.stop()
    await client.aclose()
    sent = json.dumps([r.json for r in fake_provider.requests])
    assert "Where is my parcel?" in sent and "It ships Friday." in sent
    for secret in ("SECRET-INSTRUCTIONS", "SECRET-TOOL-RESULT", "SECRET-EARLIER-MESSAGE"):
        assert secret not in sent


async def test_a_turn_without_a_thread_is_never_judged_in_the_background(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    pipeline, _runner, client = build(tmp_path, store, fake_provider)
    report = await pipeline.handle_batch([RawMessage(stored_turn("t-1", thread_id=None))], _commit)
    await client.aclose()
    assert report.judging == 0
    assert [r.check for r in await store.queries.results_for_turn("t-1")] == ["no-ticket-ids"]
    assert fake_provider.requests == []


async def test_a_judge_that_does_not_answer_in_time_leaves_an_errored_result(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    fake_provider.script(Scripted("{}", delay_s=3), Scripted("{}", delay_s=3))
    pipeline, runner, client = build(tmp_path, store, fake_provider, deadline_s=0.5)
    runner.start()
    await pipeline.handle_batch([RawMessage(stored_turn("t-1"))], _commit)
    await runner.join()
    await runner.stop()
    await client.aclose()
    judged = [r for r in await store.queries.results_for_turn("t-1") if r.kind != "pattern"]
    assert {r.verdict for r in judged} == {"errored"}
    assert all("deadline" in (r.reason or "") for r in judged)


async def test_a_reply_that_does_not_parse_is_errored_never_passed(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    fake_provider.responder = lambda request: "Sure! The reply looks polite to me."
    pipeline, runner, client = build(tmp_path, store, fake_provider)
    runner.start()
    await pipeline.handle_batch([RawMessage(stored_turn("t-1"))], _commit)
    await runner.join()
    await runner.stop()
    await client.aclose()
    judged = [r for r in await store.queries.results_for_turn("t-1") if r.kind != "pattern"]
    assert [(r.verdict, r.reason) for r in judged] == [
        ("errored", "The judge's reply did not parse."),
        ("errored", "The judge's reply did not parse."),
    ]


async def test_a_full_backlog_errors_sampled_turns_instead_of_dropping_them(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    """Memory holds at most `capacity` judgements; the rest are stored errored, with the reason."""
    pipeline, runner, client = build(tmp_path, store, fake_provider, capacity=3)
    report = await pipeline.handle_batch(
        [RawMessage(stored_turn(f"t-{i}")) for i in range(4)], _commit
    )
    assert report.judging == 3 and runner.held == 3
    errored = [
        r
        for i in range(4)
        for r in await store.queries.results_for_turn(f"t-{i}")
        if r.verdict == "errored"
    ]
    assert len(errored) == 5
    assert all("backlog" in (r.reason or "") for r in errored)
    await client.aclose()


async def test_turns_on_a_router_or_a_model_no_judge_serves_are_errored_at_once(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    """A check that asks the turn's own model is decided per turn, since only the turn
    names it: a router, or a model no judge serves, is errored with the reason."""
    checks = (
        "agent: support-bot\nchecks:\n"
        "  - {name: tone, kind: judge, criteria: polite_tone, mode: background, sample_rate: 1}\n"
    )
    pipeline, _runner, client = build(tmp_path, store, fake_provider, checks=checks)
    router = {"id": "support-bot", "version": 7, "model": "router:cheap-first"}
    unserved = {"id": "support-bot", "version": 7, "model": "nobody"}
    batch = [stored_turn("t-1", agent=router), stored_turn("t-2", agent=unserved)]
    await pipeline.handle_batch([RawMessage(turn) for turn in batch], _commit)
    await client.aclose()
    [on_router] = await store.queries.results_for_turn("t-1")
    [on_unserved] = await store.queries.results_for_turn("t-2")
    assert on_router.verdict == "errored" and "router" in (on_router.reason or "")
    assert (on_unserved.verdict, on_unserved.reason) == (
        "errored",
        "No judge is configured for model 'nobody'.",
    )
    assert fake_provider.requests == [], "no judge was asked"


async def test_judgements_abandoned_by_a_dead_worker_are_stored_errored_by_the_sweep(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    pipeline, _runner, client = build(tmp_path, store, fake_provider, deadline_s=1)
    await pipeline.handle_batch([RawMessage(stored_turn("t-1"))], _commit)
    # The worker "dies": its runner never judges what it holds.
    later = FIXED_NOW + timedelta(minutes=5)
    survivor = JudgeRunner(client, store.writer, lambda: later, deadline_s=1, sweep_grace_s=60)
    assert await survivor.sweep() == 2
    assert await survivor.sweep() == 0
    await client.aclose()
    judged = [r for r in await store.queries.results_for_turn("t-1") if r.kind != "pattern"]
    assert {r.verdict for r in judged} == {"errored"}
    assert all("abandoned" in (r.reason or "") for r in judged)


async def test_a_template_that_fails_on_one_turn_errs_that_result_and_stores_the_rest(
    tmp_path: Path, store: Store, fake_provider: FakeProvider
) -> None:
    """The prompt of one turn cannot be built: that judged result is errored, the turn's
    other results are stored and nothing is dead-lettered, so the partition moves on."""
    (tmp_path / "long.j2").write_text(
        "{% block system %}s{% endblock %}"
        "{% block user %}{% if answer | length > 40 %}{{ nothing }}{% endif %}{% endblock %}"
    )
    checks = CHECKS.replace(
        "    criteria: polite_tone\n", "    criteria: polite_tone\n    template: long.j2\n"
    )
    fake_provider.responder = judge_reply
    pipeline, runner, client = build(tmp_path, store, fake_provider, checks=checks)
    runner.start()
    long_answer = stored_turn("t-1").replace(b"It ships Friday.", b"It ships Friday. " * 5)
    report = await pipeline.handle_batch([RawMessage(long_answer)], _commit)
    await runner.join()
    await runner.stop()
    await client.aclose()
    assert (report.turns, report.rejected, report.judging) == (1, 0, 1)
    results = {r.check: r for r in await store.queries.results_for_turn("t-1")}
    assert (results["polite"].verdict, results["polite"].reason) == (
        "errored",
        "The judge's prompt could not be built for this turn.",
    )
    assert results["no-ticket-ids"].verdict == "passed"
    assert results["resolution"].verdict == "passed"
