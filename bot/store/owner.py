"""What the deployment's owner keeps in the database: the blocked accounts (``blocked_accounts``), the maintenance
notice (a row of ``deployment``) and the bot-wide figures, counted in SQL."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ColumnElement, FromClause, ScalarSelect, delete, func, insert, select

from bot.store.engine import Transaction, conflict_insert
from bot.store.schema import WON, blocked_accounts, deployment, games, outbox, players, rounds

#: The ``deployment`` row holding the owner's notice.
OWNER_NOTICE = "owner_notice"


#: The figures :func:`counts` counts, in its order.
COUNTED = ("players", "games_today", "games_total", "wins", "dailies_today", "live_rounds", "outbox_backlog", "blocked")


async def block(tx: Transaction, platform: str, user_id: str, now: dt.datetime) -> bool:
    """Block the account; whether it was not blocked before."""
    statement = conflict_insert(tx, blocked_accounts).values(platform=platform, user_id=user_id, blocked_at=now)
    result = await tx.execute(statement.on_conflict_do_nothing())
    return bool(result.rowcount)


async def unblock(tx: Transaction, platform: str, user_id: str) -> bool:
    """Unblock the account; whether it was blocked."""
    result = await tx.execute(delete(blocked_accounts).where(blocked_accounts.c.platform == platform,
                                                             blocked_accounts.c.user_id == user_id))
    return bool(result.rowcount)


async def blocked(tx: Transaction) -> frozenset[tuple[str, str]]:
    """Every blocked account, as (platform, user id)."""
    rows = await tx.execute(select(blocked_accounts.c.platform, blocked_accounts.c.user_id))
    return frozenset((row.platform, row.user_id) for row in rows)


async def notice(tx: Transaction) -> str | None:
    """The owner's notice, or None."""
    return (await tx.execute(select(deployment.c.value).where(deployment.c.name == OWNER_NOTICE))).scalar_one_or_none()


async def set_notice(tx: Transaction, text: str | None) -> None:
    """The owner's notice from now on (None: none)."""
    await tx.execute(delete(deployment).where(deployment.c.name == OWNER_NOTICE))
    if text is not None:
        await tx.execute(insert(deployment).values(name=OWNER_NOTICE, value=text))


async def counts(tx: Transaction, today: dt.date) -> dict[str, int]:
    """The bot-wide figures (:data:`COUNTED`), ``today`` being the UTC day, in one statement."""
    midnight = dt.datetime.combine(today, dt.time(), dt.UTC)

    def count(table: FromClause, *where: ColumnElement[bool]) -> ScalarSelect[int]:
        return select(func.count()).select_from(table).where(*where).scalar_subquery()

    row = (await tx.execute(select(
        count(players), count(games, games.c.started_at >= midnight), count(games), count(games, games.c.status == WON),
        count(games, games.c.daily == today), count(rounds, rounds.c.ended_at.is_(None)),
        count(outbox, outbox.c.delivered_at.is_(None)), count(blocked_accounts)))).one()
    return dict(zip(COUNTED, map(int, row), strict=True))
