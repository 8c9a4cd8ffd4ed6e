"""The player's own things: ``/help``, ``/rules``, ``/stats``, ``/settings``, ``/winnable`` and the settings
buttons (``/start`` and its welcome: :mod:`bot.adapters.telegram.games`)."""

from __future__ import annotations

import dataclasses

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatType

from bot.adapters.telegram.base import Context, TelegramContext
from bot.adapters.telegram.executor import TelegramExecutor
from bot.adapters.telegram.menu import menu_commands
from bot.app.commands import Command, SettingChange, WinnableOnly
from bot.app.errors import BadPayload, NotYourSettings
from bot.render.replies import render_rules, render_settings, render_stats

#: What ``/winnable on`` and ``/winnable off`` may say.
SWITCH_WORDS = {"on": True, "off": False}


async def cmd_help(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/help``: the rules, then the commands with their localised descriptions."""

    async def work(message: Message, user: User) -> None:
        locale = await tg.user_locale(user)
        rules = render_rules(locale)
        commands = "\n".join(f"/{name} - {description}" for name, description in menu_commands(locale))
        await tg.reply(message, dataclasses.replace(rules, status=f"{rules.status}\n\n{commands}"))

    await tg.command(update, work)


async def cmd_rules(tg: TelegramContext, update: Update, context: Context) -> None:
    async def work(message: Message, user: User) -> None:
        await tg.reply(message, render_rules(await tg.user_locale(user)))

    await tg.command(update, work)


async def cmd_stats(tg: TelegramContext, update: Update, context: Context) -> None:
    async def work(message: Message, user: User) -> None:
        player = tg.player(user)
        stats = await tg.service.stats(player)
        await tg.reply(message, render_stats(stats, tg.locale(user, await tg.service.get_settings(player))))

    await tg.command(update, work)


async def cmd_settings(tg: TelegramContext, update: Update, context: Context) -> None:
    async def work(message: Message, user: User) -> None:
        settings = await tg.service.get_settings(tg.player(user))
        await tg.reply(message, render_settings(settings, tg.locale(user, settings)))

    await tg.command(update, work)


async def cmd_winnable(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/winnable``: turn winnable-only deals on or off (``/winnable on``, ``/winnable off`` to choose); the
    answer is the settings message, where the same switch is a button."""
    args = context.args or []

    async def work(message: Message, user: User) -> None:
        player = tg.player(user)
        if args:
            word = args[0].lower()
            if word not in SWITCH_WORDS:
                raise BadPayload(f"/winnable takes on or off, not {word[:20]!r}")
            on = SWITCH_WORDS[word]
        else:
            current = await tg.service.get_settings(player)
            on = not current.deals_winnable_only(current.default_rules)
        settings = await tg.service.change_setting(player, tg.name(user), WinnableOnly(on))
        await tg.reply(message, render_settings(settings, tg.locale(user, settings)))

    await tg.command(update, work)


async def on_settings_tap(tg: TelegramContext, executor: TelegramExecutor, choice: Command) -> None:
    """A settings button: only the player the settings message answered can use it; the message is redrawn."""
    if not isinstance(choice, SettingChange):
        raise BadPayload(f"not a button this bot makes: {choice!r}")
    assert executor.query is not None
    user = executor.user
    owner = _addressee(executor.query)
    if owner is not None and owner.id != user.id:
        raise NotYourSettings(owner.full_name)
    before = await tg.service.get_settings(tg.player(user))
    settings = await tg.service.change_setting(tg.player(user), tg.name(user), choice)
    await executor.answer(None)
    await executor.edit_tapped(render_settings(settings, tg.locale(user, settings)), None)
    if settings.board is not before.board:
        await executor.board_style_changed(anew=True)
    elif settings.four_colour is not before.four_colour:
        await executor.board_style_changed(anew=False)


def _addressee(query: CallbackQuery) -> User | None:
    """In a group, the user whose command the tapped message answered; None in a private chat."""
    message = query.message
    if not isinstance(message, Message) or message.chat.type == ChatType.PRIVATE:
        return None
    replied = message.reply_to_message
    return replied.from_user if replied is not None else None
