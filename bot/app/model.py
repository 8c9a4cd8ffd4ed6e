"""The values the service hands to the renderer and the adapters. Frozen, platform-neutral."""

from __future__ import annotations

import datetime as dt
import enum
import re
import unicodedata
from dataclasses import dataclass, field

from core.deal import GameCode, Rules
from core.game import Action, Game, Outcome
from core.layout import SLOT_COUNT

#: The longest display name kept (characters); longer ones are cut.
NAME_MAX = 100
#: How a game code is written where it must not break across lines (a phone broke TP1-E- / AAAAAAB): its hyphens
#: no-break ones, which a code typed back in may hold (:func:`bot.app.records.parse_code` reads them).
NO_BREAK_HYPHEN = "\u2011"
#: Blank characters that are no format characters by category (Hangul fillers are letters, the blank Braille pattern
#: a symbol, the grapheme joiner a mark): a name made of them would show as nothing.
_BLANKS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
_ZERO_WIDTH_JOINER = "\u200d"
_VARIATION_SELECTOR = "\ufe0f"


def _joins_emoji(before: str, after: str) -> bool:
    """Whether a zero-width joiner between ``before`` and ``after`` makes one emoji of two (a family, a rainbow
    flag): the only place a format character in a name is kept."""
    return bool(before) and bool(after) and unicodedata.category(after) == "So" and (
        unicodedata.category(before) in ("So", "Sk") or before == _VARIATION_SELECTOR)


def clean_name(name: str) -> str:
    r"""A display name as the platform sent it, made safe to store and show: control characters (a NUL byte, which
    PostgreSQL refuses, newlines, escapes), lone surrogates, format characters (zero-width spaces and joiners, bidi
    controls that could turn a leaderboard line around, soft hyphens; a joiner inside an emoji stays) and blank
    fillers out, runs of spaces made one, at most :data:`NAME_MAX` characters. A name with nothing visible left is
    no name: ``""`` (the renderer shows its neutral placeholder). Every name the service stores goes through here,
    once.

    >>> clean_name("  Ann\x00\n  \x1b[31mLee\u202e "), clean_name("Ali\u200bce"), clean_name(" \u200b\u3164 ")
    ('Ann [31mLee', 'Alice', '')
    """
    kept: list[str] = []
    for at, ch in enumerate(name):
        category = unicodedata.category(ch)
        if ch.isspace():
            kept.append(" ")
        elif category in ("Cc", "Cs") or ch in _BLANKS:
            continue
        elif category != "Cf" or (ch == _ZERO_WIDTH_JOINER
                                  and _joins_emoji(kept[-1] if kept else "", name[at + 1:at + 2])):
            kept.append(ch)
    cleaned = " ".join("".join(kept).split())[:NAME_MAX].rstrip()
    return cleaned if any(unicodedata.category(ch)[0] in "LNPS" for ch in cleaned) else ""


@dataclass(frozen=True)
class PlayerKey:
    """A player is keyed by platform (``discord``, ``telegram``, ``console``) and the platform's user id."""

    platform: str
    user_id: str


#: The platforms an account named by the deployment's owner may be on (OWNER_IDS, ``/owner block``).
ACCOUNT_PLATFORMS = ("telegram", "discord", "console")
_ACCOUNT_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")


def account_key(text: str) -> PlayerKey | None:
    """An account written ``platform:id`` (``telegram:123``), or None when it is not one.

    >>> account_key(" telegram:123 "), account_key("telegram"), account_key("icq:1")
    (PlayerKey(platform='telegram', user_id='123'), None, None)
    """
    platform, _, user_id = text.strip().partition(":")
    if platform not in ACCOUNT_PLATFORMS or not _ACCOUNT_ID.fullmatch(user_id):
        return None
    return PlayerKey(platform, user_id)


