"""``tripeaks run``: read the settings, migrate the database, and run Discord and Telegram (whichever have tokens)
in one process, or the console chat when neither has. Stops cleanly on SIGINT and SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import sys
from typing import Any, TextIO

from bot.config import Config, redact_url

log = logging.getLogger("tripeaks")


class _JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message (and the exception, if any)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class _RedactTokens(logging.Filter):
    """Never let a token reach a log line, whoever logs it (libraries log request URLs that embed the token)."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            message = record.getMessage()
            if any(secret in message for secret in self.secrets):
                for secret in self.secrets:
                    message = message.replace(secret, "***")
                record.msg, record.args = message, None
        return True


def configure_logging(config: Config, stream: TextIO = sys.stderr) -> None:
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_JsonFormatter())
    handler.addFilter(_RedactTokens([config.discord_token or "", config.telegram_token or "",
                                     config.telegram_webhook_secret or ""]))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(config.log_level)
    # httpx logs every request URL at INFO (Telegram's URLs hold the token: redacted above, but noisy);
    # aiosqlite logs every call at DEBUG
    logging.getLogger("httpx").setLevel(max(logging.WARNING, root.level))
    logging.getLogger("aiosqlite").setLevel(max(logging.INFO, root.level))


async def run_bot(config: Config, *, console_input: TextIO = sys.stdin, console_output: TextIO = sys.stdout) -> int:
    """Run until stopped; returns the exit status."""
    from bot.app.service import GameService

    if not (config.discord_token or config.telegram_token):
        print("No DISCORD_TOKEN or TELEGRAM_TOKEN set: starting a console game instead "
              "(see .env.example to connect the bot to a chat).", file=console_output, flush=True)
        from bot.adapters.console import run_console

        async with await GameService.open(config.database_url) as service:
            return await run_console(service, stream=console_input, out=console_output,
                                     locale=config.default_locale)

    log.info("starting")
    log.info("database %s", redact_url(config.database_url))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)

    async with await GameService.open(config.database_url) as service:
        tasks: list[asyncio.Task[Any]] = []
        telegram_app = None
        discord_bot = None
        poster_task: asyncio.Task[None] | None = None
        senders: list[Any] = []
        try:
            if config.telegram_token:
                from bot.adapters.telegram.app import build_application, start

                telegram_app = build_application(service, config)
                await start(telegram_app)
                log.info("telegram started")
                from bot.adapters.telegram.sender import TelegramSender

                senders.append(TelegramSender(telegram_app.bot))
            if config.discord_token:
                from bot.adapters.discord.client import build_bot

                discord_bot = build_bot(service, config)
                tasks.append(asyncio.create_task(discord_bot.start(config.discord_token), name="discord"))
                log.info("discord starting")
                from bot.adapters.discord.sender import DiscordSender

                senders.append(DiscordSender(discord_bot))
            from bot.app.daily_posts import DailyPoster

            # the daily posts: today's missed ones at once, then every day at DAILY_POST_TIME (UTC)
            poster = DailyPoster(service, senders, post_time=config.daily_post_time)
            poster_task = asyncio.create_task(poster.run(stop), name="daily posts")
            waiter = asyncio.create_task(stop.wait(), name="stop")
            done, _ = await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is not waiter and task.exception() is not None:
                    log.error("%s stopped: %s", task.get_name(), task.exception())
                    return 1
            log.info("stopping")
            return 0
        finally:
            if poster_task is not None:
                poster_task.cancel()
                await asyncio.gather(poster_task, return_exceptions=True)
            if discord_bot is not None:
                await discord_bot.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if telegram_app is not None:
                from bot.adapters.telegram.app import stop as stop_telegram

                await stop_telegram(telegram_app)
            log.info("stopped")
