"""The rounds table: a round started, read, shown and ended (once, in the database), and its entries (the games
that name it) with their players' names.

Every function runs inside a transaction the caller opened (:meth:`bot.store.engine.Database.transaction`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection
from typing import Any

from sqlalchemy import Row, case, exists, func, insert, select, update

from bot.store.engine import Transaction
from bot.store.games import rowcount
from bot.store.schema import ABANDONED, PLAYING, games, players, rounds


@dataclasses.dataclass(frozen=True)
class RoundRecord:
    """A round's row (the rounds table's columns of the same names)."""

    id: int
    platform: str
    chat_id: str
    message_id: str | None
    code: str
    chosen: bool
    host: str
    locale: str
    minutes: int
    started_at: dt.datetime
    ends_at: dt.datetime
    ended_at: dt.datetime | None
    results_at: dt.datetime | None

    @classmethod
    def from_row(cls, row: Row[Any]) -> RoundRecord:
        return cls(**_aware_values(row))


#: The columns a round's record reads: all but the secret its message may be edited with (:func:`reply_token`).
_COLUMNS = [column for column in rounds.c if column.name != "reply_token"]


def _aware_values(row: Any) -> dict[str, Any]:
    """A row's values, its moments in UTC (SQLite reads one back without its zone)."""
    return {name: value.replace(tzinfo=dt.UTC) if isinstance(value, dt.datetime) and value.tzinfo is None else value
            for name, value in row._asdict().items()}


@dataclasses.dataclass(frozen=True)
class EntryRecord:
    """One player's game in a round, as it stands: its state (the engine's text), status, score and moves, hints,
    when it started and ended, and the player's name."""

    game_id: int
    platform: str
    user_id: str
    name: str
    state: str
    status: str
    score: int
    moves: int
    hints_used: int
    version: int
    started_at: dt.datetime
    finished_at: dt.datetime | None


_ROUND = select(*_COLUMNS)


async def insert_round(tx: Transaction, *, platform: str, chat_id: str, code: str, chosen: bool, host: str,
                       locale: str, minutes: int, now: dt.datetime) -> RoundRecord:
    """A new round in ``chat_id``, running from ``now`` for ``minutes``."""
    row = (await tx.execute(insert(rounds).values(
        platform=platform, chat_id=chat_id, code=code, chosen=chosen, host=host, locale=locale, minutes=minutes,
        started_at=now,
        ends_at=now + dt.timedelta(minutes=minutes), ended_at=None, results_at=None, message_id=None)
        .returning(*_COLUMNS))).one()
    return RoundRecord.from_row(row)


async def running_in(tx: Transaction, platform: str, chat_id: str, now: dt.datetime) -> RoundRecord | None:
    """The round running in ``chat_id`` (not ended, its time not up), if any; the caller holds the chat's lock
    (:func:`lock_chat`), so that two callers never both start one there."""
    row = (await tx.execute(_ROUND.where(rounds.c.platform == platform, rounds.c.chat_id == chat_id,
                                         rounds.c.ended_at.is_(None), rounds.c.ends_at > now)
                            .order_by(rounds.c.id.desc()).limit(1))).one_or_none()
    return None if row is None else RoundRecord.from_row(row)


async def lock_chat(tx: Transaction, platform: str, chat_id: str) -> None:
    """Hold the rounds of ``chat_id`` until ``tx`` ends (PostgreSQL: an advisory lock on its name; SQLite: the
    transaction already holds the database's write lock)."""
    if tx.dialect.name == "postgresql":
        await tx.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(f"round {platform} {chat_id}", 0))))


async def load_round(tx: Transaction, round_id: int) -> RoundRecord | None:
    row = (await tx.execute(_ROUND.where(rounds.c.id == round_id))).one_or_none()
    return None if row is None else RoundRecord.from_row(row)


async def set_message(tx: Transaction, round_id: int, message_id: str, reply_token: str | None = None) -> None:
    """Where the round's message is (in its chat), and the token it is edited with where the bot edits it as an
    interaction's response (None: with the bot's own)."""
    await tx.execute(update(rounds).where(rounds.c.id == round_id).values(message_id=message_id,
                                                                           reply_token=reply_token))


async def reply_token(tx: Transaction, round_id: int) -> str | None:
    """The token the round's message is edited with, where it is an interaction's response (a secret)."""
    return (await tx.execute(select(rounds.c.reply_token).where(rounds.c.id == round_id))).scalar_one_or_none()


async def entries(tx: Transaction, round_id: int) -> list[EntryRecord]:
    """The round's entries, in the order they joined."""
    rows = (await tx.execute(
        select(games.c.id.label("game_id"), players.c.platform, players.c.user_id,
               players.c.display_name.label("name"), games.c.state, games.c.status, games.c.score, games.c.moves,
               games.c.hints_used, games.c.version, games.c.started_at, games.c.finished_at)
        .select_from(games.join(players, players.c.id == games.c.player_id))
        .where(games.c.round_id == round_id).order_by(games.c.id))).all()
    return [EntryRecord(**_aware_values(row)) for row in rows]


