"""The command line's exit codes, and the one line an error prints instead of a traceback."""

from __future__ import annotations

import sys
from collections.abc import Callable

from turncheck.worker.errors import (
    CheckDefinitionError,
    ConfigurationError,
    JudgeConfigError,
    LabelRefused,
    ServiceUnavailable,
    TurncheckError,
)

SUCCESS = 0
REJECTED = 1  # some input was rejected, or nothing was found
BAD_CONFIGURATION = 2  # a setting, an argument, a check file or the judges are wrong
SERVICE_UNAVAILABLE = 3  # the database or the broker does not answer

# Errors a person fixes, with their exit code and what the line starts with. Any other
# error is a bug of ours and keeps its traceback.
REFUSALS: dict[type[TurncheckError], tuple[int, str]] = {
    CheckDefinitionError: (BAD_CONFIGURATION, "invalid checks: "),
    JudgeConfigError: (BAD_CONFIGURATION, "invalid judges: "),
    ConfigurationError: (BAD_CONFIGURATION, ""),
    ServiceUnavailable: (SERVICE_UNAVAILABLE, ""),
    LabelRefused: (REJECTED, ""),
}


def refusal(exc: TurncheckError) -> tuple[int, str] | None:
    """The exit code and line for an error a person can fix; None for any other."""
    for kind, (code, prefix) in REFUSALS.items():
        if isinstance(exc, kind):
            return code, f"{prefix}{exc}"
    return None


def run_command_line(app: Callable[[], object]) -> None:
    """Run ``app``; an error a person can fix becomes one line on standard error and its
    exit code."""
    try:
        app()
    except TurncheckError as exc:
        found = refusal(exc)
        if found is None:
            raise
        code, line = found
        # Imported here: rich costs a tenth of a second at every start, and most runs
        # print no refusal.
        from rich.console import Console

        err = Console(stderr=True)
        # markup off: lines hold brackets ("[Errno 111]"); soft_wrap: one line at any width.
        err.print(line, markup=False, highlight=False, soft_wrap=True)
        sys.exit(code)
