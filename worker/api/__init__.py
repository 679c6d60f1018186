"""The HTTP API: pass rates, a check's results page by page, a turn's results, the
alert history, erasure by person, backtests of a draft, health, readiness, Prometheus
metrics, and the OpenAPI and AsyncAPI documents.

``create_app(settings, store, clock=...)`` builds the application; the caller owns
the store (``turncheck serve`` opens and closes it; ``turncheck run`` shares its
own). ``server.py`` runs it under uvicorn, alone or on the worker's event loop.

Every answer is JSON, an error ``{"error": "..."}``; no body carries text of a
turn (none is stored), and no request body is echoed (the one read is a backtest's
draft, ``backtests.py``). Errors of the
store are translated in ``errors.py``: ``StoreUnavailable`` is a 503.
"""

from turncheck.worker.api.app import create_app
from turncheck.worker.api.server import EmbeddedApi, check_api_settings, listen, serve

__all__ = ["EmbeddedApi", "check_api_settings", "create_app", "listen", "serve"]
