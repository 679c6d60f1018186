"""The migrations build exactly the tables the code uses, on SQLite and PostgreSQL."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from tests.conftest import fresh_store
from turncheck.worker.store.tables import metadata


async def test_migrated_schema_matches_the_tables_module(database_url: str) -> None:
    store = await fresh_store(database_url)
    async with store.database.engine.connect() as conn:
        diff = await conn.run_sync(
            lambda sync: compare_metadata(MigrationContext.configure(sync), metadata)
        )
    await store.close()
    assert diff == []
