"""The chat's board of a game played at the table in the browser (:mod:`bot.adapters.web`): after each move there,
the game's live board in its Telegram chat is edited to the game as it stands, as a card played by name edits it
(the same paced, ordered edit: :meth:`~bot.adapters.telegram.base.TelegramContext.edit_message`)."""

from __future__ import annotations

import logging

from telegram import Bot, User
from telegram.error import TelegramError

from bot.adapters.telegram.app import CONTEXT_KEY
from bot.adapters.telegram.base import TelegramApp, TelegramContext, game_key, group_chat_id
from bot.adapters.telegram.drawing import TelegramDrawing
from bot.app.effects import ChallengeAnswered, GameSnapshot

log = logging.getLogger(__name__)


class TelegramBoards:
    """Edits the live boards of Telegram players' games for the table."""

    platform = "telegram"

    def __init__(self, application: TelegramApp) -> None:
        tg = application.bot_data[CONTEXT_KEY]
        assert isinstance(tg, TelegramContext)
        self.tg = tg
        self.bot: Bot = application.bot

    async def redraw(self, snapshot: GameSnapshot, platform_locale: str | None) -> None:
        """Edit ``snapshot``'s live board to it, in the player's language (their setting, else
        ``platform_locale``); a board that is gone stays gone (the table is where the player plays now)."""
        where = snapshot.board
        if where is None or snapshot.owner.platform != self.platform:
            return
        owner = User(int(snapshot.owner.user_id), snapshot.owner_name or "-", False, language_code=platform_locale)
        view = TelegramDrawing(self.tg, self.bot, owner, None).board(snapshot, group_chat_id(where.chat_id))
        try:
            await self.tg.edit_message(self.bot, where, view, game_key(snapshot))
        except TelegramError as error:
            log.info("could not redraw the chat's board of game %s: %s", snapshot.game_id, error)

    async def tell(self, chat_id: str, content: ChallengeAnswered, platform_locale: str | None) -> None:
        """Tell the chat ``chat_id`` (a challenger's) how their challenge went."""
        reader = User(0, "-", False, language_code=platform_locale)  # the finisher's: the challenger never seen
        await self.tg.tell(self.bot, chat_id, TelegramDrawing(self.tg, self.bot, reader, None).told(content))
