"""What every check definition has, rule or judged."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

CheckName = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$",
        description="Stable; appears in events, so it must hold nothing secret.",
    ),
]


class BaseCheck(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: CheckName
    stage: Literal["input", "output"] = "output"
    mode: Literal["block", "background"] = "block"
    description: str | None = None
