"""The daily deal's tables: subscribed channels, the claimed and sent posts, and the finished daily games a
leaderboard ranks."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence

from sqlalchemy import insert, select, update

from bot.store.engine import Transaction, conflict_insert
from bot.store.games import rowcount
from bot.store.schema import (
    ABANDONED,
    BLOCKED,
    POST_CLAIMED,
    POST_FAILED,
    POST_SENT,
    WON,
    community_players,
    daily_posts,
    daily_subscriptions,
    games,
    players,
)


@dataclasses.dataclass(frozen=True)
class SubscriptionRecord:
    id: int
    platform: str
    channel_id: str
    community: str | None
    locale: str


@dataclasses.dataclass(frozen=True)
class DailyGameRecord:
    """A finished daily game and its player, as a leaderboard reads it."""

    player_id: int
    platform: str
    display_name: str
    user_id: str
    community: str | None
    won: bool
    finished: bool
    score: int
    moves: int
    hints_used: int
    undos_used: int
    started_at: dt.datetime
    finished_at: dt.datetime | None
    updated_at: dt.datetime


def _aware(moment: dt.datetime) -> dt.datetime:
    """SQLite returns stored times without their zone; they are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


async def subscribe(tx: Transaction, platform: str, channel_id: str, community: str | None, locale: str, by: str,
                    now: dt.datetime) -> bool:
    """Add the subscription; False if the channel had one (its language and community are then updated)."""
    where = (daily_subscriptions.c.platform == platform, daily_subscriptions.c.channel_id == channel_id)
    found = (await tx.execute(select(daily_subscriptions.c.id).where(*where))).first()
    if found is not None:
        await tx.execute(update(daily_subscriptions).where(*where).values(locale=locale, community=community))
        return False
    await tx.execute(insert(daily_subscriptions).values(
        platform=platform, channel_id=channel_id, community=community, locale=locale, created_by=by, created_at=now))
    return True


async def unsubscribe(tx: Transaction, platform: str, channel_id: str) -> bool:
    result = await tx.execute(daily_subscriptions.delete().where(
        daily_subscriptions.c.platform == platform, daily_subscriptions.c.channel_id == channel_id))
    return rowcount(result) > 0


async def subscriptions(tx: Transaction, platforms: Sequence[str] | None = None,
                        unsent_on: dt.date | None = None) -> list[SubscriptionRecord]:
    """The subscriptions (of ``platforms``; with ``unsent_on``, only those with no post of that day sent or given
    up), oldest first."""
    query = select(daily_subscriptions).order_by(daily_subscriptions.c.id)
    if platforms is not None:
        query = query.where(daily_subscriptions.c.platform.in_(platforms))
    if unsent_on is not None:
        done = select(daily_posts.c.subscription_id).where(daily_posts.c.day == unsent_on,
                                                           daily_posts.c.status != POST_CLAIMED)
        query = query.where(daily_subscriptions.c.id.not_in(done))
    rows = (await tx.execute(query)).all()
    return [SubscriptionRecord(row.id, row.platform, row.channel_id, row.community, row.locale) for row in rows]


async def claim_post(tx: Transaction, subscription_id: int, day: dt.date, now: dt.datetime,
                     lease: dt.timedelta) -> bool:
    """Claim the post of ``day``: True for the one caller that may send it; a claim older than ``lease`` that was
    never marked sent (its process died) can be claimed again."""
    values = {"subscription_id": subscription_id, "day": day, "status": POST_CLAIMED, "claimed_at": now}
    dialect_name = tx.dialect.name
    if dialect_name in ("postgresql", "sqlite"):
        statement = conflict_insert(tx, daily_posts).values(**values).on_conflict_do_nothing(
            index_elements=[daily_posts.c.subscription_id, daily_posts.c.day])
        if rowcount(await tx.execute(statement)) == 1:
            return True
    else:
        exists = (await tx.execute(select(daily_posts.c.id).where(
            daily_posts.c.subscription_id == subscription_id, daily_posts.c.day == day))).first()
        if exists is None:
            await tx.execute(insert(daily_posts).values(**values))
            return True
    stale = await tx.execute(
        update(daily_posts)
        .where(daily_posts.c.subscription_id == subscription_id, daily_posts.c.day == day,
               daily_posts.c.status == POST_CLAIMED, daily_posts.c.claimed_at < now - lease)
        .values(claimed_at=now))
    return rowcount(stale) == 1


async def finish_post(tx: Transaction, subscription_id: int, day: dt.date, now: dt.datetime,
                      message_id: str | None, error: str | None) -> None:
    await tx.execute(
        update(daily_posts)
        .where(daily_posts.c.subscription_id == subscription_id, daily_posts.c.day == day)
        .values(status=POST_FAILED if error is not None else POST_SENT, sent_at=now, message_id=message_id,
                error=error[:200] if error is not None else None))


async def release_post(tx: Transaction, subscription_id: int, day: dt.date) -> None:
    await tx.execute(daily_posts.delete().where(
        daily_posts.c.subscription_id == subscription_id, daily_posts.c.day == day,
        daily_posts.c.status == POST_CLAIMED))


async def daily_games(tx: Transaction, platform: str | None, day: dt.date,
                      community: str | None) -> list[DailyGameRecord]:
    """The attempts at the deal of ``day`` (one a player, finished or not) of the players of ``platform`` seen in
    ``community``, wherever each attempt was played; with ``platform`` and ``community`` None, everyone's on the
    deployment."""
    query = (
        select(players.c.id.label("player_id"), players.c.platform, players.c.display_name, players.c.user_id,
               games.c.community, games.c.status, games.c.score, games.c.moves, games.c.hints_used,
               games.c.undos_used, games.c.started_at, games.c.finished_at, games.c.updated_at)
        .join_from(games, players, games.c.player_id == players.c.id)
        .where(games.c.daily == day)
        .order_by(games.c.id))
    if community is not None:
        seen = select(community_players.c.player_id).where(community_players.c.community == community)
        query = query.where(players.c.id.in_(seen))
    rows = (await tx.execute(query)).all()
    # the platform is checked on the rows found: searched by, SQLite would read every player of the platform
    rows = [row for row in rows if platform is None or row.platform == platform]
    return [DailyGameRecord(
        player_id=row.player_id, platform=row.platform, display_name=row.display_name, user_id=row.user_id, community=row.community,
        won=row.status == WON, finished=row.status in (WON, BLOCKED, ABANDONED), score=row.score, moves=row.moves,
        hints_used=row.hints_used, undos_used=row.undos_used, started_at=_aware(row.started_at),
        finished_at=_aware(row.finished_at) if row.finished_at is not None else None,
        updated_at=_aware(row.updated_at))
        for row in rows]


async def seen_in(tx: Transaction, player_id: int, community: str, now: dt.datetime) -> None:
    """The player was seen in ``community`` (a server or group): its leaderboard lists their attempts."""
    await tx.execute(conflict_insert(tx, community_players).values(player_id=player_id, community=community, seen_at=now)
                     .on_conflict_do_nothing())


async def seen_in_community(tx: Transaction, platform: str, user_id: str, community: str, now: dt.datetime) -> bool:
    """The player ``user_id`` of ``platform`` was seen in ``community`` (any command or tap there): its leaderboard
    lists their attempts, wherever played. False when there is no such player yet (their first game makes one)."""
    player_id = (await tx.execute(select(players.c.id).where(players.c.platform == platform,
                                                             players.c.user_id == user_id))).scalar()
    if player_id is None:
        return False
    await seen_in(tx, player_id, community, now)
    return True
