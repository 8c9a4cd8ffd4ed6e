"""The daily deal: one winnable Easy code per UTC date, the same for everyone on every platform.

Candidate deal numbers for a date come from SplitMix64 seeded with the date's ordinal plus a fixed salt; the first
candidate the solver proves winnable under Easy rules is the day's deal. The solver is exact, so the choice is
deterministic: every process and every version picks the same code for the same date.
"""

from __future__ import annotations

import datetime as dt
import functools

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
