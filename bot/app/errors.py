"""Errors the service raises for bad or out-of-date input; adapters turn each into a localised message."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.app.model import RoundSnapshot
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
    """A tap or a link naming a game that is not the player's, or no game at all: one answer for both, naming
    nobody, so that a forged id learns nothing."""

    def __init__(self) -> None:
        super().__init__("not the player's game")


class NotAPlayer(BotError):
    """A message sent on behalf of a group or a channel (an anonymous administrator, a channel's post): it has no
    player of its own to play as (every such sender would be one and the same player)."""

    def __init__(self) -> None:
        super().__init__("sent on behalf of a chat, not by a player")


class NotYourMessage(BotError):
    """A tap on a message that answers another player (their settings in a group): nothing changed."""

    def __init__(self) -> None:
        super().__init__("another player's message")


class DailyCodeLocked(BotError):
    """The code of a daily deal, typed as an ordinary game before the player's attempt at that day has ended;
    ``shared``: the deal was asked for from someone's shared result (Play this deal), which names no code."""

    def __init__(self, day: dt.date, *, shared: bool = False) -> None:
        super().__init__(f"the daily deal of {day} is not open for practice yet")
        self.day = day
        self.shared = shared


class DailyOver(BotError):
    """A daily deal of a day that is over was asked for (an old post's Play): only today's can be started."""

    def __init__(self, day: dt.date) -> None:
        super().__init__(f"the daily deal of {day} is over")
        self.day = day


class NoUndoInDaily(BotError):
    """Undo on a ranked daily attempt (its board has no Undo: a forged tap); nothing changed."""


class GameNotOver(BotError):
    """Review, Share or Replay of a game still being played (their buttons come only once it is over)."""


class OneAtATime(BotError):
    """A player asked the solver something new (a hint, a review) while their last question is still being
    answered: one at a time."""


class TryAgainIn(BotError):
    """A player asked the solver more new questions than their share allows: the next one in ``seconds``."""

    def __init__(self, seconds: int) -> None:
        super().__init__(f"too many questions; try again in {seconds} s")
        self.seconds = seconds


class TappedTwice(BotError):
    """Share, Review, Yes or Replay tapped again while the first tap's answer stands (``button``: :data:`SHARED`,
    :data:`REVIEWED` or :data:`STARTED`): nothing more is done, and the player is told so (a Discord click must not
    meet silence)."""

    SHARED, REVIEWED, STARTED = "share", "review", "start"

    def __init__(self, button: str) -> None:
        super().__init__(f"{button} tapped twice")
        self.button = button
class NoUndoInRound(BotError):
    """Undo on a game of a live round (its board has no Undo: a forged tap); nothing changed."""


class RoundsInGroupsOnly(BotError):
    """A round asked for in a private chat: a round is played by a group or a server's channel."""


class RoundMinutes(BotError):
    """A round's length outside what a round may last (``low`` to ``high`` minutes)."""

    def __init__(self, low: int, high: int) -> None:
        super().__init__(f"a round lasts {low} to {high} minutes")
        self.low, self.high = low, high


class RoundMinutesCut(BotError):
    """Not raised: told beside a round started for longer than it may last where its message is an interaction's
    response (``high`` minutes: Discord lets the bot edit that message for 15), which runs ``high`` minutes."""

    def __init__(self, high: int) -> None:
        super().__init__(f"a round here lasts at most {high} minutes")
        self.high = high


class NoSuchRound(BadPayload):
    """A link to a round that does not exist (a forged or damaged link)."""


class RoundOver(BotError):
    """A join of a round after it ended: answered with its results (``round``)."""

    def __init__(self, round: RoundSnapshot) -> None:
        super().__init__(f"round {round.round_id} is over")
        self.round = round


class Blocked(BotError):
    """A command from an account the deployment's owner blocked: refused, nothing stored from it."""

    def __init__(self) -> None:
        super().__init__("a blocked account")


class NotOwner(BotError):
    """An owner command from someone who is not among the deployment's owners (OWNER_IDS), or outside a private
    chat: refused, telling nothing."""

    def __init__(self) -> None:
        super().__init__("not the deployment's owner")


class BadOwnerCommand(BotError):
    """An owner command the owner mistyped (``usage`` says how it is written): a notice too long, an account not
    written as ``platform:id``."""

    def __init__(self, usage: str) -> None:
        super().__init__(usage)
        self.usage = usage
