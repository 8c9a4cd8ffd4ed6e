"""Opening the database: the engine, checked, and the schema brought up to date."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import URL

from bot.store.engine import Database, create_engine, database_url
from bot.store.migrate import upgrade_database
from bot.store.probe import check_integrity, check_writable


async def open_database(url: str | URL | None = None, *, migrate: bool = True, **engine_kwargs: Any) -> Database:
    """Open the database at ``url`` (see :func:`database_url`), first checking that it is sound and can be written
    (:class:`~bot.store.probe.DatabaseUnusable` if not) and upgrading it to the latest schema, unless ``migrate`` is
    false."""
    resolved = database_url(url)
    engine = create_engine(resolved, **engine_kwargs)
    db = Database(resolved, engine)
    if migrate:
        try:
            await check_integrity(db)
            await check_writable(db)
            await upgrade_database(resolved)
        except BaseException:
            await engine.dispose()
            raise
    return db

