"""Wire contracts shared with producers and consumers in any language.

Each contract is a pydantic model here and a JSON Schema file beside it,
generated from the model by ``python -m turncheck.schemas`` and checked in.

The models are imported from their modules when first asked for here: importing one
contract module (``schemas.agent_versions``, say) runs this file first, and building
every model costs a read command a tenth of a second.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from turncheck.schemas.checkfile import (
        CheckDefinition,
        CheckFile,
        DoesNotContainCheck,
        PatternCheck,
    )
    from turncheck.schemas.event import EVENT_TYPE, CheckFailedData, CheckFailedEvent
    from turncheck.schemas.turn import TURN_SCHEMA, Turn

_MODULE_OF = {
    "CheckDefinition": "checkfile",
    "CheckFile": "checkfile",
    "DoesNotContainCheck": "checkfile",
    "PatternCheck": "checkfile",
    "EVENT_TYPE": "event",
    "CheckFailedData": "event",
    "CheckFailedEvent": "event",
    "TURN_SCHEMA": "turn",
    "Turn": "turn",
}

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


def __getattr__(name: str) -> Any:
    if name in _MODULE_OF:
        return getattr(import_module(f"turncheck.schemas.{_MODULE_OF[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
