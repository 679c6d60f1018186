"""The embedded store's schema check without Alembic agrees with Alembic."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.script import ScriptDirectory

from turncheck.worker.store.migrate import alembic_config, migrate
from turncheck.worker.store.schema_revision import at_head, head, stored


def test_the_head_is_the_one_alembic_upgrades_to(tmp_path: Path) -> None:
    """Read from the scripts as Alembic reads them: the same newest revision."""
    config = alembic_config(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    assert head() == ScriptDirectory.from_config(config).get_current_head()


def test_a_migrated_store_is_at_head_and_an_older_one_is_not(tmp_path: Path) -> None:
    """Only a store at the newest schema skips the migration."""
    path = tmp_path / "turncheck.db"
    url = f"sqlite+aiosqlite:///{path}"
    migrate(url)
    assert stored(str(path)) == head()
    assert at_head(str(path))
    command.stamp(alembic_config(url), "0011")
    assert not at_head(str(path))


def test_a_missing_or_foreign_file_is_not_at_head_and_is_left_alone(tmp_path: Path) -> None:
    """No file, or a file that is not a migrated store, asks for the migration; nothing
    is created by asking."""
    missing = tmp_path / "none.db"
    assert not at_head(str(missing))
    assert not missing.exists()
    foreign = tmp_path / "notes.db"
    foreign.write_text("not a database")
    assert not at_head(str(foreign))
    assert not at_head(":memory:")
