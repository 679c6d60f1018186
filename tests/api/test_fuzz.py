"""Schemathesis over the real API's ``/openapi.json``: requests made from the document,
valid and not, to every operation under a real uvicorn, with and without a token, on
SQLite and PostgreSQL. No input makes the API answer with a server error, and every
answer is one the document describes."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.api.conftest import API_NOW, TOKEN, api_settings, save, turn
from tests.conftest import fresh_store
from tests.fuzzing import texts, times
from turncheck.worker.api import create_app, listen
from turncheck.worker.api.server import uvicorn_config
from turncheck.worker.checks import Verdict

CHECKS = [not_a_server_error, response_schema_conformance]


@contextmanager
def serving(database_url: str, token: str | None) -> Iterator[str]:
    """The API under uvicorn on 127.0.0.1, on a loop of its own in a thread (schemathesis
    calls it synchronously), over a store with results in it; its base URL."""
    ready = threading.Event()
    stop = threading.Event()
    found: dict[str, Any] = {}

    async def run() -> None:
        store = await fresh_store(database_url)
        try:
            await save(
                store,
                [turn("t-1"), turn("t-2", person_id="p-2"), turn("t/3", thread_id=None)],
                [("no-competitors", Verdict.FAILED), ("grounded", Verdict.PASSED)],
            )
            sock = listen("127.0.0.1", 0)
            found["url"] = f"http://127.0.0.1:{sock.getsockname()[1]}"
            settings_ = api_settings(database_url, api_token=token)
            server = uvicorn.Server(
                uvicorn_config(create_app(settings_, store, clock=lambda: API_NOW))
            )
            task = asyncio.create_task(server.serve(sockets=[sock]))
            while not server.started and not task.done():
                await asyncio.sleep(0.01)
            ready.set()
            while not stop.is_set() and not task.done():
                await asyncio.sleep(0.05)
            server.should_exit = True
            await task
        finally:
            ready.set()
            await store.close()

    def host() -> None:
        try:
            asyncio.run(run())
        except BaseException as exc:
            found["error"] = exc

    thread = threading.Thread(target=host, name="api-under-fuzz")
    thread.start()
    try:
        ready.wait()
        if "error" in found or "url" not in found:
            raise RuntimeError("the API did not start") from found.get("error")
        yield found["url"]
    finally:
        stop.set()
        thread.join()
    if "error" in found:
        raise found["error"]


def fuzz(base_url: str, headers: dict[str, str]) -> dict[str, str]:
    """Every operation of the document, each with a bounded number of generated requests:
    by operation, how the smallest request that failed it failed ("" when none did)."""
    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json", timeout=30)
    outcomes = {}
    for loaded in schema.get_all_operations():
        operation = loaded.ok()
        # Requests the document allows and requests it does not.
        cases = st.one_of([operation.as_strategy(mode) for mode in GenerationMode])

        # A fifth of the profile's examples per operation: 60 under CI's profile.
        @given(case=cases)
        @settings(
            max_examples=max(settings.default.max_examples // 5, 10),
            suppress_health_check=list(HealthCheck),
        )
        def each(case: schemathesis.Case) -> None:
            case.call_and_validate(base_url=base_url, headers=headers, checks=CHECKS, timeout=30)

        try:
            each()
        except (Exception, FailureGroup) as exc:
            outcomes[operation.label] = str(exc)
        else:
            outcomes[operation.label] = ""
    return outcomes


@pytest.mark.parametrize("token", [None, TOKEN], ids=["no token, loopback", "token"])
def test_no_request_makes_the_api_answer_with_a_server_error(
    database_url: str, token: str | None
) -> None:
    """Any request the document allows, or nearly allows, is answered 2xx or 4xx as
    documented, never 5xx, by the API with a token and without."""
    headers = {"Authorization": f"Bearer {TOKEN}"} if token else {}
    with serving(database_url, token) as base_url:
        outcomes = fuzz(base_url, headers)
    assert "DELETE /v1/persons/{person_id}" in outcomes and "GET /v1/pass-rates" in outcomes
    failed = {label: how for label, how in outcomes.items() if how}
    assert not failed, "\n\n".join(f"{label}:\n{how}" for label, how in failed.items())


# What schemathesis rarely writes: NUL and lone surrogates, times at the calendar's ends,
# slashes and dots in ids, cursors that are almost cursors, numbers past any column.
HOSTILE = (
    texts
    | times
    | st.sampled_from(["/", "a/b", "%2F", "..", "../v1", "\x00", "a\x00b", "%00", " ", ""])
    | st.sampled_from(["eyJ0IjoiMjAyNi0xMS0yOSJ9", "bm90IGEgY3Vyc29y", "====", "e30", "W10"])
    | st.integers().map(str)
    | st.sampled_from(["0", "-1", str(2**63), "1e400", "NaN", "true", "null"])
)


def operations(base_url: str) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(method, path, parameters) of every operation in the API's own document."""
    document = httpx.get(f"{base_url}/openapi.json", timeout=30).json()
    return [
        (method.upper(), path, spec.get("parameters", []))
        for path, methods in document["paths"].items()
        for method, spec in methods.items()
    ]


