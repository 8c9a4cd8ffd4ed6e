"""Effects: what the bot does in answer to a player, as values. :meth:`bot.app.flow.Flow.handle` decides them (it
calls the use cases); each platform has one executor that carries them out (``bot/adapters/*/executor.py`` and the
console), drawing each message with :func:`bot.render.effects.draw`, and reports what it did as values
(:class:`BoardAt`) that the flow records (:meth:`bot.app.flow.Flow.record`). A new platform needs an executor and its
event parsing, nothing else.

What a message shows (the renderer draws it in the player's language):

- :class:`Board`: a game's board (``latest=False``: a board of a game that is no longer the player's latest);
- :class:`Question`: "abandon your game in progress?" with Yes (start ``request``) and No;
- :class:`Kept`: the answer to No, "your game goes on";
- :class:`ReviewOf`, :class:`ShareOf`: a finished game's review, its shareable result;
- :class:`SettingsOf`, :class:`StatsOf`, :class:`RulesOf`, :class:`HelpOf`, :class:`WelcomeOf`,
  :class:`LeaderboardOf`: the player's own things and the daily leaderboard;
- :class:`ChallengeAnswered`: a game started from a challenge has ended, told to the challenger;
- :class:`OffersOf`: the player's invitations to play (Telegram's inline mode); :class:`CardChoices`: the free cards
  a name being typed may mean (Discord's autocomplete); :class:`BoardLinkOf`: the player's own link to the board in
  the browser (Discord's);
- :class:`Problem`, :class:`PlayAck`, :class:`NoticeOf`, :class:`PointerOf`: one line: why something was refused,
  the answer to a card played by name, the answer to a daily command, the pointer to the help; :class:`OwnerAnswer`:
  what an owner command did (a few lines: the bot-wide figures).

What to do with it:

- :class:`SendBoard`: send a new board (with ``reuse``, the tapped message may be redrawn into it where the
  platform can: Telegram; Discord's tapped question is private, so it sends a new one). Once shown, the executor
  notes where with the service (the live board) and closes the board of ``snapshot.replaced`` (unless that is the
  message now showing the new game). A board that is ``snapshot.private`` (the ranked daily attempt in play) is
  sent, in a server or group, where only its player sees it;
- :class:`EditBoard`: edit the tapped board to the game as it stands (``notice``: a toast to go with it where the
  platform has toasts); it becomes the live board when it was not;
- :class:`RedrawBoard`: edit the game's live board wherever it is; when it is gone, send the board anew (then live);
- :class:`Answer`: answer privately: a line (a Telegram toast for a tap, a Discord ephemeral message) or a message
  only the player sees where the platform can (else a reply);
- :class:`Post`: a public new message in the chat;
- :class:`Reply`: a new message answering the command, for the chat to see (the leaderboard);
- :class:`EditMessage`: edit the tapped message (not a board: the question, the settings) to ``content``; the
  settings or a review may take the place of a board in its own message (``in_board``: with Back to it), the
  tapped board's or (``where``) the live board's;
- :class:`Tell`: a new message in another chat than the command's (the challenger's, told how their challenge went);
- :class:`PostTo`: a new message in a chat no command came from (the daily post, :class:`~bot.app.daily.DailyPost`),
  whose fate is reported back.

What an executor did, reported back: :class:`BoardAt` (the message that now shows a game); :class:`PostedTo` (what
became of a :class:`PostTo`: :class:`Sent`, or why not, for the daily poster to act on: :class:`Pause`,
:class:`Transient`, :class:`ChatGone`, :class:`Refused`).

Outside a chat's command (a move at the table in the browser, a challenge's game ended), what must reach a chat is
written to the outbox (:mod:`bot.app.outbox`) and delivered as :class:`RedrawBoard` and :class:`Tell` by the
platform's executor in a process that runs it; the daily posts (:mod:`bot.app.daily_posts`) as :class:`PostTo`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.app.commands import StartRequest
from bot.app.daily import DailyNotice, DailyResult, Standing
from bot.app.daily import DailyPost as DailyPost  # what a daily post shows, for the executors
from bot.app.model import BoardRef as BoardRef  # the values effects carry, for the executors
from bot.app.model import GameSnapshot as GameSnapshot
from bot.app.model import Offers, Stats
from bot.app.model import PlayerKey as PlayerKey
from bot.app.model import RoundKey as RoundKey
from bot.app.model import RoundSnapshot as RoundSnapshot
from bot.app.model import Settings as Settings
from bot.app.outcomes import AlreadyStarted
from bot.app.outcomes import OldBoard as OldBoard
from bot.app.outcomes import OutOfDate as OutOfDate
from bot.app.owner import OwnerResult
from bot.app.round_effects import (
    PostRound as PostRound,  # a live round's effects, its message and what it showed
)
from bot.app.round_effects import RedrawRound as RedrawRound
from bot.app.round_effects import RoundAt as RoundAt
from bot.app.round_effects import RoundOf as RoundOf
from bot.app.round_effects import RoundWatched as RoundWatched
from core.cards import Card
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
    """The solver's review of a finished game (None: the solver could not say); ``in_board``: shown in the message
    of that board, in place of it (its buttons stay, with Back to it)."""

    snapshot: GameSnapshot
    review: GameReview | None
    in_board: Board | None = None


@dataclass(frozen=True)
class ShareOf:
    """A finished game's spoiler-free result, with the way to deal the same cards; ``in_chat``: posted in its game's
    chat as well, for everyone there to play (Share at the table, through the outbox)."""

    snapshot: GameSnapshot
    in_chat: bool = False


@dataclass(frozen=True)
class SettingsOf:
    """The settings message, with its buttons; ``in_board``: the game whose board's message shows them, in place of
    the board (with Back to it)."""

    settings: Settings
    in_board: int | None = None


@dataclass(frozen=True)
class StatsOf:
    """The player's statistics."""

    stats: Stats
    settings: Settings


