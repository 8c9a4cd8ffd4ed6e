"""Copying a whole deployment from one database to another: ``tripeaks db copy --to URL`` (SQLite to PostgreSQL and
back, or any of the two to a new one of the same kind).

Every table of the schema is copied row by row, ids included: players, their games (the daily attempts among
them), the servers and groups they were seen in, the daily subscriptions and posts, and the deployment's own rows
(the daily secret, so every day keeps its deal). Both databases are first brought to the latest schema, as every
start does. The target must hold no player and no subscription (everything else of a deployment's players hangs
off those): the rows a fresh migration writes there (its own daily secret) are replaced. The rows are written in one
transaction: they are all there or none is (the schema may be, created by the migrations). The source is only read; stop the bot first, so that
nothing it writes meanwhile is left behind.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import DateTime, Table, delete, func, insert, select, text
from sqlalchemy.engine import URL

from bot.store.database import open_database
from bot.store.engine import Database, DatabaseError, Transaction, sqlite_file
from bot.store.schema import daily_subscriptions, games, metadata, players

#: Rows read and written at a time.
BATCH = 1000
#: The tables whose rows are a deployment's players and channels: a target with any of them is not empty.
ROOTS = (players, daily_subscriptions)


class CopyError(Exception):
    """A copy that cannot be done; the message is one line for the operator, and the target is unchanged."""


@dataclass(frozen=True)
class Copied:
    """What a copy wrote: each table's rows, in the order copied."""

    rows: Mapping[str, int]

    def describe(self) -> str:
        """``players 3, games 12, ...``: every table with its number of rows, the players and games first."""
        first = [players.name, games.name]
        ordered = first + [name for name in self.rows if name not in first]
        return ", ".join(f"{name} {self.rows[name]:,}" for name in ordered)


async def row_counts(db: Database) -> dict[str, int]:
    """Each table of the schema and its number of rows, in the order they are copied."""
    async with db.transaction() as tx:
        return {table.name: int((await tx.execute(select(func.count()).select_from(table))).scalar_one())
                for table in metadata.sorted_tables}


async def copy_database(source_url: URL, target_url: URL) -> Copied:
    """Copy every row of the database at ``source_url`` to the one at ``target_url`` (both migrated to the latest
    schema first, the target created if need be). :class:`CopyError`, and the target left as it was, when the two are
    the same database or the target already holds players or subscriptions."""
    if _same(source_url, target_url):
        raise CopyError("the target is the database itself")
    source = await open_database(source_url)
    try:
        try:
            target = await open_database(target_url)
        except (OSError, DatabaseError) as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise CopyError(f"cannot open the target database: {reason}") from None
        try:
            return await _copy(source, target)
        finally:
            await target.close()
    finally:
        await source.close()


def _same(one: URL, other: URL) -> bool:
    def key(url: URL) -> tuple[Any, ...]:
        path = sqlite_file(url)
        return url.get_backend_name(), url.host, url.port, path.resolve() if path else url.database

    return key(one) == key(other)


async def _copy(source: Database, target: Database) -> Copied:
    copied: dict[str, int] = {}
    async with target.transaction() as writer:
        for root in ROOTS:
            if (await writer.execute(select(func.count()).select_from(root))).scalar_one():
                raise CopyError(f"the target {target.location} already holds {root.name}: copy only into a new, "
                                "empty database")
        for table in reversed(metadata.sorted_tables):  # what a fresh migration wrote (its own daily secret)
            await writer.execute(delete(table))
        async with source.transaction() as reader:
            for table in metadata.sorted_tables:
                copied[table.name] = await _copy_table(table, reader, writer)
        if not target.is_sqlite:
            await _advance_sequences(writer)
    return Copied(copied)


async def _copy_table(table: Table, reader: Transaction, writer: Transaction) -> int:
    """Every row of ``table``, in the order of its primary key (a game that answers another comes after it)."""
    zoned = [column.name for column in table.columns if isinstance(column.type, DateTime) and column.type.timezone]
    count = 0
    rows = await reader.stream(select(table).order_by(*table.primary_key.columns))
    async for batch in rows.mappings().partitions(BATCH):
        values = [_in_utc(dict(row), zoned) for row in batch]
        await writer.execute(insert(table), values)
        count += len(values)
    return count


def _in_utc(row: dict[str, Any], zoned: list[str]) -> dict[str, Any]:
    """SQLite gives its times back without their zone: they were written in UTC."""
    for name in zoned:
        value = row[name]
        if isinstance(value, dt.datetime) and value.tzinfo is None:
            row[name] = value.replace(tzinfo=dt.UTC)
    return row


async def _advance_sequences(writer: Transaction) -> None:
    """PostgreSQL: each id sequence past the ids copied, so the next row inserted gets a new one."""
    for table in metadata.sorted_tables:
        for column in table.primary_key.columns:
            if column.autoincrement is True:
                await writer.execute(text(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'), "
                    f"coalesce(max({column.name}), 0) + 1, false) FROM {table.name}"))
