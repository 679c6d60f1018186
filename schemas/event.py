"""The ``response.check_failed`` event contract.

An event names a result that did not pass. It carries ids, names and times only:
never text of the turn, the pattern, the expected text or a judge's reasoning.
Consumers de-duplicate on ``id``, which is the same for the same turn, check and
check version.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

EVENT_TYPE: Literal["response.check_failed"] = "response.check_failed"


class CheckFailedData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    check: str
    check_version: str
    verdict: Literal["failed", "errored"]
    stage: Literal["input", "output"]
    mode: Literal["block", "background"]
    turn_id: str
    thread_id: str | None
    agent_id: str
    agent_version: int | str
    turn_created_at: AwareDatetime


class CheckFailedEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["response.check_failed"] = EVENT_TYPE
    id: str = Field(pattern=r"^evt_[0-9a-f]{32}$")
    occurred_at: AwareDatetime
    data: CheckFailedData
