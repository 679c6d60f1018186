"""The store read a backtest compares its draft with: the newest stored verdict of a
check by name on given turns, from both shapes of results."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.backtest.conftest import LIVE, REPLAYED, replayed_file, turn_id, write
from tests.conftest import fresh_store
from turncheck.worker.app import plan, replay
from turncheck.worker.settings import Settings
from turncheck.worker.store.backtests_reads import newest_verdicts, open_results

LIVE_AGAIN = LIVE.replace("phrases: [HelpCo]", "phrases: [Hello]")
"""The live check edited: a new version of it, which bans what the first allowed."""


def test_the_newest_write_of_a_check_decides_whichever_shape_it_is_in(
    database_url: str, tmp_path: Path
) -> None:
    """After a check's new version is replayed over the same turns, the read gives the new
    version's verdicts, passed (a compact row) and failed (a full row) alike."""

    async def go() -> dict[tuple[str, str], str]:
        await (await fresh_store(database_url)).close()
        turns = str(replayed_file(tmp_path))
        for number, text in enumerate((LIVE, LIVE_AGAIN)):
            checks = write(tmp_path / f"live-{number}.yaml", text)
            settings = Settings(database_url=database_url, checks=[checks], kafka_bootstrap=None)
            await replay(plan(settings), turns)
        database = await open_results(database_url)
        assert database is not None
        try:
            ids = [turn_id(i) for i in range(REPLAYED)] + ["t-unknown"]
            return await newest_verdicts(database, ids, ["no-competitors", "no-such-check"])
        finally:
            await database.close()

    verdicts = asyncio.run(go())
    assert verdicts[turn_id(0), "no-competitors"] == "passed"  # "Try HelpCo instead."
    assert verdicts[turn_id(3), "no-competitors"] == "failed"  # "Hello there."
    assert len(verdicts) == REPLAYED  # nothing for an unknown turn or check


def test_an_embedded_store_that_is_not_there_is_not_created(tmp_path: Path) -> None:
    """Opening a missing SQLite store for a backtest gives nothing and makes no file."""
    url = f"sqlite+aiosqlite:///{tmp_path}/none/turncheck.db"
    assert asyncio.run(open_results(url)) is None
    assert not (tmp_path / "none").exists()
