"""Wire contracts shared with producers and consumers in any language.

Each contract is a pydantic model here and a JSON Schema file beside it,
generated from the model by ``python -m turncheck.schemas`` and checked in.
"""

from turncheck.schemas.checkfile import (
    CheckDefinition,
    CheckFile,
    DoesNotContainCheck,
    PatternCheck,
)
from turncheck.schemas.event import EVENT_TYPE, CheckFailedData, CheckFailedEvent
from turncheck.schemas.turn import TURN_SCHEMA, Turn

__all__ = [
    "EVENT_TYPE",
    "TURN_SCHEMA",
    "CheckDefinition",
    "CheckFailedData",
    "CheckFailedEvent",
    "CheckFile",
    "DoesNotContainCheck",
    "PatternCheck",
    "Turn",
]
