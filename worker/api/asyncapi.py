"""The AsyncAPI 3.0 document of turncheck's topics, served at ``/asyncapi.json``.

Built from the contracts as shipped: the checked-in JSON Schemas of ``schemas/``
(``turn.stored.v1``, ``response.check_failed.v1``, ``turncheck.erasure.v1``).
Each schema's ``$defs`` move to ``components.schemas`` and their references follow,
so the document is whole on its own. Topic names are the settings' own. No server
is listed: broker addresses are not for an open document.
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.metadata import version
from typing import Any

from turncheck.worker.settings import Settings

TURN_SCHEMA = "turn.stored.v1.schema.json"
EVENT_SCHEMA = "response.check_failed.v1.schema.json"
ERASURE_SCHEMA = "turncheck.erasure.v1.schema.json"
KAFKA_BINDING = "0.5.0"


def asyncapi_document(settings: Settings) -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    turn = _component(_shipped(TURN_SCHEMA), "Turn", schemas)
    event = _component(_shipped(EVENT_SCHEMA), "CheckFailedEvent", schemas)
    erasure = _component(_shipped(ERASURE_SCHEMA), "ErasureRequest", schemas)
    turn_key = {"type": "string", "description": "The turn's `turn_id`."}
    messages = {
        "turnStored": _message(
            "A chat turn as the platform stored it.", turn, key=turn_key, content="application/json"
        ),
        "checkFailed": _message(
            "A result that did not pass: ids, names and times only, never text. "
            "Delivered at least once: de-duplicate on `id`.",
            event,
            key=turn_key,
            content="application/json",
        ),
        "deadLetter": _message(
            "A message that was not a valid turn or could not be checked or stored: its key "
            "and bytes unchanged (a tombstone stays null), with headers saying why.",
            {"description": "The original message's bytes, as consumed."},
            key={"description": "The original message's key."},
            headers={
                "type": "object",
                "properties": {
                    "turncheck-reason": {
                        "type": "string",
                        "description": "The fields at fault, never their values.",
                    },
                    "turncheck-source": {
                        "type": "string",
                        "description": "topic/partition/offset of the original.",
                    },
                },
                "required": ["turncheck-reason", "turncheck-source"],
            },
        ),
        "erasureRequest": _message(
            "Erase what is stored of this person and drop their turns from now on.",
            erasure,
            key={"type": "string", "description": "The person id (any key is accepted)."},
            content="application/json",
        ),
    }
    channels = {
        "turnsStored": (settings.topic_turns, "turnStored", "receive"),
        "checkFailed": (settings.topic_events, "checkFailed", "send"),
        "deadLetters": (settings.topic_dlq, "deadLetter", "send"),
        "erasureRequests": (settings.topic_erasure, "erasureRequest", "receive"),
    }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "turncheck",
            "version": version("turncheck"),
            "description": "Holds every stored turn of a chat agent to its checks. "
            "Operations are turncheck's own: it receives stored turns and erasure "
            "requests, and sends check failures and dead letters.",
        },
        "defaultContentType": "application/json",
        "channels": {
            name: {
                "address": topic,
                "messages": {message: {"$ref": f"#/components/messages/{message}"}},
            }
            for name, (topic, message, _) in channels.items()
        },
        "operations": {
            f"{action}{name[0].upper()}{name[1:]}": {
                "action": action,
                "channel": {"$ref": f"#/channels/{name}"},
                "messages": [{"$ref": f"#/channels/{name}/messages/{message}"}],
            }
            for name, (_, message, action) in channels.items()
        },
        "components": {"messages": messages, "schemas": schemas},
    }


def _shipped(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(
        resources.files("turncheck.schemas").joinpath(name).read_text()
    )
    return found


def _component(schema: dict[str, Any], name: str, schemas: dict[str, Any]) -> dict[str, str]:
    """Add ``schema`` and its ``$defs`` to ``schemas``; a reference to it."""
    schema = _rewrite(schema)
    schema.pop("$schema", None)
    for def_name, definition in {**schema.pop("$defs", {}), name: schema}.items():
        if schemas.setdefault(def_name, definition) != definition:
            raise ValueError(f"two contracts define {def_name!r} differently")
    return {"$ref": f"#/components/schemas/{name}"}


def _rewrite(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: value.replace("#/$defs/", "#/components/schemas/")
            if key == "$ref" and isinstance(value, str)
            else _rewrite(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_rewrite(item) for item in node]
    return node


def _message(
    summary: str,
    payload: dict[str, Any],
    *,
    key: dict[str, Any],
    content: str | None = None,
    headers: dict[str, Any] | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "summary": summary,
        "payload": payload,
        "bindings": {"kafka": {"key": key, "bindingVersion": KAFKA_BINDING}},
    }
    if content is not None:
        message["contentType"] = content
    if headers is not None:
        message["headers"] = headers
    return message
