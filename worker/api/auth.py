"""Bearer-token authentication for /v1/* and /metrics.

The token is ``TURNCHECK_API_TOKEN``, compared in constant time. A request without
it, or with another, is answered 401 with ``WWW-Authenticate: Bearer``. With no token
set the API is open; ``server.check_api_settings`` allows that on loopback only, and
``hosts.py`` answers only requests addressed to a loopback name.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.settings import Settings

bearer = HTTPBearer(
    auto_error=False,
    description="TURNCHECK_API_TOKEN, as `Authorization: Bearer <token>`.",
)


def configured_token(settings: Settings) -> str | None:
    """``TURNCHECK_API_TOKEN``; None when it is unset or empty, and the API open."""
    token = settings.api_token
    if token is None or not token.get_secret_value():
        return None
    return token.get_secret_value()


def token_matches(expected: str, given: str) -> bool:
    """Constant time: digests of equal length are compared, so neither the token's content
    nor its length shows in how long a wrong guess takes."""
    return hmac.compare_digest(_digest(expected), _digest(given))


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


async def require_token(
    request: Request,
    ctx: Annotated[ApiContext, Depends(context)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    """Raise 401 unless the request carries the API's token (or none is configured)."""
    token = configured_token(ctx.settings)
    if token is None:
        return
    if credentials is None or not token_matches(token, credentials.credentials):
        raise HTTPException(
            401, "missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"}
        )
