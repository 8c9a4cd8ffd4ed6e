"""The welcome, help and the player's own things: ``/start`` (and ``/start <code>`` from a challenge link),
``/help``, ``/rules``, ``/stats``, ``/settings``, ``/winnable`` and the settings buttons."""

from __future__ import annotations

import dataclasses

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatType

from bot.adapters.telegram.base import Context, Reply
from bot.adapters.telegram.games import GameHandlers
from bot.adapters.telegram.menu import menu_commands
from bot.app.commands import Command, DealByCode, SettingChange, WinnableOnly
from bot.app.errors import BadPayload, NotYourSettings
from bot.render.lifecycle import render_welcome
from bot.render.replies import render_rules, render_settings, render_stats

#: What ``/winnable on`` and ``/winnable off`` may say.
SWITCH_WORDS = {"on": True, "off": False}


class InfoHandlers(GameHandlers):
    """Commands that show something (and the settings buttons)."""

    async def cmd_start(self, update: Update, context: Context) -> None:
        """``/start``: the short welcome with Play, Daily and Rules; ``/start <code>`` (a challenge link
        ``t.me/<bot>?start=<code>``): that deal, asked first when it would abandon a game in progress."""
        args = context.args or []

        async def work(message: Message, user: User) -> None:
            if args:
                await self.launch(context.bot, user, DealByCode(args[0]), message)
                return
            await self.reply(message, render_welcome(await self.user_locale(user)))

        await self._command(update, work)

    async def cmd_help(self, update: Update, context: Context) -> None:
        """``/help``: the rules, then the commands with their localised descriptions."""

        async def work(message: Message, user: User) -> None:
            locale = await self.user_locale(user)
            rules = render_rules(locale)
            commands = "\n".join(f"/{name} - {description}" for name, description in menu_commands(locale))
            await self.reply(message, dataclasses.replace(rules, status=f"{rules.status}\n\n{commands}"))

        await self._command(update, work)

    async def cmd_rules(self, update: Update, context: Context) -> None:
        async def work(message: Message, user: User) -> None:
            await self.reply(message, render_rules(await self.user_locale(user)))

        await self._command(update, work)

    async def cmd_stats(self, update: Update, context: Context) -> None:
        async def work(message: Message, user: User) -> None:
            player = self.player(user)
            stats = await self.service.stats(player)
            await self.reply(message, render_stats(stats, self.locale(user, await self.service.get_settings(player))))

        await self._command(update, work)

    async def cmd_settings(self, update: Update, context: Context) -> None:
        async def work(message: Message, user: User) -> None:
            settings = await self.service.get_settings(self.player(user))
            await self.reply(message, render_settings(settings, self.locale(user, settings)))

        await self._command(update, work)

    async def cmd_winnable(self, update: Update, context: Context) -> None:
        """``/winnable``: turn winnable-only deals on or off (``/winnable on``, ``/winnable off`` to choose); the
        answer is the settings message, where the same switch is a button."""
        args = context.args or []

        async def work(message: Message, user: User) -> None:
            player = self.player(user)
            if args:
                word = args[0].lower()
                if word not in SWITCH_WORDS:
                    raise BadPayload(f"/winnable takes on or off, not {word[:20]!r}")
                on = SWITCH_WORDS[word]
            else:
                current = await self.service.get_settings(player)
                on = not current.deals_winnable_only(current.default_rules)
            settings = await self.service.change_setting(player, self.name(user), WinnableOnly(on))
            await self.reply(message, render_settings(settings, self.locale(user, settings)))

        await self._command(update, work)

    async def tap_settings(self, query: CallbackQuery, user: User, choice: Command) -> Reply:
        """A settings button: only the player the settings message answered can use it."""
        if not isinstance(choice, SettingChange):
            raise BadPayload(f"not a button this bot makes: {choice!r}")
        owner = _addressee(query)
        if owner is not None and owner.id != user.id:
            raise NotYourSettings(owner.full_name)
        settings = await self.service.change_setting(self.player(user), self.name(user), choice)
        return Reply(None, render_settings(settings, self.locale(user, settings)))


def _addressee(query: CallbackQuery) -> User | None:
    """In a group, the user whose command the tapped message answered; None in a private chat."""
    message = query.message
    if not isinstance(message, Message) or message.chat.type == ChatType.PRIVATE:
        return None
    replied = message.reply_to_message
    return replied.from_user if replied is not None else None
