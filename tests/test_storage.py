"""Storage: where the database goes, how SQLite is set up, and what the schema itself guarantees."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import insert, select, text
from sqlalchemy.exc import IntegrityError

from bot.store.database import open_database
from bot.store.engine import DEFAULT_URL, Database, create_engine, database_url
from bot.store.migrate import current_revision
from bot.store.schema import games, metadata, players, utcnow
from core.game import Game


def test_the_url_comes_from_the_argument_else_the_default() -> None:
    assert database_url().render_as_string() == DEFAULT_URL == "sqlite+aiosqlite:///data/tripeaks.db"
    assert database_url("sqlite+aiosqlite:///x.db").render_as_string() == "sqlite+aiosqlite:///x.db"


def test_plain_urls_get_their_async_driver() -> None:
    assert database_url("sqlite:///x.db").drivername == "sqlite+aiosqlite"
    assert database_url("postgresql://u@h/d").drivername == "postgresql+asyncpg"
    assert database_url("postgres://u@h/d").drivername == "postgresql+asyncpg"


async def test_the_default_database_is_created_in_a_data_folder_on_first_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    db = await open_database()
    try:
        assert (tmp_path / "data" / "tripeaks.db").is_file()
        assert await current_revision() is not None
    finally:
        await db.close()


async def test_sqlite_connections_use_wal_foreign_keys_and_wait_for_locks(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'nested' / 'folder' / 'x.db'}")
    try:
        async with engine.connect() as connection:
            pragmas = [(await connection.exec_driver_sql(f"PRAGMA {name}")).scalar()
                       for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")]
        assert pragmas[0] == "wal" and pragmas[1] == 1 and pragmas[2] >= 1000 and pragmas[3] == 2  # 2: FULL
        assert (tmp_path / "nested" / "folder" / "x.db").is_file()
    finally:
        await engine.dispose()


async def _add_player(db: Database, user_id: str) -> int:
    async with db.transaction() as tx:
        return (await tx.execute(insert(players).values(
            platform="discord", user_id=user_id, display_name=user_id, created_at=utcnow(),
        ).returning(players.c.id))).scalar_one()


async def _add_game(db: Database, player_id: int, *, active: bool) -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    now = utcnow()
    async with db.transaction() as tx:
        await tx.execute(insert(games).values(
            player_id=player_id, code="TP1-E-AAAAAAB", rules="easy", state=game.to_text(), score=500,
            active=active, status="playing" if active else "abandoned", started_at=now, updated_at=now))


async def test_the_schema_allows_one_active_game_per_player(database: Database) -> None:
    alice, bob = await _add_player(database, "a"), await _add_player(database, "b")
    await _add_game(database, alice, active=True)
    await _add_game(database, alice, active=False)
    await _add_game(database, alice, active=False)
    await _add_game(database, bob, active=True)
    with pytest.raises(IntegrityError):
        await _add_game(database, alice, active=True)


async def test_the_schema_keys_players_by_platform_and_user_id(database: Database) -> None:
    await _add_player(database, "a")
    with pytest.raises(IntegrityError):
        await _add_player(database, "a")


async def test_games_need_a_real_player(database: Database) -> None:
    with pytest.raises(IntegrityError):
        await _add_game(database, 12345, active=True)


async def test_a_players_games_go_with_the_player(database: Database) -> None:
    alice = await _add_player(database, "a")
    await _add_game(database, alice, active=True)
    async with database.transaction() as tx:
        await tx.execute(players.delete().where(players.c.id == alice))
    async with database.transaction() as tx:
        assert (await tx.execute(select(games.c.id))).all() == []


async def test_the_models_match_the_migrations(database: Database) -> None:
    """What ``alembic revision --autogenerate`` would find to do on a migrated database: nothing."""
    async with database.engine.connect() as connection:
        differences = await connection.run_sync(
            lambda sync: compare_metadata(MigrationContext.configure(sync), metadata))
        assert differences == []
        names = set((await connection.execute(text(
            "SELECT name FROM sqlite_master WHERE type = 'table'" if database.is_sqlite else
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))).scalars())
    assert {"players", "games", "alembic_version"} <= names
