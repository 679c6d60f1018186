"""A worker on the real broker and PostgreSQL checks each turn with the checks of its
agent version."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checks.test_agent_versions import TWO_DEFINITIONS
from tests.factories import check_set, turn_bytes
from tests.kafka.test_delivery import _committed, prepared
from tests.kafka.test_worker_contract import wait_for
from turncheck.worker.app import build_worker, plan

pytestmark = [pytest.mark.kafka, pytest.mark.postgres]

TURNS = [
    ("t-7-refund", 7, "A refund, sure."),
    ("t-7-money", 7, "Money back, sure."),
    ("t-9-money", 9, "Money back, sure."),
    ("t-10-refund", 10, "A refund, sure."),
]


async def test_a_worker_applies_the_checks_of_each_turn_s_agent_version(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    """Version 7's turns get the first definition, version 9's the second (its own check
    version), and version 10, in neither scope, gets no result of the check."""
    s, backend, store = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    checks_file = tmp_path / "versions.yaml"
    checks_file.write_text(TWO_DEFINITIONS)
    s = s.model_copy(update={"checks": [checks_file]})
    loaded = check_set(tmp_path, TWO_DEFINITIONS)
    old = loaded.for_agent("support-bot", 7)[0].id.version
    new = loaded.for_agent("support-bot", 9)[0].id.version
    await backend.produce(
        s.topic_turns,
        [
            (turn_id.encode(), turn_bytes(turn_id, text, agent={"id": "support-bot", "version": v}))
            for turn_id, v, text in TURNS
        ],
    )
    async with build_worker(plan(s)):
        await wait_for(lambda: _committed(kafka_bootstrap, s, len(TURNS)))
    seen = {}
    for turn_id, _, _ in TURNS:
        results = await store.queries.results_for_turn(turn_id)
        seen[turn_id] = [(r.check, r.check_version, r.verdict) for r in results]
    assert seen == {
        "t-7-refund": [("no-refunds", old, "failed")],
        "t-7-money": [("no-refunds", old, "passed")],
        "t-9-money": [("no-refunds", new, "failed")],
        "t-10-refund": [],
    }
    await store.close()
