"""Command names, descriptions and choice names in the player's language, through discord.py's
:class:`~discord.app_commands.Translator` and the bot's gettext catalogues.

When the tree is synced, discord.py asks for every string in every Discord locale; this answers for the bot's
languages other than English (English is the commands' own text) and returns None otherwise, so Discord shows
the English text. Each :class:`~discord.app_commands.locale_str` made in :mod:`bot.adapters.discord.commands` says what kind
of string it is:

- ``kind="name"``: a command or option name, msgid in the ``command`` context (``pgettext("command", "new")``).
  Discord accepts only lower-case names of letters, digits, ``-`` and ``_``, at most 32 characters; a translation
  that is not one is left out (with a warning) rather than failing the whole sync.
- ``kind="text"``: a description from the renderer, translated as it is (at most 100 characters).
- ``kind="rules"``: the name of a rule set, from the renderer.

A string missing from a catalogue comes back from gettext unchanged and is left out too.
"""

from __future__ import annotations

import logging
import re

import discord
from discord import app_commands

from bot.i18n import DEFAULT_LOCALE, match_locale, translator
from bot.render.commands import rules_name
from core.deal import Rules

log = logging.getLogger(__name__)

NAME_CONTEXT = "command"
_NAME_RE = re.compile(r"^[-_\w]{1,32}$")
DESCRIPTION_MAX = 100

#: Discord's locales that the bot speaks, other than English, and the bot language of each: ``de``, ``fr``,
#: ``es-ES`` and ``es-419`` (both ``es``), ``pt-BR`` (``pt_BR``), ``pl``, ``tr``, ``uk``, ``ru``, ``ja``.
DISCORD_LOCALES: dict[discord.Locale, str] = {
    locale: language for locale in discord.Locale
    if (language := match_locale(locale.value)) is not None and language != DEFAULT_LOCALE
}


def valid_name(text: str) -> bool:
    """Whether Discord accepts ``text`` as a command or option name."""
    return bool(_NAME_RE.match(text)) and text == text.lower()


def translate(string: app_commands.locale_str, locale: str) -> str | None:
    """``string`` in the bot language ``locale``, or None to leave Discord's default (English)."""
    kind = string.extras.get("kind")
    message = string.message
    tr = translator(locale)
    if kind == "name":
        text = tr.pgettext(NAME_CONTEXT, message)
        if text != message and not valid_name(text):
            log.warning("the %s name for %r is not a valid Discord name: %r", locale, message, text)
            return None
    elif kind == "text":
        text = tr.gettext(message)
    elif kind == "rules":
        text = rules_name(Rules(string.extras["rules"]), locale)
    else:
        return None
    if text == message or len(text) > DESCRIPTION_MAX:
        return None
    return text


class CatalogueTranslator(app_commands.Translator):
    """The translator set on the command tree."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        language = DISCORD_LOCALES.get(locale)
        return None if language is None else translate(string, language)
