"""Which judge models exist and how to reach them: ``TURNCHECK_JUDGES``.

The setting holds inline JSON (``{"gpt-4o-mini": {...}}``) or names a YAML or
JSON file with the same mapping. Each judge model names its provider
(``openai`` for any OpenAI-compatible chat-completions server: OpenAI, vLLM,
Ollama, llama.cpp, gateways; ``anthropic`` for the Messages API), its base URL,
the environment variable that holds its key (read when a request is made,
never logged), a per-request timeout and how many requests may be in flight,
and optionally what its tokens cost (``input_price_per_million``,
``output_price_per_million``), for the cost a backtest's ``--judge`` estimates.

An ``openai`` endpoint decides by the model's name whether it is a reasoning
model (``is_reasoning_model``: o-series, gpt-5), which takes other parameters;
``reasoning`` overrides that, ``structured_output`` whether the reply's JSON schema
is sent in place of JSON mode (``openai_api.py``).

``require_judges`` refuses, at start, judged checks no configured judge could ever
decide, and a check's own template that never says JSON when a judge it may be
sent to is in JSON mode (the OpenAI API refuses every such request); which judge a
turn's own model needs is only known per turn (``plan.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from turncheck.worker.checks import CheckSet
from turncheck.worker.errors import CheckDefinitionError, ConfigurationError, JudgeConfigError
from turncheck.worker.runtime import config_files


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
    reasoning: bool | None = Field(
        default=None,
        strict=True,
        description="openai: a reasoning model (o-series, gpt-5), which takes "
        "max_completion_tokens and no sampling or logprob parameters; none: by the model's name.",
    )
    structured_output: bool | None = Field(
        default=None,
        strict=True,
        description="openai: ask for the reply's JSON schema (response_format json_schema) "
        "rather than JSON mode; none: for reasoning models only.",
    )
    reasoning_tokens: int = Field(
        default=4000,
        ge=0,
        le=100_000,
        description="openai, reasoning models: tokens the model may think on top of its reply.",
    )
    input_price_per_million: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="What a million input tokens cost (any currency): a backtest's --judge "
        "shows the estimated cost with it; none: tokens only.",
    )
    output_price_per_million: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="What a million output tokens cost, as above.",
    )

    def is_reasoning(self, name: str) -> bool:
        """Whether requests to this endpoint, configured as ``name``, are for a reasoning model."""
        if self.reasoning is not None:
            return self.reasoning
        return is_reasoning_model(self.model or name)

    def uses_structured_output(self, name: str) -> bool:
        """Whether the reply's JSON schema is sent (else JSON mode); openai only."""
        if self.structured_output is not None:
            return self.structured_output
        return self.is_reasoning(name)

    def json_mode(self, name: str) -> bool:
        """Whether requests carry ``response_format: json_object``, for which the OpenAI API
        requires the word JSON in the messages."""
        return self.provider == "openai" and not self.uses_structured_output(name)


# OpenAI's reasoning models: o1, o3, o3-mini, o4-mini, o1-pro, gpt-5, gpt-5-mini, gpt-5.1, ...
# A gateway's "openai/o3-mini" is the same model. Other names (Azure deployments, local
# servers) are not guessed at: the endpoint's ``reasoning`` says so.
_REASONING_NAME = re.compile(r"(?:o[1-9](?![0-9])|gpt-5(?![0-9]))[\w.:-]*", re.IGNORECASE)


def is_reasoning_model(model: str) -> bool:
    """Whether ``model`` names an OpenAI reasoning model, by its name alone."""
    return _REASONING_NAME.fullmatch(model.rsplit("/", 1)[-1]) is not None


JudgeMap = dict[Annotated[str, Field(min_length=1)], JudgeEndpoint]


def load_judges(value: str | None) -> dict[str, JudgeEndpoint]:
    """Parse the setting: inline JSON, or a path to a YAML/JSON file. Empty: no judges."""
    if not value or not value.strip():
        return {}
    text = value.strip()
    source = "TURNCHECK_JUDGES"
    root: yaml.Node | None = None
    try:
        if text.startswith("{"):
            data = config_files.parse_json(text)
        else:
            source = text
            data, root = config_files.parse_yaml(config_files.read_text(Path(text)))
    except config_files.UnreadableConfig as exc:
        at = f"{source}:{exc.line}" if exc.line is not None else source
        raise JudgeConfigError(f"{at}: cannot read judges: {exc.reason}") from None
    try:
        return TypeAdapter(JudgeMap).validate_python(data or {})
    except ValidationError as exc:
        error = exc.errors()[0]
        line = _line_of(root, error["loc"])
        where = ".".join(str(part) for part in error["loc"])
        at = f"{source}:{line}" if line is not None else source
        raise JudgeConfigError(f"{at}: {where}: {error['msg']}") from None


def _line_of(root: yaml.Node | None, loc: tuple[str | int, ...]) -> int | None:
    """The line of the deepest key along ``loc`` in a judges file (mappings only)."""
    node, line = root, None
    for key in loc:
        if not isinstance(node, yaml.MappingNode):
            break
        found = next(((k, v) for k, v in node.value if k.value == key), None)
        if found is None:
            break
        line, node = found[0].start_mark.line + 1, found[1]
    return line


def require_judges(checks: CheckSet, judges: Mapping[str, JudgeEndpoint]) -> None:
    """Refuse judged checks whose judge can never be reached: any judged check when no
    judge is configured, and one naming a ``judge_model`` the judges do not define.

    A check that asks the turn's own model is left to each turn (``errored`` when no
    judge serves that model), since only the turn names it. Also refuses a check's own
    template that never says JSON when a judge it may be sent to (its ``judge_model``;
    for the turn's own model, any judge) is in JSON mode.
    """
    _require_unreachable_judges(checks, judges)
    _require_json_templates(checks, judges)


def _require_unreachable_judges(checks: CheckSet, judges: Mapping[str, JudgeEndpoint]) -> None:
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


def _require_json_templates(checks: CheckSet, judges: Mapping[str, JudgeEndpoint]) -> None:
    for judged in checks.judged_by_agent.values():
        for check in judged:
            prompt = check.prompt
            if not prompt.overridden or prompt.mentions_json:
                continue
            names = [check.judge_model] if check.judge_model is not None else sorted(judges)
            in_json_mode = [name for name in names if judges[name].json_mode(name)]
            if in_json_mode:
                raise CheckDefinitionError(
                    prompt.source,
                    prompt.system_line,
                    check.name,
                    "template",
                    f"the prompt never says JSON, and judge {in_json_mode[0]!r} is in JSON "
                    "mode, where the OpenAI API refuses such a request; ask for the JSON "
                    "reply in the template, or set structured_output: true for that judge",
                )
