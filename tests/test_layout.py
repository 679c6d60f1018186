"""The house rules of the source tree: where things live and which way imports point."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).parents[1]
WORKER = ROOT / "worker"
ALERTS = ROOT / "alerts"

ROOT_MODULES = {"__init__.py", "__main__.py", "app.py", "settings.py", "errors.py", "clock.py"}
"""What ``worker/`` keeps at its root: the composition root, settings, errors, the clock."""


def modules(*folders: Path) -> Iterator[Path]:
    for folder in folders:
        yield from sorted(folder.rglob("*.py"))


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_worker_root_holds_only_the_composition_root_settings_errors_and_clock() -> None:
    loose = {p.name for p in WORKER.glob("*.py")} - ROOT_MODULES
    assert not loose, f"modules loose at worker/'s root: {sorted(loose)}"


def test_only_the_composition_root_imports_alerts() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in modules(WORKER)
        if p != WORKER / "app.py"
        and any(m == "turncheck.alerts" or m.startswith("turncheck.alerts.") for m in imported(p))
    ]
    assert not offenders, f"import turncheck.alerts outside worker/app.py: {offenders}"


def test_sql_lives_under_store() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in modules(WORKER, ALERTS)
        if WORKER / "store" not in p.parents
        and any(m == "sqlalchemy" or m.startswith("sqlalchemy.") for m in imported(p))
    ]
    assert not offenders, f"SQLAlchemy used outside worker/store/: {offenders}"


def test_a_class_or_type_name_means_one_thing() -> None:
    """No two modules of worker/ and alerts/ define the same public class or type alias
    (the contract's models in schemas/ and their msgspec mirror in worker/turns/ are one
    thing in two shapes, and schemas/ is left out)."""
    defined: dict[str, list[str]] = defaultdict(list)
    for path in modules(WORKER, ALERTS):
        for node in ast.parse(path.read_text()).body:
            name = None
            if isinstance(node, ast.ClassDef):
                name = node.name
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                # A type alias: a CamelCase name (constants are UPPER_CASE).
                if isinstance(target, ast.Name) and target.id[:1].isupper():
                    name = None if target.id.isupper() else target.id
            if name and not name.startswith("_"):
                defined[name].append(str(path.relative_to(ROOT)))
    twice = {name: paths for name, paths in defined.items() if len(paths) > 1}
    assert not twice, f"names defined more than once: {twice}"


def test_one_clock() -> None:
    """``Clock`` and ``utc_now`` are defined once, in worker/clock.py."""
    for name in ("Clock", "utc_now"):
        where = [
            str(p.relative_to(ROOT))
            for p in modules(WORKER, ALERTS)
            for node in ast.parse(p.read_text()).body
            if (isinstance(node, ast.FunctionDef) and node.name == name)
            or (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
            )
        ]
        assert where == ["worker/clock.py"], (name, where)


def test_only_the_settings_read_the_environment() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in modules(WORKER, ALERTS)
        if p != WORKER / "settings.py"
        and ("os.environ" in p.read_text() or "getenv(" in p.read_text())
    ]
    assert not offenders, f"read the environment outside worker/settings.py: {offenders}"


def test_every_policy_takes_its_defaults_from_the_settings() -> None:
    """A policy built from the default settings is the policy's own default: a default
    written a second time somewhere would drift from the setting users read about."""
    from dataclasses import replace

    from turncheck.alerts.delivery import Timing
    from turncheck.alerts.policy import AlertPolicy
    from turncheck.alerts.setup import thresholds
    from turncheck.worker.judge.http import JudgeRetry
    from turncheck.worker.outbox.publisher import OutboxPolicy
    from turncheck.worker.pipeline.save import StoreRetry
    from turncheck.worker.settings import DEFAULTS
    from turncheck.worker.webhooks.delivery import WebhookPolicy

    assert OutboxPolicy.of(DEFAULTS) == OutboxPolicy()
    assert StoreRetry.of(DEFAULTS) == StoreRetry()
    assert WebhookPolicy.of(DEFAULTS) == WebhookPolicy()
    assert Timing.of(DEFAULTS) == Timing()
    assert JudgeRetry.of(DEFAULTS) == JudgeRetry()
    assert replace(thresholds(DEFAULTS), channels=AlertPolicy().channels) == AlertPolicy()
