"""The name a replica claims work under (outbox rows, webhook endpoints, alert sends)."""

from __future__ import annotations

import os
import secrets
import socket


def claimant_id() -> str:
    """Names this publisher in ``outbox.claimed_by``: host and pid for people, plus a
    random part, since two publishers may share a process."""
    return f"{socket.gethostname()[:60]}/{os.getpid()}/{secrets.token_hex(4)}"
