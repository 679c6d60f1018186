"""The check-definition file contract: one agent, its checks.

A definition is refused as a whole when any check is wrong; the loader in
``worker.checks.definitions`` turns pydantic's errors into file, line, check
name and field.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

import regex
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from turncheck.schemas.agent_versions import VersionsField, checked
from turncheck.schemas.checkbase import BaseCheck
from turncheck.schemas.judged import JudgeCheck, RubricCheck

PatternFlag = Literal["ignorecase", "multiline", "dotall", "verbose", "ascii"]


class _Check(BaseCheck):
    """A rule check: pure, decided on every turn."""

    @model_validator(mode="after")
    def _rule_checks_block(self) -> _Check:
        if self.mode != "block":
            raise ValueError("rule checks run on every turn: mode must be 'block'")
        return self


def _in_the_answer(stage: str, why: str) -> str:
    """``stage``, if it is the answer: a kind that reads nothing else refuses ``input``."""
    if stage != "output":
        raise ValueError(f"{why}: stage must be 'output'")
    return stage


class PatternCheck(_Check):
    kind: Literal["pattern"]
    pattern: str = Field(min_length=1)
    flags: list[PatternFlag] = Field(default_factory=list)
    context_keywords: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)
    context_window_chars: int = Field(default=80, ge=1, le=10_000)
    luhn: bool = False
    timeout_ms: int = Field(default=20, ge=1, le=10_000)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            regex.compile(value)
        except regex.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from None
        return value


class DoesNotContainCheck(_Check):
    kind: Literal["does_not_contain"]
    phrases: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1)

    @field_validator("phrases")
    @classmethod
    def _has_words(cls, value: list[str]) -> list[str]:
        for phrase in value:
            if not any(ch.isalnum() for ch in phrase):
                raise ValueError("a phrase needs at least one letter or digit")
        return value


DetectorName = Literal[
    "ssn",
    "card",
    "bank_account",
    "routing_number",
    "drivers_license",
    "email",
    "phone",
    "ip_address",
    "iban",
    "date_of_birth",
    "credentials",
    "private_values",
    "instructions_leak",
    "internal_links",
]
DETECTOR_NAMES: tuple[DetectorName, ...] = get_args(DetectorName)


class SensitiveDataCheck(_Check):
    kind: Literal["sensitive_data"]
    detectors: list[DetectorName] = Field(
        default_factory=lambda: list(DETECTOR_NAMES),
        min_length=1,
        description="Which detectors to run; default: all of them.",
    )
    instructions_leak_words: int = Field(
        default=12,
        ge=4,
        le=200,
        description="How many words in a row copied from the instructions count as a leak.",
    )
    internal_domains: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="More internal-only domains for `internal_links`."
    )


FactKind = Literal["amount", "date", "link", "email", "phone", "id", "quote"]
FACT_KINDS: tuple[FactKind, ...] = get_args(FactKind)


class FactsCheck(_Check):
    kind: Literal["facts"]
    kinds: list[FactKind] = Field(
        default_factory=lambda: list(FACT_KINDS),
        min_length=1,
        description="Which kinds of fact to check.",
    )
    allowed: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="Facts the agent may always state."
    )
    max_sum_terms: int = Field(
        default=3,
        ge=1,
        le=6,
        description="A total may be the sum of at most this many supported amounts.",
    )

    @field_validator("stage")
    @classmethod
    def _output_only(cls, stage: str) -> str:
        return _in_the_answer(stage, "facts are checked in the answer")


ActionName = Literal[
    "refund", "cancellation", "charge", "shipment", "booking", "password_reset", "escalation"
]
ACTION_NAMES: tuple[ActionName, ...] = get_args(ActionName)
ToolPattern = Annotated[str, Field(min_length=1)]


class ActionClaimsCheck(_Check):
    kind: Literal["action_claims"]
    actions: dict[ActionName, Annotated[list[ToolPattern], Field(min_length=1)]] = Field(
        default_factory=dict,
        description="Per action, the tool names that perform it: an exact name or a shell "
        "glob (`refund_*`), case-insensitive; replaces that action's built-in patterns.",
    )
    only: list[ActionName] = Field(
        default_factory=lambda: list(ACTION_NAMES),
        min_length=1,
        description="Which actions' claims to check; default: every action.",
    )

    @field_validator("stage")
    @classmethod
    def _output_only(cls, stage: str) -> str:
        return _in_the_answer(stage, "action claims are read in the answer")


SCRIPT_TIMEOUT_MS_MAX = 2000
"""A script decides within two seconds at most (seed 000), whatever its check file says."""


class ScriptCheck(_Check):
    """A JavaScript program decides whether the answer passes (``worker/checks/script``)."""

    kind: Literal["script"]
    script: str | None = Field(
        default=None,
        min_length=1,
        description="The program, written in the file (`script: |`). It reads `variables` "
        "and reports with `response.setResponse({pass, reason, matches})`.",
    )
    script_file: str | None = Field(
        default=None,
        min_length=1,
        description="A .js file holding the program, relative to the check file's folder.",
    )
    timeout_ms: int = Field(
        default=SCRIPT_TIMEOUT_MS_MAX,
        ge=1,
        le=SCRIPT_TIMEOUT_MS_MAX,
        description="How long one run may take; past it the result is errored.",
    )
    memory_mb: int = Field(
        default=64,
        ge=16,
        le=512,
        description="The program's heap, turn included; past it the result is errored.",
    )

    @field_validator("stage")
    @classmethod
    def _output_only(cls, stage: str) -> str:
        return _in_the_answer(stage, "a script reads the answer")

    @model_validator(mode="after")
    def _one_program(self) -> ScriptCheck:
        if (self.script is None) == (self.script_file is None):
            raise ValueError("give the program once: either `script` or `script_file`")
        return self


CheckDefinition = Annotated[
    PatternCheck
    | DoesNotContainCheck
    | SensitiveDataCheck
    | FactsCheck
    | ScriptCheck
    | ActionClaimsCheck
    | JudgeCheck
    | RubricCheck,
    Field(discriminator="kind"),
]


class CheckFile(BaseModel):
    """A YAML file of checks for one agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str = Field(min_length=1, description="The checks apply to this agent's turns.")
    agent_versions: VersionsField = Field(
        default=None,
        description="The agent versions every check of the file applies to, unless a check "
        'says its own: a list ([7, 8]) or a range of integers (">=7,<9"); left out, every '
        "version.",
    )
    checks: list[CheckDefinition]

    @field_validator("agent_versions", mode="before")
    @classmethod
    def _versions(cls, value: object) -> object:
        return checked(value)
