"""Localisation: gettext catalogues through Babel, and choosing a player's language.

The catalogues are the ``.po`` files in ``bot/locales/<lang>/LC_MESSAGES/messages.po``. They are compiled in memory
the first time a language is used (no ``.mo`` files, no build step), so editing a ``.po`` file and restarting is all a
translator needs.

>>> resolve_locale(None, "en-US"), resolve_locale(None, "uk"), resolve_locale("ja", "ru"), resolve_locale(None, "pt-BR")
('en', 'uk', 'ja', 'pt_BR')
>>> resolve_locale(None, "es-419"), resolve_locale(None, "pt"), resolve_locale(None, "zh-CN")
('es', 'pt_BR', 'en')
>>> tr = translator("uk")
>>> tr.gettext("This card is blocked")
'Ця карта заблокована'
>>> [tr.ngettext("{n} card in the stock", "{n} cards in the stock", n).format(n=n) for n in (1, 2, 5)]
['1 карта в колоді', '2 карти в колоді', '5 карт у колоді']

The words for the game's terms in each language are fixed in ``bot/locales/GLOSSARY.md``.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Babel is imported when a catalogue is first read: the command's start and the solver workers,
    # which read the supported languages but never a catalogue, do without it
    from babel import Locale
    from babel.messages.catalog import Catalog
    from babel.support import Translations

#: The languages players are answered in; the first is the fallback. A code is a catalogue's directory name under
#: ``bot/locales`` and a Babel locale: a language (``de``), or a language and region (``pt_BR``) where we speak only
#: that regional form.
SUPPORTED_LOCALES: tuple[str, ...] = ("en", "uk", "ru", "ja", "de", "fr", "es", "pt_BR", "pl", "tr")
DEFAULT_LOCALE = "en"
DOMAIN = "messages"

#: Each language's own name, for the language picker (never translated).
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "uk": "Українська",
    "ru": "Русский",
    "ja": "日本語",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "pt_BR": "Português (Brasil)",
    "pl": "Polski",
    "tr": "Türkçe",
}

#: A language we speak in one regional form only: any tag of that language gets it (Telegram's ``pt``, ``pt-br``,
#: Discord's ``pt-BR``; a ``pt-PT`` player too, Brazilian Portuguese being closer than English).
_REGIONAL: dict[str, str] = {code.split("_", 1)[0]: code for code in SUPPORTED_LOCALES if "_" in code}


def N_(message: str) -> str:  # noqa: N802 - the conventional name the extractor looks for
    """Mark a string for extraction without translating it here (it is translated where it is shown)."""
    return message


def _match(tag: str | None) -> str | None:
    """The supported language a locale tag names, or None: ``en-US``, ``uk_UA``, ``JA`` by their language (so
    Discord's ``es-ES`` and ``es-419`` are both ``es``), ``pt``, ``pt-br``, ``pt-BR``, ``pt_BR`` as ``pt_BR``.

    >>> [_match(tag) for tag in ("en-GB", "uk_UA", "JA", "es-ES", "es-419", "pt", "pt-br", "pt_BR", "de-AT", "zh-CN")]
    ['en', 'uk', 'ja', 'es', 'es', 'pt_BR', 'pt_BR', 'pt_BR', 'de', None]
    """
    if not tag:
        return None
    primary = tag.strip().replace("_", "-").split("-", 1)[0].lower()
    if primary in SUPPORTED_LOCALES:
        return primary
    return _REGIONAL.get(primary)


def supported_locale(text: str) -> str | None:
    """The supported locale ``text`` names exactly, in any case, with ``_`` or ``-`` (a setting or an option, where
    ``de-AT`` is a typo rather than a region to ignore), or None.

    >>> [supported_locale(text) for text in ("pt_BR", "pt-br", "UK", "pt", "de-AT")]
    ['pt_BR', 'pt_BR', 'uk', None, None]
    """
    wanted = text.strip().replace("-", "_").lower()
    return next((code for code in SUPPORTED_LOCALES if code.lower() == wanted), None)


def match_locale(tag: str | None) -> str | None:
    """The supported language a platform's locale tag names, or None when the bot does not speak it: what an
    adapter asks before falling back to its configured default (``pt-BR`` is spoken, as ``pt_BR``)."""
    return _match(tag)


def language_code(locale: str) -> str:
    """The ISO 639-1 code of a supported language, for platforms that take no region (Telegram's
    ``setMyCommands``): ``pt_BR`` -> ``pt``.

    >>> language_code("pt_BR"), language_code("uk")
    ('pt', 'uk')
    """
    return locale.split("_", 1)[0]


def resolve_locale(override: str | None, platform_locale: str | None = None) -> str:
    """The language to answer in: the player's own choice first, then the platform's user locale (Discord's
    ``en-US``/``uk``/``ru``/``ja``..., Telegram's IETF ``language_code``), English for anything else."""
    return _match(override) or _match(platform_locale) or DEFAULT_LOCALE


def catalogue_path(locale: str) -> resources.abc.Traversable:
    """Where the ``.po`` catalogue of ``locale`` lives inside the package."""
    return resources.files("bot") / "locales" / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalogue(locale: str) -> Catalog:
    """Parse the ``.po`` catalogue of a supported language."""
    if locale not in SUPPORTED_LOCALES:
        raise ValueError(f"unsupported locale {locale!r}: use one of {', '.join(SUPPORTED_LOCALES)}")
    from babel.messages.pofile import read_po

    with catalogue_path(locale).open("rb") as handle:
        return read_po(handle, locale=locale, domain=DOMAIN)


def compile_catalogue(catalog: Catalog) -> Translations:
    """Compile a catalogue in memory, as ``pybabel compile`` would, skipping fuzzy entries."""
    from babel.messages.mofile import write_mo
    from babel.support import Translations

    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return Translations(fp=buffer, domain=DOMAIN)


@dataclass(frozen=True, eq=False)
class Translator:
    """The gettext functions for one language.

    Translated strings use ``str.format`` placeholders filled in after translation, never f-strings:
    ``tr.gettext("Final score: {score}").format(score=score)``.
    """

    locale: str
    translations: Translations

    def gettext(self, message: str) -> str:
        return self.translations.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.translations.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        return str(self.translations.pgettext(context, message))

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return str(self.translations.npgettext(context, singular, plural, n))

    @property
    def babel_locale(self) -> Locale:
        """For Babel's number and date formatting."""
        from babel import Locale

        return Locale.parse(self.locale)


def translator(locale: str | None) -> Translator:
    """The translator for a language tag (``uk``, ``en-US``...); anything unsupported gets English."""
    return _load(_match(locale) or DEFAULT_LOCALE)


@functools.cache
def _load(locale: str) -> Translator:
    """Read and compile one catalogue, once per process."""
    return Translator(locale, compile_catalogue(read_catalogue(locale)))
