"""The chat platforms ``tripeaks run`` serves (:mod:`bot.runner`): each built over the service, started (connected,
tried again while it cannot be reached), asked whether it is up, and stopped."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from bot.config import Config

if TYPE_CHECKING:
    from bot.app.assembly import App
    from bot.app.effects import ExecutorFor

log = logging.getLogger("tripeaks")


class Platform(Protocol):
    """A chat platform the bot serves, as :func:`bot.runner._serve` drives it."""

    name: str

    def outbox_executor(self) -> ExecutorFor:
        """Its executor of what reaches a chat outside a command: what the outbox delivers (a chat board after a move
        at the table, a challenger told) and the daily posts."""
        ...

    async def start(self) -> asyncio.Task[None] | None:
        """Connect; returns once updates come in, with the task that stays connected if there is one (the bot
        stops if it ends). Raises :class:`TokenRejected` when the platform refuses the token, and
        :class:`Unreachable` when it cannot be reached (then it can be called again)."""
        ...

    async def stop(self) -> None:
        """Stop taking updates and finish those in hand; called once :meth:`start` was called, even if it failed or
        was cut short."""
        ...

    def up(self) -> tuple[str, bool]:
        """Its name, and whether it is connected now (the heartbeat asks, see :mod:`bot.heartbeat`)."""
        ...


class TelegramPlatform:
    name = "telegram"

    def __init__(self, service: App, config: Config) -> None:
        from bot.adapters.telegram.app import build_application

        self.application = build_application(service.flow, config)

    def outbox_executor(self) -> ExecutorFor:
        from bot.adapters.telegram.app import CONTEXT_KEY
        from bot.adapters.telegram.executor import outbox_executor

        return outbox_executor(self.application.bot_data[CONTEXT_KEY], self.application.bot)

    async def start(self) -> None:
        from bot.adapters.telegram.app import start

        await start(self.application)
        # read once, at start (getMe): BotFather's /setinline takes effect at the next start
        inline = self.application.bot.supports_inline_queries
        log.info("telegram started, inline mode %s", "on" if inline else
                 "off (@BotFather /setinline turns it on for challenges from any chat; then restart the bot)")

    async def stop(self) -> None:
        from bot.adapters.telegram.app import stop

        await stop(self.application)

    def up(self) -> tuple[str, bool]:
        updater = self.application.updater  # polling or the webhook's server
        return self.name, updater is not None and updater.running


class DiscordPlatform:
    name = "discord"

    def __init__(self, service: App, config: Config) -> None:
        from bot.adapters.discord.client import build_bot

        assert config.discord_token
        self.token = config.discord_token
        self.bot = build_bot(service.flow, config)
        self.task: asyncio.Task[None] | None = None

    def outbox_executor(self) -> ExecutorFor:
        from bot.adapters.discord.executor import outbox_executor

        return outbox_executor(self.bot.ctx)

    async def start(self) -> asyncio.Task[None]:
        from bot.adapters.discord.client import log_in

        await log_in(self.bot, self.token)
        self.bot.ctx.rounds.start()  # rounds whose time is up end, and show their results
        self.task = asyncio.create_task(self.bot.connect(), name="discord")
        log.info("discord starting")
        return self.task

    async def stop(self) -> None:
        await self.bot.close()
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    def up(self) -> tuple[str, bool]:
        return self.name, self.bot.is_ready() and not self.bot.is_closed()  # the gateway connected


def platforms_of(service: App, config: Config) -> Iterator[Platform]:
    """The platforms with a token, each built just before it starts."""
    if config.telegram_token:
        yield TelegramPlatform(service, config)
    if config.discord_token:
        yield DiscordPlatform(service, config)
