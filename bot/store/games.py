"""The games table: reading a game with its owner, starting, writing, abandoning, and the solver's verdicts.

Every function runs inside a transaction the caller opened (:meth:`bot.store.engine.Database.transaction`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import CursorResult, Row, Select, bindparam, case, func, insert, select, true, update

from bot.store.changes import announce
from bot.store.engine import Transaction
from bot.store.players import PlayerRecord
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, WON, games, players, rounds


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """A game row with its owner's row, as read (or as just written). The fields before ``owner_id`` are the
    games table's columns of the same names; the rest are the owner's (:data:`_OWNER_COLUMNS`)."""

    id: int
    code: str
    rules: str
    state: str
    version: int
    status: str
    active: bool
    moves: int
    daily: dt.date | None
    practice_of: dt.date | None
    dealt_winnable: bool
    hints_used: int
    undos_used: int
    verdict_winnable: bool | None
    verdict_best_score: int | None
    verdict_at: dt.datetime | None
    chat_id: str | None
    message_id: str | None
    challenge_of: int | None
    owner_id: int
    platform: str
    user_id: str
    owner_name: str
    language: str | None
    explain_refusals: bool
    default_rules: str
    winnable_only: bool | None
    board_style: str
    four_colour: bool
    seen_locale: str | None
    #: the challenged game (``challenge_of``) as it stands: its player's name, score and status
    challenger_name: str | None = None
    challenger_score: int | None = None
    challenger_status: str | None = None
    #: the round this game is an entry in (``round_id``), and when that round ends and ended (None: still running)
    round_id: int | None = None
    round_ends_at: dt.datetime | None = None
    round_ended_at: dt.datetime | None = None

    @classmethod
    def from_row(cls, row: Row[Any]) -> GameRecord:
        values = row._asdict()
        for name in ("round_ends_at", "round_ended_at"):  # SQLite reads a moment back without its zone: UTC
            moment = values.get(name)
            if moment is not None and moment.tzinfo is None:
                values[name] = moment.replace(tzinfo=dt.UTC)
        return cls(**values)


@dataclasses.dataclass(frozen=True)
class NewGameRow:
    """A game about to start, as its row is inserted (:func:`insert_game`): fresh, playing and its player's current
    game, with no move, hint or undo yet; the names are the games table's columns."""

    code: str
    rules: str
    state: str
    score: int
    daily: dt.date | None
    practice_of: dt.date | None
    dealt_winnable: bool
    verdict_winnable: bool | None
    verdict_best_score: int | None
    verdict_at: dt.datetime | None
    chat_id: str | None
    community: str | None
    started_at: dt.datetime
    challenge_of: int | None = None
    round_id: int | None = None


@dataclasses.dataclass(frozen=True)
class StateWrite:
    """One applied action's new state, written only if the row is still at ``seen_version``."""

    game_id: int
    seen_version: int
    state: str
    status: str
    score: int
    moves: int
    undos_used: int
    now: dt.datetime
    #: still the player's current game: playing, or (not a ranked daily attempt) blocked and open to undo
    active: bool


#: The owner's fields of :class:`GameRecord`, and the players table's column each is read from (the name of a
#: :class:`PlayerRecord` field too).
_OWNER_COLUMNS = {
    "owner_id": players.c.id, "platform": players.c.platform, "user_id": players.c.user_id,
    "owner_name": players.c.display_name, "language": players.c.language,
    "explain_refusals": players.c.explain_refusals, "default_rules": players.c.default_rules,
    "winnable_only": players.c.winnable_only, "board_style": players.c.board_style,
    "four_colour": players.c.four_colour, "seen_locale": players.c.seen_locale,
}
_CHALLENGED = games.alias("challenged")
_CHALLENGER = players.alias("challenger")
#: The challenged game's fields of :class:`GameRecord` (None when the game answers no challenge).
_CHALLENGER_COLUMNS = {
    "challenger_name": _CHALLENGER.c.display_name, "challenger_score": _CHALLENGED.c.score,
    "challenger_status": _CHALLENGED.c.status,
}
#: The round's fields of :class:`GameRecord` (None when the game is in no round).
_ROUND_COLUMNS = {"round_ends_at": rounds.c.ends_at, "round_ended_at": rounds.c.ended_at}
#: The games table's columns :class:`GameRecord` holds.
_GAME_COLUMNS = tuple(games.c[field.name] for field in dataclasses.fields(GameRecord)
                      if field.name not in _OWNER_COLUMNS and field.name not in _CHALLENGER_COLUMNS
                      and field.name not in _ROUND_COLUMNS)
_SELECT: Select[Any] = select(
    *_GAME_COLUMNS, *(column.label(name) for name, column in _OWNER_COLUMNS.items()),
    *(column.label(name) for name, column in _CHALLENGER_COLUMNS.items()),
    *(column.label(name) for name, column in _ROUND_COLUMNS.items()),
).select_from(
    games.join(players, games.c.player_id == players.c.id)
    .outerjoin(_CHALLENGED, _CHALLENGED.c.id == games.c.challenge_of)
    .outerjoin(_CHALLENGER, _CHALLENGER.c.id == _CHALLENGED.c.player_id)
    .outerjoin(rounds, rounds.c.id == games.c.round_id))

