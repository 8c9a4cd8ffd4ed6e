"""The daily deal: one winnable Easy code per UTC date, the same for everyone on every platform of a deployment.

Candidate deal numbers for a date come from SplitMix64 seeded with an HMAC of the date under the deployment's secret
(generated once in its database, :mod:`bot.store.deployment`), so nobody without the operator's database can compute
a future day's deal; the first candidate the solver proves winnable under Easy rules is the day's deal. The solver is
exact, so the choice is deterministic: every process and every version picks the same code for the same date and
secret.

Which attempt counts
--------------------
The first time a player starts today's deal, that game is their attempt for the day (one a player a day, enforced by
the database), and it counts whether they finish it or not: starting the daily again resumes it while it is open,
and once it has ended gives a replay that ranks nowhere. Only today's deal can be started. Until their attempt has
ended, the day's deal cannot be started as an ordinary game (a practice run) under either rule set, and a game of
it outside the daily never ranks. The ranked attempt allows no Undo, and a blocked attempt is over at once, lost.
The attempt is the player's wherever it is played: it shows on the leaderboard of every server (Discord) or group
(Telegram) the player was seen in.

Ranking, by what the leaderboard shows: an attempt never played (no move: its score is still the starting 500) after
every played one, won before not won, then score (high first), fewer hints, fewer undos, and the shorter time (in
whole seconds, as shown).
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass

from core.deal import DEAL_COUNT, GameCode, Rules, splitmix64
from core.game import Game

#: A date whose first candidates are all unwinnable would be astronomically unlikely (about 3% each in Easy);
#: the bound only stops a broken solver from looping forever.
MAX_CANDIDATES = 64

#: What tells the time: an aware UTC datetime (the service's and the poster's; tests drive their own).
Clock = Callable[[], dt.datetime]


def utc_clock() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def daily_candidates(day: dt.date, secret: str, count: int = MAX_CANDIDATES) -> list[GameCode]:
    """The deals that may be ``day``'s under the deployment's ``secret``, in order (the first ``count``).

    >>> [str(code) for code in daily_candidates(dt.date(2026, 12, 2), "test-secret")[:2]]
    ['TP1-E-ATLPTSL', 'TP1-E-SIGZIKR']
    """
    digest = hmac.new(secret.encode(), day.isoformat().encode(), hashlib.sha256).digest()
    source = splitmix64(int.from_bytes(digest[:8], "big"))
    return [GameCode(Rules.EASY, next(source) % DEAL_COUNT) for _ in range(count)]


#: How many of a day's first candidates stand for its deal before the day, unsolved: the first is the deal but for
#: about 3 days in 100 (an Easy deal that cannot be won), so four miss it about once in a million days.
LIKELY_CANDIDATES = 4


@functools.lru_cache(maxsize=1024)
def likely_numbers(day: dt.date, secret: str) -> frozenset[int]:
    """The deal numbers one of which is almost surely ``day``'s deal, found without the solver: for a day still to
    come, whose code must not deal its cards before the day.

    >>> daily_candidates(dt.date(2026, 12, 2), "test-secret")[0].number in likely_numbers(dt.date(2026, 12, 2), "test-secret")
    True
    """
    return frozenset(code.number for code in daily_candidates(day, secret, LIKELY_CANDIDATES))


@functools.lru_cache(maxsize=64)
def daily_code(day: dt.date, secret: str) -> GameCode:
    """The day's code under the deployment's ``secret``: the first candidate the solver proves winnable."""
    from core.solver import solve

    for code in daily_candidates(day, secret):
        if solve(Game.from_code(code)).winnable:
            return code
    raise RuntimeError(f"no winnable candidate among {MAX_CANDIDATES} for {day}")


def today(now: dt.datetime | None = None) -> dt.date:
    """Today's date in UTC."""
    return (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).date()


@dataclass(frozen=True)
class Subscription:
    """A channel (Discord) or group (Telegram) that gets the day's deal posted at the daily post time."""

    id: int
    platform: str
    channel_id: str
    #: the Discord server or Telegram group of the channel
    community: str | None
    locale: str


