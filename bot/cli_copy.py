"""``tripeaks db copy --to URL``: the whole deployment (every table, the daily secret too) copied from the
configured database into a new, empty one, SQLite to PostgreSQL or back (:mod:`bot.store.copy`)."""

from __future__ import annotations

import argparse

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
