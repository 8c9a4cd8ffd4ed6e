"""Effects: what the bot does in answer to a player, as values. :class:`bot.app.flow.Flow` decides them (it calls
the service); each platform has one executor that carries them out (``bot/adapters/*/executor.py`` and the
console), drawing each message with :func:`bot.render.effects.draw`. A new platform needs an executor and its
event parsing, nothing else.

What a message shows (the renderer draws it in the player's language):

- :class:`Board`: a game's board (``latest=False``: a board of a game that is no longer the player's latest);
- :class:`Question`: "abandon your game in progress?" with Yes (start ``request``) and No;
- :class:`Kept`: the answer to No, "your game goes on";
- :class:`ReviewOf`, :class:`ShareOf`: a finished game's review, its shareable result;
- :class:`Problem`, :class:`PlayAck`: one line: why something was refused, the answer to a card played by name.

What to do with it:

- :class:`SendBoard`: send a new board (with ``reuse``, the tapped message may be redrawn into it where the
  platform can: Telegram; Discord's tapped question is private, so it sends a new one). Once shown, the executor
  notes where with the service (the live board) and closes the board of ``snapshot.replaced`` (unless that is the
  message now showing the new game);
- :class:`EditBoard`: edit the tapped board to the game as it stands (``notice``: a toast to go with it where the
  platform has toasts); it becomes the live board when it was not;
- :class:`RedrawBoard`: edit the game's live board wherever it is; when it is gone, send the board anew (then live);
- :class:`Answer`: answer privately: a line (a Telegram toast for a tap, a Discord ephemeral message) or a message
  only the player sees where the platform can (else a reply);
- :class:`Post`: a public new message in the chat;
- :class:`EditMessage`: edit the tapped message (not a board: the question) to ``content``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.app.commands import StartRequest
from bot.app.model import GameSnapshot, Settings
from core.review import Review as GameReview

# --- what a message shows -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Board:
    """The board of ``snapshot``; ``latest=False`` for a game the player has since replaced."""

    snapshot: GameSnapshot
    latest: bool = True


@dataclass(frozen=True)
class Question:
    """"Abandon your game in progress?": ``current`` is that game, ``request`` what Yes starts."""

    current: GameSnapshot
    request: StartRequest


@dataclass(frozen=True)
class Kept:
    """No under the question: ``game`` goes on."""

    game: GameSnapshot


@dataclass(frozen=True)
class ReviewOf:
    """The solver's review of a finished game (None: the solver could not say)."""

    snapshot: GameSnapshot
    review: GameReview | None


@dataclass(frozen=True)
class ShareOf:
    """A finished game's spoiler-free result, with the way to deal the same cards."""

    snapshot: GameSnapshot


@dataclass(frozen=True)
class Problem:
    """Why ``error`` happened, in the language of the player whose ``settings`` these are."""

    error: Exception
    settings: Settings


@dataclass(frozen=True)
class PlayAck:
    """The answer to a card played by name: the card played, or why not."""

    snapshot: GameSnapshot


#: A message of its own.
Shown = Board | Question | Kept | ReviewOf | ShareOf
#: A line.
Note = Problem | PlayAck
Content = Shown | Note


# --- what to do with it -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SendBoard:
    """Send ``snapshot``'s board as a new message (``reuse``: the tapped message may become it); note where it is;
    close the board of ``snapshot.replaced``."""

    snapshot: GameSnapshot
    reuse: bool = False


@dataclass(frozen=True)
class EditBoard:
    """Edit the tapped board to ``snapshot``; it is the live board from now on."""

    snapshot: GameSnapshot
    notice: Problem | None = None


@dataclass(frozen=True)
class RedrawBoard:
    """Edit ``snapshot``'s live board wherever it is, else send it anew as the live board."""

    snapshot: GameSnapshot


@dataclass(frozen=True)
class Answer:
    """Answer the player privately with ``content``."""

    content: Content


@dataclass(frozen=True)
class Post:
    """A public new message in the chat."""

    content: Shown


@dataclass(frozen=True)
class EditMessage:
    """Edit the tapped message (a question, not a board) to ``content``."""

    content: Shown


Effect = SendBoard | EditBoard | RedrawBoard | Answer | Post | EditMessage


def settings_of(content: Content) -> Settings:
    """The settings of the player a content speaks to (their language, among others)."""
    match content:
        case Board(snapshot) | ReviewOf(snapshot) | ShareOf(snapshot) | PlayAck(snapshot):
            return snapshot.settings
        case Question(current):
            return current.settings
        case Kept(game):
            return game.settings
        case Problem(_, settings):
            return settings
