"""A real judge provider on a loopback socket, answering from a script.

``FakeProvider`` is a ``ThreadingHTTPServer`` on ``127.0.0.1`` (port picked by
the OS) in a background thread. It serves both wire formats:

* ``POST /v1/chat/completions``: OpenAI-compatible; use ``server.openai_url``
  (``http://127.0.0.1:PORT/v1``) as the endpoint's ``base_url``;
* ``POST /v1/messages``: Anthropic Messages; use ``server.anthropic_url``
  (``http://127.0.0.1:PORT``).

Each request takes the next ``Scripted`` answer queued by ``server.script(...)``;
once the queue is empty, it answers ``server.responder(request_json)`` with
status 200. Every request is recorded (``server.requests``) before it is
answered, and ``server.max_in_flight`` is the most requests seen at once.
OpenAI answers carry logprobs (the text split at word boundaries) when the
request asked for them. Any other path answers 404.

The OpenAI path refuses what the real API refuses, with its real error bodies
(``openai_error``): for a reasoning model (``REASONING_MODELS``, and their dated or
suffixed names) ``max_tokens``, a ``temperature`` other than 1 and logprobs; a
``json_schema`` response format that is not strict-valid; and, with
``server.json_word_required`` (off by default: the client tests send bare prompts),
JSON mode when no message holds the word "json".

    with FakeProvider() as server:
        server.script(Scripted(status=429, headers={"Retry-After": "0.1"}), Scripted("{}"))
        ...  # point a client at server.openai_url
        assert server.requests[0].json["model"] == "gpt-4o-mini"

``close()`` wakes any answer still waiting out its delay (it then sends
nothing) and joins every handler thread, so no socket outlives the server.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Responder = Callable[[Any], str]
"""Maps a request's parsed JSON body to the reply text."""

DEFAULT_REPLY = '{"verdict": "pass", "reason": "fine"}'


@dataclass(frozen=True, slots=True)
class Scripted:
    """One scripted answer. ``text`` None: ask ``server.responder``."""

    text: str | None = None
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Wait this long before answering (the request counts as in flight meanwhile)."""
    body: bytes | None = None
    """Send these bytes verbatim instead of a provider-shaped body (malformed answers)."""
    input_tokens: int = 17
    output_tokens: int | None = None
    """None: the number of logprob tokens of the text."""
    logprob: float = -0.125
    """The logprob of every token of an OpenAI answer."""
    refusal: str | None = None
    """OpenAI: answer a refusal (``content`` null, ``refusal`` this text) instead of ``text``."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    path: str
    headers: Mapping[str, str]
    """Header names in lower case."""
    json: Any
    """The parsed body; None if it was not JSON."""


def split_tokens(text: str) -> list[str]:
    """The text in tokens whose concatenation is the text: words with their leading space."""
    return re.findall(r"\s*\S+|\s+", text)


