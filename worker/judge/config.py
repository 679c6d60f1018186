"""Which judge models exist and how to reach them: ``TURNCHECK_JUDGES``.

The setting holds inline JSON (``{"gpt-4o-mini": {...}}``) or names a YAML or
JSON file with the same mapping. Each judge model names its provider
(``openai`` for any OpenAI-compatible chat-completions server: OpenAI, vLLM,
Ollama, llama.cpp, gateways; ``anthropic`` for the Messages API), its base URL,
the environment variable that holds its key (read when a request is made,
never logged), a per-request timeout and how many requests may be in flight.

``require_judges`` refuses, at start, judged checks no configured judge could ever
decide; which judge a turn's own model needs is only known per turn (``plan.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from turncheck.worker.checks import CheckSet
from turncheck.worker.errors import ConfigurationError, JudgeConfigError


class JudgeEndpoint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: Literal["openai", "anthropic"]
    base_url: str = Field(min_length=1, description="e.g. https://api.openai.com/v1")
    api_key_env: str | None = Field(
        default=None, description="The environment variable holding the key; none: no key."
    )
    model: str | None = Field(
        default=None, description="The name sent to the provider, if not the configured name."
    )
    timeout_s: float = Field(default=30.0, gt=0)
    max_concurrency: int = Field(default=4, ge=1, le=256)
    deadline_s: float = Field(
        default=120.0, gt=0, description="How long one result may take, retries included."
    )


JudgeMap = dict[Annotated[str, Field(min_length=1)], JudgeEndpoint]


def load_judges(value: str | None) -> dict[str, JudgeEndpoint]:
    """Parse the setting: inline JSON, or a path to a YAML/JSON file. Empty: no judges."""
    if not value or not value.strip():
        return {}
    text = value.strip()
    source = "TURNCHECK_JUDGES"
    try:
        if text.startswith("{"):
            data = json.loads(text)
        else:
            source = text
            data = yaml.safe_load(Path(text).read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise JudgeConfigError(f"{source}: cannot read judges: {exc}") from None
    try:
        return TypeAdapter(JudgeMap).validate_python(data or {})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise JudgeConfigError(f"{source}: {where}: {error['msg']}") from None


def require_judges(checks: CheckSet, judges: Mapping[str, JudgeEndpoint]) -> None:
    """Refuse judged checks whose judge can never be reached: any judged check when no
    judge is configured, and one naming a ``judge_model`` the judges do not define.

    A check that asks the turn's own model is left to each turn (``errored`` when no
    judge serves that model), since only the turn names it.
    """
    unreachable = [
        (agent, check)
        for agent, judged in sorted(checks.judged_by_agent.items())
        for check in judged
        if not judges or (check.judge_model is not None and check.judge_model not in judges)
    ]
    if not unreachable:
        return
    (agent, check), more = unreachable[0], len(unreachable) - 1
    also = f" (and {more} more judged check{'s' if more > 1 else ''})" if more else ""
    if not judges:
        raise ConfigurationError(
            f"check {check.name!r} of agent {agent!r}{also} needs a judge, and "
            "TURNCHECK_JUDGES configures none (see examples/judges.yaml)"
        )
    raise ConfigurationError(
        f"check {check.name!r} of agent {agent!r}{also}: field 'judge_model' names "
        f"{check.judge_model!r}, which TURNCHECK_JUDGES does not define "
        f"(it defines {', '.join(sorted(judges))})"
    )
