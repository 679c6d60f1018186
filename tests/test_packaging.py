"""The installed package: one namespace, every folder in it, its data files with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.conftest import missing

ROOT = Path(__file__).parents[1]
FOLDERS = ("worker", "alerts", "schemas", "migrations")
EXTENSION = "turncheck.worker.turncheck_native"


def cargo_present() -> bool:
    """Whether Rust's cargo >= 1.85, which the build needs for the extension, is on PATH."""
    cargo = shutil.which("cargo")
    if cargo is None:
        return False
    done = subprocess.run([cargo, "--version"], capture_output=True, text=True, check=False)
    version = tuple(int(n) for n in done.stdout.split()[1].split(".")[:2])
    return version >= (1, 85)


def test_every_package_folder_is_listed_for_the_build() -> None:
    """A new subpackage left out of pyproject.toml would be missing from the wheel."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {
        "turncheck." + ".".join(init.parent.relative_to(ROOT).parts)
        for folder in FOLDERS
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert set(config["packages"]) == on_disk
    assert config["package-dir"] == {f"turncheck.{folder}": folder for folder in FOLDERS}


def test_the_wheel_installs_only_the_turncheck_namespace(tmp_path: Path) -> None:
    """Installing turncheck must not add top-level packages named `worker` or `schemas`."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("turncheck-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {
        name.split("/", 1)[0] for name in names if not name.split("/", 1)[0].endswith(".dist-info")
    }
    assert top == {"turncheck"}
    assert "turncheck/worker/judge/templates/rubric.j2" in names
    assert "turncheck/migrations/script.py.mako" in names
    assert any(name.startswith("turncheck/migrations/versions/0001_") for name in names)
    assert "turncheck/schemas/turn.stored.v1.schema.json" in names
    if cargo_present():
        assert any(n.startswith("turncheck/worker/turncheck_native.") for n in names)


def test_the_build_makes_the_native_extension_optional_and_named_as_it_is_imported() -> None:
    """One optional Rust extension, built in release, whose module name is the crate's
    library (PyO3's entry point is named after it) and the name native.py imports."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(r.startswith("setuptools-rust") for r in project["build-system"]["requires"])
    [extension] = project["tool"]["setuptools-rust"]["ext-modules"]
    assert extension == {
        "target": EXTENSION,
        "path": "native/Cargo.toml",
        "binding": "PyO3",
        "optional": True,
        "debug": False,
    }
    crate = tomllib.loads((ROOT / "native" / "Cargo.toml").read_text())
    assert crate["lib"]["name"] == EXTENSION.rsplit(".", 1)[1]
    alone = tomllib.loads((ROOT / "native" / "pyproject.toml").read_text())
    assert alone["tool"]["maturin"]["module-name"] == crate["lib"]["name"]
    native = (ROOT / "worker" / "checks" / "sensitive" / "native.py").read_text()
    assert f'"{EXTENSION}"' in native


def test_with_cargo_the_installed_package_runs_on_its_own_extension() -> None:
    """Where cargo is present (always under CI), installing turncheck built the extension
    and the checks call it: no separate install of native/ is needed."""
    if not cargo_present():
        missing("cargo >= 1.85 is not on PATH: the install left the extension out")
    from turncheck.worker.checks.sensitive import native

    built = native.extension()
    assert built is not None and built.__name__ == EXTENSION, "reinstall: pip install -e ."
    assert native.NATIVE is not None, f"turncheck_native is of API {built.API}, not {native.API}"


@pytest.mark.skipif(sys.platform == "win32", reason="PATH without cargo is set up for POSIX")
def test_without_cargo_the_wheel_builds_without_the_extension(tmp_path: Path) -> None:
    """No Rust toolchain: the build still succeeds, pure Python (takes ~10 s)."""
    tree = tmp_path / "tree"  # a clean copy: the checkout's build/ may hold an old extension
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    for folder in (*FOLDERS, "native"):
        shutil.copytree(
            ROOT / folder,
            tree / folder,
            ignore=shutil.ignore_patterns("target", "__pycache__", "turncheck_native.*"),
        )
    path = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "cargo").exists()
    )
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(tree), "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("turncheck-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "turncheck/worker/cli/main.py" in names
    assert not [n for n in names if "turncheck_native" in n and n.endswith((".so", ".pyd"))]


def test_the_dev_tools_are_pinned_exactly() -> None:
    """A new release of pytest, ruff, mypy or their stubs cannot change what CI says."""
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    requirements = dict(
        requirement.partition("==")[::2] if "==" in requirement else (requirement, "")
        for requirement in dev["dev"]
    )
    tools = ["pytest", "pytest-asyncio", "pytest-timeout", "ruff", "mypy", "hypothesis"]
    tools += ["schemathesis"]
    stubs = [name for name in requirements if name.startswith("types-")]
    assert stubs, "mypy's stubs are part of what it says"
    unpinned = [name for name in tools + stubs if not requirements.get(name)]
    assert not unpinned, f"not pinned with ==: {unpinned}"
