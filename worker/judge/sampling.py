"""Which turns a background check judges: a deterministic one-in-N sample.

A turn is in a check's sample when a hash of (turn id, check name) falls below
the check's ``sample_rate``: a redelivered or replayed turn gets the same
decision, and two workers agree without talking to each other.
"""

from __future__ import annotations

import hashlib

_SCALE = float(2**64)


def in_sample(turn_id: str, check: str, rate: float) -> bool:
    if rate >= 1:
        return True
    if rate <= 0:
        return False
    digest = hashlib.sha256(f"{turn_id}\x00{check}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / _SCALE < rate