@pytest.mark.parametrize("token", [None, TOKEN], ids=["no token, loopback", "token"])
def test_hostile_values_in_any_parameter_get_a_client_error_at_worst(
    database_url: str, token: str | None
) -> None:
    """Any value in any path or query parameter of any operation is answered below 500,
    and a refusal is the API's one error form, ``{"error": ...}``."""
    headers = {"Authorization": f"Bearer {TOKEN}"} if token else {}
    with (
        serving(database_url, token) as base_url,
        httpx.Client(base_url=base_url, headers=headers, timeout=30) as client,
    ):
        every = operations(base_url)

        @given(st.data())
        def each(data: st.DataObject) -> None:
            method, path, parameters = data.draw(st.sampled_from(every))
            query = {}
            for parameter in parameters:
                if parameter["in"] == "path":
                    value = quote(
                        data.draw(HOSTILE),
                        safe=data.draw(st.sampled_from(["", "/"])),
                        errors="surrogatepass",
                    )
                    path = path.replace(f"{{{parameter['name']}}}", value or "x")
                elif parameter["in"] == "query" and data.draw(st.booleans()):
                    query[parameter["name"]] = data.draw(HOSTILE)
            # Written by hand: a lone surrogate goes as the bytes UTF-8 forbids, as any
            # client may send them.
            url = f"{path}?{urlencode(query, errors='surrogatepass')}" if query else path
            response = client.request(method, url)
            assert response.status_code < 500, (method, url, response.text)
            if response.status_code >= 400:
                assert set(response.json()) == {"error"}, (method, url, response.text)

        each()


EDGES = {
    "since past the calendar in UTC": "GET /v1/pass-rates?since=9999-12-31T23:00:00-02:00",
    "until past the calendar in UTC": "GET /v1/checks/x/results?until=9999-12-31T23:00:00-02:00",
    "a NUL in a query": "GET /v1/pass-rates?agent=%00",
    "a NUL in a check name": "GET /v1/checks/%00/results",
    "a NUL in a turn id": "GET /v1/turns/%00/results",
    "a NUL in an alert's check": "GET /v1/alerts?check=%00",
    "a NUL in a person id": "DELETE /v1/persons/%00",
    "a slash in a turn id": "GET /v1/turns/a%2Fb/results",
    "a cursor that is not one": "GET /v1/checks/x/results?cursor=e30",
}


@pytest.mark.parametrize("request_line", EDGES.values(), ids=EDGES.keys())
def test_each_edge_the_fuzzing_found_gets_no_server_error(
    database_url: str, request_line: str
) -> None:
    """The smallest requests the fuzz tests above found answered 500 (on PostgreSQL, or on
    both stores) are answered below 500, a refusal in the API's error form."""
    method, url = request_line.split(" ")
    with (
        serving(database_url, TOKEN) as base_url,
        httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
        ) as client,
    ):
        response = client.request(method, url)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert set(response.json()) == {"error"}