async def entry_of(tx: Transaction, round_id: int, player_id: int) -> int | None:
    """The game the player ``player_id`` plays in the round, if they joined."""
    return (await tx.execute(select(games.c.id).where(games.c.round_id == round_id,
                                                      games.c.player_id == player_id))).scalar_one_or_none()


async def end_due(tx: Transaction, platform: str, now: dt.datetime) -> list[int]:
    """The rounds of ``platform`` whose time is up, ended now (each by one caller only): their ids."""
    result = await tx.execute(
        update(rounds).where(rounds.c.platform == platform, rounds.c.ended_at.is_(None), rounds.c.ends_at <= now)
        .values(ended_at=now).returning(rounds.c.id))
    return [int(row.id) for row in result.all()]


async def running_changes(tx: Transaction, platform: str) -> dict[int, tuple[int, int]]:
    """The running rounds of ``platform`` with a message, each with a mark of its entries' state (how many, the sum
    of their versions): a mark that changed says a move was made (in any process, at the table too)."""
    running = select(rounds.c.id).where(rounds.c.platform == platform, rounds.c.ended_at.is_(None),
                                        rounds.c.message_id.is_not(None))
    rows = (await tx.execute(
        select(games.c.round_id, func.count().label("n"), func.sum(games.c.version).label("versions"))
        .where(games.c.round_id.in_(running)).group_by(games.c.round_id))).all()
    return {int(row.round_id): (int(row.n), int(row.versions)) for row in rows}


async def marks(tx: Transaction, round_ids: Collection[int]) -> dict[int, tuple[bool, int, int]]:
    """Each of the rounds ``round_ids`` with a mark of its state (ended, how many entries, the sum of their
    versions): a mark that changed says the round moved (a join, a move, its end), in any process."""
    if not round_ids:
        return {}
    counted = (select(games.c.round_id, func.count().label("n"), func.sum(games.c.version).label("versions"))
               .where(games.c.round_id.in_(round_ids)).group_by(games.c.round_id).subquery())
    rows = (await tx.execute(
        select(rounds.c.id, rounds.c.ended_at, counted.c.n, counted.c.versions)
        .select_from(rounds.outerjoin(counted, counted.c.round_id == rounds.c.id))
        .where(rounds.c.id.in_(round_ids)))).all()
    return {int(row.id): (row.ended_at is not None, int(row.n or 0), int(row.versions or 0)) for row in rows}


async def results_unshown(tx: Transaction, platform: str, ended_before: dt.datetime) -> list[int]:
    """The rounds of ``platform`` that ended before ``ended_before`` and whose message has not shown their results
    (a process stopped before the last edit landed): to show them again."""
    result = await tx.execute(select(rounds.c.id).where(
        rounds.c.platform == platform, rounds.c.results_at.is_(None), rounds.c.ended_at < ended_before,
        rounds.c.message_id.is_not(None)).order_by(rounds.c.id))
    return [int(row.id) for row in result.all()]


async def results_shown(tx: Transaction, round_id: int, now: dt.datetime) -> None:
    """The round's message shows its results (or never will: the token it was edited with ran out); the token, no
    longer needed, is forgotten."""
    await tx.execute(update(rounds).where(rounds.c.id == round_id).values(results_at=now, reply_token=None))


async def end_if_all_finished(tx: Transaction, round_id: int, now: dt.datetime) -> bool:
    """The round ended now if every entry has finished (none still playing); True for the one caller that ended
    it."""
    playing = exists().where(games.c.round_id == round_id, games.c.status == PLAYING, games.c.active)
    result = await tx.execute(
        update(rounds).where(rounds.c.id == round_id, rounds.c.ended_at.is_(None), ~playing)
        .values(ended_at=now))
    return rowcount(result) == 1


async def close_entries(tx: Transaction, round_id: int, now: dt.datetime) -> None:
    """The round's games still open end as they stand (one still playing counts as it stands, not won)."""
    await tx.execute(
        update(games).where(games.c.round_id == round_id, games.c.active)
        .values(active=False, version=games.c.version + 1, updated_at=now,
                status=case((games.c.status == PLAYING, ABANDONED), else_=games.c.status),
                finished_at=func.coalesce(games.c.finished_at, now)))


async def tally_of(tx: Transaction, platform: str, user_id: str) -> list[tuple[int, list[EntryRecord]]]:
    """Every ended round the player joined, with all its entries (the app ranks them): for the statistics."""
    player = select(players.c.id).where(players.c.platform == platform, players.c.user_id == user_id)
    joined = select(games.c.round_id).where(games.c.player_id == player.scalar_subquery(),
                                            games.c.round_id.is_not(None))
    ended = (await tx.execute(select(rounds.c.id).where(
        rounds.c.id.in_(joined), rounds.c.ended_at.is_not(None)).order_by(rounds.c.id))).scalars().all()
    return [(int(round_id), await entries(tx, int(round_id))) for round_id in ended]
