"""The chat's board of a game played at the table in the browser (:mod:`bot.adapters.web`): after each move there,
the game's live board in its Discord channel is edited to the game as it stands, with the bot's token, as a board
in another channel is (:meth:`~bot.adapters.discord.executor.DiscordExecutor.edit`). The edit is a REST call, so any
process with the token can make it, whichever shards it runs (the relay, :mod:`bot.app.relay`, may hand it one whose
shards do not hold the channel's server). An ephemeral board (the ranked
daily attempt's, in a server) belongs to its interaction, which the bot cannot edit later: it stays as it was, the
table being where the player plays now."""

from __future__ import annotations

import logging

import discord

from bot.adapters.discord.base import tell, told_locale
from bot.adapters.discord.views import files_of, layout
from bot.app.effects import Board, ChallengeAnswered, GameSnapshot
from bot.i18n import resolve_locale
from bot.render.effects import draw

log = logging.getLogger(__name__)


class DiscordBoards:
    """Edits the live boards of Discord players' games for the table."""

    platform = "discord"

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def redraw(self, snapshot: GameSnapshot, platform_locale: str | None) -> None:
        """Edit ``snapshot``'s live board to it, in the player's language (their setting, else
        ``platform_locale``), named as it is in a server; a board that is gone stays gone."""
        where = snapshot.board
        if where is None or snapshot.owner.platform != self.platform:
            return
        view = draw(Board(snapshot, True), resolve_locale(snapshot.settings.language, platform_locale),
                    named=await self._in_server(where.chat_id), fixed_header=True)
        message = self.client.get_partial_messageable(int(where.chat_id)).get_partial_message(int(where.message_id))
        try:
            await message.edit(view=layout(view), attachments=await files_of(view))
        except (discord.HTTPException, ValueError) as error:
            log.info("could not redraw the chat's board of game %s: %s", snapshot.game_id, error)

    async def _in_server(self, chat_id: str) -> bool:
        """Whether ``chat_id`` is a server's channel (its boards carry their player's name): from this process's
        cache, else from Discord (a server of another process's shards, a DM not seen since this process started)."""
        channel = self.client.get_channel(int(chat_id))
        if channel is None:
            try:
                channel = await self.client.fetch_channel(int(chat_id))
            except discord.HTTPException:
                return False
        return getattr(channel, "guild", None) is not None

    async def tell(self, chat_id: str, content: ChallengeAnswered, platform_locale: str | None) -> None:
        """Tell the channel ``chat_id`` (a challenger's) how their challenge went."""
        await tell(self.client, chat_id, draw(content, told_locale(content, platform_locale)))
