"""The ``turncheck`` command line. Each command runs its start-up steps first
(``startup.py``); ``exits.py`` prints any refusal as one line and exits."""

from __future__ import annotations

from importlib.metadata import version as installed_version
from typing import Annotated

import typer
from rich.console import Console

from turncheck.worker import app as composition
from turncheck.worker.cli import backtest, exits, labels, read, retention, serve, work
from turncheck.worker.webhooks import cli as webhooks_cli

app = typer.Typer(
    help="Hold every stored turn of a chat agent to its checks, after the fact.",
    no_args_is_help=True,
    add_completion=False,
    # Plain help shows a flag as a flag ("--json", not "--json <bool>") and a usage error as
    # text, not a panel. A bug's traceback leaves out locals: they may hold a turn or a URL.
    rich_markup_mode=None,
    pretty_exceptions_show_locals=False,
)
err = Console(stderr=True)
app.add_typer(composition.alert_commands(), name="alerts")
app.add_typer(webhooks_cli.app, name="webhooks")
app.add_typer(backtest.app, name="backtest")
app.add_typer(labels.app, name="labels")


def _print_version(show: bool) -> None:
    if show:
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


app.command()(work.migrate)
app.command()(work.run)
app.command()(work.replay)
app.command()(work.check)
app.command()(read.results)
app.command("pass-rates")(read.pass_rates)
app.command()(read.failures)
app.command()(labels.label)
app.command()(retention.purge)
app.command()(retention.erase)
app.command()(serve.serve)


def main() -> None:
    exits.run_command_line(app, err)
