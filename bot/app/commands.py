"""What a player can ask of the app layer, as typed values: adapters decode platform events into these (button
payloads through :mod:`bot.app.codec`), and the service takes nothing else.

A command from a button names the game and the version of the message it was on; the service decides what an old
version still allows (see :mod:`bot.app.moves`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from bot.app.abilities import PLAIN as PLAIN_ABILITIES
from bot.app.abilities import Abilities
from bot.app.model import BoardStyle, PlayerKey
from bot.app.round_commands import RoundDeal as RoundDeal  # a live round's, named here with all the others
from bot.app.round_commands import StartRound as StartRound
from bot.app.round_commands import WatchRound as WatchRound
from core.deal import Rules
from core.game import Draw, Tap, Undo

#: The engine actions a game message offers as buttons.
BoardAction = Tap | Draw | Undo


@dataclass(frozen=True)
class Move:
    """A card, Draw or Undo tapped on a game message; ``board``: which message (the platform's id for it, set by the
    adapter, not in the payload), so that a double tap on one message is told from taps on two boards of the game,
    which are two; None where there is no message (the table)."""

    game_id: int
    version: int
    action: BoardAction
    board: str | None = field(default=None, repr=False, compare=False)


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
    ends. ``key`` signs the game's number (:mod:`bot.app.challenges`), so a challenge cannot be guessed from a game
    number and names no code (which ``tripeaks solve`` would play offline); a link made before keys carries the
    game's code, or None for a daily game."""

    game_id: int
    key: str | None


@dataclass(frozen=True)
class ReplayDeal:
    """Replay of the player's game ``game_id`` whose code must stay unsaid (a daily deal while its day runs): the same
    deal again, ranked nowhere. Other games are replayed by their code (:class:`DealByCode`)."""

    game_id: int


#: What a player asks to start.
StartRequest = RandomDeal | DealByCode | DailyDeal | ChallengeDeal | ReplayDeal | RoundDeal


@dataclass(frozen=True)
class ConfirmStart:
    """Yes on "abandon your game in progress?": start ``request``, abandoning the game ``abandon``."""

    abandon: int
    request: StartRequest


@dataclass(frozen=True)
class Begin:
    """Start ``request``: a command (``/tripeaks new``, ``/daily``) or a button (Play and Daily under the welcome
    message); asked first when it would abandon a game with moves."""

    request: StartRequest


@dataclass(frozen=True)
class ShowRules:
    """How to play: ``/rules``, or (``play``: with a Play button under them) the Rules button under the welcome."""

    play: bool = False


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
    """Back to the game in progress (under "your game goes on", ``/resume``): its board as a new message;
    ``start_if_none``: a new game when there is none (the console opens on one)."""

    start_if_none: bool = False


@dataclass(frozen=True)
class BackToBoard:
    """Back under the settings or a review shown in the message of the game ``game_id``'s board (a Telegram private
    chat): that board again, as the game stands."""

    game_id: int


@dataclass(frozen=True)
class Blank:
    """An empty place in a board's grid of card buttons, where a card went (a platform that cannot leave a gap in
    a row shows a blank button there, so the other cards keep their places): a tap on it does nothing."""

    place: int


#: A tap on the settings message.
SettingChange = ExplainRefusals | DefaultRules | Language | WinnableOnly | BoardChoice | FourColour

#: Anything a button can carry.
ButtonCommand = GameCommand | PlayDaily | SettingChange | ConfirmStart | KeepPlaying | Begin | ShowRules | Blank | Resume \
    | BackToBoard | WatchRound


# --- typed commands: what a player types rather than taps ------------------------------------------------------


@dataclass(frozen=True)
class PlayCard:
    """A card played by its name (``/play 7h``, ``7h`` typed in a private chat, ``k`` for the one free king).
    ``loose``: the text was typed as a message, not as a command: words that name no card get a pointer to the help
    instead of an error."""

    text: str
    loose: bool = False


@dataclass(frozen=True)
class OpenLink:
    """A link that opens the bot with a parameter (Telegram's ``/start <parameter>``): a deal, a challenge, today's
    daily deal or a review; anything else is answered with the welcome and why the link could not be read."""

    parameter: str


@dataclass(frozen=True)
class Welcome:
    """The first message (``/start`` alone): what the game is, with Play, Daily and Rules."""


@dataclass(frozen=True)
class ShowHelp:
    """``/help``: the rules, then the commands."""


@dataclass(frozen=True)
class ShowStats:
    """``/stats``: the player's statistics."""


@dataclass(frozen=True)
class ShowSettings:
    """``/settings``: the settings message with its buttons."""


@dataclass(frozen=True)
class SwitchWinnable:
    """``/winnable [on|off]``: winnable-only deals on or off (``on`` None: the other way round from now)."""

    on: bool | None = None


@dataclass(frozen=True)
class ShowLeaderboard:
    """``/leaderboard``: today's daily leaderboard of the server or group."""


@dataclass(frozen=True)
class Subscribe:
    """``/subscribe`` (``on``) or ``/unsubscribe``: the daily deal posted to this chat every day, or no longer."""

    on: bool


