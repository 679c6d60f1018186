"""scripts/test.sh, the README's test command and what CI runs (.ci/run), on a clean machine.

The script runs in a copy of the tree's scripts with fake tools on a bare PATH:
``java``, ``mvn`` and ``cargo`` print a version, ``python3`` is the real one
except that it makes a fake virtualenv, whose ``python`` only writes down how
it was called, and ``scripts/services.sh`` starts or fails as a test says. So
these tests see what the script checks, installs and runs, in which order,
without installing or running anything.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
UTILITIES = ("bash", "env", "sed", "sort", "head", "cut", "dirname", "mkdir", "cp", "cat")

PYTHON3 = """#!/usr/bin/env bash
echo "python3 $*" >>"$FAKE_LOG"
if [[ "$1 $2" == "-m venv" ]]; then
    dir="${@: -1}"
    mkdir -p "$dir/bin" && cp "$FAKE_VENV_PYTHON" "$dir/bin/python"
    exit 0
fi
if [[ -n "${FAKE_PY_VERSION:-}" && "$*" == *version_info* ]]; then
    echo "$FAKE_PY_VERSION"
    exit 0
fi
exec "$REAL_PYTHON" "$@"
"""

VENV_PYTHON = """#!/usr/bin/env bash
echo "venv $* | ${TURNCHECK_TEST_KAFKA_BOOTSTRAP:-}" >>"$FAKE_LOG"
"""

SERVICES_UP = """#!/usr/bin/env bash
echo "services $*" >>"$FAKE_LOG"
echo "export TURNCHECK_TEST_KAFKA_BOOTSTRAP=127.0.0.1:19092"
echo "export TURNCHECK_TEST_DATABASE_URL=postgresql+asyncpg://t:t@127.0.0.1:15432/t"
"""

SERVICES_DOWN = """#!/usr/bin/env bash
echo "services $*" >>"$FAKE_LOG"
echo "services: ERROR: port 19092 is taken by another process" >&2
exit 1
"""

JAVA = 'echo "openjdk version \\"{version}\\" 2025-04-15" >&2'
MAVEN = r'printf "\033[1mApache Maven {version}\033[m (bf699a3)\nMaven home: /usr/share/maven\n"'
CARGO = 'echo "cargo {version} (f2d3ce0bd 2026-03-21)"'


@dataclass
class Run:
    returncode: int
    stderr: str
    calls: list[str]
    """Each fake's calls in order: ``python3 ...``, ``venv ... | bootstrap``, ``services ...``."""


