"""Which engines this install runs on, for ``turncheck --version``: the same imports the
checks use, so what it prints is what a turn gets.

* gates: Vectorscan (the ``hyperscan`` package) or Python's ``re``, the same answers;
* native: the Rust extension ``turncheck_native`` or the pure-Python reference paths;
* scripts: V8 through mini-racer (a dependency on every platform).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version


def _version(package: str) -> str | None:
    try:
        return installed_version(package)
    except PackageNotFoundError:
        return None


def engine_lines() -> list[str]:
    """One line per engine: its role, what runs it, and why when it is the slow path."""
    # Imported here: the checks' imports cost a second, and only this report needs them.
    from turncheck.worker.checks.gates import engine
    from turncheck.worker.checks.sensitive import native

    if engine.hyperscan is not None:
        gates = f"vectorscan (hyperscan {_version('hyperscan')})"
    else:
        gates = "python re (hyperscan is not installed: pip install 'turncheck[fast]')"
    built = _version("turncheck-native")
    if native.NATIVE is not None:
        extension = f"turncheck_native {built} (API {native.API})"
    elif built is not None:
        extension = f"pure Python (turncheck_native {built} is a build of another API)"
    else:
        extension = "pure Python (turncheck_native is not installed: pip install ./native)"
    racer = _version("mini-racer")
    scripts = f"V8 (mini-racer {racer})" if racer else "none (mini-racer is not installed)"
    return [f"gates: {gates}", f"native: {extension}", f"scripts: {scripts}"]
