"""Standard Webhooks signatures (https://www.standardwebhooks.com/).

A request carries ``webhook-id`` (the event's id, stable across retries),
``webhook-timestamp`` (unix seconds of this attempt) and ``webhook-signature``:
``v1,`` and the base64 HMAC-SHA256 of ``{id}.{timestamp}.{body}`` keyed with the
bytes the secret encodes after ``whsec_``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

SECRET_PREFIX = "whsec_"
MIN_SECRET_BYTES = 24


def secret_key(secret: str) -> bytes:
    """The key bytes of a ``whsec_…`` secret; ``ValueError`` (never quoting it) when it is
    not one or holds fewer than ``MIN_SECRET_BYTES`` bytes."""
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError(f"must start with {SECRET_PREFIX} (a Standard Webhooks secret)")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"must be {SECRET_PREFIX} followed by base64") from None
    if len(key) < MIN_SECRET_BYTES:
        raise ValueError(f"must encode at least {MIN_SECRET_BYTES} bytes, not {len(key)}")
    return key


def signed_headers(key: bytes, event_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The headers of one attempt to deliver ``body``."""
    signed = f"{event_id}.{timestamp}.".encode() + body
    digest = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return {
        "content-type": "application/json",
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": f"v1,{digest}",
    }
