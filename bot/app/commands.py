"""What a player can ask of the app layer, as typed values: adapters decode platform events into these (button
payloads through :mod:`bot.app.codec`), and the service takes nothing else.

A command from a button names the game and the version of the message it was on; the service decides what an old
version still allows (see :mod:`bot.app.moves`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bot.app.model import BoardStyle
from core.deal import Rules
from core.game import Draw, Tap, Undo

#: The engine actions a game message offers as buttons.
BoardAction = Tap | Draw | Undo


@dataclass(frozen=True)
class Move:
    """A card, Draw or Undo tapped on a game message."""

    game_id: int
    version: int
    action: BoardAction


@dataclass(frozen=True)
class AskHint:
    """Hint tapped on a game message."""

    game_id: int
    version: int


@dataclass(frozen=True)
class NewGame:
    """New game tapped on a game message: a new deal under the same rules."""

    game_id: int
    version: int


@dataclass(frozen=True)
class Replay:
    """Replay tapped on a finished game: the same deal again (never ranked)."""

    game_id: int


@dataclass(frozen=True)
class Review:
    """Review tapped on a finished game: the exact solver's account of it."""

    game_id: int


@dataclass(frozen=True)
class Share:
    """Share tapped on a finished game: a spoiler-free result line for the chat."""

    game_id: int


#: A tap on a game message.
GameCommand = Move | AskHint | NewGame | Replay | Review | Share


# --- starting a game, and the confirmation that a game in progress may be abandoned ------------------------------


@dataclass(frozen=True)
class RandomDeal:
    """A random deal; ``rules`` None: the player's default; ``winnable`` None: the player's setting."""

    rules: Rules | None = None
    winnable: bool | None = None


@dataclass(frozen=True)
class DealByCode:
    """The deal a game code names."""

    code: str


@dataclass(frozen=True)
class DailyDeal:
    """The daily deal of ``day`` (today when None)."""

    day: dt.date | None = None


@dataclass(frozen=True)
class ChallengeDeal:
    """Play this deal, tapped under someone's shared game ``game_id``: its deal, compared with that game when it
    ends. ``code`` must be that game's, so a challenge cannot be guessed from a game number; None for a daily game,
    whose code a challenge never shows (the deal stays unknown until the tapper's own attempt is over)."""

    game_id: int
    code: str | None


@dataclass(frozen=True)
class ReplayDeal:
    """Replay of the player's game ``game_id`` whose code must stay unsaid (a daily deal while its day runs): the same
    deal again, ranked nowhere. Other games are replayed by their code (:class:`DealByCode`)."""

    game_id: int


#: What a player asks to start.
StartRequest = RandomDeal | DealByCode | DailyDeal | ChallengeDeal | ReplayDeal


@dataclass(frozen=True)
class ConfirmStart:
    """Yes on "abandon your game in progress?": start ``request``, abandoning the game ``abandon``."""

    abandon: int
    request: StartRequest


@dataclass(frozen=True)
class Begin:
    """A button that starts a game, such as Play and Daily under the welcome message: ``request``."""

    request: StartRequest


@dataclass(frozen=True)
class ShowRules:
    """The Rules button under the welcome message."""


@dataclass(frozen=True)
class KeepPlaying:
    """No on "abandon your game in progress?": the game ``game_id`` goes on."""

    game_id: int


@dataclass(frozen=True)
class PlayDaily:
    """Play tapped under a posted daily deal."""

    day: dt.date


@dataclass(frozen=True)
class ExplainRefusals:
    """The setting: say why a card was refused, or not."""

    on: bool


@dataclass(frozen=True)
class DefaultRules:
    """The setting: the rule set of new random deals."""

    rules: Rules


@dataclass(frozen=True)
class Language:
    """The setting: answer in ``locale``, or (None) in the platform's language."""

    locale: str | None


@dataclass(frozen=True)
class WinnableOnly:
    """The setting: only deals the solver proved winnable."""

    on: bool


@dataclass(frozen=True)
class BoardChoice:
    """The setting: the board as a picture or as text."""

    style: BoardStyle


@dataclass(frozen=True)
class FourColour:
    """The setting: the picture's four-colour deck (clubs green, diamonds blue), or the usual red and black."""

    on: bool


@dataclass(frozen=True)
class Resume:
    """Back to the game in progress (under "your game goes on"): its board as a new message."""


@dataclass(frozen=True)
class Blank:
    """An empty place in a board's grid of card buttons, where a card went (a platform that cannot leave a gap in
    a row shows a blank button there, so the other cards keep their places): a tap on it does nothing."""

    place: int


#: A tap on the settings message.
SettingChange = ExplainRefusals | DefaultRules | Language | WinnableOnly | BoardChoice | FourColour

#: Anything a button can carry.
Command = GameCommand | PlayDaily | SettingChange | ConfirmStart | KeepPlaying | Begin | ShowRules | Blank | Resume
