"""Alembic environment: async engine, URL handed in by ``worker.store.migrate``."""

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from turncheck.worker.store.database import create_engine
from turncheck.worker.store.tables import metadata

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying
    )
    with context.begin_transaction():
        context.run_migrations()


async def _main() -> None:
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    async with engine.connect() as connection:
        await connection.run_sync(_run)
        await connection.commit()
    await engine.dispose()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_main())
