"""What a use case answers besides the game itself, as values: a start that must be confirmed first, a start or a
tap that found the game moved on. Errors (a forged payload, a game that is not the player's) are exceptions in
:mod:`bot.app.errors`; these are ordinary answers a player meets every day.

- :class:`MustConfirm`: starting would abandon a game in progress with moves; the player is asked first.
- :class:`AlreadyStarted`: the start was tapped twice; the first tap started the game, the second does nothing.
- :class:`OldBoard`: a tap on the board of a game that is no longer the player's latest: nothing changed, and the
  board must not turn into another game.
- :class:`OutOfDate`: a tap from an older version of the board that did nothing: a double tap of Draw or Undo
  (``repeat``: the first tap did it), or a tap on a board of a game that has ended since; ``current`` is the game
  as it stands, to show. :class:`DayOver`: one on a daily attempt whose day is over; :class:`HintOvertaken`: a hint whose
  position the player moved on from before it came.

What a player is told went wrong, an error or a tap that did nothing, is one family (:data:`Mishap`), which the
renderer matches once and exhaustively: a member added and told nowhere fails ``mypy``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.app.commands import StartRequest
from bot.app.errors import (
    AmbiguousCard,
    BadGameCode,
    BadOwnerCommand,
    BadPayload,
    Blocked,
    BotError,
    Busy,
    CardNotInPlay,
    DailyCodeLocked,
    DailyOver,
    GameNotFound,
    GameNotOver,
    NoActiveGame,
    NoSuchRound,
    NotACard,
    NotAPlayer,
    NotOwner,
    NotYourGame,
    NotYourMessage,
    NoUndoInDaily,
    NoUndoInRound,
    NoWinnableDeal,
    OneAtATime,
    RoundMinutes,
    RoundMinutesCut,
    RoundOver,
    RoundsInGroupsOnly,
    TappedTwice,
    TryAgainIn,
)
from bot.app.model import GameSnapshot
from core.errors import InvalidCardError, InvalidCodeError
from core.game import Draw, Undo


@dataclass(frozen=True)
class MustConfirm:
    """Starting ``request`` would abandon ``current``, a game in progress with moves."""

    current: GameSnapshot
    request: StartRequest


@dataclass(frozen=True)
class AlreadyStarted:
    """Yes or Replay tapped twice: the game the first tap started has started."""


@dataclass(frozen=True)
class OldBoard:
    """A tap on the board of a game that is no longer the player's latest; ``current`` is their game in progress
    now, if any."""

    current: GameSnapshot | None


@dataclass(frozen=True)
class OutOfDate:
    """A tap from an older version of the board that did nothing; ``current`` is the game as it stands;
    ``repeat``: the Draw or Undo of a double tap, which the first tap of it did."""

    current: GameSnapshot
    repeat: Draw | Undo | None = None


@dataclass(frozen=True)
class DayOver(OutOfDate):
    """A tap on a board of a daily attempt whose UTC day is over (the attempt ended as it stood, by the day's end or
    by this tap): nothing applied; ``current`` is the attempt as it ended."""


@dataclass(frozen=True)
class HintOvertaken(OutOfDate):
    """💡 tapped, and the player moved before the advice came: it is about a position gone, so it is not given (nor
    counted); ``current`` is the game as it stands."""


#: What a start answers: the new game (or the daily attempt resumed), or why not yet.
Start = GameSnapshot | MustConfirm | AlreadyStarted | OldBoard
#: What a tap on a board answers: the game as it now stands (a refused move included: its ``outcome`` says why),
#: or why the tap did nothing.
Tapped = GameSnapshot | OutOfDate | OldBoard


@dataclass(frozen=True)
class Unforeseen:
    """An exception with no words of its own: the service's (``ours``: try again) or a failure on our side."""

    ours: bool


#: What a player is told went wrong: each error with words of its own, a tap that found the game moved on, and any
#: other exception as :class:`Unforeseen` (:func:`mishap`). Every :class:`~bot.app.errors.BotError` is a member
#: (tests/test_exhaustive.py), so a new error left untold fails mypy where the renderer matches the family.
Mishap = (Blocked | NotOwner | BadOwnerCommand | NotAPlayer | NotYourMessage | NotYourGame | GameNotFound
          | NoActiveGame | OutOfDate | OldBoard | AlreadyStarted | TappedTwice | NoUndoInRound | RoundsInGroupsOnly
          | RoundMinutes | RoundMinutesCut | RoundOver | NoSuchRound | DailyCodeLocked | DailyOver | NoUndoInDaily
          | GameNotOver | Busy | AmbiguousCard | CardNotInPlay | NotACard | InvalidCardError | BadGameCode
          | InvalidCodeError | BadPayload | NoWinnableDeal | OneAtATime | TryAgainIn | Unforeseen)


def mishap(error: Exception | OutOfDate | OldBoard | AlreadyStarted) -> Mishap:
    """``error`` as the member of the family it is told as."""
    if isinstance(error, Mishap):
        return error
    return Unforeseen(ours=isinstance(error, BotError))
