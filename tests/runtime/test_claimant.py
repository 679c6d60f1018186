"""The names claims are made under: the same after a restart with an instance id, new
at each start without one."""

from __future__ import annotations

from turncheck.worker.runtime.claimant import MAX_CHARS, claimant_id
from turncheck.worker.settings import Settings


def test_a_replica_claims_under_its_group_and_instance_id_after_every_restart() -> None:
    """The claimant is derived from the settings alone, so a restart changes nothing."""
    replica = Settings(group_id="turncheck", instance_id="worker-1").replica
    assert replica == "turncheck/worker-1"
    assert claimant_id(replica) == claimant_id(replica) == "turncheck/worker-1"
    other = Settings(group_id="staging", instance_id="worker-1").replica
    assert claimant_id(other) != claimant_id(replica), "an instance id is unique per group"


def test_without_an_instance_id_each_claimant_is_new() -> None:
    """Two publishers of one process, or one process started twice, never share a name."""
    assert Settings(instance_id=None).replica is None
    assert claimant_id() != claimant_id()


def test_a_long_replica_name_fits_the_column_and_stays_distinct() -> None:
    """Names past the column's width are cut with a digest of the whole name."""
    base = "g/" + "w" * 200
    first, second = claimant_id(base + "-1"), claimant_id(base + "-2")
    assert len(first) == len(second) == MAX_CHARS
    assert first != second
    assert claimant_id(base + "-1") == first
