"""One game everywhere, across processes: after a move at the table in the browser, the game's chat board is redrawn
(and a challenger told how their challenge went) by the game's platform. Where the table's process runs that
platform it does so at once (:class:`~bot.app.effects.ChatBoards`); where it does not, it leaves a request in the
database (:class:`RelayedBoards`), and a process that runs the platform takes it, once, and carries it out
(:meth:`Relay.run`: every :data:`RELAY_EVERY` seconds, and on PostgreSQL at once, woken by ``NOTIFY``). The
database decides who: taking is one ``DELETE ... RETURNING``.

A request says which game, not what to draw: the board is drawn as the game stands when the request is taken, so an
old request never shows an old state; requests for one game coalesce into one (the latest's time and language); a
request older than :data:`RELAY_STALE` seconds (no process running its platform took it) is dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bot.app.daily import Clock, utc_clock
from bot.app.effects import ChallengeAnswered, ChatBoards, GameSnapshot
from bot.app.errors import GameNotFound
from bot.app.games import Games
from bot.store import relay as requests
from bot.store.engine import Database
from bot.store.relay import RelayRow

log = logging.getLogger(__name__)

#: How often a process looks for requests for its platforms (seconds).
RELAY_EVERY = 0.5
#: A request not taken within this many seconds is dropped: no process runs its platform, or none did meanwhile.
RELAY_STALE = 180.0
#: The longest platform language a request keeps (the store's column).
LOCALE_MAX = 16


@dataclass(frozen=True)
class Redraw:
    """Redraw the live board of ``snapshot`` (the game as it stands now) on ``platform``."""

    platform: str
    snapshot: GameSnapshot
    platform_locale: str | None


@dataclass(frozen=True)
class TellChallenger:
    """Tell the chat ``chat_id`` on ``platform`` how a challenge went."""

    platform: str
    chat_id: str
    content: ChallengeAnswered
    platform_locale: str | None


Due = Redraw | TellChallenger


def to_carry_out(rows: Sequence[RelayRow], platforms: Collection[str], stale_before: float) -> list[RelayRow]:
    """Of the requests taken, those to carry out: for one of ``platforms`` and not older than ``stale_before``.

    >>> row = RelayRow(1, "board", "telegram", None, None, at=100.0)
    >>> to_carry_out([row], {"telegram"}, 50.0) == [row]
    True
    >>> to_carry_out([row], {"telegram"}, 150.0), to_carry_out([row], {"discord"}, 50.0)
    ([], [])
    """
    return [row for row in rows if row.platform in platforms and row.at >= stale_before]


class Relay:
    """The requests of ``db``, by ``clock``; ``games`` reads each game as it stands when its request is taken."""

    def __init__(self, db: Database, games: Games, clock: Clock = utc_clock, stale_after: float = RELAY_STALE) -> None:
        self.db = db
        self.games = games
        self.clock = clock
        self.stale_after = stale_after

    def boards(self, platform: str) -> RelayedBoards:
        """``platform``'s boards as a process that does not run it redraws them: through the database."""
        return RelayedBoards(self, platform)

    async def leave(self, game_id: int, kind: str, platform: str, platform_locale: str | None,
                    chat_id: str | None = None) -> None:
        """Leave a request (in place of the one for the same game and kind still waiting)."""
        row = RelayRow(game_id, kind, platform, chat_id, (platform_locale or "")[:LOCALE_MAX] or None,
                       self.clock().timestamp())
        async with self.db.transaction() as tx:
            await requests.put(tx, row)

    async def take(self, platforms: Collection[str]) -> list[Due]:
        """The requests for ``platforms``, taken (no other process gets them), each with the game as it stands now;
        stale ones, of any platform, dropped."""
        stale_before = self.clock().timestamp() - self.stale_after
        async with self.db.reading() as tx:
            if not await requests.waiting(tx, platforms, stale_before):
                return []
        async with self.db.transaction() as tx:
            rows = await requests.take(tx, platforms, stale_before)
        due = to_carry_out(rows, platforms, stale_before)
        if len(due) < len(rows):
            log.info("dropped %d stale request(s) to redraw a chat's board", len(rows) - len(due))
        return [found for row in due if (found := await self._due(row)) is not None]

    async def _due(self, row: RelayRow) -> Due | None:
        try:
            snapshot = await self.games.game(row.game_id)
            if row.kind == requests.BOARD:
                return Redraw(row.platform, snapshot, row.locale)
            if snapshot.challenge is not None and row.chat_id is not None:
                shared = await self.games.game(snapshot.challenge.game_id)
                return TellChallenger(row.platform, row.chat_id, ChallengeAnswered(shared, snapshot), row.locale)
        except GameNotFound:
            pass
        return None

    async def carry_out(self, boards: Mapping[str, ChatBoards]) -> int:
        """Take the requests for ``boards``' platforms and carry them out, side by side (a chat waiting out its
        platform's pace holds up no other); how many."""
        due = await self.take(boards.keys())
        await asyncio.gather(*(_carry(each, boards[each.platform]) for each in due))
        return len(due)

    async def run(self, boards: Mapping[str, ChatBoards], stop: asyncio.Event, every: float = RELAY_EVERY) -> None:
        """Carry out the requests for ``boards``' platforms as they come (on PostgreSQL, woken by each one left) and
        every ``every`` seconds, until ``stop`` is set. The database out of reach is logged once, not every round."""
        wake = asyncio.Event()
        failing = False
        async with requests.announced(self.db, wake.set):
            while not stop.is_set():
                wake.clear()
                try:
                    await self.carry_out(boards)
                except Exception:  # the database away for a moment: a later round takes them
                    if not failing:
                        log.exception("could not take the requests to redraw chat boards")
                    failing = True
                else:
                    if failing:
                        log.info("taking the requests to redraw chat boards again")
                    failing = False
                waiting = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
                await asyncio.wait(waiting, timeout=every, return_when=asyncio.FIRST_COMPLETED)
                for waiter in waiting:
                    waiter.cancel()


async def _carry(due: Due, boards: ChatBoards) -> None:
    try:
        match due:
            case Redraw(_, snapshot, locale):
                await boards.redraw(snapshot, locale)
            case TellChallenger(_, chat_id, content, locale):
                await boards.tell(chat_id, content, locale)
    except Exception:  # one chat failing leaves the others to redraw
        log.exception("could not carry out %s", type(due).__name__)


class RelayedBoards:
    """``platform``'s boards, for a process that does not run it: each redraw and each challenger to tell is a
    request left in the database for one that does."""

    def __init__(self, relay: Relay, platform: str) -> None:
        self.relay = relay
        self.platform = platform

    async def redraw(self, snapshot: GameSnapshot, platform_locale: str | None) -> None:
        """Ask for the live board of ``snapshot``'s game to be redrawn (as the game stands then)."""
        if snapshot.board is not None:  # a board nowhere yet has nothing to redraw
            await self.relay.leave(snapshot.game_id, requests.BOARD, self.platform, platform_locale)

    async def tell(self, chat_id: str, content: ChallengeAnswered, platform_locale: str | None) -> None:
        """Ask for the challenger at ``chat_id`` to be told how ``content.answer`` ended: in the language the
        challenger was last seen with, else ``platform_locale`` (the finisher's), as it would be told here (the
        request keeps one language: it is the one to tell in unless the challenger chose their own)."""
        await self.relay.leave(content.answer.game_id, requests.TELL, self.platform,
                               content.seen_locale or platform_locale, chat_id)
