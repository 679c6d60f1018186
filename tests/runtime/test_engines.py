"""What `turncheck --version` says of the engines is what the checks run on."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.conftest import missing
from turncheck.worker.checks.gates import engine
from turncheck.worker.checks.sensitive import native
from turncheck.worker.runtime.engines import engine_lines

ROOT = Path(__file__).parents[2]


@pytest.mark.usefixtures("hyperscan_installed")
def test_the_report_names_vectorscan_when_the_gates_run_on_it() -> None:
    """An install with hyperscan reports the gates on Vectorscan, with its version."""
    assert engine_lines()[0].startswith("gates: vectorscan (hyperscan ")


def test_the_report_names_the_slow_paths_and_how_to_leave_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without Vectorscan or the extension, the report says so and how to install them."""
    # None in sys.modules: importing the name fails, as where it is not installed.
    for name in ("hyperscan", "turncheck.worker.turncheck_native", "turncheck_native"):
        monkeypatch.setitem(sys.modules, name, None)
    gates, extension, scripts = engine_lines()
    assert gates.startswith("gates: python re") and "turncheck[fast]" in gates
    assert extension.startswith("native: pure Python") and "cargo" in extension
    assert scripts.startswith("scripts: V8 (mini-racer ")


def test_the_report_says_what_the_checks_run_on() -> None:
    """Probed without importing the checks, the report still names the engines they use."""
    gates, extension, _ = engine_lines()
    assert gates.startswith("gates: vectorscan") == (engine.hyperscan is not None)
    assert extension.startswith("native: turncheck_native") == (native.NATIVE is not None)


def test_a_build_of_another_api_is_named_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stale extension is reported as the reason the pure path runs."""
    built = native.extension()
    if built is None:
        missing("turncheck_native is not built: install turncheck with cargo on PATH")
    monkeypatch.setattr(built, "API", native.API + 1)
    assert engine_lines()[1].startswith("native: pure Python (turncheck_native ")
    assert "another API" in engine_lines()[1]


def test_the_report_names_the_native_extension_when_it_is_loaded() -> None:
    """An install with the extension built reports it and the API it speaks."""
    if native.NATIVE is None:
        missing("turncheck_native is not built: install turncheck with cargo on PATH")
    assert engine_lines()[1].startswith("native: turncheck_native ")
    assert engine_lines()[1].endswith(f"(API {native.API})")


@pytest.mark.parametrize(
    ("machine", "system"),
    [("x86_64", "Linux"), ("aarch64", "Linux"), ("arm64", "Darwin"), ("AMD64", "Windows")],
)
def test_the_default_install_brings_vectorscan_where_its_wheels_exist(
    machine: str, system: str
) -> None:
    """`pip install turncheck` pulls hyperscan on every platform it has wheels for."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    [requirement] = [
        Requirement(r) for r in project["dependencies"] if Requirement(r).name == "hyperscan"
    ]
    assert requirement.marker is not None
    where = {
        "platform_machine": machine,
        "platform_system": system,
        "platform_python_implementation": "CPython",
    }
    assert requirement.marker.evaluate(where)
    assert not requirement.marker.evaluate({**where, "platform_machine": "ppc64le"})
