"""Checks at start that the database can be used, so a damaged or read-only one stops the bot with one clear line
instead of failing tap by tap: SQLite's quick integrity check, and a write that is rolled back."""

from __future__ import annotations

from sqlalchemy import text

from bot.store.engine import Database, DatabaseError


class DatabaseUnusable(Exception):  # noqa: N818 - named as the operator reads it
    """The database is damaged or cannot be written; the message is one line saying which and what to do."""


def _reason(error: BaseException) -> str:
    """The driver's own words, without SQLAlchemy's wrapping (``(sqlite3.OperationalError) ...``, the SQL)."""
    original = getattr(error, "orig", None) or error
    return (str(original).strip().splitlines() or [type(original).__name__])[0]


#: SQLite's result codes for a damaged file, and for one another process is writing.
_DAMAGED = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})
_BUSY = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED"})


async def check_integrity(db: Database) -> None:
    """SQLite: ``PRAGMA quick_check`` (every page's structure, in one pass); :class:`DatabaseUnusable` when it
    finds damage. Other databases check themselves."""
    if not db.is_sqlite:
        return
    try:
        async with db.engine.connect() as connection:
            found = [str(row[0]) for row in (await connection.exec_driver_sql("PRAGMA quick_check")).fetchall()]
    except DatabaseError as error:
        if getattr(getattr(error, "orig", None), "sqlite_errorname", None) not in _DAMAGED:
            return  # it could not be opened or read (a read-only folder, say): the write check says so
        raise DatabaseUnusable(f"the database {db.location} is damaged ({_reason(error)}): restore it from a "
                               "backup") from None
    if found != ["ok"]:
        first = " ".join(found[0].replace("*** in database main ***", "").split())
        more = f" and {len(found) - 1} more problems" if len(found) > 1 else ""
        raise DatabaseUnusable(f"the database {db.location} is damaged (SQLite's integrity check: {first}{more}): "
                               "restore it from a backup")


async def check_writable(db: Database) -> None:
    """Write something and roll it back: :class:`DatabaseUnusable` when the database is read-only (a read-only
    file, folder or volume; a PostgreSQL standby or a read-only default). SQLite rewrites its header's
    ``user_version`` with the same value; PostgreSQL creates a temporary table."""
    try:
        async with db.engine.connect() as connection:
            transaction = await connection.begin()
            try:
                if db.is_sqlite:
                    version = (await connection.exec_driver_sql("PRAGMA user_version")).scalar_one()
                    await connection.exec_driver_sql(f"PRAGMA user_version = {int(version)}")
                else:
                    await connection.execute(text("CREATE TEMPORARY TABLE tripeaks_write_probe (x integer)"))
            finally:
                await transaction.rollback()
    except DatabaseError as error:
        if getattr(getattr(error, "orig", None), "sqlite_errorname", None) in _BUSY:
            return  # another process has held the write lock past the busy timeout: busy, not read-only
        raise DatabaseUnusable(f"the database {db.location} cannot be written ({_reason(error)}): the bot needs to "
                               "write to it" + (" and to its folder" if db.is_sqlite else "")) from None
