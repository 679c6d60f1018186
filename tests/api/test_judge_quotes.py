"""A judge that quotes the turn in its reason: the quote never reaches the store or the
API, the judge's own words do. A real judge server on loopback, the real replay, the
real API over uvicorn, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx

from tests.factories import FIXED_NOW, turn_bytes
from tests.judge.fake_provider import FakeProvider
from turncheck.worker.app import plan, replay
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store

CANARY = "CANARY-5e1d7b"
ANSWER = f"Your\nreset code is {CANARY}, valid for one hour. Shut up and use it."
QUESTION = f"Please send my reset code ({CANARY}-q) now."
JUDGED = """
agent: support-bot
checks:
  - {name: polite, kind: judge, criteria: polite_tone, mode: background,
     sample_rate: 1.0, judge_model: judge-small}
"""


def echoing_judge(request: Any) -> str:
    """A judge that quotes the answer and the customer's message it was shown."""
    shown = request["messages"][-1]["content"]
    answer = re.search(r"<answer>\n(.*)\n</answer>", shown, re.S)
    asked = re.search(r"<customer_message>\n(.*)\n</customer_message>", shown, re.S)
    assert answer is not None and asked is not None
    reason = (
        f'The agent wrote "{answer[1]}" to a customer who asked "{asked[1]}", '
        "which is rude to them."
    )
    return json.dumps({"verdict": "fail", "score": 0.1, "reason": reason})


async def test_a_judge_quoting_the_turn_leaves_no_text_of_it_in_the_stored_reason(
    api: httpx.AsyncClient, store: Store, database_url: str, tmp_path: Path
) -> None:
    checks = tmp_path / "checks.yaml"
    checks.write_text(JUDGED)
    turns = tmp_path / "turns.jsonl"
    input_ = {"messages": [{"role": "user", "content": QUESTION}]}
    turns.write_bytes(turn_bytes("t-1", ANSWER, input=input_) + b"\n")
    with FakeProvider() as provider:
        provider.responder = echoing_judge
        judges = {"judge-small": {"provider": "openai", "base_url": provider.openai_url}}
        settings = Settings(database_url=database_url, checks=[checks], judges=json.dumps(judges))
        await replay(plan(settings), str(turns), clock=lambda: FIXED_NOW)
        assert len(provider.requests) == 1
    [stored] = await store.queries.results_for_turn("t-1")
    by_turn = await api.get("/v1/turns/t-1/results")
    by_check = await api.get("/v1/checks/polite/results?verdict=failed")
    for body in (stored.reason or "", by_turn.text, by_check.text):
        assert CANARY not in body
        assert "valid for one hour" not in body and "send my reset code" not in body
    assert stored.verdict == "failed"
    assert stored.reason == (
        'The agent wrote "[quoted]" to a customer who asked "[quoted]", which is rude to them.'
    )
    served = [by_turn.json()["results"][0]["reason"], by_check.json()["results"][0]["reason"]]
    assert served == [stored.reason, stored.reason]