@dataclass(frozen=True)
class DailyPost:
    """The post of a day's deal to a subscribed channel, in its language: the day, never the code (which deals every
    card); with ``recap``, the day before's deal (its code, public now) and how it went in the channel's
    community."""

    day: dt.date
    locale: str
    recap: Recap | None = None


@dataclass(frozen=True)
class DailyResult:
    """A player's attempt at a day's deal, as the leaderboard shows it."""

    name: str
    user_id: str
    score: int
    moves: int
    won: bool
    hints: int
    undos: int
    seconds: float
    #: when the attempt ended, or (still open) when it was last played
    finished_at: dt.datetime
    finished: bool = True

    @property
    def hinted(self) -> bool:
        return self.hints > 0

    def rank_key(self) -> tuple[bool, bool, int, int, int, int]:
        """Played before never played (an untouched attempt's 500 is no result), won first, then score (high
        first), fewer hints, fewer undos, and the shorter time as shown."""
        return (self.moves == 0, not self.won, -self.score, self.hints, self.undos, int(max(0.0, self.seconds)))


@dataclass(frozen=True)
class Standing:
    """A player's place among everyone who played a day's daily deal on this deployment (an attempt with a move),
    ranked as a leaderboard ranks: ``place`` (1 the best; None: the player has not played it) of ``players``."""

    place: int | None
    players: int

    @property
    def ahead_of(self) -> float:
        """The share of the others who played that the player is ahead of (0 when no one else played).

        >>> Standing(12, 40).ahead_of, Standing(1, 1).ahead_of
        (0.7, 0.0)
        """
        return (self.players - self.place) / self.players if self.place is not None and self.players > 1 else 0.0


@dataclass(frozen=True)
class Recap:
    """A day's daily deal in a community, for the next day's post: its ``code`` (public once its day is over), how
    many ``players`` played it there, the ``best`` attempt (ranked first) and ``par``, the best score the deal
    allowed (None when unknown)."""

    day: dt.date
    code: GameCode
    players: int
    best: DailyResult | None
    par: int | None


def rank(results: list[DailyResult]) -> list[DailyResult]:
    """The leaderboard order (see the module docstring).

    >>> t = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
    >>> a = DailyResult("a", "1", 700, 40, True, hints=1, undos=0, seconds=60, finished_at=t)
    >>> b = DailyResult("b", "2", 650, 45, True, hints=0, undos=0, seconds=90, finished_at=t)
    >>> c = DailyResult("c", "3", 700, 38, True, hints=0, undos=3, seconds=200, finished_at=t)
    >>> d = DailyResult("d", "4", 800, 30, False, hints=0, undos=0, seconds=20, finished_at=t)
    >>> e = DailyResult("e", "5", 700, 38, True, hints=0, undos=3, seconds=12.9, finished_at=t)
    >>> [r.name for r in rank([a, b, c, d, e])]
    ['e', 'c', 'a', 'b', 'd']
    """
    return sorted(results, key=DailyResult.rank_key)


class DailyNotice(enum.Enum):
    """Answers to the daily commands that are not a game or a leaderboard."""

    SUBSCRIBED = "subscribed"
    ALREADY_SUBSCRIBED = "already_subscribed"
    UNSUBSCRIBED = "unsubscribed"
    NOT_SUBSCRIBED = "not_subscribed"
    #: Telegram: a member who is not an administrator of the group
    NEEDS_GROUP_ADMIN = "needs_group_admin"
    #: Discord: a member without the Manage Server permission
    NEEDS_MANAGE_SERVER = "needs_manage_server"
    #: Telegram: a private chat
    NEEDS_GROUP = "needs_group"
    #: Discord: a direct message
    NEEDS_SERVER = "needs_server"
    #: Discord: the app is installed to the player's account only, not to this server (it cannot post here)
    NEEDS_SERVER_INSTALL = "needs_server_install"