class BoardStyle(enum.Enum):
    """How a game's board is shown on Discord and Telegram: a picture of the cards, or monospace text (the console
    is always text)."""

    PICTURE = "picture"
    TEXT = "text"


@dataclass(frozen=True)
class Settings:
    language: str | None = None  # an override; None means the platform's locale
    explain_refusals: bool = True
    default_rules: Rules = Rules.EASY
    winnable_only: bool | None = None  # None: the rule set's default (see :meth:`deals_winnable_only`)
    board: BoardStyle = BoardStyle.PICTURE
    four_colour: bool = False  # the picture's deck: clubs green and diamonds blue, for colour-blind players

    def deals_winnable_only(self, rules: Rules) -> bool:
        """Whether new random deals under ``rules`` are winnable ones: the player's choice, else on for Classic
        (where about a quarter of deals cannot be won) and off for Easy (about 3%)."""
        return self.winnable_only if self.winnable_only is not None else rules is Rules.CLASSIC


@dataclass(frozen=True)
class BoardRef:
    """Where a game's live board is shown: a chat or channel and a message, as the adapter that sent it names
    them."""

    chat_id: str
    message_id: str


@dataclass(frozen=True)
class Hint:
    """Advice for the position shown: from what the player can see (``win_chance`` set), or the exact solver's."""

    action: Action | None  # the action advised; None when there is nothing to suggest
    winnable: bool | None  # None: unknown (the fair advisor does not know; the solver ran out of time)
    best_score: int | None  # the best final score still reachable, when winnable (the exact solver only)
    win_chance: float | None = None  # the fair advisor's estimate of winning after ``action``
    busy: bool = False  # not thought about: the solver was busy (nothing to suggest is ``action`` None, not busy)


@dataclass(frozen=True)
class DealVerdict:
    """What the solver says of a deal from its start."""

    winnable: bool | None  # None: unknown within the budget
    best_score: int | None


@dataclass(frozen=True)
class Challenge:
    """The game a game answers (started from its "Play this deal"), as it stands: its player's ``name``, ``score``
    and whether it has ended (``finished``)."""

    game_id: int
    name: str
    score: int
    finished: bool


@dataclass(frozen=True)
class GameSnapshot:
    """A game as stored after the last committed action. ``game`` is a private copy: read it, don't change it."""

    game_id: int
    version: int
    owner: PlayerKey
    owner_name: str
    game: Game
    daily: dt.date | None = None
    outcome: Outcome | None = None  # what the last action did, refusals included
    hint: Hint | None = None  # set when the player just asked for a hint
    verdict: DealVerdict | None = None  # set once the game has ended (won or blocked)
    hints_used: int = 0
    abandoned: bool = False
    #: the owner's settings, read with the game so an adapter need not ask for them on every tap
    settings: Settings = Settings()
    undos_used: int = 0
    #: dealt as a deal the solver proved winnable
    dealt_winnable: bool = False
    #: where the live board is, once an adapter has said so
    board: BoardRef | None = None
    #: the player's previous game when this one replaced it (abandoned, or finished), for its board to be closed
    replaced: GameSnapshot | None = None
    #: the refused card was tapped on an older board: a move since (the tap just before, say) changed the waste card
    waste_changed: bool = False
    #: the game this one answers, when it was started from a challenge
    challenge: Challenge | None = None
    #: a game of that day's daily deal outside the attempt (a practice replay, a challenge, the code typed once the
    #: attempt was over): ranked nowhere
    practice_of: dt.date | None = None
    #: the deal is a daily deal whose day is not over (or an attempt still being played): nothing the bot shows may
    #: name its code, which deals every card (:func:`bot.app.records.code_hidden`)
    code_hidden: bool = False
    #: the key a challenge of this game carries (:mod:`bot.app.challenges`), set where the game is shared: None
    #: elsewhere
    challenge_key: str | None = None
    #: the live round this game is its player's entry in (ranked: no undo, hints counted)
    round_id: int | None = None
    #: the deployment owner's maintenance notice, shown under the board while it is set (:mod:`bot.app.owner`)
    owner_notice: str | None = None

    @property
    def ranked(self) -> bool:
        """A ranked game while it is played: the daily attempt, or an entry in a round (no undo)."""
        return (self.daily is not None or self.round_id is not None) and not self.game.is_over

    @property
    def private(self) -> bool:
        """The ranked daily attempt or a round's game while it is played: members who have not played the deal
        must not watch its cards turn and its stock come out, so where others see the chat (a server, a group) its
        board goes to its player alone (Discord: an ephemeral message; Telegram: the private chat)."""
        return self.ranked

    @property
    def shared_code(self) -> GameCode | None:
        """The code a shared result or a challenge may name: none for a daily attempt (shared by its day and
        challenged by reference, its Play button dealing it), none while the code is hidden, none for a game shared
        as a challenge (``challenge_key``: its link or button deals it), none for a custom deal."""
        if self.daily is not None or self.code_hidden or self.challenge_key is not None:
            return None
        return self.game.code



