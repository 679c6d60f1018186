"""The erasure-request contract, ``turncheck.erasure/v1``: a message on
``TURNCHECK_TOPIC_ERASURE`` asking that everything stored of a person be deleted."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from turncheck.schemas.turn import StoredId


def in_utc(moment: datetime) -> datetime:
    """The moment, if it can be written in UTC: the ledger keeps it so. A time at the edge
    of the calendar in another zone (``0001-01-01T00:00:00+14:00``) falls outside it."""
    try:
        moment.astimezone(UTC)
    except OverflowError:
        raise PydanticCustomError("utc_range", "out of range once converted to UTC") from None
    return moment


UtcRepresentable = Annotated[AwareDatetime, AfterValidator(in_utc)]


class ErasureRequest(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    person_id: StoredId = Field(min_length=1, description="The turns' `person_id`.")
    requested_at: UtcRepresentable = Field(
        description="When the person asked, with its zone; kept in the ledger, so it must "
        "fall within the years 1 to 9999 once converted to UTC."
    )
