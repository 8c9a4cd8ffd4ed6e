"""The table's open streams told when their player's game changes, by one watcher for the whole process: it reads
the current game and version of every followed player in one statement, when woken (a command handled here, or on
PostgreSQL a write announced by any process: :func:`bot.store.changes.listening`) and every :data:`LOOK_EVERY`
seconds besides, never more often than every :data:`LOOK_AT_MOST` seconds. A stream costs nothing while its game
stands still, and the watcher nothing while no stream is open
(it starts with the first stream and, on PostgreSQL, keeps one connection listening until the process stops)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from bot.app.model import PlayerKey, RoundKey
from bot.store import changes
from bot.store import rounds as stored_rounds
from bot.store.engine import Database

log = logging.getLogger(__name__)

#: How often the watcher looks without being woken (seconds): a change nobody announced (SQLite, another process).
LOOK_EVERY = 1.0
#: The shortest time between two looks (seconds): a crowd's taps wake the watcher at most this often.
LOOK_AT_MOST = 0.1

#: A game as a stream last showed it: (game id, version), or None when the player had no current game.
Shown = tuple[int, int] | None
#: A round as a stream last showed it (:func:`bot.store.rounds.marks`: ended, entries, their versions), or None.
RoundShown = tuple[bool, int, int] | None


@dataclass(eq=False)
class Watch:
    """One stream's view of its player's game (or of a round: :class:`RoundKey`): :attr:`moved` (and
    :attr:`changed` set) once the game (the round) is no longer :attr:`shown`."""

    player: PlayerKey | RoundKey
    shown: Shown | RoundShown
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    moved: bool = False

    def saw(self, shown: Shown | RoundShown) -> None:
        """The stream has shown ``shown``: told again only when the game moves past it."""
        self.shown = shown
        self.moved = False


class Following:
    """The watches of this process's open streams over ``db``."""

    def __init__(self, db: Database, *, every: float = LOOK_EVERY, at_most: float = LOOK_AT_MOST) -> None:
        self.db = db
        self.every = every
        self.at_most = at_most
        self._watches: dict[PlayerKey | RoundKey, set[Watch]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: the watcher's rounds, and how many of them read the games (one statement each, whoever follows)
        self.rounds = 0
        self.looks = 0

    def __len__(self) -> int:
        """How many watches are open."""
        return sum(map(len, self._watches.values()))

    def wake(self) -> None:
        """Something may have changed a game: look soon (if anyone follows)."""
        if self._watches:
            self._wake.set()

    @contextlib.asynccontextmanager
    async def follow(self, player: PlayerKey | RoundKey, shown: Shown | RoundShown,
                     changed: asyncio.Event | None = None) -> AsyncIterator[Watch]:
        """A watch of ``player``'s game (or of a round) while open, told when it is no longer ``shown`` (``changed``
        set: the caller's own event, or a new one)."""
        watch = Watch(player, shown, changed or asyncio.Event())
        self._watches.setdefault(player, set()).add(watch)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="following")
        try:
            yield watch
        finally:
            held = self._watches.get(player)
            if held is not None:
                held.discard(watch)
                if not held:
                    del self._watches[player]

    async def look(self) -> None:
        """Read every followed player's game once and tell the watches whose game moved on."""
        # the watches as they are when the statement starts: one opened meanwhile may show a newer game than read
        watched = [(player, tuple(watches)) for player, watches in self._watches.items()]
        if not watched:
            return
        async with self.db.reading() as tx:
            now: dict[object, object] = dict(await changes.current_versions(
                tx, {(key.platform, key.user_id) for key, _ in watched if isinstance(key, PlayerKey)}))
            followed_rounds = {key.round_id for key, _ in watched if isinstance(key, RoundKey)}
            now.update({RoundKey(round_id): mark
                        for round_id, mark in (await stored_rounds.marks(tx, followed_rounds)).items()})
        self.looks += 1
        for key, watches in watched:
            current = now.get((key.platform, key.user_id) if isinstance(key, PlayerKey) else key)
            for watch in watches:
                if watch.shown != current and not watch.moved:
                    watch.moved = True
                    watch.changed.set()

    async def _run(self) -> None:
        """Look now and then, and when woken, until closed (with nobody following, a look reads nothing)."""
        failing = False
        loop = asyncio.get_running_loop()
        async with changes.listening(self.db, changes.CHANNEL, self.wake):
            while True:
                began = loop.time()
                self.rounds += 1
                self._wake.clear()
                try:
                    await self.look()
                except Exception:  # the database away for a moment: the next look tells them
                    if not failing:
                        log.exception("could not read the followed games")
                    failing = True
                else:
                    if failing:
                        log.info("reading the followed games again")
                    failing = False
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.every)
                await asyncio.sleep(max(0.0, began + self.at_most - loop.time()))

    async def close(self) -> None:
        """Stop the watcher (the streams end on their own)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