@dataclass(frozen=True)
class Offers:
    """What a player can send to any chat as an invitation to play (Telegram's inline mode): ``latest``, their
    current or last game (a challenge with its deal); ``fresh``, a new deal proved winnable (None when none was
    found in time); ``day``, today's daily deal (only its date: its cards are no one's to give away)."""

    latest: GameSnapshot | None
    fresh: GameCode | None
    day: dt.date


@dataclass(frozen=True)
class Stats:
    games: int
    wins: int
    best_score: int | None
    current_streak: int
    longest_streak: int
    #: live rounds joined that have ended, and those won (ranked first)
    rounds_played: int = 0
    rounds_won: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True)
class RoundKey:
    """A live round followed at the table (by a watcher, or a player beside their own board)."""

    round_id: int


@dataclass(frozen=True)
class RoundEntry:
    """One player's game in a round as it stands: cards cleared from the peaks, peaks cleared, score, moves,
    hints, whether it is won or over, and when it ended."""

    player: PlayerKey
    name: str
    game_id: int
    cleared: int
    peaks: int
    score: int
    moves: int
    hints: int
    won: bool
    finished: bool
    finished_at: dt.datetime | None
    #: the game as it stands, for a watcher's view (drawn with only what its player sees: never a hidden card)
    game: Game | None = field(default=None, compare=False, repr=False)
    #: the game's version (how many times it changed)
    version: int = 0

    @property
    def cards_left(self) -> int:
        return SLOT_COUNT - self.cleared


@dataclass(frozen=True)
class RoundSnapshot:
    """A round as it stands at ``now``: where it is played and shown, its deal, its time, its entries ranked best
    first, and (once known) the deal's par: the solver's best score."""

    round_id: int
    platform: str
    chat_id: str
    message: BoardRef | None
    code: GameCode
    chosen: bool
    host: str
    locale: str
    minutes: int
    ends_at: dt.datetime
    ended: bool
    now: dt.datetime
    entries: tuple[RoundEntry, ...]
    par: int | None = None

    @property
    def code_hidden(self) -> bool:
        """A random deal's code is said only once the round has ended (it deals every card)."""
        return not self.ended and not self.chosen

    @property
    def seconds_left(self) -> int:
        return 0 if self.ended else max(0, int((self.ends_at - self.now).total_seconds()))

    @property
    def winner(self) -> RoundEntry | None:
        return self.entries[0] if self.ended and self.entries else None

    def still_playing(self, player: PlayerKey) -> bool:
        """Whether ``player`` plays the round and their game of it goes on: they may not watch the others' boards
        (the same deal) until it ends."""
        return not self.ended and any(entry.player == player and not entry.finished for entry in self.entries)


@dataclass(frozen=True)
class RoundsTally:
    """A player's rounds that have ended: played (joined) and won (ranked first)."""

    played: int
    won: int
