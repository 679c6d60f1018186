"""Checks: pure functions of a turn. A kind module exports ``compile_check(definition)``,
which returns the call ``turn -> Outcome``; compile once, run on every turn."""

from turncheck.worker.checks.definitions import (
    CheckSet,
    CompiledCheck,
    load_checks,
    parse_check_file,
)
from turncheck.worker.checks.result import CheckId, CheckResult, Outcome, Span, Verdict

__all__ = [
    "CheckId",
    "CheckResult",
    "CheckSet",
    "CompiledCheck",
    "Outcome",
    "Span",
    "Verdict",
    "load_checks",
    "parse_check_file",
]
