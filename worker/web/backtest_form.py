"""The form that starts a backtest: a draft pasted or uploaded, and the options of
``POST /v1/backtests`` (since, until, limit, partitions), read into the same
``BacktestRequest`` through the same checks, or refused with one sentence.

    FormRefused(status, message, where)   400 a bad option, 413 too large, 422 a bad draft
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from starlette.datastructures import FormData, UploadFile

from turncheck.worker.api.drafts import MAX_DRAFT_CHARS, Draft, read_draft
from turncheck.worker.backtest.request import BacktestRequest, parse_partitions
from turncheck.worker.errors import CheckDefinitionError
from turncheck.worker.runtime.moments import BadMoment, parse_moment
from turncheck.worker.settings import Settings

API_PROCESSES = 1
"""As the API's backtests: one process of the engine's, the API's cores stay the API's."""
MAX_LIMIT = 10**12
FIELDS = ("since", "until", "limit", "partitions")


@dataclass(frozen=True, slots=True)
class FormValues:
    """What was sent, kept to show the form again as it was."""

    checks: str = ""
    since: str = ""
    until: str = ""
    limit: str = ""
    partitions: str = ""


class FormRefused(Exception):
    """The form shown again with ``message``; ``where``: a refused draft's ``line``,
    ``check`` and ``field``, those known."""

    def __init__(
        self, status: int, message: str, values: FormValues, where: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.values = values
        self.where = where or {}


def _stripped(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


async def _draft_text(form: FormData, pasted: str, values: FormValues) -> str:
    """The uploaded file when one was chosen, else the pasted text."""
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        return pasted
    raw = await upload.read(MAX_DRAFT_CHARS * 4 + 1)
    if len(raw) > MAX_DRAFT_CHARS * 4:  # past any draft's size, in any encoding of it
        raise FormRefused(413, f"The draft is larger than {MAX_DRAFT_CHARS // 1024} KiB.", values)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise FormRefused(422, "The uploaded file is not UTF-8 text.", values) from None
    return text


async def read_form(
    form: FormData, settings: Settings, now: datetime
) -> tuple[BacktestRequest, dict[str, Any]]:
    """The request to queue and the options its row keeps (never the draft's text), or
    ``FormRefused``."""
    pasted = form.get("checks")
    values = FormValues(
        checks=pasted if isinstance(pasted, str) else "",
        **{name: _stripped(form, name) for name in FIELDS},
    )
    text = await _draft_text(form, values.checks, values)
    if not values.checks and text:
        values = FormValues(text, values.since, values.until, values.limit, values.partitions)
    if not text.strip():
        raise FormRefused(400, "Paste a draft check file or choose one to upload.", values)
    if len(text) > MAX_DRAFT_CHARS:
        raise FormRefused(413, f"The draft is larger than {MAX_DRAFT_CHARS // 1024} KiB.", values)
    since = _moment("since", values.since, now, values)
    until = _moment("until", values.until, now, values)
    if since is not None and until is not None and until <= since:
        raise FormRefused(400, "Until must be after since.", values)
    limit = _limit(values)
    partitions = _partitions(values)
    if settings.kafka_bootstrap is None:
        for name, given in (("Since", since), ("Until", until), ("Partitions", partitions)):
            if given is not None:
                raise FormRefused(
                    400,
                    f"{name} is for the turns topic: without a broker the turns file is "
                    "read whole.",
                    values,
                )
    try:
        draft = await asyncio.to_thread(read_draft, text)
    except CheckDefinitionError as exc:
        where = {"line": exc.line, "check": exc.check, "field": exc.field}
        raise FormRefused(422, str(exc), values, where) from None
    request = BacktestRequest(
        draft=draft.checks,
        since=since,
        until=until,
        limit=limit,
        partitions=partitions,
        file=None if settings.kafka_bootstrap else settings.turns_file,
        processes=API_PROCESSES,
        judge=None,
    )
    return request, _options(request, draft, settings)


def _moment(name: str, text: str, now: datetime, values: FormValues) -> datetime | None:
    if not text:
        return None
    try:
        return parse_moment(text, now).astimezone(UTC)
    except BadMoment as exc:
        raise FormRefused(400, f"{name.capitalize()}: {exc}.", values) from None


def _limit(values: FormValues) -> int | None:
    if not values.limit:
        return None
    if not values.limit.isdigit() or not 1 <= int(values.limit) <= MAX_LIMIT:
        raise FormRefused(400, "Limit must be a whole number of turns, at least 1.", values)
    return int(values.limit)


def _partitions(values: FormValues) -> tuple[int, ...] | None:
    if not values.partitions:
        return None
    if len(values.partitions) > 1000:
        raise FormRefused(400, "Partitions: at most 1000 characters.", values)
    try:
        return parse_partitions(values.partitions)
    except ValueError as exc:
        raise FormRefused(400, f"Partitions: {exc}.", values) from None


def _options(request: BacktestRequest, draft: Draft, settings: Settings) -> dict[str, Any]:
    """As ``POST /v1/backtests`` keeps them: a backtest started here reads the same."""
    return {
        "since": None if request.since is None else request.since.isoformat(),
        "until": None if request.until is None else request.until.isoformat(),
        "limit": request.limit,
        "partitions": None if request.partitions is None else list(request.partitions),
        "judge": False,
        "max_judgements": None,
        "source": "kafka" if settings.kafka_bootstrap else "file",
        "draft": draft.summary(),
    }
