"""Checks: pure functions of a turn. A kind module exports ``compile_check(definition)``,
which returns the call ``turn -> Outcome``; compile once, run on every turn.

What a check decides (``result``) is imported with the package; the check file's loader
and every kind behind it (``definitions``, a second to import) only when first asked
for: the store and the read commands use results, not the checks.
"""

from typing import TYPE_CHECKING, Any

from turncheck.worker.checks.result import CheckId, CheckResult, Outcome, Span, Verdict

if TYPE_CHECKING:
    from turncheck.worker.checks.definitions import (
        CheckSet,
        CompiledCheck,
        load_checks,
        parse_check_file,
    )

_FROM_DEFINITIONS = frozenset({"CheckSet", "CompiledCheck", "load_checks", "parse_check_file"})

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


def __getattr__(name: str) -> Any:
    if name in _FROM_DEFINITIONS:
        from turncheck.worker.checks import definitions

        return getattr(definitions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