#: One statement for every action of a batch: each row written only if it is still at the version read.
_WRITE_STATE = (
    update(games)
    .where(games.c.id == bindparam("b_id"), games.c.version == bindparam("b_version"))
    .values(state=bindparam("state"), version=bindparam("b_version") + 1, status=bindparam("status"),
            active=bindparam("active"), score=bindparam("score"), moves=bindparam("moves"),
            undos_used=bindparam("undos_used"), updated_at=bindparam("updated_at"),
            finished_at=bindparam("finished_at"))
)


def rowcount(result: Any) -> int:
    return cast(CursorResult[Any], result).rowcount


async def load(tx: Transaction, game_id: int) -> GameRecord | None:
    row = (await tx.execute(_SELECT.where(games.c.id == game_id))).one_or_none()
    return None if row is None else GameRecord.from_row(row)


async def version_of(tx: Transaction, game_id: int) -> int | None:
    """The game's version alone (one column of one row, by its key), or None when there is no such game."""
    return cast(int | None, (await tx.execute(select(games.c.version).where(games.c.id == game_id))).scalar())


async def load_for_update(tx: Transaction, game_ids: Sequence[int], *, lock_rows: bool) -> dict[int, GameRecord]:
    """The games ``game_ids``; with ``lock_rows`` (PostgreSQL) their rows are locked in id order until the commit, so
    the versions read stay the versions written against."""
    query = _SELECT.where(games.c.id.in_(game_ids)) if len(game_ids) > 1 else _SELECT.where(games.c.id == game_ids[0])
    if lock_rows:
        query = query.order_by(games.c.id).with_for_update(of=games)
    return {row.id: GameRecord.from_row(row) for row in await tx.execute(query)}


async def write_states(tx: Transaction, writes: Sequence[StateWrite]) -> bool:
    """Write every new state with its version check; False if some row had moved on (only detectable where the
    driver reports the rows an executemany matched)."""
    result = await tx.execute(_WRITE_STATE, [{
        "b_id": w.game_id, "b_version": w.seen_version, "state": w.state, "status": w.status,
        "active": w.active, "score": w.score, "moves": w.moves, "undos_used": w.undos_used,
        "updated_at": w.now, "finished_at": None if w.status == PLAYING else w.now} for w in writes])
    await announce(tx)
    checked = len(writes) == 1 or tx.dialect.supports_sane_multi_rowcount
    return not checked or rowcount(result) == len(writes)


async def active_of(tx: Transaction, platform: str, user_id: str) -> GameRecord | None:
    """The player's current game (playing, or blocked and so still open to undo)."""
    row = (await tx.execute(_SELECT.where(players.c.platform == platform, players.c.user_id == user_id,
                                          games.c.active == true()))).one_or_none()
    return None if row is None else GameRecord.from_row(row)


async def latest_of(tx: Transaction, platform: str, user_id: str) -> GameRecord | None:
    """The player's newest game, whatever its status."""
    row = (await tx.execute(_SELECT.where(players.c.platform == platform, players.c.user_id == user_id)
                            .order_by(games.c.id.desc()).limit(1))).first()
    return None if row is None else GameRecord.from_row(row)


async def daily_attempt(tx: Transaction, platform: str, user_id: str, day: dt.date) -> GameRecord | None:
    """The player's attempt at the daily deal of ``day``: their first game marked with that day."""
    row = (await tx.execute(_SELECT.where(players.c.platform == platform, players.c.user_id == user_id,
                                          games.c.daily == day).order_by(games.c.id).limit(1))).first()
    return None if row is None else GameRecord.from_row(row)


async def set_board(tx: Transaction, game_id: int, chat_id: str, message_id: str) -> None:
    """Where the game's live board now is."""
    await tx.execute(update(games).where(games.c.id == game_id).values(chat_id=chat_id, message_id=message_id))


async def end_active(tx: Transaction, owner_id: int, now: dt.datetime) -> None:
    """The player's current game stops being current; one still playing ends as abandoned."""
    await tx.execute(
        update(games)
        .where(games.c.player_id == owner_id, games.c.active == true())
        .values(active=False, version=games.c.version + 1, updated_at=now,
                status=case((games.c.status == PLAYING, ABANDONED), else_=games.c.status),
                finished_at=func.coalesce(games.c.finished_at, now)))
    await announce(tx)


async def end_attempts_before(tx: Transaction, day: dt.date, now: dt.datetime, *, game_id: int | None = None) -> int:
    """Every daily attempt of a day before ``day`` still open (or only the game ``game_id``, if it is one) ends as it
    stands: one still playing as abandoned (played and not won, or untouched), a blocked one stays blocked. Returns
    how many ended."""
    chosen = games.c.id == game_id if game_id is not None else true()
    result = await tx.execute(
        update(games)
        .where(games.c.daily < day, games.c.active == true(), chosen)
        .values(active=False, version=games.c.version + 1, updated_at=now,
                status=case((games.c.status == PLAYING, ABANDONED), else_=games.c.status),
                finished_at=func.coalesce(games.c.finished_at, now)))
    ended = rowcount(result)
    if ended:
        await announce(tx)
    return ended


