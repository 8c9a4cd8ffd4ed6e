"""Building and running the Telegram bot on python-telegram-bot 22.

- :func:`build_application`: the PTB ``Application`` for a service and a configuration. Its Bot API address is
  ``TELEGRAM_API_URL`` (Telegram's own by default), so it runs as well against a self-hosted Bot API server or a
  local fake one.
- :func:`start` / :func:`stop`: run it inside an event loop the caller owns (the runner that also starts the
  Discord bot): long polling by default, a webhook when ``TELEGRAM_WEBHOOK_URL`` is set. A Telegram that cannot be
  reached at start is :class:`~bot.config.Unreachable`, and :func:`start` can be called again.

In webhook mode PTB's server refuses (403) every POST whose ``X-Telegram-Bot-Api-Secret-Token`` header is missing
or differs from ``TELEGRAM_WEBHOOK_SECRET``; the configuration insists on a secret whenever a webhook URL is set.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urlsplit

from telegram import BotCommand, MenuButtonWebApp, WebAppInfo
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import Application, ApplicationBuilder
from telegram.request import HTTPXRequest

from bot.adapters.telegram.base import TelegramApp, TelegramContext
from bot.adapters.telegram.handlers import ALLOWED_UPDATES, register
from bot.adapters.telegram.menu import menu_commands
from bot.adapters.telegram.pacing import TELEGRAM_PACE, Pace
from bot.adapters.telegram.polling import PollingBot
from bot.app.flow import Flow
from bot.config import Config, ConfigError, TokenRejected, Unreachable
from bot.i18n import DEFAULT_LOCALE, SUPPORTED_LOCALES, language_code
from bot.render.table_button import MENU_LABEL

log = logging.getLogger(__name__)

CONFIG_KEY = "tripeaks.config"
CONTEXT_KEY = "tripeaks.context"


def file_url(api_url: str) -> str:
    """The file download address that goes with a Bot API address (``.../bot`` -> ``.../file/bot``).

    >>> file_url("https://api.telegram.org/bot"), file_url("http://127.0.0.1:8081/bot")
    ('https://api.telegram.org/file/bot', 'http://127.0.0.1:8081/file/bot')
    """
    return re.sub(r"/bot$", "/file/bot", api_url.rstrip("/")) if api_url.rstrip("/").endswith("/bot") else api_url


def build_application(flow: Flow, config: Config, pace: Pace | None = TELEGRAM_PACE) -> TelegramApp:
    """The bot's Application over the application's one door: handlers registered, the command menus set at
    start-up; it writes to each chat within ``pace`` (None: as fast as Telegram lets it, for tests without flood
    control)."""
    if not config.telegram_token:
        raise ConfigError("TELEGRAM_TOKEN is not set: get a token from @BotFather")
    application = (
        ApplicationBuilder()
        .bot(PollingBot(config.telegram_token, config.telegram_api_url, file_url(config.telegram_api_url),
                        request=HTTPXRequest(connection_pool_size=256),
                        get_updates_request=HTTPXRequest(connection_pool_size=1)))  # PTB's own pool sizes
        # taps of different players are handled side by side (each handler a task of its own: handlers.register);
        # the application keeps actions on one game in order
        .concurrent_updates(True)
        .post_init(after_init)
        .build()
    )
    tg = TelegramContext(flow, config.default_locale, pace)
    tg.table_url, tg.mini_app = config.public_url, config.telegram_mini_app
    tg.rounds.mini_app = config.telegram_mini_app
    register(application, tg)
    application.bot_data[CONFIG_KEY] = config
    application.bot_data[CONTEXT_KEY] = tg
    return application


async def after_init(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Once the bot knows itself (getMe): whether it has inline mode, and its command menus."""
    tg = application.bot_data.get(CONTEXT_KEY)
    if isinstance(tg, TelegramContext):
        tg.inline = bool(application.bot.supports_inline_queries)
    await set_commands(application)
    await set_menu_button(application)


async def set_menu_button(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """With PUBLIC_URL, the bot's menu button opens the table (setChatMenuButton, every private chat); a failure
    is logged, not fatal."""
    config = _config(application)
    if config.public_url is None:
        return
    button = MenuButtonWebApp(MENU_LABEL, WebAppInfo(f"{config.public_url}/"))
    try:
        await application.bot.set_chat_menu_button(menu_button=button)
    except TelegramError as error:
        log.warning("could not set the menu button: %s", error)


async def set_commands(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """setMyCommands for each language: English as the default menu (for every language the bot does not speak),
    then one menu for each of the languages it does, under Telegram's two-letter code (``pt_BR`` is ``pt``). A
    failure is logged, not fatal: the commands work without a menu."""
    menus: list[tuple[str | None, str]] = [(None, DEFAULT_LOCALE)]
    menus += [(language_code(locale), locale) for locale in SUPPORTED_LOCALES]
    for code, locale in menus:
        commands = [BotCommand(name, description) for name, description in menu_commands(locale)]
        try:
            await application.bot.set_my_commands(commands, language_code=code)
        except TelegramError as error:
            log.warning("could not set the %s command menu: %s", code or "default", error)


def _config(application: TelegramApp) -> Config:
    config = application.bot_data[CONFIG_KEY]
    assert isinstance(config, Config)
    return config


def webhook_path(url: str) -> str:
    """The path the local webhook server listens on: that of the public URL (a proxy forwards it unchanged).

    >>> webhook_path("https://example.org/telegram/hook"), webhook_path("https://example.org")
    ('telegram/hook', '')
    """
    return urlsplit(url).path.strip("/")


async def start(application: TelegramApp) -> None:
    """Initialise and start the Application and fetch updates in the running event loop: a webhook when
    configured, long polling otherwise. Returns once it is running; :func:`stop` ends it."""
    config = _config(application)
    try:
        await application.initialize()  # getMe: Telegram's 401 becomes PTB's InvalidToken, the token in its text
    except InvalidToken:
        raise TokenRejected("TELEGRAM_TOKEN was rejected by Telegram (401)") from None
    except NetworkError as error:  # no connection, a timeout or a 5xx: a later getMe may answer
        raise Unreachable(f"Telegram cannot be reached ({error})") from None
    if application.post_init is not None:
        await application.post_init(application)
    await application.start()
    tg = application.bot_data.get(CONTEXT_KEY)
    if isinstance(tg, TelegramContext):
        tg.rounds.start(application.bot)  # rounds whose time is up end, and show their results
    assert application.updater is not None
    if config.telegram_webhook_url:
        await application.updater.start_webhook(
            listen=config.telegram_webhook_listen,
            port=config.telegram_webhook_port,
            url_path=webhook_path(config.telegram_webhook_url),
            webhook_url=config.telegram_webhook_url,
            secret_token=config.telegram_webhook_secret,
            allowed_updates=ALLOWED_UPDATES,
        )
        log.info("Telegram: webhook at %s", config.telegram_webhook_url)
    else:
        await application.updater.start_polling(allowed_updates=ALLOWED_UPDATES)
        log.info("Telegram: long polling %s", re.sub(r"/bot$", "", config.telegram_api_url))


async def stop(application: TelegramApp) -> None:
    """Stop fetching updates, finish the ones in hand, stop bringing boards up to date, and release the HTTP
    connections."""
    if application.updater is not None and application.updater.running:
        await application.updater.stop()
    if application.running:
        await application.stop()
    tg = application.bot_data.get(CONTEXT_KEY)
    if isinstance(tg, TelegramContext):
        await tg.boards.close()
        await tg.rounds.stop()
    await application.shutdown()

