"""The values the service hands to the renderer and the adapters. Frozen, platform-neutral."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from core.deal import Rules
from core.game import Action, Game, Outcome


@dataclass(frozen=True)
class PlayerKey:
    """A player is keyed by platform (``discord``, ``telegram``, ``console``) and the platform's user id."""

    platform: str
    user_id: str


@dataclass(frozen=True)
class Settings:
    language: str | None = None  # an override; None means the platform's locale
    explain_refusals: bool = True
    default_rules: Rules = Rules.EASY


@dataclass(frozen=True)
class Hint:
    """The solver's advice for the position shown."""

    action: Action | None  # the next action of a best line; None when there is nothing to suggest
    winnable: bool | None  # None: the solver ran out of its time budget
    best_score: int | None  # the best final score still reachable, when winnable


@dataclass(frozen=True)
class DealVerdict:
    """What the solver says of a deal from its start."""

    winnable: bool | None  # None: unknown within the budget
    best_score: int | None


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


@dataclass(frozen=True)
class Stats:
    games: int
    wins: int
    best_score: int | None
    current_streak: int
    longest_streak: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0
