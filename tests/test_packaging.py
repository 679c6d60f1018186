"""The installed package: one namespace, every folder in it, its data files with it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[1]
FOLDERS = ("worker", "alerts", "schemas", "migrations")


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
