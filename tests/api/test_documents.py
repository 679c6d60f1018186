"""The OpenAPI and AsyncAPI documents: open, complete, and whole on their own."""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema
import pytest

from tests.factories import turn_dict

PATHS = {
    "/v1/pass-rates": {"get"},
    "/v1/checks/{name}/results": {"get"},
    "/v1/turns/{turn_id}/results": {"get"},
    "/v1/turns/{turn_id}/results/{check}/label": {"put", "delete"},
    "/v1/alerts": {"get"},
    "/v1/persons/{person_id}": {"delete"},
    "/v1/backtests": {"get", "post"},
    "/v1/backtests/{backtest_id}": {"get"},
    "/healthz": {"get"},
    "/readyz": {"get"},
    "/metrics": {"get"},
    "/asyncapi.json": {"get"},
}


async def test_openapi_documents_every_path_its_errors_and_the_bearer_scheme(
    api: httpx.AsyncClient,
) -> None:
    doc = (await api.get("/openapi.json", headers={"Authorization": ""})).json()
    assert {path: set(ops) for path, ops in doc["paths"].items()} == PATHS
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    page = doc["paths"]["/v1/checks/{name}/results"]["get"]
    assert {p["name"] for p in page["parameters"]} == {
        "name",
        "verdict",
        "agent",
        "since",
        "until",
        "limit",
        "cursor",
    }
    assert page["responses"]["401"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorBody"
    }
    assert "ResultsPage" in doc["components"]["schemas"]
    assert "security" not in doc["paths"]["/healthz"]["get"]
    assert doc["paths"]["/metrics"]["get"]["security"] == [{"HTTPBearer": []}]


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in refs(value)]
    if isinstance(node, list):
        return [ref for item in node for ref in refs(item)]
    return []


def resolve(doc: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = doc
    for part in ref[2:].split("/"):
        node = node[part]
    return node


async def test_asyncapi_names_the_four_topics_and_every_reference_resolves(
    api: httpx.AsyncClient,
) -> None:
    doc = (await api.get("/asyncapi.json", headers={"Authorization": ""})).json()
    assert doc["asyncapi"] == "3.0.0"
    addresses = {name: channel["address"] for name, channel in doc["channels"].items()}
    assert addresses == {
        "turnsStored": "turns.stored",
        "checkFailed": "response.check_failed",
        "deadLetters": "turns.dlq",
        "erasureRequests": "turncheck.erasure",
    }
    actions = {op["channel"]["$ref"]: op["action"] for op in doc["operations"].values()}
    assert actions == {
        "#/channels/turnsStored": "receive",
        "#/channels/checkFailed": "send",
        "#/channels/deadLetters": "send",
        "#/channels/erasureRequests": "receive",
    }
    for ref in refs(doc):
        resolve(doc, ref)
    assert "servers" not in doc


async def test_asyncapi_payloads_are_the_shipped_contracts(api: httpx.AsyncClient) -> None:
    """A real turn, event and erasure request validate against the document's schemas."""
    doc = (await api.get("/asyncapi.json")).json()

    def validate(message: str, instance: Any) -> None:
        payload = doc["components"]["messages"][message]["payload"]
        jsonschema.Draft202012Validator({**doc, **payload}).validate(instance)

    validate("turnStored", turn_dict())
    validate(
        "checkFailed",
        {
            "type": "response.check_failed",
            "id": "evt_" + "0" * 32,
            "occurred_at": "2026-11-29T10:00:01Z",
            "data": {
                "check": "c",
                "check_version": "v",
                "verdict": "failed",
                "stage": "output",
                "mode": "block",
                "turn_id": "t-1",
                "thread_id": None,
                "agent_id": "a",
                "agent_version": 7,
                "turn_created_at": "2026-11-28T09:07:00Z",
            },
        },
    )
    validate("erasureRequest", {"person_id": "p-1", "requested_at": "2026-11-29T10:00:00Z"})
    with pytest.raises(jsonschema.ValidationError):
        validate("turnStored", {**turn_dict(), "output": 7})
