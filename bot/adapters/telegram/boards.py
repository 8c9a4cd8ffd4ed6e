"""Boards brought up to date at the chat's pace: the edits of one message coalesce, and the one sent draws the game
as it stands when it is sent.

A tap asks for its board to show the game (:meth:`BoardEdits.show`); one writer a message then waits for the
chat's turn (:meth:`~bot.adapters.telegram.pacing.ChatPace.holding`: the chat's boards take turns by how long
their oldest change has waited, so in a busy group each board is edited in its turn and none starves), and only
once it holds the turn reads the game as it stands through the flow (the database: another process may have moved
it on), draws it and edits the message; every change that came meanwhile is shown by that one edit, never a replay
of moves (an edit Telegram asked to wait, a 429, is drawn anew when the pause is over). After each edit the writer
reads the game's version alone (one cheap read through the flow): when the game moved on through another process
while the edit was drawn and sent, that process's edit may have reached the chat first and this one drawn over it,
so the board is drawn again at its next turn; the chat ends on the game as it stands, whichever process sent
which edit last, and a board whose game did not move is never edited twice. An edit never draws an older version
over a newer one this process showed (the versions compare). The cost: one read of the game (to draw it) and one
of its version, an edit sent. A tap waits until its board shows its move (or a later one), so whoever handled it knows
the board caught up.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable

from telegram.error import RetryAfter

from bot.adapters.telegram.pacing import ChatPace
from bot.adapters.telegram.sending import FLOOD_TRIES
from bot.app.effects import BoardRef, GameSnapshot
from bot.render.view import View

log = logging.getLogger(__name__)

#: A game drawn as its board, for its player.
Drawing = Callable[[GameSnapshot], View]
#: The game ``game_id`` as it stands (through the flow).
Latest = Callable[[int], Awaitable[GameSnapshot]]
#: How far the game ``game_id`` has moved (its version, one cheap read through the flow).
Version = Callable[[int], Awaitable[int]]
#: Edit a message to a view of a game (id, version); False when it can no longer be edited.
Edit = Callable[[BoardRef, View, tuple[int, int]], Awaitable[bool]]


@dataclasses.dataclass
class _Board:
    """One message being brought up to date: the newest state of its game known here, how to draw it, whether it
    changed since last drawn and since when, what the message shows, and the taps waiting to see their version
    shown."""

    snapshot: GameSnapshot
    drawing: Drawing
    edit: Edit
    changed: bool = True
    since: float = dataclasses.field(default_factory=time.monotonic)
    shown: int = -1
    writer: asyncio.Task[None] | None = None
    waiting: list[tuple[int, asyncio.Future[bool]]] = dataclasses.field(default_factory=list)


class BoardEdits:
    """The boards this process is bringing up to date, one writer a message."""

    def __init__(self, pace: ChatPace, latest: Latest, version: Version) -> None:
        self.pace = pace
        self.latest = latest
        self.version = version
        self._boards: dict[BoardRef, _Board] = {}

    async def show(self, where: BoardRef, snapshot: GameSnapshot, drawing: Drawing, edit: Edit, *,
                   redraw: bool = True) -> bool:
        """Bring the message ``where`` to ``snapshot`` or a later state of its game (drawn by ``drawing``, edited by
        ``edit``), at the chat's pace. Returns once it shows it: True; or False when the message can no longer be
        edited (the caller shows the game anew). ``redraw=False``: the state changed nothing the message need show
        (a refusal), so an edit already on its way for this version is not asked to draw it."""
        board = self._boards.get(where)
        if board is None or board.snapshot.game_id != snapshot.game_id:
            board = self._boards[where] = _Board(snapshot, drawing, edit)
        elif snapshot.version > board.snapshot.version or (snapshot.version == board.snapshot.version and redraw):
            # the newest state this process knows (at one version, the later answer: a hint after the move)
            board.snapshot, board.drawing, board.edit = snapshot, drawing, edit
            self._changed(board)
        if board.writer is None:
            board.writer = asyncio.ensure_future(self._write(where, board))
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        board.waiting.append((snapshot.version, done))
        return await done

    async def _write(self, where: BoardRef, board: _Board) -> None:
        chat_id = int(where.chat_id)
        floods = 0
        try:
            while board.changed or board.snapshot.version > board.shown:
                try:
                    async with self.pace.holding(chat_id, since=board.since):
                        await self._catch_up(board)  # what the game is now, as the edit goes
                        snapshot, board.changed = board.snapshot, False
                        edited = await board.edit(where, board.drawing(snapshot),
                                                  (snapshot.game_id, snapshot.version))
                except RetryAfter:  # the chat is paused: drawn again, as the game is then, when it ends
                    floods += 1
                    if floods >= FLOOD_TRIES:
                        raise
                    board.changed = True
                    continue
                floods = 0
                if not edited:
                    self._settle(board, failed=True)
                    break
                board.shown = max(board.shown, snapshot.version)
                if not board.changed and await self.version(snapshot.game_id) > snapshot.version:
                    # moved on through another process while this edit was drawn and sent: that process's edit
                    # may have reached the chat first, and this one drew over it; drawn again at its next turn
                    self._changed(board)
                self._settle(board)  # the taps shown are answered once their board knows whether it is behind
        except Exception as error:  # the taps waiting get it: each handler reports it as its own
            for _, done in board.waiting:
                if not done.done():
                    done.set_exception(error)
            board.waiting.clear()
        finally:
            board.writer = None
            self._settle(board, everyone=True)
            if self._boards.get(where) is board and not board.waiting:
                del self._boards[where]

    async def _catch_up(self, board: _Board) -> None:
        """The game as the flow has it, when it moved on elsewhere (another process) or here since."""
        stored = await self.latest(board.snapshot.game_id)
        if stored.version > board.snapshot.version:
            board.snapshot = stored
            self._changed(board)

    @staticmethod
    def _changed(board: _Board) -> None:
        """The board must show a newer state: since now, unless an older change waits already."""
        if not board.changed:
            board.since = time.monotonic()
        board.changed = True

    async def close(self) -> None:
        """Stop bringing boards up to date (the bot is stopping): a board still waiting for its turn stays as it
        is, and the next tap brings it up."""
        boards = list(self._boards.values())
        writers = [board.writer for board in boards if board.writer is not None]
        for writer in writers:
            writer.cancel()
        await asyncio.gather(*writers, return_exceptions=True)
        for board in boards:  # a writer cancelled before it began settles nobody
            self._settle(board, everyone=True)
        self._boards.clear()

    @staticmethod
    def _settle(board: _Board, *, failed: bool = False, everyone: bool = False) -> None:
        """Answer the taps whose version the message now shows; when it could not be edited, the newest tap
        learns so (False: it shows the game anew) and the others that they are answered by that."""
        newest = max((version for version, _ in board.waiting), default=-1)
        kept: list[tuple[int, asyncio.Future[bool]]] = []
        for version, done in board.waiting:
            if done.done():
                continue
            if failed:
                done.set_result(version != newest)
            elif everyone or version <= board.shown:
                done.set_result(True)
            else:
                kept.append((version, done))
        board.waiting = kept
