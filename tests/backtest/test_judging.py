"""``--judge``: the draft's judged checks on their sample, through a real (loopback) judge,
capped, estimated before any judge is asked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.factories import check_set, turn_bytes
from tests.judge.fake_provider import FakeProvider
from turncheck.worker.backtest import BacktestRequest, run_backtest
from turncheck.worker.backtest.estimate import estimate
from turncheck.worker.backtest.judging import JudgeOptions
from turncheck.worker.settings import Settings

JUDGED_DRAFT = """
agent: support-bot
checks:
  - name: polite
    kind: judge
    criteria: polite_tone
    mode: background
    sample_rate: 1
    judge_model: fake
  - name: no-helpco
    kind: does_not_contain
    phrases: [HelpCo]
"""


PASS = '{"verdict": "pass", "score": 1.0, "reason": "Polite."}'
FAIL = '{"verdict": "fail", "score": 0.0, "reason": "Rude."}'


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        server.responder = lambda _: PASS
        yield server


def judged_settings(server: FakeProvider, **prices: float) -> Settings:
    judges = {"fake": {"provider": "openai", "base_url": server.openai_url, **prices}}
    return Settings(judges=json.dumps(judges), kafka_bootstrap=None, judge_retry_min_s=0.01)


def turns_file(tmp_path: Path, count: int, **overrides: Any) -> Path:
    path = tmp_path / "turns.jsonl"
    lines = [turn_bytes(f"t-{i}", "Happy to help.", **overrides) for i in range(count)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def judged_request(tmp_path: Path, turns: Path, cap: int) -> BacktestRequest:
    return BacktestRequest(
        draft=check_set(tmp_path, JUDGED_DRAFT),
        file=turns,
        judge=JudgeOptions(max_judgements=cap),
        compare=False,
    )


def test_the_cap_is_the_number_of_judge_requests_and_the_rest_are_counted_not_judged(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """With --max-judgements 3 over 10 sampled turns, the judge gets exactly 3 requests and
    the 7 others are 'not judged (cap)', not errored; the rule check still sees all 10."""
    request = judged_request(tmp_path, turns_file(tmp_path, 10), cap=3)

    report = run_backtest(request, judged_settings(fake_provider)).as_dict()

    assert len(fake_provider.requests) == 3
    rows = {row["check"]: row for row in report["checks"]}
    polite = rows["polite"]
    assert (polite["turns_read"], polite["passed"], polite["errored"]) == (3, 3, 0)
    assert polite["not_judged_cap"] == 7
    assert polite["judge_input_tokens"] == 3 * 17  # the fake judge's usage, per request
    assert rows["no-helpco"]["turns_read"] == 10


def test_the_judge_says_what_would_fail(tmp_path: Path, fake_provider: FakeProvider) -> None:
    """A judge's failing verdicts are the judged check's would-fail count in the report."""
    fake_provider.responder = lambda _: FAIL
    request = judged_request(tmp_path, turns_file(tmp_path, 4), cap=1000)

    report = run_backtest(request, judged_settings(fake_provider)).as_dict()

    polite = next(row for row in report["checks"] if row["check"] == "polite")
    assert (polite["would_fail"], polite["would_fail_rate"]) == (4, 1.0)
    assert polite["reasons"] == [{"reason": "Rude.", "count": 4}]


def test_the_estimate_asks_no_judge_and_counts_the_sample_tokens_and_cost(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """Before a run: the turns in range, the judgements the sample makes (capped), tokens
    from the prompts the check would send, and the cost at the judges file's prices."""
    turns = turns_file(tmp_path, 10)
    on_no_thread = turn_bytes("t-nothread", "Hi.", thread_id=None)  # never judged
    turns.write_bytes(turns.read_bytes() + on_no_thread + b"\n")
    settings = judged_settings(
        fake_provider, input_price_per_million=1.0, output_price_per_million=2.0
    )

    found = estimate(judged_request(tmp_path, turns, cap=4), settings)

    assert fake_provider.requests == []
    assert (found.turns_in_range, found.uncapped, found.judgements) == (11, 10, 4)
    assert found.input_tokens > 4 * 50  # a prompt holds the criteria and the turn
    assert found.output_tokens == 4 * 400  # a judge check's reply allowance
    assert found.cost == pytest.approx((found.input_tokens + 2 * found.output_tokens) / 1e6)
    assert found.as_dict()["capped"] is True


def test_without_prices_the_cost_is_unknown(tmp_path: Path, fake_provider: FakeProvider) -> None:
    """A judges file without prices gives tokens only."""
    request = judged_request(tmp_path, turns_file(tmp_path, 2), cap=10)

    found = estimate(request, judged_settings(fake_provider))

    assert found.cost is None
    assert "cost: unknown" in "\n".join(found.lines())


async def test_the_estimate_over_the_topic_counts_the_range_and_asks_no_judge(
    tmp_path: Path, fake_provider: FakeProvider, kafka_bootstrap: str
) -> None:
    """On the real broker: the messages in range from the offsets, the sample from the
    first turns, and no judge request."""
    import asyncio
    import uuid

    from tests.api.test_backtests import create_topic
    from tests.kafka.backends import RealBackend

    topic = f"turns-{uuid.uuid4().hex[:10]}"
    await create_topic(kafka_bootstrap, topic)
    turns = [(f"t-{i}".encode(), turn_bytes(f"t-{i}", "Done.")) for i in range(12)]
    await RealBackend(kafka_bootstrap).produce(topic, turns)
    settings = judged_settings(fake_provider).model_copy(
        update={"kafka_bootstrap": kafka_bootstrap, "topic_turns": topic}
    )
    request = BacktestRequest(
        draft=check_set(tmp_path, JUDGED_DRAFT), judge=JudgeOptions(5), compare=False
    )

    found = await asyncio.to_thread(estimate, request, settings)

    assert (found.turns_in_range, found.turns_probed, found.judgements) == (12, 12, 5)
    assert fake_provider.requests == []
