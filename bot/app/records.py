"""Game rows as the app reads and hands them out: loading one for a player (with the checks every tap needs), a
stored record made into a frozen snapshot, and a typed-in code checked.

A snapshot says whether its code may be shown (:func:`code_hidden`): a game code deals every card, so the code of a
daily deal stays unsaid while its day runs, on every board and message of every game of it (the attempt, a
practice game, a challenge, a replay), on an attempt still being played whatever the day, and on a game started
from a challenge while it is played."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from bot.app.errors import BadGameCode, GameNotFound, NotYourGame
from bot.app.model import (
    NO_BREAK_HYPHEN,
    BoardRef,
    BoardStyle,
    Challenge,
    DealVerdict,
    GameSnapshot,
    Hint,
    PlayerKey,
    Settings,
)
from bot.app.outcomes import DayOver, OldBoard, OutOfDate
from bot.store import games as stored_games
from bot.store.engine import Transaction
from bot.store.games import GameRecord
from bot.store.schema import ABANDONED, BLOCKED, WON
from core.deal import GameCode, Rules
from core.errors import TriPeaksError
from core.game import Game, Outcome


def parse_code(code: str | GameCode) -> GameCode:
    """A game code from a player, or :class:`BadGameCode`."""
    if isinstance(code, GameCode):
        return code
    if not isinstance(code, str):
        raise BadGameCode(repr(code), f"not a game code: {code!r}")
    try:  # a code copied from a question, which writes it with no-break hyphens (bot.render.view.unbroken)
        return GameCode.parse(code.replace(NO_BREAK_HYPHEN, "-"))
    except TriPeaksError as error:
        raise BadGameCode(code, str(error)) from None


def settings_of(record: GameRecord) -> Settings:
    return Settings(language=record.language, explain_refusals=bool(record.explain_refusals),
                    default_rules=Rules(record.default_rules), winnable_only=record.winnable_only,
                    board=BoardStyle(record.board_style), four_colour=bool(record.four_colour))


def verdict_of(record: GameRecord) -> DealVerdict | None:
    if record.verdict_at is None and record.verdict_winnable is None:
        return None
    return DealVerdict(record.verdict_winnable, record.verdict_best_score)


def challenge_of(record: GameRecord) -> Challenge | None:
    if record.challenge_of is None or record.challenger_score is None:
        return None
    return Challenge(record.challenge_of, record.challenger_name or "", record.challenger_score,
                     record.challenger_status in (WON, BLOCKED, ABANDONED))


#: Today's date (UTC) by the service's clock: :meth:`bot.app.daily_codes.DailyCodes.today`.
Today = Callable[[], dt.date]


def code_hidden(record: GameRecord, today: dt.date) -> bool:
    """Whether ``record``'s code must not be shown on ``today``: its deal is a daily deal (its attempt, or a game of
    that deal after it: ``practice_of``) whose day is not over, or it is an attempt still being played, or a game
    started from a challenge still being played (the challenge travels without its code, so the score to beat is
    not beaten offline with ``tripeaks solve``)."""
    if record.round_id is not None and record.round_ended_at is None:
        return True  # a round's deal, until the round ends
    day = record.daily or record.practice_of
    if day is None:
        return record.challenge_of is not None and record.active
    return day >= today or (record.daily is not None and record.active)


def owner_of(record: GameRecord) -> PlayerKey:
    return PlayerKey(record.platform, record.user_id)


def snapshot_of(record: GameRecord, game: Game | None = None, *, today: dt.date, outcome: Outcome | None = None,
                hint: Hint | None = None, replaced: GameSnapshot | None = None,
                waste_changed: bool = False) -> GameSnapshot:
    """``record`` as a frozen snapshot (``game``: its engine, when at hand), on ``today`` (whether its code may be
    shown)."""
    board = (BoardRef(record.chat_id, record.message_id)
             if record.chat_id is not None and record.message_id is not None else None)
    return GameSnapshot(
        game_id=record.id, version=record.version, owner=owner_of(record), owner_name=record.owner_name,
        game=game if game is not None else Game.from_text(record.state), daily=record.daily, outcome=outcome,
        hint=hint, verdict=verdict_of(record) if record.status in (WON, BLOCKED) else None,
        hints_used=record.hints_used, abandoned=record.status == ABANDONED, settings=settings_of(record),
        undos_used=record.undos_used, dealt_winnable=record.dealt_winnable, board=board, replaced=replaced,
        waste_changed=waste_changed, challenge=challenge_of(record), practice_of=record.practice_of,
        code_hidden=code_hidden(record, today), round_id=record.round_id)


async def load_game(tx: Transaction, game_id: int) -> GameRecord:
    record = await stored_games.load(tx, game_id)
    if record is None:
        raise GameNotFound(game_id)
    return record


async def load_owned(tx: Transaction, player: PlayerKey, game_id: int) -> GameRecord:
    """The game ``game_id``, which must be ``player``'s (:class:`NotYourGame` otherwise, and for no game at all:
    one answer, so that a forged id learns nothing)."""
    record = await stored_games.load(tx, game_id)
    if record is None or owner_of(record) != player:
        raise NotYourGame()
    return record


async def load_checked(tx: Transaction, player: PlayerKey, game_id: int, version: int,
                       today: dt.date) -> GameRecord | OutOfDate | OldBoard:
    """The player's game ``game_id`` if it is still at ``version``, else why the tap is out of date (snapshots of
    ``today``)."""
    record = await load_owned(tx, player, game_id)
    if record.version != version:
        return await moved_on(tx, record, today)
    return record


async def moved_on(tx: Transaction, record: GameRecord, today: dt.date) -> OutOfDate | OldBoard:
    """Why a tap from an old board of ``record`` does nothing: the game as it stands if it is still the player's
    latest (:class:`DayOver` for a daily attempt whose day is over), else the game that is (the board must not turn
    into another game)."""
    if record.active:
        return OutOfDate(snapshot_of(record, today=today))
    latest = await stored_games.latest_of(tx, record.platform, record.user_id)
    if latest is not None and latest.id == record.id:
        day_over = record.daily is not None and record.daily < today
        return (DayOver if day_over else OutOfDate)(snapshot_of(record, today=today))
    return OldBoard(snapshot_of(latest, today=today) if latest is not None and latest.active else None)
