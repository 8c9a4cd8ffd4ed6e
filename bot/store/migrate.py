"""The Alembic migrations: applying them, undoing them, and reading the revision a database is at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import URL

from bot.store.engine import create_engine

#: Where the Alembic scripts live: the repository's ``migrations`` folder, found from this file so that
#: ``tripeaks db upgrade`` works from any directory (see :func:`migrations_dir` for installed copies).
MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def migrations_dir() -> Path:
    """The ``migrations`` folder: beside the ``bot`` package (a checkout or an editable install), else in the
    working directory (an image that copied the repository and installed it with ``pip install .``)."""
    for candidate in (MIGRATIONS_DIR, Path.cwd() / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError(f"no Alembic migrations folder at {MIGRATIONS_DIR} or {Path.cwd() / 'migrations'}")


def alembic_config() -> Any:
    """An Alembic ``Config`` built in code: no ``alembic.ini`` needed, whatever the working directory."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def _run_alembic(connection: Connection, command_name: str, revision: str) -> None:
    from alembic import command

    config = alembic_config()
    # migrations/env.py runs on this connection (and inside its transaction) when it is given one
    config.attributes["connection"] = connection
    getattr(command, command_name)(config, revision)


async def upgrade_database(url: str | URL | None = None, revision: str = "head") -> None:
    """Apply the migrations up to ``revision`` (default: the latest), creating the database file if needed. This
    is what ``tripeaks db upgrade`` runs."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run_alembic, "upgrade", revision)
    finally:
        await engine.dispose()


async def downgrade_database(url: str | URL | None = None, revision: str = "base") -> None:
    """Undo the migrations down to ``revision`` (default: an empty database)."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run_alembic, "downgrade", revision)
    finally:
        await engine.dispose()


async def current_revision(url: str | URL | None = None) -> str | None:
    """The revision the database is at, or None for an empty one."""
    from alembic.runtime.migration import MigrationContext

    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision())
    finally:
        await engine.dispose()


# --- the daily deal: subscriptions and posts (migration 0002) ----------------------------------------------------
