"""What a judge provider's error body says, in words known in advance.

OpenAI answers ``{"error": {"message", "type", "code"}}``; Anthropic answers
``{"type": "error", "error": {"type", "message", "details": {"error_code"}}}``.
A 429 is either a rate limit that clears in seconds (OpenAI ``rate_limit_exceeded``,
Anthropic ``rate_limit_error``) or a quota or spend limit that only a person
clears (OpenAI ``insufficient_quota`` and its billing codes, Anthropic
``enforced_spend_limit_reached``): the second is never worth retrying.

Only the names below are ever read out of a body: its message, and any name not
listed, may quote the prompt or the account, so they are neither logged nor stored.
"""

from __future__ import annotations

import json
from typing import Any

WILL_NOT_CLEAR = frozenset(
    {
        "insufficient_quota",
        "credit_balance_exhausted",
        "organization_spend_limit_exceeded",
        "project_spend_limit_exceeded",
        "organization_usage_limit_exceeded",
        "enforced_spend_limit_reached",
    }
)
"""Codes of a quota or spend limit: retrying does not help until a person acts."""

KNOWN = WILL_NOT_CLEAR | frozenset(
    {
        # error types, both providers
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "not_found_error",
        "rate_limit_error",
        "billing_error",
        "request_too_large",
        "api_error",
        "overloaded_error",
        "timeout_error",
        "server_error",
        "service_unavailable_error",
        # OpenAI codes
        "rate_limit_exceeded",
        "slow_down",
        "server_is_overloaded",
        "invalid_api_key",
        "model_not_found",
        "context_length_exceeded",
    }
)

_MAX_BODY = 64 * 1024
"""Error bodies are a few hundred bytes; a larger one is not a provider's error."""


def error_name(body: bytes) -> str | None:
    """The most specific known name in an error body (a code before a type); None when
    the body is not a provider's error or names nothing known."""
    if len(body) > _MAX_BODY:
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: brackets nested thousands deep
        return None
    error = _object(data, "error")
    candidates = (
        _object(error, "details").get("error_code"),
        error.get("code"),
        error.get("type"),
    )
    return next((name for name in candidates if isinstance(name, str) and name in KNOWN), None)


def _object(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}