@dataclass(frozen=True)
class Invite:
    """Telegram's inline mode: the player's invitations to play, to send to a chat; ``game_id``: the finished game
    whose Share opened it, offered rather than the player's latest game."""

    game_id: int | None = None


@dataclass(frozen=True)
class CompleteCard:
    """What is typed so far as a card's name (Discord's autocomplete of ``/tripeaks play``): the free cards it may
    mean."""

    typed: str


@dataclass(frozen=True)
class OpenBoard:
    """``/tripeaks board``: a link, for the player alone, that opens their game's board in the browser."""


@dataclass(frozen=True)
class OnBehalf:
    """A command sent on behalf of a group or a channel (Telegram's anonymous administrators, a channel's posts):
    answered, never played: the sender is no player."""


@dataclass(frozen=True)
class Unreadable:
    """A button payload or a command's words that could not be read (``reason``, for the log): the player is told,
    nothing changes."""

    reason: str


# --- the deployment owner's commands (OWNER_IDS: bot/app/owner.py) -------------------------------------------


@dataclass(frozen=True)
class OwnerStats:
    """``/owner stats``: the bot-wide figures."""


@dataclass(frozen=True)
class OwnerNotice:
    """``/owner notice <text>``: the maintenance notice every player is shown from now on; ``text`` None
    (``/owner notice off``): none."""

    text: str | None


@dataclass(frozen=True)
class OwnerBlock:
    """``/owner block <platform:id>`` (``on``) or ``/owner unblock <platform:id>``: the account's commands refused
    from now on, or no longer; ``account`` as typed."""

    account: str
    on: bool


@dataclass(frozen=True)
class OwnerHelp:
    """``/owner`` with words that name no owner command: how they are written (to the owner alone)."""


#: What only the deployment's owner may ask.
OwnerCommand = OwnerStats | OwnerNotice | OwnerBlock | OwnerHelp

#: What a player types.
TypedCommand = PlayCard | OpenLink | Welcome | ShowHelp | ShowStats | ShowSettings | SwitchWinnable \
    | ShowLeaderboard | Subscribe | Invite | CompleteCard | OpenBoard | StartRound | OnBehalf | Unreadable \
    | OwnerCommand

#: Everything the application's one door takes (:meth:`bot.app.flow.Flow.handle`).
Command = ButtonCommand | TypedCommand


# --- who gave a command, and where ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Actor:
    """Who acted and where: ``player`` (named ``name``), in the chat ``chat_id`` of the server or group
    ``community`` (None in a private chat: a daily attempt there counts on no leaderboard)."""

    player: PlayerKey
    name: str
    chat_id: str | None = None
    community: str | None = None


@dataclass(frozen=True)
class Surface:
    """What differs by platform and place for one command.

    ``platform``: the player's platform's name (the words of the daily notices differ: groups on Telegram, servers
    on Discord). ``abilities``: what the place the command came from can do (:mod:`bot.app.abilities`: a tapped
    question redrawn into the new game's board, the settings and a review in the board's own message, a verdict
    waited for). ``addressee``: the player the tapped message answers, where the platform says (a settings message
    in a group); nobody else may use its buttons. ``admin``: the actor may change the chat's daily posts;
    ``installed``: the bot is a member of the server, not only of the player's account. ``platform_locale``: the
    actor's language as the platform says; ``chat_locale``: the server's (the daily posts speak it). ``buttons``:
    the commands the tapped message's buttons carry now, where the platform hands them over and a client can send
    any payload (Telegram's callback data, Discord's custom_id): a tap must be about what that message shows (its
    game, its question, its settings), else it changes nothing. ``at_table``: the command comes from the table in
    the browser, whose game's chat board follows it (through the outbox). ``picks_chat``: the player picks a chat
    to send a shared result to themselves (Telegram's chat picker, which the table opens); elsewhere Share at the
    table posts the result in the game's chat (through the outbox).
    """

    platform: str = ""
    abilities: Abilities = PLAIN_ABILITIES
    addressee: PlayerKey | None = None
    admin: bool = False
    installed: bool = True
    platform_locale: str | None = None
    chat_locale: str | None = None
    buttons: tuple[ButtonCommand, ...] | None = None
    at_table: bool = False
    picks_chat: bool = False


#: A surface with nothing particular to say (the console, tests).
PLAIN = Surface()


def subject(command: Command) -> tuple[str, int] | str | None:
    """What a button's command is about, as the message carrying it shows: a game (a board's buttons, of any of its
    versions, and Back under the settings or a review shown in its message), a question about a game (Yes and No),
    the settings; None for a button anyone may tap on any message
    (Play under a post, the welcome's buttons, a blank place).

    >>> subject(Move(7, 3, Draw())) == subject(Share(7)), subject(KeepPlaying(7)), subject(FourColour(True))
    (True, ('question', 7), 'settings')
    """
    if isinstance(command, Move | AskHint | NewGame | Replay | Review | Share | BackToBoard):
        return ("game", command.game_id)
    if isinstance(command, ConfirmStart):
        return ("question", command.abandon)
    if isinstance(command, KeepPlaying):
        return ("question", command.game_id)
    if isinstance(command, ExplainRefusals | DefaultRules | Language | WinnableOnly | BoardChoice | FourColour):
        return "settings"
    return None
