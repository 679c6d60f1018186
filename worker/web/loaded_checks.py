"""The configured check files (``TURNCHECK_CHECKS``), loaded for the test panel once per
app and loaded again when one of them changed (its size or modification time), so the
panel tests what a worker started now would run.

A file that cannot be loaded is not an error of the page: the panel says why (the
loader's sentence, which names the file, line and field, never a turn's text).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from fastapi import Request

from turncheck.worker.api.context import context
from turncheck.worker.checks import CheckSet, load_checks
from turncheck.worker.errors import ConfigurationError


@dataclass(frozen=True, slots=True)
class Loaded:
    """The checks, or why there are none (``problem``)."""

    checks: CheckSet | None
    problem: str | None
    stamp: tuple[tuple[str, int, int], ...]


def _stamp(paths: tuple[Path, ...]) -> tuple[tuple[str, int, int], ...]:
    """What changes when a file does: path, size and modification time of each, and of
    the files in a folder."""
    found: list[tuple[str, int, int]] = []
    for path in paths:
        files = sorted(path.iterdir()) if path.is_dir() else [path]
        for file in files:
            try:
                info = file.stat()
            except OSError:
                found.append((str(file), -1, -1))
                continue
            found.append((str(file), info.st_size, info.st_mtime_ns))
    return tuple(found)


def _load(paths: tuple[Path, ...]) -> Loaded:
    stamp = _stamp(paths)
    if not paths:
        return Loaded(None, "No check file is configured (TURNCHECK_CHECKS).", stamp)
    try:
        return Loaded(load_checks(paths), None, stamp)
    except ConfigurationError as exc:
        return Loaded(None, f"The configured checks cannot be loaded: {exc}", stamp)
    except OSError as exc:
        return Loaded(None, f"The configured checks cannot be read: {exc.strerror}.", stamp)


async def configured_checks(request: Request) -> Loaded:
    """The app's checks, loaded again only when a file changed."""
    paths = tuple(context(request).settings.checks)
    held: Loaded | None = getattr(request.app.state, "test_panel_checks", None)
    if held is not None and held.stamp == await asyncio.to_thread(_stamp, paths):
        return held
    loaded = await asyncio.to_thread(_load, paths)
    request.app.state.test_panel_checks = loaded
    return loaded
