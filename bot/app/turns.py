"""A player's moves taken in the order they came, within a process: two quick taps on one keyboard (K♣, then
A♦, which fits only once K♣ is played) arrive in order, but each is handled as a task of its own, and the second
must not overtake the first at its first wait. Only moves take turns (a card, Draw, Undo, a card played by name):
other players never wait for them, nor do the player's other commands, some of which may take seconds (a hint, a
review, a winnable deal searched for, an inline query answered while they type)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from bot.app.commands import Command, Move, PlayCard
from bot.app.model import PlayerKey


@dataclass
class _Turn:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    queued: int = 0


class Turns:
    """Each player's moves one after another, first come first served."""

    def __init__(self) -> None:
        self._turns: dict[PlayerKey, _Turn] = {}

    @contextlib.asynccontextmanager
    async def of(self, player: PlayerKey, command: Command) -> AsyncIterator[None]:
        """For a move, wait for ``player``'s moves that came before, then hold the turn while ``command`` is handled
        (taken without a wait when it is free, so a move that enters first is first); any other command at once."""
        if not isinstance(command, Move | PlayCard):
            yield
            return
        turn = self._turns.setdefault(player, _Turn())
        turn.queued += 1
        try:
            async with turn.lock:
                yield
        finally:
            turn.queued -= 1
            if turn.queued == 0:
                del self._turns[player]

    def __len__(self) -> int:
        """How many players have a command in hand or waiting."""
        return len(self._turns)
