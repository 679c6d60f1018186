"""The commands that delete: the retention purge, and erasure by person. ``worker/cli/main.py``
registers them."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated

import typer
from pydantic_core import PydanticCustomError
from rich.console import Console

from turncheck.schemas.erasure import in_utc
from turncheck.worker.app import eraser_for, purger_for
from turncheck.worker.cli import startup
from turncheck.worker.cli.options import JsonOption
from turncheck.worker.clock import utc_now
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.retention.erasure import ErasureReceipt
from turncheck.worker.store import Store

err = Console(stderr=True)


def purge(as_json: JsonOption = False) -> None:
    """Delete expired results with their labels, pending judgements, and sent events past
    their keep.

    `turncheck run` does this every TURNCHECK_PURGE_INTERVAL_S; pass-rate counts stay.
    """
    settings = startup.settings()
    report = startup.on_store(settings, lambda store: purger_for(settings, store).purge(utc_now()))
    if as_json:
        print(json.dumps(report.as_dict()))
    else:
        err.print(
            f"purged {report.results} results, {report.labels} labels, "
            f"{report.pending_judgements} pending judgements, {report.events} sent events "
            f"({report.swept} swept after erasures) "
            f"in {report.chunks} transactions, the longest {report.longest_chunk_s * 1000:.0f} ms",
            highlight=False,
        )


def erase(
    person_id: Annotated[str, typer.Argument(help="The turns' person_id.")],
    requested_at: Annotated[
        str | None, typer.Option(help="When the person asked (ISO time); default: now.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Delete a person's results, their labels, pending judgements and unsent events, and
    keep their turns out from now on (the ledger keeps a keyed hash, never the id)."""
    settings = startup.settings()
    now = utc_now()
    asked = _moment(requested_at) if requested_at else now
    if settings.erasure_key is None:
        raise ConfigurationError("TURNCHECK_ERASURE_KEY is not set: erasure needs it")

    async def work(store: Store) -> ErasureReceipt:
        eraser = eraser_for(settings, store)
        assert eraser is not None  # the key was checked above
        return await eraser.erase(person_id, requested_at=asked, now=now)

    receipt = startup.on_store(settings, work)
    if as_json:
        print(json.dumps(receipt.as_dict()))
    else:
        err.print(
            f"erased: {receipt.results} results, {receipt.labels} labels, "
            f"{receipt.pending_judgements} pending judgements, {receipt.events} unsent events; "
            f"ledger {receipt.person_key[:12]}…",
            highlight=False,
        )


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ConfigurationError(f"invalid --requested-at {text!r}: use an ISO time") from None
    if moment.tzinfo is None:
        raise ConfigurationError(f"invalid --requested-at {text!r}: give its time zone")
    try:
        return in_utc(moment)  # the contract's own rule, as on the erasure topic
    except PydanticCustomError as exc:
        raise ConfigurationError(f"invalid --requested-at {text!r}: {exc.message()}") from None
