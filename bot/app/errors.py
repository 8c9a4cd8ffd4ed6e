"""Errors the service raises for bad or out-of-date input; adapters turn each into a localised message."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.app.commands import StartRequest
    from bot.app.model import GameSnapshot
    from core.cards import Card


class BotError(Exception):
    """Base class of every error an adapter should answer with a message rather than a traceback."""


class BadPayload(BotError, ValueError):
    """A button payload or command argument that is malformed or tampered with."""


class BadGameCode(BadPayload):
    """A game code typed by a player that is not one (``text`` is what they typed)."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(reason)
        self.text = text


class NoWinnableDeal(BotError):
    """A winnable deal was asked for, but the solver proved none winnable within its time budget; try again."""


class Busy(BotError):
    """Too many taps are waiting to be applied; nothing was done, and the player may tap again."""


class NotACard(BotError):
    """Text typed as a card that names none (``text`` is what was typed)."""

    def __init__(self, text: str) -> None:
        super().__init__(f"not a card: {text[:40]!r}")
        self.text = text


class AmbiguousCard(BotError):
    """A rank typed alone (``K``) while more than one free card has it: ``cards``, the candidates."""

    def __init__(self, cards: tuple[Card, ...]) -> None:
        super().__init__(f"which one: {' '.join(map(str, cards))}")
        self.cards = cards


class CardNotInPlay(BotError):
    """A card typed by name that is not face up on the table (face down, in the stock or on the waste)."""


class GameNotFound(BotError):
    """No game has that id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class NoActiveGame(BotError):
    """The player has no game in progress to resume or act on."""


class NotYourGame(BotError):
    """Someone tapped another player's game."""

    def __init__(self, owner_name: str) -> None:
        super().__init__(f"this is {owner_name}'s game")
        self.owner_name = owner_name


class NotYourSettings(NotYourGame):
    """Someone tapped the settings message another player opened (in a group)."""


class AlreadyDone(BotError):
    """A second tap of a button whose first tap already did what it asks (a Replay whose game is already dealt):
    nothing to do, and nothing to say."""

    def __init__(self) -> None:
        super().__init__("already done")


class NotCurrentGame(BotError):
    """A tap on the board of a game that is no longer the player's latest one (abandoned or replaced): nothing
    changed, and the board must not turn into another game. ``current`` is the player's game now, if any."""

    def __init__(self, current: GameSnapshot | None) -> None:
        super().__init__("not the current game")
        self.current = current


class ConfirmAbandon(BotError):
    """Starting a game would abandon ``current``, a game in progress with moves: the player must confirm first.
    ``request`` is what would start (for the question's Yes button)."""

    def __init__(self, current: GameSnapshot, request: StartRequest | None = None) -> None:
        super().__init__(f"game {current.game_id} is in progress")
        self.current = current
        self.request = request


class DailyCodeLocked(BotError):
    """The code of a daily deal, typed as an ordinary game before the player's attempt at that day has ended."""

    def __init__(self, day: dt.date) -> None:
        super().__init__(f"the daily deal of {day} is not open for practice yet")
        self.day = day


class DailyOver(BotError):
    """A daily deal of a day that is over was asked for (an old post's Play): only today's can be started."""

    def __init__(self, day: dt.date) -> None:
        super().__init__(f"the daily deal of {day} is over")
        self.day = day


class NoUndoInDaily(BotError):
    """Undo on a ranked daily attempt (its board has no Undo: a forged tap); nothing changed."""


class GameNotOver(BotError):
    """Review, Share or Replay of a game still being played (their buttons come only once it is over)."""


class StaleGame(BotError):
    """The tap carried an old version (an old message, a double tap); nothing changed. ``current`` is the game as
    it stands, for the adapter to refresh the message with."""

    def __init__(self, current: GameSnapshot) -> None:
        super().__init__(f"game {current.game_id} is at version {current.version}")
        self.current = current
