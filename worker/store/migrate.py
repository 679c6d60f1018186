"""Bring a database to the newest schema with Alembic, without an alembic.ini."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from turncheck import migrations


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def migrate(url: str) -> None:
    """Idempotent. Runs its own event loop: call it outside one (or in a thread)."""
    command.upgrade(alembic_config(url), "head")
