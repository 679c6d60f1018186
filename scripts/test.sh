#!/usr/bin/env bash
# The whole test suite, from a clean clone: install, start Kafka and
# PostgreSQL on loopback, lint, type-check, run pytest. Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -e '.[dev]'
eval "$(bash scripts/services.sh start)"

python3 -m ruff check .
python3 -m mypy
python3 -m pytest "$@"
