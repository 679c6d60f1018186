"""A command imports what it needs and nothing more: what ``turncheck --help``,
``--version`` and the read commands load, asserted by module, never by time."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from turncheck.worker.cli.main import COMMANDS, load

# Each costs a tenth of a second to a second to import, and none of them is needed
# to print help, the version, or to read the store.
HEAVY = (
    "turncheck.worker.checks.definitions",
    "turncheck.worker.checks.sensitive",
    "turncheck.worker.checks.textmap",
    "turncheck.worker.app",
    "turncheck.alerts",
    "faststream",
    "aiokafka",
    "alembic",
    "fastapi",
    "rich.progress",
)


def imported(*args: str, cwd: Path) -> set[str]:
    """The modules a ``turncheck ARGS`` process imports, from ``-X importtime``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "turncheck.worker", *args],
        cwd=cwd,
        capture_output=True,
        timeout=60,
        env=clean,
        check=False,
    )
    lines = done.stderr.decode().splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


def loaded(modules: set[str], package: str) -> bool:
    return any(m == package or m.startswith(package + ".") for m in modules)


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_no_command(flag: str, tmp_path: Path) -> None:
    """Printing help or the version imports neither the commands nor the store."""
    modules = imported(flag, cwd=tmp_path)
    assert "turncheck.worker.cli.main" in modules
    heavy = [p for p in (*HEAVY, "sqlalchemy", "turncheck.worker.store") if loaded(modules, p)]
    assert not heavy
    assert not {"turncheck.worker.cli.read", "turncheck.worker.cli.work"} & modules


@pytest.mark.parametrize(
    "args", [("results", "t-1"), ("pass-rates",), ("failures", "no-pii"), ("labels", "export")]
)
def test_a_read_command_imports_the_store_and_not_the_checks(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    """A read command on a store already set up loads the store, not the checks, the
    worker, the broker's client or Alembic."""
    imported(*args, cwd=tmp_path)  # the first run sets the embedded store up
    modules = imported(*args, cwd=tmp_path)
    assert "turncheck.worker.store" in modules
    assert not [p for p in HEAVY if loaded(modules, p)]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_help_line_of_each_command_is_its_own(name: str) -> None:
    """``turncheck --help`` lists each command with the first paragraph of its help."""
    command = load(name)
    assert command.help is not None
    first = inspect.cleandoc(command.help).split("\n\n")[0]
    assert " ".join(first.split()) == COMMANDS[name].help


def test_a_mistyped_command_is_answered_with_the_one_meant(tmp_path: Path) -> None:
    """Commands loaded on demand are still all known by name, for a typo's suggestion."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TURNCHECK_")}
    done = subprocess.run(
        [sys.executable, "-m", "turncheck.worker", "pas-rates"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        env=clean,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode().splitlines()[-1] == (
        "Error: No such command 'pas-rates'. Did you mean 'pass-rates'?"
    )
