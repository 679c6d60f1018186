"""The name a replica claims work under (outbox rows, webhook endpoints, alert sends)."""

from __future__ import annotations

import hashlib
import os
import secrets
import socket

MAX_CHARS = 100
"""The ``claimed_by`` columns' width."""


def claimant_id(replica: str | None = None) -> str:
    """Names a claimant in ``claimed_by``.

    ``replica``: the replica's stable name (``Settings.replica``); the claimant is then
    that name alone, the same after a restart, so the restarted replica knows the rows
    it held as its own. None: host and pid for people, plus a random part, since two
    claimants may share a process; a new name at each start.
    """
    if replica is None:
        return f"{socket.gethostname()[:60]}/{os.getpid()}/{secrets.token_hex(4)}"
    if len(replica) <= MAX_CHARS:
        return replica
    # Cut to fit, with a digest of the whole so that two long names stay two claimants.
    digest = hashlib.sha256(replica.encode()).hexdigest()[:16]
    return f"{replica[: MAX_CHARS - len(digest) - 1]}~{digest}"
