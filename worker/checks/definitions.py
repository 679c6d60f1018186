"""Load check files: validate every check up front, compile it once, version it.

A bad definition is refused as a whole with the file, the line, the check's
name and the field (``CheckDefinitionError``); nothing half-loaded runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from turncheck.schemas.checkbase import AlertRule, Rollout
from turncheck.schemas.checkfile import CheckFile
from turncheck.schemas.judged import JudgeCheck, RubricCheck
from turncheck.worker.checks import does_not_contain, facts, pattern, sensitive_data
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.result import CheckId, IdentifiedCheck, Outcome
from turncheck.worker.errors import CheckDefinitionError
from turncheck.worker.runtime import config_files
from turncheck.worker.turns.structs import Turn

if TYPE_CHECKING:
    from turncheck.worker.judge.kinds import CompiledJudged

COMPILERS: dict[str, Callable[[Any], Callable[[Turn, Budget], Outcome]]] = {
    "pattern": pattern.compile_check,
    "does_not_contain": does_not_contain.compile_check,
    "sensitive_data": sensitive_data.compile_check,
    "facts": facts.compile_check,
}


@dataclass(frozen=True, slots=True)
class CompiledCheck(IdentifiedCheck):
    id: CheckId
    run: Callable[[Turn, Budget], Outcome]
    """Pure: the same turn gives the same outcome; raises ``BudgetSpent`` when out of time."""


@dataclass(frozen=True, slots=True)
class CheckSet:
    """Every loaded check, by the agent whose turns it applies to: rule checks, which
    run in the pipeline on every turn, and judged checks, which a judge decides."""

    by_agent: dict[str, tuple[CompiledCheck, ...]]
    judged_by_agent: dict[str, tuple[CompiledJudged, ...]] = field(default_factory=dict)
    alert_rules: dict[tuple[str, str], AlertRule | None] = field(default_factory=dict)
    """By (agent, check name): the check's alert as written, None when it is off."""
    rollouts: dict[tuple[str, str], Rollout] = field(default_factory=dict)
    """By (agent, check name): ``live`` or ``shadow``; a shadow check's results are stored
    and counted, but raise no alert and put no event in the outbox."""

    def for_agent(self, agent_id: str) -> tuple[CompiledCheck, ...]:
        return self.by_agent.get(agent_id, ())

    def judged_for_agent(self, agent_id: str) -> tuple[CompiledJudged, ...]:
        return self.judged_by_agent.get(agent_id, ())

    @property
    def shadow(self) -> frozenset[tuple[str, str]]:
        """(agent, check name) of every shadow check."""
        return frozenset(key for key, rollout in self.rollouts.items() if rollout == "shadow")

    @property
    def has_judged(self) -> bool:
        return any(self.judged_by_agent.values())

    def __len__(self) -> int:
        return sum(map(len, self.by_agent.values())) + sum(map(len, self.judged_by_agent.values()))


