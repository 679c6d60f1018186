"""Load check files: validate every check up front, compile it once, version it.

A bad definition is refused as a whole with the file, the line, the check's
name and the field (``CheckDefinitionError``); nothing half-loaded runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from turncheck.schemas.agent_versions import VersionScope, scope_of
from turncheck.schemas.checkbase import AlertRule, Rollout
from turncheck.schemas.checkfile import CheckFile, ScriptCheck
from turncheck.schemas.judged import JudgeCheck, RubricCheck
from turncheck.worker.checks import (
    action_claims,
    does_not_contain,
    facts,
    pattern,
    script,
    sensitive_data,
)
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.checkset import CheckSet, CompiledCheck
from turncheck.worker.checks.result import CheckId, Outcome
from turncheck.worker.errors import CheckDefinitionError, ScriptSourceError
from turncheck.worker.runtime import config_files
from turncheck.worker.turns.structs import Turn

if TYPE_CHECKING:
    from turncheck.worker.judge.kinds import CompiledJudged

__all__ = ["CheckSet", "CompiledCheck", "check_id", "check_set", "load_checks", "parse_check_file"]

COMPILERS: dict[str, Callable[[Any], Callable[[Turn, Budget], Outcome]]] = {
    "pattern": pattern.compile_check,
    "does_not_contain": does_not_contain.compile_check,
    "sensitive_data": sensitive_data.compile_check,
    "facts": facts.compile_check,
    "script": script.compile_check,
    "action_claims": action_claims.compile_check,
}


JUDGED_KINDS = ("judge", "rubric")
"""Compiled by ``worker.judge.kinds``, not by ``COMPILERS``."""

WHOLE_CHECK_FIELDS: tuple[str, ...] = ("alert", "rollout")
"""Fields about a check as a whole, not how it decides a turn. They are left out of its
version (a new alert threshold, or promoting a shadow check to live, keeps the check's
results and rates going), and every definition of one name for one agent says the
same of them."""

NOT_IN_VERSION = (*WHOLE_CHECK_FIELDS, "agent_versions")
"""Which turns a check applies to is not how it decides one: widening a check to a new
agent version keeps its version, and its history, for the versions it had."""


def check_version(definition: dict[str, Any]) -> str:
    """A digest of what the user wrote; a changed definition is a new version."""
    canonical = json.dumps(definition, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def check_set(
    *files: CheckFile, source: str = "<inline>", base_dir: Path | None = None
) -> CheckSet:
    """Compile validated check files. A name is used once per agent across files, or in
    definitions whose agent versions do not overlap.

    ``base_dir``: where a judged check's ``template`` path is looked up.
    """
    return _build([_Loaded(f, base_dir, source, None) for f in files])


@dataclass(frozen=True, slots=True)
class _Loaded:
    file: CheckFile
    base_dir: Path | None
    source: str
    root: yaml.Node | None
    """The file's YAML, for the line of a definition; None for a file built in code."""

    def line(self, index: int, *fields: str) -> int | None:
        return _line_of(self.root, ("checks", index, *fields))


@dataclass(frozen=True, slots=True)
class _Placed:
    """A definition already taken for its agent, and where it was written."""

    definition: Any
    scope: VersionScope
    where: str


def _build(files: Sequence[_Loaded]) -> CheckSet:
    by_agent: dict[str, list[CompiledCheck]] = {}
    judged_by_agent: dict[str, list[CompiledJudged]] = {}
    alert_rules: dict[tuple[str, str], AlertRule | None] = {}
    rollouts: dict[tuple[str, str], Rollout] = {}
    taken: dict[tuple[str, str], list[_Placed]] = {}
    for loaded in files:
        check_file = loaded.file
        agent = check_file.agent
        checks = by_agent.setdefault(agent, [])
        judged = judged_by_agent.setdefault(agent, [])
        for index, definition in enumerate(check_file.checks):
            written = definition.agent_versions
            scope = scope_of(written if written is not None else check_file.agent_versions)
            placed = taken.setdefault((agent, definition.name), [])
            _refuse_clash(loaded, index, definition, scope, placed)
            line = loaded.line(index)
            where = f"{loaded.source}:{line}" if line is not None else loaded.source
            placed.append(_Placed(definition, scope, where))
            version = check_version(
                definition.model_dump(
                    mode="json", exclude_defaults=True, exclude=set(NOT_IN_VERSION)
                )
            )
            if isinstance(definition, JudgeCheck | RubricCheck):
                compiled = _compile_judged(definition, version, loaded.base_dir, loaded.source)
                judged.append(replace(compiled, scope=scope))
            elif isinstance(definition, ScriptCheck):
                checks.append(_compile_script(definition, version, scope, loaded, index))
            else:
                checks.append(_compile(definition, version, scope))
            alert = definition.alert
            alert_rules[agent, definition.name] = None if alert == "off" else alert
            rollouts[agent, definition.name] = definition.rollout
    return CheckSet(
        {agent: tuple(checks) for agent, checks in by_agent.items() if checks},
        {agent: tuple(checks) for agent, checks in judged_by_agent.items() if checks},
        alert_rules,
        rollouts,
    )


