"""Daily posts on Discord: :class:`DiscordSender` puts the renderer's daily view into a channel for
:class:`bot.app.daily_posts.DailyPoster`, with the same Components V2 layout and Play button as every other message."""

from __future__ import annotations

from typing import Any

import aiohttp
import discord

from bot.adapters.discord.views import layout
from bot.app.daily import DailyPost
from bot.app.daily_posts import RetryLater, Transient, Undeliverable
from bot.render.replies import render_daily


class DiscordSender:
    platform = "discord"

    def __init__(self, bot: discord.Client) -> None:
        self.bot = bot

    async def send_daily(self, channel_id: str, post: DailyPost) -> str | None:
        view = render_daily(post.day, post.locale, post.recap)
        await self.bot.wait_until_ready()
        try:
            channel: Any = self.bot.get_channel(int(channel_id)) or await self.bot.fetch_channel(int(channel_id))
            if not isinstance(channel, discord.abc.Messageable):
                raise Undeliverable(f"channel {channel_id} takes no messages")
            message = await channel.send(view=layout(view))
        except (discord.NotFound, discord.Forbidden) as error:
            raise Undeliverable(str(error)) from error
        except discord.HTTPException as error:
            if error.status == 429:  # discord.py waits out rate limits itself; this is one it gave up on
                raise RetryLater(5.0) from error
            if error.status >= 500:  # discord.py already retried a few times
                raise Transient(str(error)) from error
            raise
        except (TimeoutError, OSError, aiohttp.ClientError) as error:  # the network
            raise Transient(str(error) or type(error).__name__) from error
        return str(message.id)
