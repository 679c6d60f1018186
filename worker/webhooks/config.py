"""Which endpoints receive ``response.check_failed``: ``TURNCHECK_WEBHOOKS``.

The setting holds inline JSON (``[{...}]``) or names a YAML or JSON file with the
same list. Each entry has a ``name`` (stable: delivery state is kept under it), a
``url`` (http or https), and either ``secret`` (``whsec_…``) or ``secret_env``, the
environment variable that holds it, so the file can be shared without the secret.
``enabled: false`` keeps an endpoint configured but sends it nothing.

Everything is checked when the worker starts: a bad entry is refused with its
position, its name and the field, never the secret or the URL (it may carry a token).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, ValidationError

from turncheck.worker.errors import WebhookConfigError
from turncheck.worker.runtime import config_files
from turncheck.worker.webhooks.guard import AddressRefused, check_literal
from turncheck.worker.webhooks.signing import secret_key

SETTING = "TURNCHECK_WEBHOOKS"
Name = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
SecretLookup = Callable[[str], SecretStr | None]
"""``lookup(variable)``: the secret an environment variable holds, or None (settings.py)."""


class EndpointEntry(BaseModel):
    """One entry as written in the setting or file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    url: str = Field(min_length=1, max_length=2000)
    secret: SecretStr | None = None
    secret_env: str | None = Field(default=None, min_length=1)
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A checked endpoint. ``key`` is the signing key; ``repr`` leaves it and the URL out."""

    name: str
    url: str = field(repr=False)
    key: bytes = field(repr=False)
    enabled: bool = True

    @property
    def origin(self) -> str:
        """scheme://host:port, safe to show: no path, query or credentials."""
        url = httpx.URL(self.url)
        return f"{url.scheme}://{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"

    @property
    def digest(self) -> str:
        """Changes when the URL or ``enabled`` does: a changed endpoint is enabled again."""
        return hashlib.sha256(f"{self.url}\n{self.enabled}".encode()).hexdigest()[:16]


def _fail(source: str, where: str, message: str) -> WebhookConfigError:
    return WebhookConfigError(f"{source}: {where}: {message}")


def _check_url(url: str, allow_private: bool) -> str | None:
    """Why ``url`` cannot be a webhook's, or None."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return "not a valid URL"
    if parsed.scheme not in ("http", "https"):
        return "must be an http or https URL"
    if not parsed.host:
        return "has no host"
    try:
        check_literal(parsed.host, allow_private)
    except AddressRefused as exc:
        return f"is {exc.reason}; set TURNCHECK_WEBHOOK_ALLOW_PRIVATE=true to allow it"
    return None


def _endpoint(entry: EndpointEntry, lookup: SecretLookup, allow_private: bool) -> Endpoint:
    if (entry.secret is None) == (entry.secret_env is None):
        raise ValueError("secret: give either secret or secret_env")
    if entry.secret_env is not None:
        secret = lookup(entry.secret_env)
        if secret is None:
            raise ValueError(f"secret_env: the variable {entry.secret_env} is not set")
        where = "secret_env"
    else:
        assert entry.secret is not None
        secret, where = entry.secret, "secret"
    try:
        key = secret_key(secret.get_secret_value())
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    if why := _check_url(entry.url, allow_private):
        raise ValueError(f"url: {why}")
    return Endpoint(entry.name, entry.url, key, entry.enabled)


def _read(value: str) -> tuple[str, Any]:
    text = value.strip()
    if text.startswith("["):
        return SETTING, config_files.parse_json(text)
    data, _root = config_files.parse_yaml(config_files.read_text(Path(text)))
    return text, data


def load_webhooks(value: str | None, lookup: SecretLookup, allow_private: bool) -> list[Endpoint]:
    """Parse and check the setting: inline JSON, or a path to a YAML/JSON file. Empty:
    no endpoints. Raises ``WebhookConfigError`` naming the entry and the field."""
    if not value or not value.strip():
        return []
    where = SETTING if value.strip().startswith("[") else value.strip()
    try:
        source, data = _read(value)
    except config_files.UnreadableConfig as exc:
        at = f"{where}:{exc.line}" if exc.line is not None else where
        raise WebhookConfigError(f"{at}: cannot read webhooks: {exc.reason}") from None
    if not isinstance(data, list):
        raise _fail(source, "webhooks", "must be a list of endpoints")
    endpoints: list[Endpoint] = []
    for position, raw in enumerate(data):
        label = f"webhooks[{position}]"
        if isinstance(raw, dict) and isinstance(raw.get("name"), str):
            label += f" ({raw['name']!r})"
        try:
            entry = TypeAdapter(EndpointEntry).validate_python(raw)
        except ValidationError as exc:
            error = exc.errors(include_input=False, include_url=False)[0]
            where = ".".join(str(part) for part in error["loc"]) or "entry"
            raise _fail(source, label, f"field {where!r}: {error['msg']}") from None
        try:
            endpoints.append(_endpoint(entry, lookup, allow_private))
        except ValueError as exc:
            name, _, message = str(exc).partition(": ")
            raise _fail(source, label, f"field {name!r}: {message}") from None
    names = [endpoint.name for endpoint in endpoints]
    if duplicate := next((n for n in names if names.count(n) > 1), None):
        raise _fail(source, "webhooks", f"the name {duplicate!r} is used twice")
    return endpoints
