"""The check sets the gate tests compile, with gates on (each engine) and off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from turncheck.schemas.checkfile import DETECTOR_NAMES, CheckFile
from turncheck.worker.checks import CheckSet, parse_check_file
from turncheck.worker.checks.definitions import check_set
from turncheck.worker.checks.gates import use

ROOT = Path(__file__).parents[3]
AGENT = "gate-bot"
CHECK_FILES = (ROOT / "bench" / "rules_checks.yaml", ROOT / "examples" / "checks.yaml")


def rule_checks(internal_domains: list[str] | None = None) -> CheckFile:
    """Every rule check of the bench and the examples, every detector at both stages, with
    their names made unique, for one agent."""
    checks: list[dict[str, Any]] = []
    for path in CHECK_FILES:
        for definition in parse_check_file(path).checks:
            if definition.kind in ("judge", "rubric"):
                continue
            data = definition.model_dump(mode="json", exclude_defaults=True)
            data["name"] = f"{path.stem}-{definition.name}"
            checks.append(data)
    domains = internal_domains or []
    for stage in ("output", "input"):
        checks.append(
            {
                "name": f"every-detector-{stage}",
                "kind": "sensitive_data",
                "stage": stage,
                "detectors": list(DETECTOR_NAMES),
                "internal_domains": domains,
            }
        )
    checks.append({"name": "every-fact", "kind": "facts", "allowed": ["30 days"]})
    return CheckFile.model_validate({"agent": AGENT, "checks": checks})


def compiled(engine: str, internal_domains: list[str] | None = None) -> CheckSet:
    """``rule_checks`` compiled with gate engine ``engine`` (``off``: no gates)."""
    with use(engine):
        return check_set(rule_checks(internal_domains))
