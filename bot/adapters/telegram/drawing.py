"""How the Telegram adapter draws what the flow shows, for one user: boards (with the table's button where there
is a table), messages and private lines, in the user's language."""

from __future__ import annotations

from telegram import Bot, Message

from bot.adapters.telegram.base import NEW_COMMAND, TelegramContext, in_group
from bot.adapters.telegram.inline import deal_link
from bot.adapters.telegram.menu import menu_commands, table_button_url
from bot.app.abilities import Abilities, telegram
from bot.app.codec import RESUME_START, BadPayload
from bot.app.effects import (
    Board,
    ChallengeAnswered,
    GameSnapshot,
    HelpOf,
    Note,
    Question,
    Settings,
    ShareOf,
    Shown,
    settings_of,
)
from bot.i18n import match_locale, resolve_locale
from bot.render.effects import draw, line
from bot.render.table_button import with_own_pace_offer, with_table_button
from bot.render.view import View


def anchored(message: Message | None) -> Message:
    """The message a command or tap is about; a tapped message too old for Telegram to hand over is refused."""
    if message is None:
        raise BadPayload("the tapped message is no longer accessible")
    return message


class TelegramDrawing:
    """Draws for a reader of ``language_code`` (Telegram's, for the user acting or last seen; ``anchor``: the message
    of their command or tap, when Telegram hands it over)."""

    def __init__(self, tg: TelegramContext, bot: Bot, language_code: str | None, anchor: Message | None) -> None:
        self.tg = tg
        self.bot = bot
        self.language_code = language_code
        self.anchor = anchor

    def locale(self, settings: Settings | None) -> str:
        """The reader's language: their own setting, else Telegram's, else the configured default."""
        platform = match_locale(self.language_code) or self.tg.default_locale
        return resolve_locale(settings.language if settings is not None else None, platform)

    @property
    def place(self) -> Abilities:
        """What Telegram can do where the command or tap came from (a private chat when none is known)."""
        return telegram(self.anchor is not None and in_group(self.anchor.chat))

    def draw(self, content: Shown) -> View:
        """A message: ``content`` in the user's language."""
        locale = self.locale(settings_of(content))
        match content:
            case HelpOf():
                return draw(content, locale, self.place, commands=menu_commands(locale))
            case Question(current):
                anchor = anchored(self.anchor)
                elsewhere = current.board is not None and current.board.chat_id != str(anchor.chat_id)
                return draw(content, locale, self.place, elsewhere=elsewhere)
            case ShareOf(snapshot):
                link = deal_link(self.bot.username, snapshot)
                return draw(content, locale, self.place, replay=link, link=link)
        return draw(content, locale, self.place)

    def told(self, content: ChallengeAnswered) -> View:
        """What a challenger is told, in their language: their choice, else the ``language_code`` Telegram last
        gave for them, else this user's (who finished the game, when the challenger was never seen)."""
        if content.seen_locale is None:
            return self.draw(content)
        return TelegramDrawing(self.tg, self.bot, content.seen_locale, None).draw(content)

    def board(self, snapshot: GameSnapshot, group: bool, *, latest: bool = True) -> View:
        """The game as its owner sees it (the acting user is the owner: the service lets nobody else act); in a
        group the board names its player, and in a busy one offers them a board of their own once in a while (the
        table's, else their private chat's: ``/start resume`` brings the game there)."""
        locale = self.locale(snapshot.settings)
        place = telegram(group)
        view = draw(Board(snapshot, latest), locale, place, named=place.shared)
        playing = latest and not snapshot.game.is_over
        table = table_button_url(self.tg, self.bot.username, group) if playing else None
        if table is not None:
            view = with_table_button(view, locale, table, web_app=not group)
        if playing and group and self.anchor is not None and in_group(self.anchor.chat) \
                and self.tg.offers.offer(self.anchor.chat.id, snapshot.owner.user_id):
            private = None if table is not None else f"https://t.me/{self.bot.username}?start={RESUME_START}"
            view = with_own_pace_offer(view, locale, private)
        return view

    def line(self, note: Note) -> str:
        """A private line (a toast or a short reply)."""
        return line(note, self.locale(settings_of(note)), NEW_COMMAND)
