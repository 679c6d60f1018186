"""Webhooks for ``response.check_failed``: each event of the outbox, signed per the
Standard Webhooks spec, POSTed to every configured endpoint, at least once, in order.

``config`` reads ``TURNCHECK_WEBHOOKS``; ``guard`` keeps requests off private
addresses; ``signing`` signs; ``sender`` posts one event; ``delivery`` claims an
endpoint and walks the outbox after its cursor; ``cli`` is ``turncheck webhooks``.
The endpoints' state lives in ``store/webhooks.py`` and ``store/webhook_admin.py``.
"""

from __future__ import annotations

from turncheck.worker.webhooks.config import Endpoint, load_webhooks
from turncheck.worker.webhooks.delivery import Deliverer, WebhookPolicy, run_webhooks
from turncheck.worker.webhooks.sender import WebhookReply, WebhookSender

__all__ = [
    "Deliverer",
    "Endpoint",
    "WebhookPolicy",
    "WebhookReply",
    "WebhookSender",
    "load_webhooks",
    "run_webhooks",
]
