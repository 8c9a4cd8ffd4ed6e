"""A live round's commands (:mod:`bot.app.rounds`), with :mod:`bot.app.commands` which names them all: starting one,
joining one and watching one."""

from __future__ import annotations

from dataclasses import dataclass

from core.deal import Rules


@dataclass(frozen=True)
class RoundDeal:
    """Join the live round ``round_id`` (its link): the round's deal, ranked in it, one entry a player (joined
    again: the player's entry as it stands)."""

    round_id: int


@dataclass(frozen=True)
class StartRound:
    """``/round [minutes] [classic | a code]`` in a group (Discord: ``/tripeaks round``): a live round of
    ``minutes``, on the deal ``code`` if given, else on a random winnable deal under ``rules`` (None: Easy)."""

    minutes: int = 5
    rules: Rules | None = None
    code: str | None = None


@dataclass(frozen=True)
class WatchRound:
    """Watch the live round ``round_id`` from its chat (Discord's 👀 Watch under the round message), read only: the
    standings and each player's board as that player sees it; a player of it still playing gets the standings
    alone."""

    round_id: int