async def known_verdict(tx: Transaction, code: str) -> tuple[bool | None, int | None, dt.datetime] | None:
    """The verdict stored on any game of the deal ``code``, if one is."""
    row = (await tx.execute(
        select(games.c.verdict_winnable, games.c.verdict_best_score, games.c.verdict_at)
        .where(games.c.code == code, games.c.verdict_at.is_not(None)).limit(1))).first()
    return None if row is None else (row.verdict_winnable, row.verdict_best_score, row.verdict_at)


async def insert_game(tx: Transaction, owner: PlayerRecord, game: NewGameRow) -> GameRecord:
    """``game``, inserted as ``owner``'s new current game (their previous one must have ended: :func:`end_active`);
    returns it as written."""
    values = dataclasses.asdict(game)
    row = (await tx.execute(
        insert(games)
        .values(player_id=owner.id, version=0, status=PLAYING, active=True, moves=0, hints_used=0, undos_used=0,
                updated_at=game.started_at, finished_at=None, message_id=None, **values)
        .returning(*_GAME_COLUMNS))).one()
    await announce(tx)
    # PlayerRecord's fields are named as the players table's columns
    return GameRecord(**row._asdict(), **{name: getattr(owner, column.name) for name, column in _OWNER_COLUMNS.items()})


async def count_hint(tx: Transaction, game_id: int, version: int) -> int | None:
    """A hint used on the game at ``version``, counted once per position (a hint asked again at the same version
    is not counted again); the hints used now, or None if the game is no longer at ``version``."""
    counted = games.c.hinted_version.is_not_distinct_from(version)
    row = (await tx.execute(
        update(games).where(games.c.id == game_id, games.c.version == version)
        .values(hints_used=games.c.hints_used + case((counted, 0), else_=1), hinted_version=version)
        .returning(games.c.hints_used))).first()
    return None if row is None else int(row.hints_used)


async def store_verdict(tx: Transaction, code: str, winnable: bool | None, best_score: int | None,
                        now: dt.datetime) -> None:
    """The verdict on the deal ``code``, on every game of it still without one."""
    values: dict[str, object] = {"verdict_best_score": best_score, "verdict_at": now}
    if winnable is not None:
        values["verdict_winnable"] = winnable
    await tx.execute(update(games).where(games.c.code == code, games.c.verdict_at.is_(None)).values(**values))


@dataclasses.dataclass(frozen=True)
class PlayedTally:
    """A player's games played (ended after at least one move), as counted in the database (:func:`tally_of`)."""

    games: int
    wins: int
    #: the best score of a game played to its end (won or blocked); None before the first
    best_score: int | None
    #: consecutive wins at the end of the player's history, and the longest such run, by the time games ended
    current_streak: int
    longest_streak: int


async def tally_of(tx: Transaction, platform: str, user_id: str) -> PlayedTally:
    """The player's statistics, counted in one statement over their ended games (through the index on
    ``(player_id, finished_at)``), not read game by game: a game left untouched is no game, an abandoned one after
    a move is played and not won (and ends a run of wins)."""
    player = select(players.c.id).where(players.c.platform == platform, players.c.user_id == user_id)
    # each played game with the count of games not won so far: a run of wins shares one such number
    played = (
        select(games.c.status, games.c.score,
               func.sum(case((games.c.status == WON, 0), else_=1))
               .over(order_by=(games.c.finished_at, games.c.id)).label("run"))
        .where(games.c.player_id == player.scalar_subquery(), games.c.status != PLAYING, games.c.moves > 0)
        .cte("played"))
    won = case((played.c.status == WON, 1), else_=0)
    totals = select(
        func.count().label("games"), func.coalesce(func.sum(won), 0).label("wins"),
        func.max(case((played.c.status.in_((WON, BLOCKED)), played.c.score))).label("best_score"),
        func.coalesce(func.max(played.c.run), 0).label("last_run"),
    ).subquery("totals")
    runs = select(played.c.run, func.sum(won).label("wins")).group_by(played.c.run).subquery("runs")
    row = (await tx.execute(
        select(totals.c.games, totals.c.wins, totals.c.best_score,
               func.coalesce(func.max(case((runs.c.run == totals.c.last_run, runs.c.wins))), 0).label("current"),
               func.coalesce(func.max(runs.c.wins), 0).label("longest"))
        .select_from(totals.outerjoin(runs, true()))
        .group_by(totals.c.games, totals.c.wins, totals.c.best_score, totals.c.last_run))).one()
    return PlayedTally(games=int(row.games), wins=int(row.wins),
                       best_score=None if row.best_score is None else int(row.best_score),
                       current_streak=int(row.current), longest_streak=int(row.longest))
