"""The players table: a player keyed by (platform, user id), their display name and their settings."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import Any

from sqlalchemy import insert, select, update

from bot.store.engine import Transaction, conflict_insert
from bot.store.schema import players


@dataclasses.dataclass(frozen=True)
class PlayerRecord:
    id: int
    platform: str
    user_id: str
    display_name: str
    language: str | None
    explain_refusals: bool
    default_rules: str
    winnable_only: bool | None
    board_style: str
    four_colour: bool
    #: the platform's locale the player was last seen with (:func:`seen_with`)
    seen_locale: str | None


_RETURNING = (players.c.id, players.c.platform, players.c.user_id, players.c.display_name, players.c.language,
              players.c.explain_refusals, players.c.default_rules, players.c.winnable_only, players.c.board_style,
              players.c.four_colour, players.c.seen_locale)
#: A new player's settings (the tables' defaults; tests of the text board change ``board_style`` here).
NEW_PLAYER: dict[str, object] = {"display_name": "", "language": None, "explain_refusals": True,
                                 "default_rules": "easy", "board_style": "picture", "four_colour": False}
#: The columns a caller may change.
SETTABLE = frozenset({"display_name", "language", "explain_refusals", "default_rules", "winnable_only",
                      "board_style", "four_colour"})


def _record(row: Any) -> PlayerRecord:
    return PlayerRecord(row.id, row.platform, row.user_id, row.display_name, row.language,
                        bool(row.explain_refusals), row.default_rules, row.winnable_only, row.board_style,
                        bool(row.four_colour), row.seen_locale)


async def find(tx: Transaction, platform: str, user_id: str) -> PlayerRecord | None:
    row = (await tx.execute(select(*_RETURNING).where(players.c.platform == platform,
                                                      players.c.user_id == user_id))).one_or_none()
    return None if row is None else _record(row)


async def upsert(tx: Transaction, platform: str, user_id: str, changes: Mapping[str, object],
                 now: dt.datetime) -> PlayerRecord:
    """Create the player if new and apply ``changes`` (columns of :data:`SETTABLE`) in one statement; returns the
    row as it now is. On PostgreSQL the row stays locked until the commit, so two starts of one player queue."""
    unknown = set(changes) - SETTABLE
    if unknown:
        raise ValueError(f"not player columns: {sorted(unknown)}")
    values: dict[str, object] = {"platform": platform, "user_id": user_id, **NEW_PLAYER, "created_at": now,
                                 **changes}
    dialect_name = tx.dialect.name
    if dialect_name in ("postgresql", "sqlite"):
        statement = conflict_insert(tx, players).values(**values)
        # a no-op update when nothing changes, so the row is returned (and, on PostgreSQL, locked)
        statement = statement.on_conflict_do_update(
            index_elements=[players.c.platform, players.c.user_id],
            set_={key: statement.excluded[key] for key in changes} or {"platform": statement.excluded.platform})
        return _record((await tx.execute(statement.returning(*_RETURNING))).one())
    where = (players.c.platform == platform, players.c.user_id == user_id)
    found = (await tx.execute(select(*_RETURNING).where(*where).with_for_update())).one_or_none()
    if found is None:
        await tx.execute(insert(players).values(**values))
    elif changes:
        await tx.execute(update(players).where(*where).values(**changes))
    return _record((await tx.execute(select(*_RETURNING).where(*where))).one())


async def seen_locale(tx: Transaction, platform: str, user_id: str) -> tuple[bool, str | None]:
    """Whether the player is known, and the platform's locale they were last seen with."""
    row = (await tx.execute(select(players.c.seen_locale).where(players.c.platform == platform,
                                                                players.c.user_id == user_id))).one_or_none()
    return (False, None) if row is None else (True, row.seen_locale)


async def seen_with(tx: Transaction, platform: str, user_id: str, locale: str) -> None:
    """Record ``locale`` as the platform's locale the player was last seen with."""
    await tx.execute(update(players).where(players.c.platform == platform, players.c.user_id == user_id)
                     .values(seen_locale=locale))


async def rename(tx: Transaction, player_id: int, name: str) -> None:
    await tx.execute(update(players).where(players.c.id == player_id).values(display_name=name))
