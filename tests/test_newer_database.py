"""Old code on a database a newer version upgraded (issue 53): it says to run the newer code or to downgrade with
it first, instead of Alembic's "Can't locate revision", and exits with the status the systemd unit does not restart
(so the line stays the last in the journal, not repeated every 5 s)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from bot.store.database import open_database
from bot.store.engine import create_engine
from bot.store.migrate import NewerDatabase, revisions, upgrade_database

#: The revision a newer version of the bot would have written.
NEWER = "0099"


async def as_a_newer_version_left_it(url: URL) -> None:
    await upgrade_database(url)
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("UPDATE alembic_version SET version_num = :newer"), {"newer": NEWER})
    finally:
        await engine.dispose()


async def test_old_code_on_a_newer_database_says_what_to_do(fresh_url: URL) -> None:
    await as_a_newer_version_left_it(fresh_url)
    with pytest.raises(NewerDatabase) as refused:
        await open_database(fresh_url)
    latest = revisions()[-1]
    assert str(refused.value) == (
        f"the database is at revision {NEWER}, which a newer version of the bot wrote (this one knows up to "
        f"{latest}): run the newer version, or first downgrade the database with it (tripeaks db downgrade "
        f"{latest}), then start this one")


async def test_the_bot_on_a_newer_database_exits_with_the_status_its_unit_does_not_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from bot.cli import EXIT_USAGE, main

    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"
    await as_a_newer_version_left_it(URL.create("sqlite+aiosqlite", database=str(tmp_path / "bot.db")))
    for name in ("DISCORD_TOKEN", "PUBLIC_URL", "WEB_PORT", "HEARTBEAT_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("TELEGRAM_TOKEN", "123456:" + "A" * 35)
    status = await asyncio.to_thread(main, ["run"])
    said = capsys.readouterr().err.strip().splitlines()
    unit = (Path(__file__).resolve().parents[1] / "deploy" / "tripeaks.service").read_text()
    assert status == EXIT_USAGE and f"RestartPreventExitStatus={EXIT_USAGE}" in unit
    assert said[-1].startswith(f"tripeaks: the database is at revision {NEWER}, which a newer version")
