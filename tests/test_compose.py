"""docker-compose.yml, the Dockerfile and .dockerignore keep what the README promises a
user on the host. Docker does not run here: the files are parsed, and the two commands
they run (migrate's retry loop, the worker's health check) are run with stand-ins."""

from __future__ import annotations

import http.server
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).parents[1]
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]


def env(service: str) -> dict[str, str]:
    return {k: str(v) for k, v in SERVICES[service]["environment"].items()}


def listeners(value: str) -> dict[str, str]:
    """``NAME://host:port,...`` as {name: host:port}."""
    return dict(item.split("://", 1) for item in value.split(","))


def published(service: str) -> dict[int, int]:
    """Container port to host port."""
    pairs = (str(p).split(":") for p in SERVICES[service].get("ports", []))
    return {int(inside): int(outside) for outside, inside in pairs}


def test_kafka_serves_the_compose_network_and_the_host_on_two_listeners() -> None:
    """Containers reach the broker as kafka:…, the host as localhost:9092, and each gets
    back an address it can reach (one advertised listener made the host's clients fail)."""
    kafka = env("kafka")
    bound = listeners(kafka["KAFKA_LISTENERS"])
    advertised = listeners(kafka["KAFKA_ADVERTISED_LISTENERS"])
    protocols = dict(p.split(":") for p in kafka["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"].split(","))
    assert set(advertised) == {"PLAINTEXT", "PLAINTEXT_HOST"}
    assert set(bound) == {"PLAINTEXT", "PLAINTEXT_HOST", "CONTROLLER"}
    assert set(protocols) == set(bound)
    assert advertised["PLAINTEXT_HOST"] == "localhost:9092"
    host_port = int(bound["PLAINTEXT_HOST"].rsplit(":", 1)[1])
    assert published("kafka")[host_port] == 9092
    network_host, network_port = advertised["PLAINTEXT"].rsplit(":", 1)
    assert network_host == "kafka"
    assert bound["PLAINTEXT"].endswith(f":{network_port}")
    assert int(network_port) not in published("kafka"), "the network's listener stays inside"
    assert kafka["KAFKA_INTER_BROKER_LISTENER_NAME"] == "PLAINTEXT"
    assert kafka["KAFKA_CONTROLLER_LISTENER_NAMES"] == "CONTROLLER"
    controller_port = bound["CONTROLLER"].rsplit(":", 1)[1]
    assert (
        kafka["KAFKA_CONTROLLER_QUORUM_VOTERS"]
        == f"{kafka['KAFKA_NODE_ID']}@kafka:{controller_port}"
    )
    assert set(kafka["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    for service in ("migrate", "worker"):
        assert env(service)["TURNCHECK_KAFKA_BOOTSTRAP"] == advertised["PLAINTEXT"]
    assert advertised["PLAINTEXT"] in " ".join(SERVICES["kafka"]["healthcheck"]["test"])


def test_postgres_is_healthy_only_once_it_accepts_tcp() -> None:
    """The first start sets the database up on a socket-only server: the check asks over TCP."""
    check = " ".join(SERVICES["postgres"]["healthcheck"]["test"])
    assert "pg_isready -h 127.0.0.1" in check
    assert SERVICES["migrate"]["depends_on"]["postgres"] == {"condition": "service_healthy"}
    url = env("worker")["TURNCHECK_DATABASE_URL"]
    assert "@postgres:5432/" in url
    assert published("postgres")[5432] == 5432


def _migrate_script() -> str:
    migrate = SERVICES["migrate"]
    assert migrate["entrypoint"] == ["sh", "-c"]
    [script] = migrate["command"]
    # Compose turns $$ into $ before the shell sees it.
    return str(script).replace("$$", "$")


def _run_migrate(tmp_path: Path, exits: list[int]) -> tuple[int, int, str]:
    """Migrate's command with a ``turncheck`` that exits ``exits`` in turn and a quick sleep."""
    bin_dir, state = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir(parents=True)
    state.write_text("")
    codes = " ".join(map(str, exits))
    (bin_dir / "turncheck").write_text(
        "#!/bin/sh\n"
        f'echo "$*" >>{state}\n'
        f"n=$(wc -l <{state})\n"
        f'set -- {codes}\nshift $((n - 1))\nexit "${{1:-0}}"\n'
    )
    (bin_dir / "sleep").write_text("#!/bin/sh\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    done = subprocess.run(
        ["sh", "-c", _migrate_script()],
        env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    calls = state.read_text().splitlines()
    assert set(calls) <= {"migrate"}
    return done.returncode, len(calls), done.stderr


def test_migrate_retries_while_the_database_does_not_accept(tmp_path: Path) -> None:
    """Exit 3 (database unavailable) is retried until migrate succeeds; the worker waits for it."""
    code, attempts, stderr = _run_migrate(tmp_path, [3, 3, 0])
    assert (code, attempts) == (0, 3)
    assert stderr.count("retrying") == 2
    assert SERVICES["worker"]["depends_on"]["migrate"] == {
        "condition": "service_completed_successfully"
    }


def test_migrate_gives_up_at_once_on_a_bad_setting_and_after_a_minute_of_outage(
    tmp_path: Path,
) -> None:
    """A configuration error (exit 2) is final at once; a database that never comes ends it."""
    assert _run_migrate(tmp_path / "bad", [2])[:2] == (2, 1)
    code, attempts, _ = _run_migrate(tmp_path / "down", [3] * 100)
    assert code == 3 and attempts == 30


def test_one_image_is_built_once_for_migrate_and_the_worker() -> None:
    """Only migrate builds; the worker runs the same tag and never pulls it from a registry."""
    builders = [name for name, service in SERVICES.items() if "build" in service]
    assert builders == ["migrate"]
    assert SERVICES["migrate"]["image"] == SERVICES["worker"]["image"]
    assert SERVICES["worker"]["pull_policy"] == "never"


def test_the_worker_restarts_serves_the_api_and_is_healthy_when_ready() -> None:
    """restart: unless-stopped, the API in the worker on every interface, /readyz as its
    health, and alerts linking to the API as the host reaches it."""
    worker = SERVICES["worker"]
    assert worker["restart"] == "unless-stopped"
    worker_env = env("worker")
    assert worker_env["TURNCHECK_API_IN_RUN"] == "true"
    assert worker_env["TURNCHECK_API_HOST"] == "0.0.0.0"
    port = int(worker_env.get("TURNCHECK_API_PORT", 8080))
    assert worker_env["TURNCHECK_API_URL"] == f"http://localhost:{published('worker')[port]}"
    assert worker_env["TURNCHECK_API_TOKEN"]
    test = worker["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python", "-c"]
    assert f"http://127.0.0.1:{port}/readyz" in test[3]


class _Ready(http.server.BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        self.send_response(self.status if self.path == "/readyz" else 404)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def readyz() -> Iterator[http.server.HTTPServer]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Ready)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    thread.join()
    server.server_close()


@pytest.mark.parametrize(("status", "healthy"), [(200, True), (503, False)])
def test_the_health_check_passes_on_200_only(
    readyz: http.server.HTTPServer, status: int, healthy: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check's Python, pointed at a stand-in /readyz: 503 (not ready) fails it."""
    monkeypatch.setattr(_Ready, "status", status)
    code = SERVICES["worker"]["healthcheck"]["test"][3].replace(
        ":8080/", f":{readyz.server_address[1]}/"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert (done.returncode == 0) is healthy


def _images() -> dict[str, str]:
    found = {f"service {name}": s["image"] for name, s in SERVICES.items() if "image" in s}
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("FROM "):
            found[f"Dockerfile {line}"] = line.split()[1]
    return found


def test_every_image_is_pinned_to_a_version() -> None:
    """No `latest` and no bare name: a new release upstream changes nothing until we say so."""
    for where, image in _images().items():
        if image == "turncheck:local":
            continue
        name, _, tag = image.rpartition(":")
        assert name and re.match(r"v?\d+\.\d+", tag), f"{where}: {image} is not pinned"


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether Docker leaves ``path`` out of the build context: a pattern matches it, or one
    of its folders, from the context's root (``**`` is any number of folders)."""

    def match(parts: list[str], pattern: list[str]) -> bool:
        if not pattern:
            return not parts
        if pattern[0] == "**":
            return any(match(parts[i:], pattern[1:]) for i in range(len(parts) + 1))
        return bool(parts) and fnmatchcase(parts[0], pattern[0]) and match(parts[1:], pattern[1:])

    parts = path.split("/")
    return any(
        match(parts[:n], pattern.split("/"))
        for pattern in patterns
        for n in range(1, len(parts) + 1)
    )


def test_the_build_context_leaves_out_local_state_and_keeps_the_sources() -> None:
    """Virtualenvs, build output, caches and .git stay out; what the Dockerfile copies goes in."""
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    left_out = [
        ".git/HEAD",
        ".venv/bin/python",
        "venv/bin/python",
        "venv-house/lib/x.py",
        "build/lib/turncheck/x.py",
        "dist/turncheck-0.1.0.whl",
        "target/release/x.so",
        "native/target/release/libturncheck_native.so",
        "turncheck.egg-info/PKG-INFO",
        "worker/checks/__pycache__/scan.cpython-311.pyc",
        ".mypy_cache/3.11/x.json",
        ".ruff_cache/x",
        ".pytest_cache/v/x",
        ".turncheck/turncheck.db",
    ]
    assert [p for p in left_out if not _ignored(p, patterns)] == []
    copied = re.findall(r"^COPY (?!--from)(.+) \S+$", (ROOT / "Dockerfile").read_text(), re.M)
    sources = [s for line in copied for s in line.split()]
    assert "worker" in sources and "README.md" in sources
    kept = [*sources, "worker/checks/scan.py", "native/src/lib.rs", "examples/checks.yaml"]
    assert [p for p in kept if _ignored(p, patterns)] == []


def test_the_ops_profile_adds_prometheus_and_grafana_to_the_stack_on_demand() -> None:
    """``docker compose up`` starts what it did; ``--profile ops`` adds Prometheus on 9090
    and Grafana on 3000 (ports no other service takes), as the file's header says."""
    profiled = {name: s["profiles"] for name, s in SERVICES.items() if "profiles" in s}
    assert profiled == {"prometheus": ["ops"], "grafana": ["ops"]}
    assert published("prometheus") == {9090: 9090}
    assert published("grafana") == {3000: 3000}
    taken = [port for name in SERVICES for port in published(name).values()]
    assert len(taken) == len(set(taken))
    header = (ROOT / "docker-compose.yml").read_text().split("\nservices:", 1)[0]
    assert "--profile ops" in header
    assert "http://localhost:9090" in header and "http://localhost:3000" in header
    assert SERVICES["grafana"]["depends_on"]["prometheus"] == {"condition": "service_healthy"}