def _refuse_clash(
    loaded: _Loaded, index: int, definition: Any, scope: VersionScope, placed: list[_Placed]
) -> None:
    """A name is taken again only for other agent versions, and as the same check as a
    whole: raises ``CheckDefinitionError`` naming both definitions."""
    for earlier in placed:
        shared = earlier.scope.shared(scope)
        if shared is not None:
            raise CheckDefinitionError(
                loaded.source,
                loaded.line(index, "agent_versions"),
                definition.name,
                "agent_versions",
                f"the name is already used for agent {loaded.file.agent!r} by the definition "
                f"at {earlier.where}, and both apply to {_version_words(shared)}: give them "
                "agent versions that do not overlap, or another name",
            )
        for name in WHOLE_CHECK_FIELDS:
            if getattr(earlier.definition, name) != getattr(definition, name):
                raise CheckDefinitionError(
                    loaded.source,
                    loaded.line(index, name),
                    definition.name,
                    name,
                    f"differs from the definition of the same name at {earlier.where}: it is "
                    "about the check as a whole, so every definition of the name says the same",
                )


def _version_words(shared: str) -> str:
    return shared if shared == "every version" else f"version {shared}"


def load_checks(paths: Iterable[Path]) -> CheckSet:
    """Load check files, or every ``*.yaml``/``*.yml`` in a folder; files may share an agent."""
    return _build([_parse(path) for path in _expand(paths)])


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


def _compile(definition: Any, version: str, scope: VersionScope) -> CompiledCheck:
    run = COMPILERS[definition.kind](definition)
    return CompiledCheck(check_id(definition, version), run, scope)


def _compile_script(
    definition: ScriptCheck, version: str, scope: VersionScope, loaded: _Loaded, index: int
) -> CompiledCheck:
    """A program that cannot be read or compiled is refused with its line: in its .js
    file, or in the check file (the line of ``script:`` plus the program's own)."""
    try:
        run = script.compile_check(definition, loaded.base_dir)
    except ScriptSourceError as exc:
        if exc.file is not None:
            where = f"{exc.file}:{exc.line}" if exc.line is not None else exc.file
            message = f"{where}: {exc.message}"
            raise CheckDefinitionError(
                loaded.source,
                loaded.line(index, "script_file"),
                definition.name,
                "script_file",
                message,
            ) from None
        raise CheckDefinitionError(
            loaded.source,
            _script_line(loaded, index, exc.line),
            definition.name,
            "script",
            exc.message,
        ) from None
    return CompiledCheck(check_id(definition, version), run, scope)


def _script_line(loaded: _Loaded, index: int, line: int | None) -> int | None:
    """The check file's line of the program's ``line``: a block (``script: |``) starts on
    the line after its key, a one-line value on the key's own line."""
    node = _node_at(loaded.root, ("checks", index, "script"))
    if node is None or line is None:
        return loaded.line(index, "script")
    block = isinstance(node, yaml.ScalarNode) and node.style in ("|", ">")
    return node.start_mark.line + line + (1 if block else 0)


def _node_at(node: yaml.Node | None, loc: Sequence[str | int]) -> yaml.Node | None:
    """The YAML node at ``loc``; None when the path is not all there."""
    for key in loc:
        if node is None:
            return None
        node = _child(node, key)
    return node


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
    return _parse(path).file


def parse_check_text(text: str, source: str) -> CheckFile:
    """Validate a check file's text (a draft sent over the API); errors name ``source``."""
    return _parse_text(text, source, None).file


def checks_from_text(text: str, source: str) -> CheckSet:
    """Compile a check file's text; a clash between its definitions names their lines."""
    return _build([_parse_text(text, source, None)])


def _parse(path: Path) -> _Loaded:
    try:
        text = config_files.read_text(path)
    except config_files.UnreadableConfig as exc:
        raise CheckDefinitionError(str(path), exc.line, None, None, exc.reason) from None
    return _parse_text(text, str(path), path.parent)


def _parse_text(text: str, source: str, base_dir: Path | None) -> _Loaded:
    try:
        data, root = config_files.parse_yaml(text)
    except config_files.UnreadableConfig as exc:
        raise CheckDefinitionError(source, exc.line, None, None, exc.reason) from None
    try:
        return _Loaded(CheckFile.model_validate(data), base_dir, source, root)
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
    if len(loc) >= 3 and loc[0] == "checks" and loc[2] in (*COMPILERS, *JUDGED_KINDS):
        loc = loc[:2] + loc[3:]
    # A union's member is named in the path too ("AlertRule", "function-after[...]",
    # "literal['off']"); the file has no such key.
    loc = tuple(part for part in loc if not (isinstance(part, str) and _MEMBER.match(part)))
    # A bad key of a mapping is named by the key itself ("actions.refnd"), not "[key]".
    loc = tuple(part for part in loc if part != "[key]")
    if error_type in ("union_tag_invalid", "union_tag_not_found"):
        loc = (*loc, "kind")
    return loc


def _line_of(node: yaml.Node | None, loc: Sequence[str | int]) -> int | None:
    """The line of the deepest YAML node along ``loc``."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for key in loc:
        child = _child(node, key)
        if child is None:
            continue
        node = child
        line = node.start_mark.line + 1
    return line


def _child(node: yaml.Node, key: str | int) -> yaml.Node | None:
    """A mapping's value under ``key`` or a sequence's item at ``key``; else None."""
    found: yaml.Node | None = None
    if isinstance(node, yaml.MappingNode):
        found = next((v for k, v in node.value if k.value == key), None)
    elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        found = node.value[key]
    return found


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
