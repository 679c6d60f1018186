"""Which judge models exist and how to reach them: ``TURNCHECK_JUDGES``.

The setting holds inline JSON (``{"gpt-4o-mini": {...}}``) or names a YAML or
JSON file with the same mapping. Each judge model names its provider
(``openai`` for any OpenAI-compatible chat-completions server: OpenAI, vLLM,
Ollama, llama.cpp, gateways; ``anthropic`` for the Messages API), its base URL,
the environment variable that holds its key (read when a request is made,
never logged), a per-request timeout and how many requests may be in flight.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from turncheck.worker.errors import JudgeConfigError


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
