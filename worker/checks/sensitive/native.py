"""The optional native extension, ``turncheck_native`` (Rust, in ``native/``): the one import.

``NATIVE`` is ``None`` when the extension is not installed, or is a build of
another ``API`` than this code calls (a stale wheel); ``private_values`` then
runs its pure-Python reference, which finds the same spans (a differential
test holds both to it), several times slower.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


def _load() -> Native | None:
    try:
        import turncheck_native
    except ImportError:
        return None
    if turncheck_native.API != API:
        return None
    return Native(turncheck_native.Forms, turncheck_native.word_windows)


NATIVE = _load()
