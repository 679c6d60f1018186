"""Which engines this install runs on, for ``turncheck --version``: the same imports the
checks make, so what it prints is what a turn gets, without importing the checks.

* gates: Vectorscan (the ``hyperscan`` package) or Python's ``re``, the same answers;
* native: the Rust extension ``turncheck_native`` or the pure-Python reference paths;
* scripts: V8 through mini-racer (a dependency on every platform).

Importing the checks costs a second (every detector, their tables); ``--version`` must
start in a fraction of that. So the gates' engine is probed by importing ``hyperscan``
as ``gates/engine.py`` does, and the extension by running ``sensitive/native.py`` on its
own: it imports only the standard library and the extension, so its verdict (installed,
and a build of the ``API`` that code calls) is the checks' verdict.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path
from types import ModuleType

NATIVE_SOURCE = Path(__file__).parents[1] / "checks" / "sensitive" / "native.py"


def _version(package: str) -> str | None:
    try:
        return installed_version(package)
    except PackageNotFoundError:
        return None


def _gates_engine() -> ModuleType | None:
    try:
        return importlib.import_module("hyperscan")
    except ImportError:
        return None


def native_probe() -> ModuleType:
    """``sensitive/native.py`` run afresh outside its package: its ``NATIVE`` and ``API``."""
    name = "turncheck_native_probe"
    spec = importlib.util.spec_from_file_location(name, NATIVE_SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it runs
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def _extension_version() -> str | None:
    """The extension's version: built with turncheck (no distribution of its own), or
    installed apart from ``native/`` as ``turncheck-native``."""
    return _version("turncheck-native") or _version("turncheck")


def engine_lines() -> list[str]:
    """One line per engine: its role, what runs it, and why when it is the slow path."""
    if _gates_engine() is not None:
        gates = f"vectorscan (hyperscan {_version('hyperscan')})"
    else:
        gates = "python re (hyperscan is not installed: pip install 'turncheck[fast]')"
    native = native_probe()
    built = _extension_version()
    if native.NATIVE is not None:
        extension = f"turncheck_native {built} (API {native.API})"
    elif native.extension() is not None:
        extension = f"pure Python (turncheck_native {built} is a build of another API)"
    else:
        extension = (
            "pure Python (turncheck_native is not built: reinstall turncheck with Rust's "
            "cargo >= 1.85 on PATH)"
        )
    racer = _version("mini-racer")
    scripts = f"V8 (mini-racer {racer})" if racer else "none (mini-racer is not installed)"
    return [f"gates: {gates}", f"native: {extension}", f"scripts: {scripts}"]