@dataclass
class Machine:
    """A clean clone's scripts on a machine with only the tools a test gives it."""

    root: Path
    bin: Path

    def tool(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text(body if body.startswith("#!") else f"#!/usr/bin/env bash\n{body}\n")
        path.chmod(0o755)

    def services(self, script: str) -> None:
        (self.root / "scripts" / "services.sh").write_text(script)

    def run(
        self, command: str = "scripts/test.sh", *args: str, ci: bool = False, **env: str
    ) -> Run:
        log = self.root / "calls.log"
        log.unlink(missing_ok=True)
        environ = {
            "PATH": str(self.bin),
            "HOME": str(self.root),
            "FAKE_LOG": str(log),
            "FAKE_VENV_PYTHON": str(self.root / "venv-python"),
            "REAL_PYTHON": sys.executable,
            **({"CI": "true"} if ci else {}),
            **env,
        }
        done = subprocess.run(
            ["bash", str(self.root / command), *args],
            env=environ,
            capture_output=True,
            text=True,
            timeout=60,
        )
        calls = log.read_text().splitlines() if log.exists() else []
        return Run(done.returncode, done.stderr, calls)


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    root, bin_dir = tmp_path / "clone", tmp_path / "bin"
    (root / "scripts").mkdir(parents=True)
    (root / ".ci").mkdir()
    bin_dir.mkdir()
    shutil.copy(ROOT / "scripts" / "test.sh", root / "scripts" / "test.sh")
    shutil.copy(ROOT / ".ci" / "run", root / ".ci" / "run")
    for name in UTILITIES:
        found = shutil.which(name)
        assert found, name
        os.symlink(found, bin_dir / name)
    m = Machine(root, bin_dir)
    (root / "venv-python").write_text(VENV_PYTHON)
    (root / "venv-python").chmod(0o755)
    m.tool("python3", PYTHON3)
    m.tool("java", JAVA.format(version="17.0.15"))
    m.tool("mvn", MAVEN.format(version="3.8.7"))
    m.tool("cargo", CARGO.format(version="1.95.0"))
    m.tool("chromium", "exit 0")
    m.tool("chromedriver", "exit 0")
    m.tool("promtool", "exit 0")
    m.tool("prometheus", "exit 0")
    m.services(SERVICES_UP)
    return m


def missing_lines(run: Run) -> list[str]:
    return [line for line in run.stderr.splitlines() if "MISSING" in line]


def test_each_missing_tool_is_named_on_one_line_before_anything_is_installed(
    machine: Machine,
) -> None:
    """Without java and Maven the script names both, one line each, and installs nothing."""
    (machine.bin / "java").unlink()
    (machine.bin / "mvn").unlink()
    run = machine.run()
    assert run.returncode == 1
    assert missing_lines(run) == [
        "test.sh: MISSING: java (Java >= 17, for the Kafka broker)",
        "test.sh: MISSING: mvn (Maven, to fetch the Kafka jars)",
    ]
    assert not [c for c in run.calls if not c.startswith("python3 -c")], "something ran"


def test_versions_too_old_are_named_with_the_version_found(machine: Machine) -> None:
    """Python 3.10, Java 8 and, under CI, cargo 1.80 are each refused with what was found."""
    machine.tool("java", 'echo "java version \\"1.8.0_292\\"" >&2')
    machine.tool("cargo", CARGO.format(version="1.80.1"))
    run = machine.run(ci=True, FAKE_PY_VERSION="3.10.12")
    assert run.returncode == 1
    assert missing_lines(run) == [
        "test.sh: MISSING: Python >= 3.11 (python3 is 3.10.12)",
        "test.sh: MISSING: Java >= 17, for the Kafka broker (java is 1.8.0_292)",
        "test.sh: MISSING: cargo >= 1.85, for the native extension (cargo is 1.80.1)",
    ]


def test_without_cargo_a_local_run_tests_without_the_native_extension(machine: Machine) -> None:
    """Locally an old cargo is one line of warning: the suite runs, the extension is not built."""
    machine.tool("cargo", CARGO.format(version="1.80.1"))
    run = machine.run()
    assert run.returncode == 0, run.stderr
    assert "cargo >= 1.85 not found (1.80.1): testing without the native extension" in run.stderr
    assert not [c for c in run.calls if "./native" in c]


def test_a_failed_service_start_stops_the_script_before_any_test(machine: Machine) -> None:
    """When Kafka or PostgreSQL does not start, the script says so and runs no test."""
    machine.services(SERVICES_DOWN)
    run = machine.run()
    assert run.returncode == 1
    assert "services: ERROR: port 19092 is taken by another process" in run.stderr
    assert run.stderr.splitlines()[-1] == (
        "test.sh: Kafka and PostgreSQL did not start (the lines above say why); the tests need both"
    )
    assert run.calls[-1] == "services start"
    assert not [c for c in run.calls if "ruff" in c or "mypy" in c or "pytest" in c]


def test_ci_installs_and_runs_everything_in_a_virtualenv_of_its_own(machine: Machine) -> None:
    """`bash .ci/run` makes .venv, installs there (never into the system Python, which may
    refuse; the install builds the extension), starts the services, then ruff, mypy and
    pytest with them."""
    run = machine.run(".ci/run")
    assert run.returncode == 0, run.stderr
    ran = [c for c in run.calls if not c.startswith("python3 -c") and not c.startswith("venv -c")]
    bootstrap = "127.0.0.1:19092"
    assert ran == [
        "python3 -m venv --clear .venv",
        "venv -m pip install --quiet --disable-pip-version-check -e .[dev] | ",
        "services start",
        f"venv -m ruff check . | {bootstrap}",
        f"venv -m ruff format --check . | {bootstrap}",
        f"venv -m mypy | {bootstrap}",
        f"venv -m pytest | {bootstrap}",
    ]
    assert f"test.sh: python3 {platform.python_version()}" in run.stderr
    assert "test.sh: java 17.0.15" in run.stderr
    assert "test.sh: mvn 3.8.7" in run.stderr
    assert "test.sh: cargo 1.95.0" in run.stderr


def test_extra_arguments_go_to_pytest_and_an_existing_virtualenv_is_kept(
    machine: Machine,
) -> None:
    """A second run reuses the virtualenv; `scripts/test.sh -x` passes `-x` to pytest."""
    first = machine.run()
    second = machine.run("scripts/test.sh", "-x")
    assert first.returncode == second.returncode == 0, second.stderr
    assert "python3 -m venv --clear .venv" in first.calls
    assert not [c for c in second.calls if "-m venv" in c]
    assert second.calls[-1] == "venv -m pytest -x | 127.0.0.1:19092"


def test_ci_installs_the_browser_when_it_is_missing(machine: Machine) -> None:
    """Under CI a machine without chromium gets Debian's chromium and chromium-driver
    before anything else is installed; a local run says the browser test skips."""
    for name in ("chromium", "chromedriver"):
        (machine.bin / name).unlink()
    machine.tool("apt-get", 'echo "apt-get $*" >>"$FAKE_LOG"')
    local = machine.run()
    assert local.returncode == 0, local.stderr
    assert "chromium or chromedriver not found: the browser test skips" in local.stderr
    assert not [c for c in local.calls if c.startswith("apt-get")]
    ci = machine.run(".ci/run")
    assert ci.returncode == 0, ci.stderr
    installs = [c for c in ci.calls if c.startswith("apt-get")]
    assert installs == ["apt-get update -q", "apt-get install -y -q chromium chromium-driver"]
    pip = next(i for i, call in enumerate(ci.calls) if call.startswith("venv -m pip install"))
    assert ci.calls.index(installs[-1]) < pip


def test_ci_installs_prometheus_when_it_is_missing(machine: Machine) -> None:
    """Under CI a machine without promtool gets Debian's prometheus before anything else
    is installed; a local run says the operators' view tests skip."""
    for name in ("promtool", "prometheus"):
        (machine.bin / name).unlink()
    machine.tool("apt-get", 'echo "apt-get $*" >>"$FAKE_LOG"')
    local = machine.run()
    assert local.returncode == 0, local.stderr
    assert "promtool or prometheus not found: the operators' view tests skip" in local.stderr
    ci = machine.run(".ci/run")
    assert ci.returncode == 0, ci.stderr
    installs = [c for c in ci.calls if c.startswith("apt-get")]
    assert installs == [
        "apt-get update -q",
        "apt-get install -y -q --no-install-recommends prometheus",
    ]
    pip = next(i for i, call in enumerate(ci.calls) if call.startswith("venv -m pip install"))
    assert ci.calls.index(installs[-1]) < pip
