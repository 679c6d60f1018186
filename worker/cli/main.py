"""The ``turncheck`` command line. Each command runs its start-up steps first
(``startup.py``); ``exits.py`` prints any refusal as one line and exits.

A command's module is imported only when that command runs (``Commands``): importing
them all costs seconds (the checks, SQLAlchemy, FastStream, the alerts), and
``turncheck --help``, ``--version`` or a read command needs none of the others. The
list of commands below carries each one's help line for ``turncheck --help``;
``tests/cli/test_startup_imports.py`` holds it to the command's own docstring.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from turncheck.worker.cli import exits

if TYPE_CHECKING:
    # Typer's own copy of Click, whose classes its groups subclass.
    from typer._click import Command, Context, HelpFormatter


@dataclass(frozen=True, slots=True)
class Entry:
    """Where a command lives: a function (one command) or a ``typer.Typer`` (a group)."""

    module: str
    attribute: str
    help: str


_CLI = "turncheck.worker.cli"
COMMANDS: dict[str, Entry] = {
    "migrate": Entry(f"{_CLI}.work", "migrate", "Create or upgrade the database schema."),
    "run": Entry(
        f"{_CLI}.work", "run", "Run the worker on Kafka, or on the turns file without it."
    ),
    "replay": Entry(
        f"{_CLI}.work", "replay", "Process a file of turns into the store, as the consumer would."
    ),
    "check": Entry(
        f"{_CLI}.work", "check", "Print the results of turns read on stdin; store nothing."
    ),
    "results": Entry(
        f"{_CLI}.read", "results", "Show the stored results of one turn (exit 1 when it has none)."
    ),
    "pass-rates": Entry(
        f"{_CLI}.read",
        "pass_rates",
        "Show each check's pass rate and its counts, and its precision against its labels.",
    ),
    "failures": Entry(
        f"{_CLI}.read",
        "failures",
        "List a check's results that did not pass (failed or errored), newest turn first.",
    ),
    "label": Entry(
        f"{_CLI}.labels",
        "label",
        "Label the newest stored result of a check on a turn a false alarm or confirmed.",
    ),
    "purge": Entry(
        f"{_CLI}.retention",
        "purge",
        "Delete expired results with their labels, pending judgements, and sent events past "
        "their keep.",
    ),
    "erase": Entry(
        f"{_CLI}.retention",
        "erase",
        "Delete a person's results, their labels, pending judgements and unsent events, and "
        "keep their turns out from now on (the ledger keeps a keyed hash, never the id).",
    ),
    "serve": Entry(
        f"{_CLI}.serve",
        "serve",
        "Serve the HTTP API on TURNCHECK_API_HOST:TURNCHECK_API_PORT until SIGTERM or SIGINT.",
    ),
    "alerts": Entry("turncheck.alerts.cli", "app", "Daily alerts when a check's pass rate drops."),
    "webhooks": Entry(
        "turncheck.worker.webhooks.cli",
        "app",
        "Webhooks for response.check_failed: delivery state per endpoint.",
    ),
    "backtest": Entry(
        f"{_CLI}.backtest", "app", "Try a draft check file on past turns and report; store nothing."
    ),
    "labels": Entry(f"{_CLI}.labels", "app", "Labels of stored results."),
}


def load(name: str) -> TyperCommand | TyperGroup:
    """The command ``name`` as it runs, its module imported now."""
    entry = COMMANDS[name]
    target = getattr(importlib.import_module(entry.module), entry.attribute)
    # Registered on a group configured as the app is, so it inherits what it did when
    # the app registered it (plain help, no completion options).
    parent = typer.Typer(rich_markup_mode=None, add_completion=False)
    parent.callback()(_no_options)
    if isinstance(target, typer.Typer):
        parent.add_typer(target, name=name)
    else:
        parent.command(name)(target)
    group = typer.main.get_command(parent)
    assert isinstance(group, TyperGroup)
    command = group.commands[name]
    assert isinstance(command, TyperCommand | TyperGroup)
    return command


def _no_options() -> None:
    """A group's callback: ``load`` needs a group, never run."""


class Loaded(MutableMapping[str, "Command"]):
    """The group's commands by name: every name of ``COMMANDS`` is there (a typo is
    matched against them), each command is loaded when first looked up."""

    def __init__(self) -> None:
        self._loaded: dict[str, Command] = {}

    def __getitem__(self, name: str) -> Command:
        if name not in self._loaded:
            if name not in COMMANDS:
                raise KeyError(name)
            self._loaded[name] = load(name)
        return self._loaded[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError("the commands of turncheck are fixed")

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS


class Commands(TyperGroup):
    """The top-level group: lists ``COMMANDS`` and loads only the one that runs. Its
    help lists their help lines from ``COMMANDS``, so ``--help`` imports none of them."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = Loaded()

    def list_commands(self, ctx: Context) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        # A stand-in per command, shortened to the width as the command itself would be.
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [
            (name, TyperCommand(name, help=entry.help).get_short_help_str(limit))
            for name, entry in COMMANDS.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    cls=Commands,
    help="Hold every stored turn of a chat agent to its checks, after the fact.",
    no_args_is_help=True,
    add_completion=False,
    # Plain help shows a flag as a flag ("--json", not "--json <bool>") and a usage error as
    # text, not a panel. A bug's traceback leaves out locals: they may hold a turn or a URL.
    rich_markup_mode=None,
    pretty_exceptions_show_locals=False,
)


def _print_version(show: bool) -> None:
    if show:
        from importlib.metadata import version as installed_version

        from turncheck.worker.runtime.engines import engine_lines

        print(f"turncheck {installed_version('turncheck')}")
        for line in engine_lines():
            print(f"  {line}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and the engines in use, and exit.",
        ),
    ] = False,
) -> None:
    """Options before the command; the help shown is the app's own."""


def main() -> None:
    exits.run_command_line(app)
