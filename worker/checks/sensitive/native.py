"""The optional native extension, ``turncheck_native`` (Rust, in ``native/``): the one import.

Built with turncheck when cargo is present, as ``turncheck.worker.turncheck_native``;
``pip install ./native`` installs it apart, as ``turncheck_native``.

``NATIVE`` is ``None`` when the extension is not installed, or is a build of
another ``API`` than this code calls (a stale wheel); ``private_values`` then
runs its pure-Python reference, which finds the same spans (a differential
test holds both to it), several times slower.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from turncheck_native import Forms

API = 2
"""The extension's ``API`` this code calls."""

WordWindows = Callable[[str, int, int], list[tuple[int, int, int, int, int, int]]]


@dataclass(frozen=True, slots=True)
class Native:
    forms: type[Forms]
    word_windows: WordWindows


def extension() -> ModuleType | None:
    """The extension built with turncheck, else one installed apart; None without either."""
    for name in ("turncheck.worker.turncheck_native", "turncheck_native"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def _load() -> Native | None:
    turncheck_native = extension()
    if turncheck_native is None:
        return None
    if turncheck_native.API != API:
        return None
    return Native(turncheck_native.Forms, turncheck_native.word_windows)


NATIVE = _load()
