"""A draft check file sent over the API: read, refused where it asks what a caller may
not, compiled, and summed up without its text.

What the API refuses that a file on disk may do: YAML anchors and aliases (a few lines
of them expand to billions of nodes for the validator to walk), and a judged check's
``template`` (a path on the server: a caller would have the server read its files).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import yaml

from turncheck.schemas.judged import JudgeCheck, RubricCheck
from turncheck.worker.checks import CheckSet
from turncheck.worker.checks.definitions import checks_from_text, parse_check_text
from turncheck.worker.errors import CheckDefinitionError

SOURCE = "draft"
"""How errors name the draft: it has no file name."""
MAX_DRAFT_CHARS = 256 * 1024


@dataclass(frozen=True, slots=True)
class Draft:
    checks: CheckSet
    digest: str
    """Of the draft's text: which draft a backtest ran, without keeping it."""
    names: tuple[dict[str, str], ...]
    """``{agent_id, check, check_version, kind}`` per check, rule and judged."""

    def summary(self) -> dict[str, Any]:
        return {"digest": self.digest, "checks": [dict(name) for name in self.names]}


def read_draft(text: str) -> Draft:
    """The compiled draft; ``CheckDefinitionError`` naming the line, check and field."""
    _refuse_aliases(text)
    parsed = parse_check_text(text, SOURCE)
    for definition in parsed.checks:
        if isinstance(definition, JudgeCheck | RubricCheck) and definition.template is not None:
            raise CheckDefinitionError(
                SOURCE,
                None,
                definition.name,
                "template",
                "a template file is not read for a draft sent over the API: use the "
                "shipped prompt, or run `turncheck backtest` where the file is",
            )
    checks = checks_from_text(text, SOURCE)
    names = tuple(
        {
            "agent_id": agent,
            "check": check.name,
            "check_version": check.id.version,
            "kind": check.id.kind,
        }
        for group in (checks.by_agent, checks.judged_by_agent)
        for agent, compiled in sorted(group.items())
        for check in compiled
    )
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return Draft(checks, digest, names)


def _refuse_aliases(text: str) -> None:
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                line = event.start_mark.line + 1 if event.start_mark else None
                raise CheckDefinitionError(
                    SOURCE, line, None, None, "YAML anchors and aliases are not accepted here"
                )
    except yaml.YAMLError:
        return  # parse_check_text words the error, with its line
