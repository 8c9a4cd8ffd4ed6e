"""What a player can ask of the app layer, as typed values: adapters decode platform events into these (button
payloads through :mod:`bot.app.codec`), and the service takes nothing else.

A command from a button names the game and the version of the message it was on; the service decides what an old
version still allows (see :mod:`bot.app.games`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

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


#: A tap on a game message.
GameCommand = Move | AskHint | NewGame


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


#: A tap on the settings message.
SettingChange = ExplainRefusals | DefaultRules | Language

#: Anything a button can carry.
Command = GameCommand | PlayDaily | SettingChange
