"""The turn the worker checks: frozen, slotted msgspec structs decoded straight from JSON.

They mirror the contract's pydantic models (``schemas/turn.py``, which generate the JSON
Schema) field for field and constraint for constraint (``decode_turn`` itself looks for
NUL in the stored ids); ``worker/turns/decode.py`` holds the two to one meaning and
``tests/turns/test_decode_differential.py`` proves it on every edge. Unknown fields are
accepted and skipped: nothing inside reads them (``decode.contract_turn`` gives the
pydantic model, which keeps them, when something does).

The structs are not tracked by the garbage collector (``gc=False``: a third of the
decoding time on a turn of many parts): they are frozen, and decoded JSON holds no cycle.

Where msgspec and pydantic read a constraint differently, the struct is the stricter, so
that anything it takes pydantic takes too, with the same values; the rest (lax forms such
as a version written ``7.0``, a timestamp as a number) is decided by pydantic itself.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from turncheck.schemas.turn import AGENT_VERSION_MAX_CHARS, STORED_ID_MAX_CHARS

# Python's ``$`` also matches before a final newline, pydantic's does not: ``\Z`` is its end.
_DIGEST = r"^[0-9a-f]{64}\Z"

# The stored ids refuse NUL too (``schemas/turn.py``); ``decode_turn`` looks for one itself,
# four times faster than a pattern here.
StoredId = Annotated[str, msgspec.Meta(max_length=STORED_ID_MAX_CHARS)]
RequiredId = Annotated[str, msgspec.Meta(min_length=1, max_length=STORED_ID_MAX_CHARS)]
AgentVersion = (
    Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
    | Annotated[str, msgspec.Meta(max_length=AGENT_VERSION_MAX_CHARS)]
)
HexDigest = Annotated[str, msgspec.Meta(pattern=_DIGEST)]


class Instant(datetime):
    """A time with its offset (the contract's ``AwareDatetime``). A type of its own only so
    that ``worker/turns/decode.py`` parses it: msgspec would round a fraction finer than a
    microsecond where pydantic cuts it."""

    __slots__ = ()


class Agent(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    id: RequiredId
    version: AgentVersion
    model: str | None = None


class InputMessage(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    role: Literal["user", "developer"]
    content: str


class TurnInput(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    messages: list[InputMessage] = msgspec.field(default_factory=list)
    prompt_variables: dict[str, Any] = msgspec.field(default_factory=dict)
    transcript: str | None = None


class KnowledgePassage(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    source: str | None = None
    content: str


class HistoryMessage(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    role: str
    name: str | None = None
    content: str


class ToolCall(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    id: str
    name: str
    arguments: dict[str, Any] | str = msgspec.field(default_factory=dict)


class ToolResult(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    call_id: str
    name: str | None = None
    content: Any = None


class Round(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    text: str | None = None
    """Text the model wrote beside its tool calls."""
    tool_calls: list[ToolCall] = msgspec.field(default_factory=list)
    tool_results: list[ToolResult] = msgspec.field(default_factory=list)


class Output(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    text: str
    stop_reason: str | None = None


class PrivateValue(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A value the customer entered privately: hex SHA-256 of ``salt + value``, never the value."""

    salt: str
    sha256: HexDigest
    sha256_casefold: HexDigest | None = None


class Turn(msgspec.Struct, frozen=True, kw_only=True, gc=False, rename={"schema_": "schema"}):
    """One finished turn of a chat agent, as the platform stored it (``turn.stored/v1``)."""

    schema_: Literal["turn.stored/v1"]
    turn_id: RequiredId
    thread_id: StoredId | None = None
    person_id: StoredId | None = None
    agent: Agent
    created_at: Instant
    channel: Literal["web", "widget", "sms", "voice", "api"] | None = None
    input: TurnInput = msgspec.field(default_factory=TurnInput)
    instructions: str | None = None
    knowledge: list[KnowledgePassage] = msgspec.field(default_factory=list)
    history: list[HistoryMessage] = msgspec.field(default_factory=list)
    rounds: list[Round] = msgspec.field(default_factory=list)
    output: Output
    private_values: list[PrivateValue] = msgspec.field(default_factory=list)
