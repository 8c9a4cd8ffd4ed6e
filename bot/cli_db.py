"""The files of ``tripeaks db``: ``backup FILE`` and ``restore FILE`` (a SQLite file, or the PostgreSQL command
that does it), and ``copy --to URL``: the whole deployment (every table, the daily secret too) copied from the
configured database into a new, empty one, SQLite to PostgreSQL or back (:mod:`bot.store.copy`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.cli_deals import UsageError


def add_copy_options(db: argparse.ArgumentParser) -> None:
    """The ``db`` command's ``--to``."""
    db.add_argument("--to", metavar="URL|PATH", help="copy: the new, empty database to copy everything into (a "
                                                     "database URL, or a SQLite file's path)")


async def copy_deployment(source: str, target: str) -> int:
    """Copy the database at ``source`` into ``target`` and say what was copied; a refusal is a :class:`UsageError`."""
    from bot.runner import describe_database
    from bot.store.copy import CopyError, copy_database
    from bot.store.engine import database_url

    try:
        copied = await copy_database(database_url(source), database_url(target))
    except CopyError as error:
        raise UsageError(f"db copy: {error}") from None
    print(f"copied {describe_database(source)} to {describe_database(target)}: {copied.describe()}")
    print("set DATABASE_URL to the new database (in .env) and start the bot again")
    return 0


def existing_sqlite_file(url: str) -> Path | None:
    """The SQLite file of ``url`` (None for PostgreSQL); a usage error when it does not exist, so that a command
    run in the wrong folder says so instead of creating an empty database there."""
    from bot.store.engine import sqlite_file

    path = sqlite_file(url)
    if path is not None and not path.is_file():
        raise UsageError(f"no database at {path} (DATABASE_URL, relative to TRIPEAKS_HOME or the folder of .env): "
                         "`tripeaks db upgrade` creates it")
    return path


def db_backup(url: str, file: str) -> int:
    """``tripeaks db backup FILE``: a consistent copy of the SQLite database, safe while the bot runs; for
    PostgreSQL, the pg_dump command that does it."""
    from bot.store.backup import BackupError, backup_sqlite, pg_dump_command
    from bot.store.engine import database_url

    source = existing_sqlite_file(url)
    if source is None:
        print(f"PostgreSQL: back it up with pg_dump (it asks for the password, or reads PGPASSWORD or ~/.pgpass):\n"
              f"  {pg_dump_command(database_url(url), file)}")
        return 0
    try:
        summary = backup_sqlite(source, Path(file).absolute())
    except BackupError as error:
        raise UsageError(f"db backup: {error}") from None
    print(f"backed up {source} to {summary.path}: {summary.describe()}")
    return 0


def db_restore(url: str, file: str) -> int:
    """``tripeaks db restore FILE``: put a backup in place of the SQLite database (refused while it is in use; the
    replaced file is kept); for PostgreSQL, the pg_restore command that does it."""
    from bot.store.backup import BackupError, pg_restore_command, restore_sqlite
    from bot.store.engine import database_url, sqlite_file
    from bot.store.migrate import revisions

    target = sqlite_file(url)
    if target is None:
        print(f"PostgreSQL: stop the bot, then restore with pg_restore (it asks for the password):\n"
              f"  {pg_restore_command(database_url(url), file)}")
        return 0
    try:
        restored = restore_sqlite(Path(file).absolute(), target, revisions())
    except BackupError as error:
        raise UsageError(f"db restore: {error}") from None
    print(f"restored {file} to {target}: {restored.database.describe()}")
    if restored.kept is not None:
        print(f"the database it replaced is kept as {restored.kept}")
    return 0
