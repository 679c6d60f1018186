"""The command line run inside the test's process, for tests where the process boundary
is not the point: several commands in a row on one clock the test moves."""

from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass

import pytest

from turncheck.worker.cli import labels, read, retention, startup, work
from turncheck.worker.cli.main import main
from turncheck.worker.clock import FixedClock


@dataclass(frozen=True)
class Done:
    code: int
    stdout: str
    stderr: str

    @property
    def last_line(self) -> str:
        lines = self.stderr.strip().splitlines()
        return lines[-1] if lines else ""


@dataclass
class CommandLine:
    """``turncheck ARGS`` with these settings (and no other ``TURNCHECK_*``), at ``clock``."""

    monkeypatch: pytest.MonkeyPatch
    clock: FixedClock
    env: dict[str, str]

    def __call__(self, *args: str, **env: str) -> Done:
        with self.monkeypatch.context() as patch:
            for name in [n for n in os.environ if n.startswith("TURNCHECK_")]:
                patch.delenv(name)
            for name, value in {**self.env, **env}.items():
                patch.setenv(name, value)
            for module in (work, retention, read, labels):
                patch.setattr(module, "utc_now", self.clock)
            # The log lines are not the point, and a handler set on this process's root
            # logger would outlive the command.
            patch.setattr(startup, "configure_logging", lambda *_: None)
            patch.setattr(sys, "argv", ["turncheck", *args])
            out, err = io.StringIO(), io.StringIO()
            code: int | str | None = 0
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    main()
                except SystemExit as exc:
                    code = exc.code
        assert not isinstance(code, str), code
        return Done(code or 0, out.getvalue(), err.getvalue())
