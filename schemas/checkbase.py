"""What every check definition has, rule or judged."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from turncheck.schemas.agent_versions import VersionsField, checked

CheckName = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$",
        description="Stable; appears in events, so it must hold nothing secret.",
    ),
]


Rollout = Literal["live", "shadow"]
"""How far a check is rolled out: ``shadow`` is watched before it counts (seed 000: start
new checks on Flag only); ``live`` alerts and emits events."""


class AlertRule(BaseModel):
    """When a check raises its daily alert; what is left out comes from the settings
    (``TURNCHECK_ALERT_*``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    latest: int | None = Field(
        default=None, ge=1, le=100_000, description="How many of the latest results count."
    )
    min_pass_rate: float | None = Field(
        default=None, ge=0, le=1, description="Below this share of passed results, alert."
    )
    min_results: int | None = Field(
        default=None, ge=1, description="Fewer results than this: too early to alert."
    )
    channels: list[Literal["slack", "mail"]] | None = Field(
        default=None, min_length=1, description="Where the alert goes."
    )

    @field_validator("channels")
    @classmethod
    def _once_each(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and len(set(value)) != len(value):
            raise ValueError("a channel is named twice")
        return value

    @model_validator(mode="after")
    def _reachable(self) -> AlertRule:
        latest, least = self.latest, self.min_results
        if latest is not None and least is not None and least > latest:
            raise ValueError("min_results is more than latest: the alert could never fire")
        return self


def _yaml_false_is_off(schema: dict[str, Any]) -> None:
    # YAML 1.1 reads a bare `off` as false: the file's own word must validate too.
    schema["anyOf"].append({"const": False, "type": "boolean"})


VERSIONS_DESCRIPTION = (
    "The agent versions it applies to: a list ([7, 8]) or a range of integers "
    '(">=7", "<9", ">=7,<9"); left out, every version (or the file\'s `agent_versions`).'
)


class BaseCheck(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: CheckName
    stage: Literal["input", "output"] = "output"
    mode: Literal["block", "background"] = "block"
    description: str | None = None
    alert: AlertRule | Literal["off"] = Field(
        default_factory=AlertRule,
        description="The daily alert's thresholds, or `off`; left out, the settings' defaults.",
        json_schema_extra=_yaml_false_is_off,
    )
    agent_versions: VersionsField = Field(default=None, description=VERSIONS_DESCRIPTION)

    @field_validator("agent_versions", mode="before")
    @classmethod
    def _versions(cls, value: Any) -> Any:
        return checked(value)

    rollout: Rollout = Field(
        default="live",
        description="`shadow`: run, stored and counted, but no alert and no event or webhook; "
        "`live` (default) once it is trusted. Not part of the version: promoting it keeps "
        "its results and rates.",
    )

    @field_validator("alert", mode="before")
    @classmethod
    def _yaml_off(cls, value: Any) -> Any:
        # YAML reads a bare `off` (and `false`) as False; `on`/`true` as True.
        if value is False:
            return "off"
        if value is True:
            return {}
        if isinstance(value, str) and value != "off":
            raise ValueError(
                "use `off`, or a mapping of latest, min_pass_rate, min_results, channels"
            )
        return value
