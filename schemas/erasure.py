"""The erasure-request contract, ``turncheck.erasure/v1``: a message on
``TURNCHECK_TOPIC_ERASURE`` asking that everything stored of a person be deleted."""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from turncheck.schemas.turn import StoredId


class ErasureRequest(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    person_id: StoredId = Field(min_length=1, description="The turns' `person_id`.")
    requested_at: AwareDatetime = Field(description="When the person asked; kept in the ledger.")
