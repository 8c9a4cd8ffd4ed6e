"""Processes starting together on one fresh PostgreSQL database: the migrations run under an advisory lock, so one
process migrates while the others wait, then find the schema up to date. Real processes, a real server."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import URL

from bot.store.migrate import MIGRATION_LOCK, current_revision, upgrade_database
from tests.conftest import _asyncpg_dsn

REPO = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.postgres, pytest.mark.timeout(180)]

UPGRADE = "import asyncio, sys; from bot.store.migrate import upgrade_database; asyncio.run(upgrade_database(sys.argv[1]))"


@pytest.fixture
def fresh_postgres(postgres_server: object) -> URL:
    url: URL = postgres_server.create_database("lock")  # type: ignore[attr-defined]
    return url


async def head_revision(url: URL) -> str | None:
    return await current_revision(url)


async def test_processes_starting_together_migrate_one_after_the_other(fresh_postgres: URL) -> None:
    rendered = fresh_postgres.render_as_string(hide_password=False)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    processes = [await asyncio.create_subprocess_exec(sys.executable, "-c", UPGRADE, rendered, cwd=REPO, env=env,
                                                      stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
                 for _ in range(4)]
    results = await asyncio.wait_for(asyncio.gather(*(p.communicate() for p in processes)), timeout=150)
    for process, (_, err) in zip(processes, results, strict=True):
        assert process.returncode == 0, err.decode()
    connection = await asyncpg.connect(_asyncpg_dsn(fresh_postgres))
    try:
        versions = await connection.fetch("SELECT version_num FROM alembic_version")
        tables = {r["tablename"] for r in await connection.fetch("SELECT tablename FROM pg_tables "
                                                                  "WHERE schemaname = 'public'")}
    finally:
        await connection.close()
    assert len(versions) == 1 and {"games", "players", "daily_posts"} <= tables


async def test_an_upgrade_waits_while_another_holds_the_migration_lock(fresh_postgres: URL) -> None:
    holder = await asyncpg.connect(_asyncpg_dsn(fresh_postgres))
    try:
        await holder.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
        upgrade = asyncio.create_task(upgrade_database(fresh_postgres))
        done, _ = await asyncio.wait({upgrade}, timeout=3)
        assert not done, "the upgrade ran while another process held the migration lock"
        assert await head_revision(fresh_postgres) is None
        await holder.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        await asyncio.wait_for(upgrade, timeout=60)
    finally:
        await holder.close()
    assert await head_revision(fresh_postgres) is not None
