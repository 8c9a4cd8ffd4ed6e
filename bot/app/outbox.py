"""The outbox: what must reach a chat outside a command's own answer, delivered once it is committed and whatever
process dies on the way. Two kinds, one row a game each (``outbox``, :mod:`bot.store.outbox`):

- a game's chat board to redraw after a move (or a start) at the table in the browser: written by the move's own
  transaction (:class:`~bot.app.moves.Moves`), or by the flow just after a start there; asked for again, the row
  opens again, so moves coalesce into one edit, and the edit draws the game as it stands when it is sent (never a
  replay of moves; a game no longer its player's latest is drawn closed);
- a challenger to tell how their challenge went: written by the transaction that ends the game started from it,
  once a game, ever;
- a finished game's shared result to post in its chat, with its challenge (Share at the table, where the player
  cannot pick a chat: :meth:`Outbox.ask_share`), in the transaction that marks it shared.

A process that runs the row's platform claims it for :data:`LEASE` seconds (held while it is being delivered: a
Telegram chat's pace may hold it up), hands its effects (:class:`~bot.app.effects.RedrawBoard`,
:class:`~bot.app.effects.Tell`: a challenger told, a result shared) to that platform's executor, records where a board was sent anew, then marks it
delivered, in one commit right after the platform answers. A process that dies anywhere in between leaves the claim
to run out and the row to be claimed again: a row committed is delivered; a redelivered board draws the game as it
stands. A new message (a challenger told, a result shared) is noted as attempted in a commit of its own before it is
sent, and carries a key (:func:`message_key`: the row's id and request), the same on every try: Discord, given it as
an enforced nonce, posts a message sent again within a few minutes once. Telegram takes no such key: a message whose
process died after Telegram took it (the HTTP answer on its way back) and before the mark's commit is sent again,
the one case the chat sees it twice; the second try of an attempted row is logged as such.

Rows are looked for every :data:`OUTBOX_EVERY` seconds, at once when this process wrote one, and on PostgreSQL when
any process did (``NOTIFY``). A board asked for more than :data:`BOARD_STALE` seconds ago and never delivered (no
process runs its platform) is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, replace
from typing import assert_never

from bot.app.daily import Clock, utc_clock
from bot.app.effects import (
    BoardAt,
    ChallengeAnswered,
    Effect,
    ExecutorFor,
    GameSnapshot,
    PostedTo,
    RedrawBoard,
    RoundAt,
    ShareOf,
    Tell,
)
from bot.app.errors import GameNotFound
from bot.app.records import Today, load_game, owner_of, snapshot_of
from bot.metrics import outbox_backlog
from bot.store import games as stored_games
from bot.store import once as marks
from bot.store import outbox as rows
from bot.store.engine import Database, Transaction
from bot.store.games import GameRecord
from bot.store.outbox import OutboxRow

log = logging.getLogger(__name__)

#: How often a process looks for rows for its platforms (seconds).
OUTBOX_EVERY = 0.5
#: How long a claim lasts (seconds) unless held by a delivery still going on.
LEASE = 15.0
#: A board asked for this many seconds ago and not delivered is dropped: no process runs its platform.
BOARD_STALE = 180.0
#: The longest platform language a row keeps (the store's column).
LOCALE_MAX = 16


def _locale(locale: str | None) -> str | None:
    return (locale or "")[:LOCALE_MAX] or None


async def ask_board(tx: Transaction, record: GameRecord, locale: str | None, at: float,
                    chat_id: str | None = None) -> None:
    """In ``tx``: redraw the chat board of ``record``'s game (in ``locale`` where its player chose no language; sent
    anew, where it has none, in the chat of its start, else ``chat_id``)."""
    await rows.put_board(tx, OutboxRow(record.id, rows.BOARD, owner_of(record).platform, record.chat_id or chat_id,
                                       _locale(locale), at))


async def ask_tell(tx: Transaction, answer: GameRecord, at: float) -> bool:
    """In ``tx``: tell the challenger how ``answer``, a game started from their challenge that has just ended (won or
    blocked), went: once a game, in the chat of the challenger's own game of the deal, unless nobody is to be told
    (no such chat known, or the challenger's own game of their deal). Whether a tell was asked for."""
    if answer.challenge_of is None:
        return False
    shared = await stored_games.load(tx, answer.challenge_of)
    if shared is None or shared.chat_id is None or owner_of(shared) == owner_of(answer) \
            or not await marks.first(tx, answer.id, marks.TOLD, at):  # the mark also holds for those told before 0012
        return False
    return await rows.put_tell(tx, OutboxRow(answer.id, rows.TELL, owner_of(shared).platform, shared.chat_id,
                                             _locale(answer.seen_locale), at))


def message_key(row: OutboxRow) -> str:
    """The key of ``row``'s request: the same on every delivery of it, another for the same game's result shared
    again later (its ``seq``). Discord takes up to 25 characters as a nonce."""
    return f"{row.id}.{row.seq}"


@dataclass(frozen=True)
class Delivery:
    """A row claimed, with what its platform's executor is to do (drawn from the games as they stand now)."""

    row: OutboxRow
    effects: tuple[Effect, ...]


#: A finished game's snapshot with the key its challenge carries (:meth:`bot.app.challenges.Challenges.signed`).
Sign = Callable[[GameSnapshot], Awaitable[GameSnapshot]]


async def _unsigned(snapshot: GameSnapshot) -> GameSnapshot:
    return snapshot


#: The deployment owner's notice shown under boards now (:meth:`bot.app.owner.Owners.notice`), or None.
Notice = Callable[[], Awaitable[str | None]]


async def _no_notice() -> str | None:
    return None


class Outbox:
    """The outbox of ``db``, by ``clock``; each game is read as it stands when its row is claimed, on the day
    ``today`` says (whose daily deal's code stays hidden); a shared result carries its challenge (``sign``), a board
    the owner's ``notice``, as the boards of commands do."""

    def __init__(self, db: Database, today: Today, clock: Clock = utc_clock, lease: float = LEASE,
                 stale_after: float = BOARD_STALE, sign: Sign = _unsigned, notice: Notice = _no_notice) -> None:
        self.db = db
        self.sign = sign
        self.notice = notice
        self.today = today
        self.clock = clock
        self.lease = lease
        self.stale_after = stale_after
        self._written = asyncio.Event()

    def now(self) -> float:
        return self.clock().timestamp()

    def written(self) -> None:
        """Rows were committed here: look at once."""
        self._written.set()

    async def ask_boards(self, games: Collection[tuple[int, str | None]], locale: str | None) -> None:
        """Redraw the chat boards of ``games`` (game, the chat to send it to where it has none): a start at the
        table, the new game's and the one it replaced."""
        async with self.db.transaction() as tx:
            for game_id, chat_id in games:
                record = await stored_games.load(tx, game_id)
                if record is not None:
                    await ask_board(tx, record, locale, self.now(), chat_id)
        self.written()

    async def ask_share(self, snapshot: GameSnapshot, locale: str | None, within: float) -> bool:
        """Post the shared result of ``snapshot``, a finished game, in the chat of its board: unless it was shared
        within ``within`` seconds (a double tap), in the transaction that marks it shared. Whether it is posted."""
        if snapshot.board is None:
            return False
        async with self.db.transaction() as tx:
            if not await marks.claim(tx, snapshot.game_id, marks.SHARE, self.now(), within):
                return False
            await rows.put_board(tx, OutboxRow(snapshot.game_id, rows.SHARE, snapshot.owner.platform,
                                               snapshot.board.chat_id, _locale(locale), self.now()), rows.SHARE)
        self.written()
        return True

    async def take(self, platforms: Collection[str]) -> list[Delivery]:
        """The rows for ``platforms``, claimed (no other process gets them while the claim lasts), each with its
        effects; stale boards dropped, and rows with nothing to do any more marked delivered."""
        now = self.now()
        async with self.db.reading() as tx:
            if not await rows.waiting(tx, platforms, now):
                return []
        async with self.db.transaction() as tx:
            dropped = await rows.drop_stale(tx, now - self.stale_after)
            claimed = await rows.claim(tx, platforms, now, now + self.lease)
        if dropped:
            log.info("dropped %d stale request(s) to redraw a chat's board", dropped)
        taken: list[Delivery] = []
        for row in claimed:
            effects = await self._effects(row)
            if effects:
                taken.append(Delivery(row, effects))
            else:
                await self.done(row)
        return taken

    async def _effects(self, row: OutboxRow) -> tuple[Effect, ...]:
        notice = await self.notice() if row.kind == rows.BOARD else None
        async with self.db.reading() as tx:
            try:
                record = await load_game(tx, row.game_id)
            except GameNotFound:
                return ()
            snapshot = snapshot_of(record, today=self.today())
            if row.kind == rows.BOARD:
                latest = await stored_games.latest_of(tx, record.platform, record.user_id)
                return RedrawBoard(replace(snapshot, owner_notice=notice),
                                   latest=latest is not None and latest.id == row.game_id, chat_id=row.chat_id),
            shared = await stored_games.load(tx, record.challenge_of) if record.challenge_of is not None else None
        if row.chat_id is None:
            return ()
        if row.kind == rows.SHARE:
            return Tell(row.chat_id, ShareOf(await self.sign(snapshot)), message_key(row)),
        if shared is None:
            return ()
        content = ChallengeAnswered(snapshot_of(shared, today=self.today()), snapshot, shared.seen_locale)
        return Tell(row.chat_id, content, message_key(row)),

    async def done(self, row: OutboxRow) -> None:
        """Mark ``row`` delivered (unless its board was asked for again meanwhile: then it is claimed again)."""
        async with self.db.transaction() as tx:
            if not await rows.delivered(tx, row, self.now()):
                self.written()

    async def deliver(self, executors: Mapping[str, ExecutorFor]) -> int:
        """Claim the rows for ``executors``' platforms and have each platform's executor carry them out, side by side
        (a chat waiting out its platform's pace holds up no other); how many were delivered."""
        taken = await self.take(executors.keys())
        delivered = await asyncio.gather(*(self._deliver(each, executors[each.row.platform]) for each in taken))
        return sum(delivered)

    async def _deliver(self, delivery: Delivery, executor_for: ExecutorFor) -> bool:
        row = delivery.row
        if row.kind != rows.BOARD:  # a new message: the attempt committed before the send
            if row.attempted:
                log.warning("sending %s of game %s again: a process stopped while sending it (posted once where the "
                            "platform dedups by its key, else the chat may see it twice)", row.kind, row.game_id)
            async with self.db.transaction() as tx:
                await rows.attempt(tx, row)
        holding = asyncio.create_task(self._hold(delivery.row.id))
        try:
            reports = await executor_for(delivery.row.locale).run(list(delivery.effects))
        except Exception:  # one chat failing leaves the others; its claim runs out and it is tried again
            log.exception("could not deliver %s of game %s", delivery.row.kind, delivery.row.game_id)
            return False
        finally:
            holding.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await holding
        async with self.db.transaction() as tx:  # at once, in one commit: a board sent anew, where it is; the mark
            for report in reports:
                match report:
                    case BoardAt(game_id, where):
                        await stored_games.set_board(tx, game_id, where.chat_id, where.message_id)
                    case RoundAt():  # the outbox posts no round message
                        pass
                    case PostedTo():
                        pass  # the outbox asks for no post
                    case unhandled:
                        assert_never(unhandled)
            marked = await rows.delivered(tx, row, self.now())
        if not marked:  # asked for again meanwhile: claimed again
            self.written()
        return True

    async def _hold(self, row_id: int) -> None:
        """Hold the claim on ``row_id`` while it is being delivered."""
        while True:
            await asyncio.sleep(self.lease / 3)
            with contextlib.suppress(Exception):  # the database away for a moment: the claim may run out
                async with self.db.transaction() as tx:
                    await rows.extend(tx, [row_id], self.now() + self.lease)

    async def run(self, executors: Mapping[str, ExecutorFor], stop: asyncio.Event, every: float = OUTBOX_EVERY) -> None:
        """Deliver the rows for ``executors``' platforms as they come (at once when written here, on PostgreSQL when
        written anywhere) and every ``every`` seconds, until ``stop`` is set. The database out of reach is logged
        once, not every round."""
        failing = False
        async with rows.announced(self.db, self.written):
            while not stop.is_set():
                self._written.clear()
                try:
                    await self.deliver(executors)
                except Exception:  # the database away for a moment: a later round takes them
                    if not failing:
                        log.exception("could not take the outbox's rows")
                    failing = True
                else:
                    if failing:
                        log.info("taking the outbox's rows again")
                    failing = False
                waiting = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self._written.wait())]
                await asyncio.wait(waiting, timeout=every, return_when=asyncio.FIRST_COMPLETED)
                for waiter in waiting:
                    waiter.cancel()

    async def measure_backlog(self) -> None:
        """Set the outbox's metrics (:func:`bot.metrics.outbox_backlog`): the rows not yet delivered by platform,
        and the age of the oldest, as the database has them now (the same in every process)."""
        async with self.db.reading() as tx:
            waiting = await rows.backlog(tx)
        outbox_backlog(waiting, self.now())

    async def undelivered(self) -> list[OutboxRow]:
        """Every row not yet delivered."""
        async with self.db.reading() as tx:
            return await rows.undelivered(tx)
