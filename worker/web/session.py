"""Who may see the pages: a session cookie got by signing in with the API's token, and a
CSRF token on every form that changes anything.

With ``TURNCHECK_API_TOKEN`` set, ``/ui/sign-in`` exchanges the token for a session
cookie (HttpOnly, SameSite=Strict, Secure when the page came over https) signed with a
key derived from the token, so a new token signs every session out. Without a token the
pages, like the API, answer on loopback only (``api/hosts.py``) and every visitor gets a
session at once, signed with a key made when the app is made: the cookie then only seeds
the CSRF token.

A form's CSRF token is an HMAC of its session's nonce, checked in constant time: another
site's page can neither read it nor, with SameSite=Strict, send the cookie it belongs to.
The session holds no server-side state, so any replica with the same token accepts it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

SESSION_COOKIE = "turncheck_session"
SESSION_LIFETIME_S = 12 * 3600
CSRF_FIELD = "csrf_token"


@dataclass(frozen=True, slots=True)
class SessionKeys:
    """The key that signs sessions, and whether a sign-in is needed to get one."""

    key: bytes
    sign_in_needed: bool

    @classmethod
    def for_token(cls, token: str | None) -> SessionKeys:
        if token is None:
            return cls(secrets.token_bytes(32), sign_in_needed=False)
        return cls(_derive(b"session", token.encode()), sign_in_needed=True)


@dataclass(frozen=True, slots=True)
class Session:
    """A valid session: its nonce and the CSRF token its forms carry."""

    nonce: str
    csrf: str


def issue(keys: SessionKeys, now: datetime) -> tuple[str, Session]:
    """A new session's cookie value (``issued.nonce.signature``) and the session."""
    nonce = secrets.token_hex(16)
    body = f"{int(now.timestamp())}.{nonce}"
    return f"{body}.{_sign(keys.key, body)}", _session(keys, nonce)


def read(keys: SessionKeys, cookie: str | None, now: datetime) -> Session | None:
    """The session of a cookie signed with ``keys`` and not yet expired, else None."""
    if not cookie:
        return None
    issued, _, rest = cookie.partition(".")
    nonce, _, signature = rest.partition(".")
    if not (issued.isdigit() and nonce and signature):
        return None
    if not hmac.compare_digest(_sign(keys.key, f"{issued}.{nonce}"), signature):
        return None
    age_s = now.timestamp() - int(issued)
    if not 0 <= age_s < SESSION_LIFETIME_S:
        return None
    return _session(keys, nonce)


def csrf_matches(session: Session, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(session.csrf, given)


def _session(keys: SessionKeys, nonce: str) -> Session:
    return Session(nonce, _sign(keys.key, f"csrf.{nonce}"))


def _sign(key: bytes, body: str) -> str:
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def _derive(purpose: bytes, secret: bytes) -> bytes:
    return hashlib.sha256(b"turncheck web " + purpose + b"\0" + secret).digest()
