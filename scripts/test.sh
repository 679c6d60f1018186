#!/usr/bin/env bash
# The whole test suite, from a clean clone: install, start Kafka and
# PostgreSQL on loopback, lint, type-check, run pytest. Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -e '.[dev]'
# The native extension (native/, Rust): built here so its differential test runs
# against it. Without cargo it is left out locally (those tests skip); CI needs it.
if command -v cargo >/dev/null || [ -n "${CI:-}" ]; then
    python3 -m pip install --quiet --disable-pip-version-check ./native
else
    echo "cargo not found: testing without the native extension" >&2
fi
eval "$(bash scripts/services.sh start)"

python3 -m ruff check .
python3 -m mypy
python3 -m pytest "$@"