@dataclass(frozen=True)
class RulesOf:
    """How to play (``play``: with a Play button under them, as the welcome's)."""

    settings: Settings
    play: bool = False


@dataclass(frozen=True)
class HelpOf:
    """The rules, then the platform's commands."""

    settings: Settings


@dataclass(frozen=True)
class WelcomeOf:
    """The first message: what the game is, with Play, Daily and Rules."""

    settings: Settings


@dataclass(frozen=True)
class LeaderboardOf:
    """The daily leaderboard of ``day`` in a server or group, best first; outside one (``standing``), the player's
    own place among everyone who played it."""

    day: dt.date
    results: tuple[DailyResult, ...]
    settings: Settings
    standing: Standing | None = None


@dataclass(frozen=True)
class ChallengeAnswered:
    """``answer``, a game started from the challenge of ``shared``, has ended: what its challenger (``shared``'s
    player, whose language it speaks: their own choice, else ``seen_locale``, the platform's locale they were last
    seen with, else, never seen, the finisher's) is told."""

    shared: GameSnapshot
    answer: GameSnapshot
    seen_locale: str | None = None


@dataclass(frozen=True)
class OffersOf:
    """The player's invitations to play (Telegram's inline mode)."""

    offers: Offers
    settings: Settings


@dataclass(frozen=True)
class CardChoices:
    """The free cards a card's name being typed may mean (all of them when it means none)."""

    cards: tuple[Card, ...]


@dataclass(frozen=True)
class BoardLinkOf:
    """The player's own link to their board in the browser (the adapter signs it: it knows the address)."""

    settings: Settings


@dataclass(frozen=True)
class Problem:
    """Why ``error`` happened (or why a tap did nothing: the game moved on), in the language of the player whose
    ``settings`` these are."""

    error: Exception | OutOfDate | OldBoard | AlreadyStarted
    settings: Settings


@dataclass(frozen=True)
class PlayAck:
    """The answer to a card played by name: the card played, or why not."""

    snapshot: GameSnapshot


@dataclass(frozen=True)
class NoticeOf:
    """The answer to a daily command that is no leaderboard (``post_time``: when the daily posts are made)."""

    notice: DailyNotice
    settings: Settings
    post_time: dt.time | None = None


@dataclass(frozen=True)
class OwnerAnswer:
    """What an owner command did (:mod:`bot.app.owner`), told to the owner."""

    result: OwnerResult
    settings: Settings


@dataclass(frozen=True)
class PointerOf:
    """Words that are neither a command nor a card: where to read how to play."""

    settings: Settings


#: A message of its own.
Shown = Board | Question | Kept | ReviewOf | ShareOf | SettingsOf | StatsOf | RulesOf | HelpOf | WelcomeOf \
    | LeaderboardOf | ChallengeAnswered | RoundOf | RoundWatched
#: A line.
Note = Problem | PlayAck | NoticeOf | PointerOf | OwnerAnswer
#: What only one platform asks for, drawn by its executor.
Data = OffersOf | CardChoices | BoardLinkOf
Content = Shown | Note | Data


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
    """Edit ``snapshot``'s live board wherever it is, else send it anew as the live board (in ``chat_id`` where no
    command's chat is at hand: the outbox's); ``latest=False``: a game its player has since replaced, its board
    closed (never sent anew)."""

    snapshot: GameSnapshot
    latest: bool = True
    chat_id: str | None = None


@dataclass(frozen=True)
class Answer:
    """Answer the player privately with ``content``."""

    content: Content


@dataclass(frozen=True)
class Reply:
    """A new message answering the command, for the chat to see."""

    content: Shown | Note


@dataclass(frozen=True)
class Post:
    """A public new message in the chat."""

    content: Shown


