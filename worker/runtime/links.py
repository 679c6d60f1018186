"""Links from a turn to the chat platform's own page for it: ``TURNCHECK_TURN_URL``.

The template is a URL with ``{turn_id}``, ``{thread_id}`` and ``{agent_id}`` in it
(``https://chat.example.com/agents/{agent_id}/threads/{thread_id}?turn={turn_id}``), and
``{{``/``}}`` for a literal brace. Each value is percent-quoted whole (``/`` included), so
an id can never leave the part of the URL it was put in. A turn with no thread has no
link when the template needs ``{thread_id}``: a link to no conversation would be wrong.

Alerts, the CLI's tables and JSON, the API and backtest reports (``Report.turn_urls``)
link through ``turn_link`` (``link_of`` for anything with the ids); whatever else lists
turns is to call it too. The template
may hold a token in its query: it is never logged, and a refusal names the problem,
never the template.
"""

from __future__ import annotations

import functools
import string
from typing import Protocol
from urllib.parse import quote, urlsplit

FIELDS = ("turn_id", "thread_id", "agent_id")
_FIELD_NAMES = ", ".join(f"{{{name}}}" for name in FIELDS)
_LITERAL = "a literal brace is {{ or }}"

_NOT_IN_A_URL = frozenset(' "<>\\^`|') | {chr(n) for n in (*range(32), 127)}
"""Characters a URL cannot hold as they are (RFC 3986); refused in the template's own text,
so a link sits whole in a Slack ``<url|text>``, an HTML attribute or a terminal."""


class TurnIds(Protocol):
    """What a link is made of: a stored result, an alert's failing turn, a backtest example."""

    @property
    def turn_id(self) -> str: ...
    @property
    def thread_id(self) -> str | None: ...
    @property
    def agent_id(self) -> str: ...


def template_problem(template: str) -> str | None:
    """What is wrong with ``template`` in words that never quote it; None when it is good."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return f"has a brace that opens or closes no field (fields: {_FIELD_NAMES}; {_LITERAL})"
    named: set[str] = set()
    for literal, name, spec, conversion in parts:
        if set(literal) & _NOT_IN_A_URL:
            return 'holds a space, a control character or one of " < > \\ ^ ` | (percent-encode it)'
        if name is None:
            continue
        if name not in FIELDS or spec or conversion:
            return f"names a field other than {_FIELD_NAMES} ({_LITERAL})"
        named.add(name)
    sample = template.format_map(dict.fromkeys(FIELDS, "x"))
    parsed = urlsplit(sample)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return "is not an http:// or https:// address"
    if not named & {"turn_id", "thread_id"}:
        return "names neither {turn_id} nor {thread_id}: every turn would link to the same page"
    return None


def turn_link(
    template: str | None, *, turn_id: str, thread_id: str | None, agent_id: str
) -> str | None:
    """The turn's link, each value percent-quoted (``/``, spaces, ``?``, ``#`` and non-ASCII
    as UTF-8); None without a template, or when it needs ``{thread_id}`` and the turn has
    none. ``template`` is one ``template_problem`` found good (settings check it at start)."""
    if template is None:
        return None
    if thread_id is None and "thread_id" in fields_of(template):
        return None
    values = {"turn_id": turn_id, "thread_id": thread_id or "", "agent_id": agent_id}
    return template.format_map({name: quote(value, safe="") for name, value in values.items()})


@functools.lru_cache(maxsize=8)
def fields_of(template: str) -> frozenset[str]:
    """The fields ``template`` names."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def link_of(template: str | None, turn: TurnIds) -> str | None:
    """``turn_link`` of anything that carries a turn's ids."""
    return turn_link(
        template, turn_id=turn.turn_id, thread_id=turn.thread_id, agent_id=turn.agent_id
    )
