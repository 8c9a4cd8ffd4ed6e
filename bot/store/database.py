"""Opening the database: the engine, its sessionmaker, and the schema brought up to date."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import URL

from bot.store.engine import Database, create_engine, create_sessionmaker, database_url
from bot.store.migrate import upgrade_database


async def open_database(url: str | URL | None = None, *, migrate: bool = True, **engine_kwargs: Any) -> Database:
    """Open the database at ``url`` (see :func:`database_url`), first upgrading it to the latest schema unless
    ``migrate`` is false."""
    resolved = database_url(url)
    if migrate:
        await upgrade_database(resolved)
    engine = create_engine(resolved, **engine_kwargs)
    return Database(resolved, engine, create_sessionmaker(engine))

