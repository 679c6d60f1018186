"""The stored-turn contract, ``turn.stored/v1``.

Producers in any language validate against the JSON Schema generated from these
models (``turn.stored.v1.schema.json``). Unknown fields are kept, not rejected,
so producers can add fields without breaking turncheck.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

TURN_SCHEMA = "turn.stored/v1"

# The store keeps these ids in columns of bounded length (worker/store/tables.py), and
# PostgreSQL text cannot hold NUL. A turn whose id breaks either would fail its INSERT on
# every redelivery, so the contract refuses it at decode: it goes to the dead-letter topic.
STORED_ID_MAX_CHARS = 200
AGENT_VERSION_MAX_CHARS = 64
NO_NUL = r"^[^\x00]*$"

StoredId = Annotated[str, Field(max_length=STORED_ID_MAX_CHARS, pattern=NO_NUL)]
# An integer version fits a signed 64-bit integer in any producer's language, and its
# text (at most 20 characters) fits the column.
AgentVersion = (
    Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
    | Annotated[str, Field(max_length=AGENT_VERSION_MAX_CHARS, pattern=NO_NUL)]
)

# A turn's time bounds what is stored from it (its expiry is created_at + retention) and
# every window over it. One from the year 9999 would pass a bare ``AwareDatetime`` and
# then fail its batch at store time, on every try; the contract refuses it at decode, so
# it goes to the dead-letter topic at once. The range is fixed, not relative to a clock,
# so a message is decided the same way whenever it is delivered or replayed.
EARLIEST_TURN_TIME = datetime(2000, 1, 1, tzinfo=UTC)
"""The earliest ``created_at`` the contract accepts (inclusive)."""
TURN_TIME_BEFORE = datetime(2100, 1, 1, tzinfo=UTC)
"""The ``created_at`` every turn is before (exclusive)."""


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Agent(_Open):
    id: StoredId = Field(min_length=1)
    version: AgentVersion
    model: str | None = Field(
        default=None, description="The model that wrote the turn; `router:...` names a router."
    )


class InputMessage(_Open):
    role: Literal["user", "developer"]
    content: str


class TurnInput(_Open):
    messages: list[InputMessage] = Field(default_factory=list)
    prompt_variables: dict[str, Any] = Field(default_factory=dict)
    transcript: str | None = None


class KnowledgePassage(_Open):
    source: str | None = None
    content: str


class HistoryMessage(_Open):
    role: str
    name: str | None = None
    content: str


class ToolCall(_Open):
    id: str
    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class ToolResult(_Open):
    call_id: str
    name: str | None = None
    content: Any = None


class Round(_Open):
    text: str | None = Field(
        default=None, description="Text the model wrote beside its tool calls."
    )
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_results: list[ToolResult] = Field(default_factory=list)


class Output(_Open):
    text: str
    stop_reason: str | None = None


class PrivateValue(_Open):
    """A value the customer entered privately: hex SHA-256 of ``salt + value``, never the value."""

    salt: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    sha256_casefold: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="Optional: hex SHA-256 of salt + value.casefold(), so that the value "
        "repeated in another letter case is found too.",
    )


class Turn(_Open):
    """One finished turn of a chat agent, as the platform stored it."""

    schema_: Literal["turn.stored/v1"] = Field(alias="schema")
    turn_id: StoredId = Field(min_length=1, description="Unique; the idempotency key.")
    thread_id: StoredId | None = None
    person_id: StoredId | None = None
    agent: Agent
    created_at: AwareDatetime = Field(
        ge=EARLIEST_TURN_TIME,
        lt=TURN_TIME_BEFORE,
        description="When the turn ended; retention counts from it. From "
        "2000-01-01T00:00:00Z up to, not including, 2100-01-01T00:00:00Z.",
        json_schema_extra={
            "formatMinimum": "2000-01-01T00:00:00Z",
            "formatExclusiveMaximum": "2100-01-01T00:00:00Z",
        },
    )
    channel: Literal["web", "widget", "sms", "voice", "api"] | None = None
    input: TurnInput = Field(default_factory=TurnInput)
    instructions: str | None = None
    knowledge: list[KnowledgePassage] = Field(default_factory=list)
    history: list[HistoryMessage] = Field(default_factory=list)
    rounds: list[Round] = Field(default_factory=list)
    output: Output
    private_values: list[PrivateValue] = Field(default_factory=list)