@dataclass(frozen=True)
class EditMessage:
    """Edit the tapped message (a question, not a board) to ``content``; ``where``: that message instead (the live
    board a typed command shows the settings in), or where it cannot, answer as :class:`Answer` does."""

    content: Shown
    where: BoardRef | None = None


@dataclass(frozen=True)
class Tell:
    """A new message in the chat ``chat_id``, another than the command's (the challenger's; a game's chat, where a
    result shared at the table is posted). ``key``: the outbox's for this request, the same on each delivery of it,
    so a platform that dedups by one (Discord's nonce) posts it once however often it is sent."""

    chat_id: str
    content: ChallengeAnswered | ShareOf
    key: str | None = None


@dataclass(frozen=True)
class PostTo:
    """A new message in the chat ``chat_id``, which no command came from (the daily post); what became of it is
    reported (:class:`PostedTo`)."""

    chat_id: str
    content: DailyPost


#: What happens in a chat, in answer to a command (or, ``PostTo``, to no command: the daily post).
ChatEffect = SendBoard | EditBoard | RedrawBoard | Answer | Reply | Post | EditMessage | Tell | PostTo
#: What happens to a live round's message in its chat.
RoundEffect = PostRound | RedrawRound
Effect = ChatEffect | RoundEffect


def off_message(effects: list[Effect]) -> list[Effect]:
    """``effects`` for a tap whose message does not show what the tap is about (a forged payload, or a message
    redrawn since): nothing edits that message or becomes it; a board goes to its own live board, a message privately
    to the player."""
    changed: list[Effect] = []
    for effect in effects:
        match effect:
            case EditBoard(snapshot, notice):
                changed += [RedrawBoard(snapshot), *([Answer(notice)] if notice is not None else [])]
            case EditMessage(content):
                changed.append(Answer(content))
            case SendBoard(snapshot, True):
                changed.append(SendBoard(snapshot))
            case _:
                changed.append(effect)
    return changed


# --- what an executor did ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardAt:
    """The message ``where`` now shows the game ``game_id`` (a board sent, or played on after another): its live
    board, which a card played by name edits and a new game closes."""

    game_id: int
    where: BoardRef


@dataclass(frozen=True)
class Sent:
    """The message is in the chat: ``message_id`` (None where the platform did not say)."""

    message_id: str | None


@dataclass(frozen=True)
class Pause:
    """The platform refused it for now and asked for a pause of ``seconds`` (flood control) before another."""

    seconds: float


@dataclass(frozen=True)
class Transient:
    """A failure that says nothing of the chat (the network, a timeout, the platform's 5xx): worth another try."""

    reason: str


@dataclass(frozen=True)
class ChatGone:
    """The chat takes no messages from the bot (deleted, the bot removed or blocked, no right to post)."""

    reason: str


@dataclass(frozen=True)
class Refused:
    """The platform refused the message itself, not the chat (a 400 of another kind): not worth trying at once."""

    reason: str


#: What became of a message no command asked for.
Posted = Sent | Pause | Transient | ChatGone | Refused


@dataclass(frozen=True)
class PostedTo:
    """What became of the :class:`PostTo` to ``chat_id``."""

    chat_id: str
    posted: Posted


#: What an executor reports back: to the flow (:meth:`~bot.app.flow.Flow.record`), the outbox or the daily poster.
Report = BoardAt | RoundAt | PostedTo


def settings_of(content: Shown | Note | OffersOf | BoardLinkOf) -> Settings:
    """The settings of the player a content speaks to (their language, among others)."""
    match content:
        case Board(snapshot) | ReviewOf(snapshot) | ShareOf(snapshot) | PlayAck(snapshot):
            return snapshot.settings
        case Question(current):
            return current.settings
        case Kept(game):
            return game.settings
        case ChallengeAnswered(shared):
            return shared.settings
        case SettingsOf(settings) | RulesOf(settings) | HelpOf(settings) | WelcomeOf(settings) | PointerOf(settings):
            return settings
        case StatsOf(_, settings) | OffersOf(_, settings) | Problem(_, settings) | NoticeOf(_, settings):
            return settings
        case OwnerAnswer(_, settings):
            return settings
        case BoardLinkOf(settings):
            return settings
        case LeaderboardOf(_, _, settings):
            return settings
        case RoundOf(round, settings):
            return settings if settings is not None else Settings(language=round.locale)
        case RoundWatched(settings=settings):
            return settings


class Executor(Protocol):
    """A platform's executor: carries effects out, reports what it did."""

    async def run(self, effects: list[Effect]) -> list[Report]:
        ...


#: A platform's executor for what the outbox delivers (:mod:`bot.app.outbox`), outside any command: given the
#: language to draw in where the player chose none (the platform's, as last seen).
ExecutorFor = Callable[[str | None], Executor]
