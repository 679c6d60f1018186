"""The label export contract, ``turncheck.label/v1``: one JSON object per line, a person's
verdict on a stored failed result. ``turncheck labels export`` writes it; a backtest's
``--labels FILE`` reads it back (``worker/store/label_file.py``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from turncheck.schemas.checkbase import CheckName
from turncheck.schemas.erasure import UtcRepresentable
from turncheck.schemas.turn import NO_NUL, StoredId

LabelName = Literal["false_alarm", "confirmed"]
"""``false_alarm``: the check failed a turn it should have passed; ``confirmed``: it was
right to."""

NOTE_MAX_CHARS = 1000
Note = Annotated[str, Field(max_length=NOTE_MAX_CHARS, pattern=NO_NUL)]
"""Written by a person: kept with the label and exported, never logged or put in an event."""


class LabelLine(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    turn_id: StoredId = Field(min_length=1)
    agent_id: StoredId = Field(min_length=1)
    check: CheckName
    check_version: str = Field(
        min_length=1, max_length=64, description="The version of the result labelled."
    )
    label: LabelName
    note: Note | None = None
    labelled_at: UtcRepresentable = Field(description="When the label was set, in UTC.")
