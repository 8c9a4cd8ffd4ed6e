"""Starting games and showing boards: ``/tripeaks``, ``/resume``, ``/play``, and the one way every start goes.

Every start asks the service with ``ask=True``. When it would abandon a game in progress with moves the service
raises :class:`~bot.app.errors.ConfirmAbandon`, and the player gets the renderer's question as a new message
(Yes: :class:`~bot.app.commands.ConfirmStart`, No: :class:`~bot.app.commands.KeepPlaying`). Once a game starts,
its board is sent (or drawn into the message that asked for it) and noted with ``service.show_board``, and the
board of the game it replaced is redrawn as no longer the latest (``render_game(..., latest=False)``).
"""

from __future__ import annotations

import logging

from telegram import Bot, Message, Update, User

from bot.adapters.telegram.base import (
    Context,
    HandlerBase,
    board_of,
    game_key,
    group_chat_id,
    in_group,
)
from bot.app.commands import ConfirmStart, DealByCode, RandomDeal, StartRequest
from bot.app.errors import ConfirmAbandon, NoActiveGame
from bot.app.model import GameSnapshot
from bot.render.game import play_ack
from bot.render.lifecycle import render_confirm_start
from core.deal import Rules
from core.errors import InvalidCodeError

log = logging.getLogger(__name__)


class GameHandlers(HandlerBase):
    """Starting games (by command, button or confirmation) and the commands about the game in progress."""

    # --- the one way a game starts ------------------------------------------------------------------------

    async def launch(self, bot: Bot, user: User, request: StartRequest | ConfirmStart, anchor: Message, *,
                     in_place: bool = False) -> GameSnapshot | None:
        """Start ``request`` for ``user`` from ``anchor`` (the command, the tapped message): the new board is a
        new message answering ``anchor``, or with ``in_place`` ``anchor`` itself redrawn. None when the player
        is asked first (the question is sent) instead."""
        chat_id = str(anchor.chat_id)
        try:
            snapshot = await self.service.start(
                self.player(user), self.name(user), request, chat_id=chat_id,
                # a daily attempt in a group counts on the group's leaderboard; one in a private chat on none
                community=chat_id if group_chat_id(chat_id) else None, ask=True)
        except ConfirmAbandon as error:
            assert not isinstance(request, ConfirmStart)  # a confirmed start is never asked again
            await self.ask_first(user, error.current, request, anchor)
            return None
        await self.present(bot, user, snapshot, anchor, in_place=in_place)
        return snapshot

    async def ask_first(self, user: User, current: GameSnapshot, request: StartRequest, anchor: Message) -> None:
        """"Abandon your game in progress?" as a new message answering ``anchor``; it names the game, and says
        so when its board is in another chat."""
        elsewhere = current.board is not None and current.board.chat_id != str(anchor.chat_id)
        view = render_confirm_start(current, request, self.locale(user, current.settings), elsewhere=elsewhere)
        await self.reply(anchor, view)

    async def present(self, bot: Bot, user: User, snapshot: GameSnapshot, anchor: Message, *,
                      in_place: bool = False) -> Message:
        """Show a game just started (or resumed) as its live board: ``anchor`` redrawn (``in_place``) or a new
        message answering it; the service is told where the board is, and the replaced game's board closed."""
        view = self.game_view(snapshot, user, group=in_group(anchor.chat))
        shown: Message = anchor
        if not in_place or not await self.edit_board(bot, board_of(anchor), view, game_key(snapshot)):
            shown = await self.reply(anchor, view)
        await self.service.show_board(snapshot.game_id, board_of(shown))
        await self.close_board(bot, user, snapshot.replaced, keep=board_of(shown))
        return shown

    async def show_again(self, bot: Bot, user: User, snapshot: GameSnapshot, anchor: Message) -> None:
        """The player's game as a new message (``/resume``, ``/daily`` again): it becomes the live board."""
        await self.present(bot, user, snapshot, anchor)

    # --- commands ---------------------------------------------------------------------------------------------

    async def cmd_new(self, update: Update, context: Context) -> None:
        """``/tripeaks``: a new game under the player's default rules; ``/tripeaks classic``/``easy``: under those
        rules; ``/tripeaks CODE``: that deal."""
        args = context.args or []

        async def work(message: Message, user: User) -> None:
            request: StartRequest = RandomDeal()
            if args:
                try:
                    request = RandomDeal(Rules.parse(args[0]))
                except InvalidCodeError:
                    request = DealByCode(" ".join(args))
            await self.launch(context.bot, user, request, message)

        await self._command(update, work)

    async def cmd_resume(self, update: Update, context: Context) -> None:
        """``/resume``: the player's game in progress, as a new message (the live board from now on)."""

        async def work(message: Message, user: User) -> None:
            snapshot = await self.service.current_game(self.player(user))
            if snapshot is None:
                raise NoActiveGame()
            await self.show_again(context.bot, user, snapshot, message)

        await self._command(update, work)

    async def cmd_play(self, update: Update, context: Context) -> None:
        """``/play 7h``: tap the free card of that name in the current game. The live board is edited in place and
        the command gets a short acknowledgement; words that name no card and cards not in play are explained."""
        args = context.args or []

        async def work(message: Message, user: User) -> None:
            snapshot = await self.service.play_card(self.player(user), self.name(user), "".join(args))
            locale = self.locale(user, snapshot.settings)
            await self.redraw(context.bot, user, snapshot, message)
            await self.reply_text(message, play_ack(snapshot, locale))

        await self._command(update, work)

    async def redraw(self, bot: Bot, user: User, snapshot: GameSnapshot, anchor: Message) -> None:
        """The game's live board edited to ``snapshot``; when there is none any more (or it cannot be edited), the
        board is sent anew answering ``anchor`` and becomes the live one."""
        where = snapshot.board
        if where is not None:
            view = self.game_view(snapshot, user, group=group_chat_id(where.chat_id))
            if await self.edit_board(bot, where, view, game_key(snapshot)):
                return
        sent = await self.reply(anchor, self.game_view(snapshot, user, group=in_group(anchor.chat)))
        await self.service.show_board(snapshot.game_id, board_of(sent))
