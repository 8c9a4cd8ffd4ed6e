"""The daily deal: one winnable Easy code per UTC date, the same for everyone on every platform.

Candidate deal numbers for a date come from SplitMix64 seeded with the date's ordinal plus a fixed salt; the first
candidate the solver proves winnable under Easy rules is the day's deal. The solver is exact, so the choice is
deterministic: every process and every version picks the same code for the same date.

Which attempt counts
--------------------
A player may start the day's deal as often as they like, but only their *first finished* attempt counts on the
leaderboard: the first of their daily games of that day to end won or blocked (``finished`` below), wherever they
played it. A game left unfinished (abandoned for a new game) is not a finished attempt and counts for nothing. A
blocked game the player revives with Undo is playing again, so it counts with the result it ends with. The result
shows on the leaderboard of the server (Discord) or group (Telegram) where the game was started; games in private
chats count for the player but appear on no board.

Ranking: games without hints first, then score (high first), moves (few first), and the time from the first deal
to the end (short first).
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass

from core.deal import DEAL_COUNT, GameCode, Rules, splitmix64
from core.game import Game

#: Keeps daily deals apart from the sequence used for plain deal numbers.
DAILY_SALT = 0x7D1A_11E5
#: A date whose first candidates are all unwinnable would be astronomically unlikely (about 3% each in Easy);
#: the bound only stops a broken solver from looping forever.
MAX_CANDIDATES = 64


def daily_candidates(day: dt.date) -> list[GameCode]:
    source = splitmix64(day.toordinal() + DAILY_SALT)
    return [GameCode(Rules.EASY, next(source) % DEAL_COUNT) for _ in range(MAX_CANDIDATES)]


@functools.lru_cache(maxsize=64)
def daily_code(day: dt.date) -> GameCode:
    """The day's code: the first candidate the solver proves winnable."""
    from core.solver import solve

    for code in daily_candidates(day):
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
    board: str | None
    locale: str


@dataclass(frozen=True)
class DailyResult:
    """A player's counted attempt at a day's deal."""

    name: str
    user_id: str
    score: int
    moves: int
    won: bool
    hinted: bool
    seconds: float
    finished_at: dt.datetime

    def rank_key(self) -> tuple[bool, int, int, float, dt.datetime]:
        """Unhinted before hinted, then score (high first), moves, time taken, and who finished first."""
        return (self.hinted, -self.score, self.moves, self.seconds, self.finished_at)


def rank(results: list[DailyResult]) -> list[DailyResult]:
    """The leaderboard order (see the module docstring).

    >>> t = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
    >>> a = DailyResult("a", "1", 700, 40, True, True, 60, t)
    >>> b = DailyResult("b", "2", 650, 45, True, False, 90, t)
    >>> c = DailyResult("c", "3", 700, 38, True, False, 200, t)
    >>> [r.name for r in rank([a, b, c])]
    ['c', 'b', 'a']
    """
    return sorted(results, key=DailyResult.rank_key)


def first_finished(rows: list[tuple[int, DailyResult, str | None]]) -> dict[int, tuple[DailyResult, str | None]]:
    """Each player's first finished attempt: ``rows`` are (player id, result, board) of finished daily games."""
    chosen: dict[int, tuple[DailyResult, str | None]] = {}
    for player_id, result, board in sorted(rows, key=lambda row: row[1].finished_at):
        chosen.setdefault(player_id, (result, board))
    return chosen
