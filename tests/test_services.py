"""scripts/services.sh with a real Kafka broker, on ports and in a folder of the test's own:
a broker killed with the session that ran it comes up again at the next start, whatever
its storage was left holding.

Needs Java and the Kafka jars that ``services.sh start`` cached; under CI both are there
(the suite's own broker was started the same way), locally the test skips without them.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "scripts" / "services.sh"
LIBS = (
    Path(os.environ.get("TURNCHECK_SERVICES_CACHE", Path.home() / ".cache" / "turncheck-services"))
    / "libs"
)


def free_port_pair() -> int:
    """A port whose successor is free too: the broker's and its controller's."""
    for _ in range(50):
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port = int(first.getsockname()[1])
            with socket.socket() as second:
                try:
                    second.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port
    raise AssertionError("no two free ports in a row")


def services(run: Path, port: int, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TURNCHECK_SERVICES_DIR": str(run), "TURNCHECK_KAFKA_PORT": str(port)}
    return subprocess.run(
        ["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.timeout(600)
def test_a_broker_killed_mid_run_starts_again_whatever_its_storage_holds(tmp_path: Path) -> None:
    if not list(LIBS.glob("kafka_2.13-*.jar")):
        if os.environ.get("CI"):
            pytest.fail(f"no Kafka jars in {LIBS}: services.sh start should have cached them")
        pytest.skip("no cached Kafka jars: run `bash scripts/services.sh start` once")
    run, port = tmp_path / "services", free_port_pair()
    started = services(run, port, "start", "kafka")
    assert started.returncode == 0, started.stderr
    assert f"TURNCHECK_TEST_KAFKA_BOOTSTRAP=127.0.0.1:{port}" in started.stdout
    try:
        pid = int((run / "kafka" / "kafka.pid").read_text())
        os.kill(pid, signal.SIGKILL)  # as a session's processes are ended at its stop
        gone_by = time.monotonic() + 60
        while Path(f"/proc/{pid}").exists() and time.monotonic() < gone_by:
            time.sleep(0.2)
        # Storage the broker refuses as it is (another node's), and not cleanly shut.
        for meta in (run / "kafka" / "data").rglob("meta.properties"):
            meta.write_text(meta.read_text().replace("node.id=1", "node.id=7"))
        again = services(run, port, "start", "kafka")
        assert again.returncode == 0, again.stderr
        status = services(run, port, "status")
        assert "kafka: up (pid" in status.stdout and str(port) in status.stdout
    finally:
        stopped = services(run, port, "stop", "kafka")
        assert stopped.returncode == 0, stopped.stderr