def check_version(definition: dict[str, Any]) -> str:
    """A digest of what the user wrote; a changed definition is a new version."""
    canonical = json.dumps(definition, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def check_set(
    *files: CheckFile, source: str = "<inline>", base_dir: Path | None = None
) -> CheckSet:
    """Compile validated check files; names must be unique per agent across files.

    ``base_dir``: where a judged check's ``template`` path is looked up.
    """
    return _build([(f, base_dir) for f in files], source)


def _build(files: Sequence[tuple[CheckFile, Path | None]], source: str) -> CheckSet:
    by_agent: dict[str, list[CompiledCheck]] = {}
    judged_by_agent: dict[str, list[CompiledJudged]] = {}
    alert_rules: dict[tuple[str, str], AlertRule | None] = {}
    rollouts: dict[tuple[str, str], Rollout] = {}
    for check_file, base_dir in files:
        checks = by_agent.setdefault(check_file.agent, [])
        judged = judged_by_agent.setdefault(check_file.agent, [])
        taken = {c.name for c in checks} | {c.name for c in judged}
        for definition in check_file.checks:
            if definition.name in taken:
                raise CheckDefinitionError(
                    source,
                    None,
                    definition.name,
                    "name",
                    f"check name is already used for agent {check_file.agent!r}",
                )
            # The alert and the rollout are about the results, not how they are decided:
            # a new threshold, or promoting a shadow check to live, keeps the check's
            # version, so its results and rates carry on.
            version = check_version(
                definition.model_dump(
                    mode="json", exclude_defaults=True, exclude={"alert", "rollout"}
                )
            )
            if isinstance(definition, JudgeCheck | RubricCheck):
                judged.append(_compile_judged(definition, version, base_dir, source))
            else:
                checks.append(_compile(definition, version))
            alert = definition.alert
            alert_rules[check_file.agent, definition.name] = None if alert == "off" else alert
            rollouts[check_file.agent, definition.name] = definition.rollout
    return CheckSet(
        {agent: tuple(checks) for agent, checks in by_agent.items() if checks},
        {agent: tuple(checks) for agent, checks in judged_by_agent.items() if checks},
        alert_rules,
        rollouts,
    )


def load_checks(paths: Iterable[Path]) -> CheckSet:
    """Load check files, or every ``*.yaml``/``*.yml`` in a folder; files may share an agent."""
    files = _expand(paths)
    parsed = [(parse_check_file(path), path.parent) for path in files]
    return _build(parsed, ", ".join(map(str, files)))


def _compile_judged(
    definition: JudgeCheck | RubricCheck, version: str, base_dir: Path | None, source: str
) -> CompiledJudged:
    # Imported here: the judge package builds on worker.checks, which imports this module.
    from turncheck.worker.errors import PromptError
    from turncheck.worker.judge.kinds import compile_judged

    try:
        return compile_judged(definition, version, base_dir)
    except PromptError as exc:
        raise CheckDefinitionError(source, None, definition.name, exc.field, exc.message) from None


def _compile(definition: Any, version: str) -> CompiledCheck:
    return CompiledCheck(check_id(definition, version), COMPILERS[definition.kind](definition))


def check_id(definition: Any, version: str) -> CheckId:
    """The identity of a validated definition of any kind."""
    return CheckId(definition.name, version, definition.kind, definition.stage, definition.mode)


def _expand(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")))
        elif path.exists():
            found.append(path)
        else:
            raise CheckDefinitionError(str(path), None, None, None, "no such file or folder")
    return found


def parse_check_file(path: Path) -> CheckFile:
    """Read and validate one file; raises ``CheckDefinitionError`` pointing at the bad line."""
    source = str(path)
    try:
        data, root = config_files.parse_yaml(config_files.read_text(path))
    except config_files.UnreadableConfig as exc:
        raise CheckDefinitionError(source, exc.line, None, None, exc.reason) from None
    try:
        return CheckFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = _plain_loc(tuple(error["loc"]), error["type"])
        raise CheckDefinitionError(
            source,
            _line_of(root, loc),
            _check_name(data, loc),
            _field_of(loc),
            error["msg"].removeprefix("Value error, "),
        ) from None


_MEMBER = re.compile(r"[A-Z]|[a-z-]+\[")


def _plain_loc(loc: tuple[str | int, ...], error_type: str) -> tuple[str | int, ...]:
    """Pydantic's error location as a path in the file: without the union tag it adds
    (``("checks", 0, "pattern", "flags")``), and naming ``kind`` when the tag is wrong."""
    if len(loc) >= 3 and loc[0] == "checks" and loc[2] in COMPILERS:
        loc = loc[:2] + loc[3:]
    # A union's member is named in the path too ("AlertRule", "function-after[...]",
    # "literal['off']"); the file has no such key.
    loc = tuple(part for part in loc if not (isinstance(part, str) and _MEMBER.match(part)))
    if error_type in ("union_tag_invalid", "union_tag_not_found"):
        loc = (*loc, "kind")
    return loc


def _line_of(node: yaml.Node | None, loc: Sequence[str | int]) -> int | None:
    """The line of the deepest YAML node along ``loc``."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for key in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if k.value == key), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            child = node.value[key]
        if child is None:
            continue
        node = child
        line = node.start_mark.line + 1
    return line


def _check_name(data: Any, loc: Sequence[str | int]) -> str | None:
    if len(loc) >= 2 and loc[0] == "checks" and isinstance(loc[1], int):
        try:
            name = data["checks"][loc[1]].get("name")
        except (KeyError, IndexError, TypeError, AttributeError):
            return None
        return str(name) if name is not None else None
    return None


def _field_of(loc: Sequence[str | int]) -> str | None:
    if len(loc) >= 2 and loc[0] == "checks":
        return ".".join(str(part) for part in loc[2:]) or None
    return ".".join(str(part) for part in loc) or None
