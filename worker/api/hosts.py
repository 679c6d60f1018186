"""Without a token, the API answers only requests addressed to a loopback name.

A token-less API listens on loopback only (``server.check_api_settings``), yet a web page
can still reach it by DNS rebinding: the page's own name is made to resolve to 127.0.0.1,
and the browser sends the page's requests (``DELETE /v1/persons/…`` among them) there,
with the page's name in ``Host``. So, with no token set, a request whose ``Host`` is not
``localhost`` or a loopback address (``127.0.0.1``, ``[::1]``), with any port, is
answered ``421`` before any route runs; so is one with no ``Host`` or two. With a token set,
the token is the guard and any ``Host`` is answered (a proxy's name, say).
"""

from __future__ import annotations

import ipaddress

from starlette.types import ASGIApp, Receive, Scope, Send

from turncheck.worker.api.errors import error

REFUSED = (
    "this API has no TURNCHECK_API_TOKEN, so it answers only requests addressed to "
    "localhost, 127.0.0.1 or [::1]"
)


def is_loopback(host: str) -> bool:
    """A name or address that can only mean this machine."""
    name = host.lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name of a ``Host`` header without its port: ``[::1]:8080`` → ``[::1]``."""
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    name, _, port = header.rpartition(":")
    return name if name and port.isdigit() else header


class LoopbackHostsOnly:
    """The ASGI guard ``create_app`` puts in front of an API without a token."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            hosts = [value for key, value in scope["headers"] if key == b"host"]
            if len(hosts) != 1 or not is_loopback(host_name(hosts[0].decode("latin-1"))):
                await error(421, REFUSED)(scope, receive, send)
                return
        await self.app(scope, receive, send)
