"""Whether an embedded SQLite store is already at the newest schema, told without Alembic.

Every command on the embedded store brings it to the newest schema first (``migrate``:
idempotent, but importing Alembic and reading its scripts costs a command a quarter of
a second). When the file's ``alembic_version`` already names the head of
``migrations/versions``, there is nothing to do. The head is read from the scripts'
``revision`` and ``down_revision`` assignments, as Alembic reads them;
``tests/store/test_schema_revision.py`` holds it to Alembic's own answer.
"""

from __future__ import annotations

import ast
import contextlib
import sqlite3
from functools import cache
from pathlib import Path

from turncheck import migrations


def _assigned(tree: ast.Module, name: str) -> object:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            return ast.literal_eval(node.value)
    return None


@cache
def head() -> str | None:
    """The one revision no other revises; None if there is not exactly one (a branch:
    leave it to Alembic)."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for script in (Path(migrations.__file__).parent / "versions").glob("*.py"):
        tree = ast.parse(script.read_text(encoding="utf-8"))
        revision, down = _assigned(tree, "revision"), _assigned(tree, "down_revision")
        if isinstance(revision, str):
            revisions.add(revision)
        if isinstance(down, str):
            revised.add(down)
        elif isinstance(down, tuple):
            revised.update(d for d in down if isinstance(d, str))
    heads = revisions - revised
    return heads.pop() if len(heads) == 1 else None


def stored(path: str) -> str | None:
    """The revision the SQLite file at ``path`` is at; None for a file that is missing,
    unreadable or not yet migrated. Opened read-only: this never creates the file."""
    if not path or path == ":memory:" or not Path(path).is_file():
        return None
    try:
        uri = f"{Path(path).resolve().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as connection:
            rows = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    except sqlite3.Error:
        return None
    return rows[0][0] if len(rows) == 1 else None


def at_head(path: str) -> bool:
    """True when the SQLite file at ``path`` needs no migration."""
    newest = head()
    return newest is not None and stored(path) == newest
