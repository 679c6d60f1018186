"""Error bodies as OpenAI and Anthropic really send them, for the fake provider to answer.

The messages are the providers' own words; the client must decide from ``type`` and
``code`` alone and never repeat a message, so tests look for its words in logs and reasons.
"""

from __future__ import annotations

OPENAI_RATE_LIMIT = (
    b'{"error": {"message": "Rate limit reached for gpt-4o-mini in organization org-abc on '
    b'requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.", '
    b'"type": "requests", "param": null, "code": "rate_limit_exceeded"}}'
)
OPENAI_QUOTA = (
    b'{"error": {"message": "You exceeded your current quota, please check your plan and '
    b"billing details. For more information on this error, read the docs: "
    b'https://platform.openai.com/docs/guides/error-codes/api-errors.", '
    b'"type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}'
)
OPENAI_PROJECT_SPEND_LIMIT = (
    b'{"error": {"message": "You exceeded your current quota, please check your plan and '
    b'billing details.", "type": "insufficient_quota", "param": null, '
    b'"code": "project_spend_limit_exceeded"}}'
)
ANTHROPIC_RATE_LIMIT = (
    b'{"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request '
    b'tokens has exceeded your per-minute rate limit"}, "request_id": "req_011CSHoEeqs5C35K"}'
)
ANTHROPIC_SPEND_LIMIT = (
    b'{"type": "error", "error": {"type": "rate_limit_error", "message": "You have reached '
    b'your specified API usage limits.", "details": {"error_code": "enforced_spend_limit_reached"}}}'
)
ANTHROPIC_OVERLOADED = (
    b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
)
ANTHROPIC_CREDIT_TOO_LOW = (
    b'{"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit '
    b"balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade "
    b'or purchase credits."}}'
)

MESSAGE_WORDS = (
    "Rate limit reached",
    "plan and",
    "per-minute",
    "usage limits",
    "Overloaded",
    "balance is too low",
)
"""Words of the messages above, which no log line or stored reason may hold."""
