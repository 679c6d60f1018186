#!/usr/bin/env bash
# The whole test suite, from a clean clone: check the tools, make a virtualenv,
# install, start Kafka and PostgreSQL on loopback, lint, type-check, run pytest.
# Extra args go to pytest. TURNCHECK_VENV names the virtualenv (default .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test.sh: $*" >&2; }

# Whether dotted version $1 is at least $2.
at_least() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" == "$2" ]]; }

# ------------------------------------------------------------ the tools
# One line each, all of them before anything is installed, so a clean machine
# learns everything it lacks at once.
missing=0
lacks() { say "MISSING: $*"; missing=1; }

if ! command -v python3 >/dev/null; then
    lacks "python3 (Python >= 3.11)"
else
    py="$(python3 -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
    if ! at_least "$py" 3.11; then
        lacks "Python >= 3.11 (python3 is $py)"
    elif ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        lacks "Python's venv module (python3 $py has none: apt-get install python3-venv)"
    else
        say "python3 $py"
    fi
fi

# Kafka's broker runs on Java; Maven fetches its jars (scripts/services.sh).
if ! command -v java >/dev/null; then
    lacks "java (Java >= 17, for the Kafka broker)"
else
    java_version="$(java -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)"
    java_major="${java_version%%.*}"
    [[ "$java_major" == 1 ]] && java_major="$(cut -d. -f2 <<<"$java_version")"  # 1.8 is Java 8
    if [[ ! "$java_major" =~ ^[0-9]+$ ]] || ((java_major < 17)); then
        lacks "Java >= 17, for the Kafka broker (java is ${java_version:-of unknown version})"
    else
        say "java $java_version"
    fi
fi

if ! command -v mvn >/dev/null; then
    lacks "mvn (Maven, to fetch the Kafka jars)"
else
    # Maven colours its banner even into a pipe: the escapes go before the version is read.
    mvn_version="$(mvn -v 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | sed -n 's/^Apache Maven \([^ ]*\).*/\1/p' || true)"
    say "mvn ${mvn_version:-(its version could not be read)}"
fi

# The native extension (native/, Rust) is built by the install below when cargo is on
# PATH, so its differential tests run against it. Without cargo >= 1.85 the install
# leaves it out locally (those tests skip); CI needs it (tests/conftest.py's `missing`).
cargo_version="$(cargo --version 2>/dev/null | cut -d' ' -f2 || true)"
if [[ -n "$cargo_version" ]] && at_least "$cargo_version" 1.85; then
    say "cargo $cargo_version"
elif [[ -n "${CI:-}" ]]; then
    lacks "cargo >= 1.85, for the native extension (cargo is ${cargo_version:-not installed})"
else
    say "cargo >= 1.85 not found (${cargo_version:-not installed}): testing without the native extension"
fi

if ((missing)); then
    say "install what is missing above, then run this again"
    exit 1
fi

# ------------------------------------------------------------ the browser
# `alerts preview --html` is opened in headless Chromium (tests/alerts/test_preview_page.py):
# Debian's chromium and chromium-driver, installed here under CI as services.sh installs
# PostgreSQL; locally the test skips without them.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [[ -n "${CI:-}" ]]; then
        say "installing Debian's chromium and chromium-driver for the browser test"
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; } >&2 \
            || { say "chromium and chromium-driver could not be installed"; exit 1; }
    else
        say "chromium or chromedriver not found: the browser test skips"
    fi
fi

# ---------------------------------------------------------- Prometheus
# promtool and prometheus check the operators' view (tests/test_ops_prometheus.py):
# Debian's prometheus, installed here under CI; locally those tests skip without it.
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
    if [[ -n "${CI:-}" ]]; then
        say "installing Debian's prometheus for the operators' view tests"
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus; } >&2 \
            || { say "prometheus could not be installed"; exit 1; }
    else
        say "promtool or prometheus not found: the operators' view tests skip"
    fi
fi

# ------------------------------------------------------- the virtualenv
# Its own, so this works where the system Python refuses `pip install` (PEP 668).
venv="${TURNCHECK_VENV:-.venv}"
if ! "$venv/bin/python" -c '' 2>/dev/null; then
    say "making the virtualenv $venv"
    python3 -m venv --clear "$venv"
fi
python="$venv/bin/python"
# Builds the native extension in place with cargo (a no-op rebuild when native/ is
# unchanged), so a change to native/src is tested without a step of its own.
"$python" -m pip install --quiet --disable-pip-version-check -e '.[dev]'

# --------------------------------------------------------- the services
# Captured first and checked: inside `eval "$(...)"` a failed start would go
# unnoticed, and every service test would then skip (or fail, under CI, for a
# reason far from the cause).
if ! exports="$(bash scripts/services.sh start)"; then
    say "Kafka and PostgreSQL did not start (the lines above say why); the tests need both"
    exit 1
fi
eval "$exports"

"$python" -m ruff check .
"$python" -m ruff format --check .
"$python" -m mypy
"$python" -m pytest "$@"