REASONING_MODELS = ("o1", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano")


def openai_error(
    request_json: Any, *, json_word_required: bool, reasoning_models: Iterable[str]
) -> tuple[int, bytes] | None:
    """The status and body the OpenAI API answers to this chat completion request, if it
    refuses it; the messages are the real ones (o-series, gpt-5, JSON mode)."""
    if not isinstance(request_json, dict):
        return None
    model = str(request_json.get("model", ""))
    reasoning = any(model == m or model.startswith(f"{m}-") for m in reasoning_models)
    if reasoning and "max_tokens" in request_json:
        return _error(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model."
            " Use 'max_completion_tokens' instead.",
            "max_tokens",
            "unsupported_parameter",
        )
    temperature = request_json.get("temperature", 1)
    if reasoning and temperature != 1:
        return _error(
            400,
            f"Unsupported value: 'temperature' does not support {temperature} with this model."
            " Only the default (1) value is supported.",
            "temperature",
            "unsupported_value",
        )
    if reasoning and ("logprobs" in request_json or "top_logprobs" in request_json):
        return _error(403, "You are not allowed to request logprobs from this model", None, None)
    response_format = request_json.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        schema = spec.get("schema")
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", str(spec.get("name", ""))):
            return _error(
                400, "Invalid 'response_format.json_schema.name'.", "response_format", None
            )
        if spec.get("strict") and not _strict_valid(schema):
            return _error(
                400,
                f"Invalid schema for response_format '{spec['name']}': In context=(),"
                " 'additionalProperties' is required to be supplied and to be false.",
                "response_format",
                None,
            )
    if response_format.get("type") == "json_object" and json_word_required:
        texts = [str(m.get("content", "")) for m in request_json.get("messages", [])]
        if not any("json" in text.lower() for text in texts):
            return _error(
                400,
                "'messages' must contain the word 'json' in some form, to use"
                " 'response_format' of type 'json_object'.",
                "messages",
                None,
            )
    return None


def _error(status: int, message: str, param: str | None, code: str | None) -> tuple[int, bytes]:
    body = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return status, json.dumps({"error": body}).encode()


def _strict_valid(schema: Any) -> bool:
    """Strict structured output: every object lists all its keys as required, allows no other."""
    if not isinstance(schema, dict):
        return False
    if schema.get("type") != "object":
        return True
    properties = schema.get("properties")
    if not isinstance(properties, dict) or schema.get("additionalProperties") is not False:
        return False
    if sorted(schema.get("required", [])) != sorted(properties):
        return False
    return all(_strict_valid(p) for p in properties.values())


class FakeProvider:
    def __init__(self) -> None:
        self.responder: Responder = lambda request_json: DEFAULT_REPLY
        self.json_word_required = False
        self.reasoning_models: tuple[str, ...] = REASONING_MODELS
        """Model names (and their ``-suffixed`` variants) served as reasoning models."""
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._queue: deque[Scripted] = deque()
        self._requests: list[RecordedRequest] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._server = _Server(self)
        # A short poll keeps close() fast: shutdown() waits for the serving loop to poll.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    def script(self, *answers: Scripted | Iterable[Scripted]) -> None:
        """Queue answers for the next requests, in order."""
        with self._lock:
            for answer in answers:
                self._queue.extend([answer] if isinstance(answer, Scripted) else answer)

    def start(self) -> FakeProvider:
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving, wake delayed answers and join every thread; idempotent."""
        self._stopping.set()
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        try:
            request_json = json.loads(raw)
        except ValueError:
            request_json = None
        headers = {name.lower(): value for name, value in handler.headers.items()}
        with self._lock:
            self._requests.append(RecordedRequest(handler.path, headers, request_json))
            answer = self._queue.popleft() if self._queue else Scripted()
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            # A closing server wakes the wait; the client is gone or going, so send nothing.
            if self._stopping.wait(answer.delay_s):
                return
            refused = None
            if handler.path == "/v1/chat/completions":
                refused = openai_error(
                    request_json,
                    json_word_required=self.json_word_required,
                    reasoning_models=self.reasoning_models,
                )
            if refused is not None:
                status, body = refused
            else:
                text = answer.text if answer.text is not None else self.responder(request_json)
                status, body = _shape(handler.path, answer, text, request_json)
        finally:
            with self._lock:
                self._in_flight -= 1
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        for name, value in answer.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)


def _shape(path: str, answer: Scripted, text: str, request_json: Any) -> tuple[int, bytes]:
    """The status and body of the answer, in the wire format of ``path``."""
    tokens = split_tokens(text)
    output_tokens = len(tokens) if answer.output_tokens is None else answer.output_tokens
    if answer.body is not None:
        return answer.status, answer.body
    if answer.status != 200:
        return answer.status, json.dumps({"error": {"message": "scripted"}}).encode()
    if path == "/v1/chat/completions":
        message = {"role": "assistant", "content": text, "refusal": None}
        if answer.refusal is not None:
            message = {"role": "assistant", "content": None, "refusal": answer.refusal}
        choice: dict[str, Any] = {"index": 0, "message": message}
        asked = isinstance(request_json, dict) and request_json.get("logprobs")
        if asked and answer.refusal is None:
            content = [{"token": t, "logprob": answer.logprob, "top_logprobs": []} for t in tokens]
            choice["logprobs"] = {"content": content}
        usage = {"prompt_tokens": answer.input_tokens, "completion_tokens": output_tokens}
        return 200, json.dumps(
            {"object": "chat.completion", "choices": [choice], "usage": usage}
        ).encode()
    if path == "/v1/messages":
        usage = {"input_tokens": answer.input_tokens, "output_tokens": output_tokens}
        content = [{"type": "text", "text": text}]
        return 200, json.dumps({"type": "message", "content": content, "usage": usage}).encode()
    return 404, b'{"error": "no such path"}'


class _Server(ThreadingHTTPServer):
    # Handler threads are joined on close (block_on_close) so no socket outlives a test.
    daemon_threads = False

    def __init__(self, fake: FakeProvider) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (deadline, timeout) closes its socket; that is no error here.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        self.server.fake._answer(self)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean
