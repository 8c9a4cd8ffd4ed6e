"""The catalogues: complete, in step with the code, with the right plural forms and the original app's wording."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from bot.i18n import (
    DEFAULT_LOCALE,
    SUPPORTED_LOCALES,
    compile_catalogue,
    read_catalogue,
    resolve_locale,
    translator,
)
from bot.render import blocked_text, refusal_text, stock_text
from core.game import Reason

ROOT = Path(__file__).resolve().parent.parent
POT = ROOT / "bot" / "locales" / "messages.pot"
TRANSLATION_CALLS = {"gettext", "ngettext", "pgettext", "npgettext", "N_", "_"}


def _key(message: Message) -> tuple[str | None, str]:
    msgid = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
    return message.context, msgid


def _template() -> Catalog:
    with POT.open("rb") as handle:
        return read_po(handle)


def _messages(catalog: Catalog) -> dict[tuple[str | None, str], Message]:
    return {_key(m): m for m in catalog if m.id}


def _forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"{(\w*)}", text))


# --- the template and the code -----------------------------------------------------------------------------------


def test_template_is_in_step_with_the_code() -> None:
    """Every string the code marks is in messages.pot and nothing else is: rerun pybabel extract if this fails."""
    with (ROOT / "babel.cfg").open() as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    extracted = set()
    for _filename, _lineno, message, _comments, context in extract_from_dir(
            str(ROOT / "bot"), method_map, options_map, keywords=DEFAULT_KEYWORDS):
        msgid = message[0] if isinstance(message, tuple) else message
        extracted.add((context, msgid))
    assert extracted, "nothing extracted: is babel.cfg right?"
    assert set(_messages(_template())) == extracted


def test_no_formatted_string_is_translated() -> None:
    """A msgid is a plain literal: an f-string, ``%``, ``+`` or ``.format`` inside a gettext call would look up
    a string no catalogue holds."""
    offenders = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name not in TRANSLATION_CALLS:
                continue
            for arg in node.args:
                if isinstance(arg, (ast.JoinedStr, ast.BinOp, ast.Call)):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


# --- the catalogues ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_catalogue_is_complete(locale: str) -> None:
    """Every template message is translated (every plural form), none is fuzzy, none is left over."""
    template = _messages(_template())
    catalogue = read_catalogue(locale)
    messages = _messages(catalogue)
    assert set(messages) == set(template), "run pybabel update (see bot/locales/README.md)"
    assert not catalogue.obsolete
    nplurals = catalogue.num_plurals
    for key, message in messages.items():
        assert not message.fuzzy, key
        forms = _forms(message)
        if isinstance(message.id, (list, tuple)):
            assert len(forms) == nplurals, key
        assert all(form.strip() for form in forms), f"{locale}: no translation for {key}"


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_placeholders_survive_translation(locale: str) -> None:
    for key, message in _messages(read_catalogue(locale)).items():
        ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
        expected = set().union(*(_placeholders(i) for i in ids))
        for form in _forms(message):
            assert _placeholders(form) == expected, (locale, key, form)


@pytest.mark.parametrize("locale", ["uk", "ru", "ja"])
def test_every_string_is_really_translated(locale: str) -> None:
    """Not English copied over: every msgstr differs from its msgid."""
    for key, message in _messages(read_catalogue(locale)).items():
        ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
        for form in _forms(message):
            assert form not in ids, (locale, key)


def test_english_catalogue_repeats_or_rewords_the_source() -> None:
    for key, message in _messages(read_catalogue("en")).items():
        ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
        assert _forms(message) == ids, key


# --- plurals ------------------------------------------------------------------------------------------------------

_CLDR_INDEX = {
    "en": {"one": 0, "other": 1},
    "uk": {"one": 0, "few": 1, "many": 2},
    "ru": {"one": 0, "few": 1, "many": 2},
    "ja": {"other": 0},
}


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_plural_rule_is_cldrs(locale: str) -> None:
    """The catalogue's Plural-Forms is Babel's CLDR rule, and picks the form CLDR names for every count."""
    catalogue = read_catalogue(locale)
    assert catalogue.plural_forms == get_plural(locale).plural_forms
    translations = compile_catalogue(catalogue)
    cldr = Locale.parse(locale)
    for n in range(0, 250):
        index = _CLDR_INDEX[locale][cldr.plural_form(n)]
        # the compiled catalogue's own rule, read through a message whose forms are numbered
        assert translations.plural(n) == index, (locale, n)


PLURALS = {
    "en": ["0 cards in the stock", "1 card in the stock", "2 cards in the stock", "5 cards in the stock",
           "11 cards in the stock", "21 cards in the stock", "22 cards in the stock", "23 cards in the stock"],
    "uk": ["0 карт у прикупі", "1 карта в прикупі", "2 карти в прикупі", "5 карт у прикупі", "11 карт у прикупі",
           "21 карта в прикупі", "22 карти в прикупі", "23 карти в прикупі"],
    "ru": ["0 карт в колоде", "1 карта в колоде", "2 карты в колоде", "5 карт в колоде", "11 карт в колоде",
           "21 карта в колоде", "22 карты в колоде", "23 карты в колоде"],
    "ja": ["山札：残り0枚", "山札：残り1枚", "山札：残り2枚", "山札：残り5枚", "山札：残り11枚", "山札：残り21枚",
           "山札：残り22枚", "山札：残り23枚"],
}


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_plural_forms_of_card_counts(locale: str) -> None:
    assert [stock_text(n, locale) for n in (0, 1, 2, 5, 11, 21, 22, 23)] == PLURALS[locale]


@pytest.mark.parametrize(("locale", "expected"), [
    ("uk", ["Поточна серія: 1 перемога", "Поточна серія: 2 перемоги", "Поточна серія: 5 перемог",
            "Поточна серія: 11 перемог", "Поточна серія: 21 перемога", "Поточна серія: 25 перемог"]),
    ("ru", ["Текущая серия: 1 победа", "Текущая серия: 2 победы", "Текущая серия: 5 побед",
            "Текущая серия: 11 побед", "Текущая серия: 21 победа", "Текущая серия: 25 побед"]),
])
def test_plural_forms_of_wins(locale: str, expected: list[str]) -> None:
    tr = translator(locale)
    assert [tr.ngettext("Current streak: {n} win", "Current streak: {n} wins", n).format(n=n)
            for n in (1, 2, 5, 11, 21, 25)] == expected


# --- the original app's wording (RULES.md) -----------------------------------------------------------------------

#: Copied from RULES.md ("Moves" and "End of the game"); the Russian wording is ours.
KEY_MESSAGES = {
    "en": ("Must be one rank higher or lower", "This card is blocked", "No more possible moves"),
    "uk": ("Має бути на один ранг вищою або нижчою", "Ця карта заблокована", "Більше немає можливих ходів"),
    "ja": ("ランクが1つ上か1つ下である必要があります", "このカードはブロックされています", "これ以上可能な手がありません"),
    "ru": ("Должна быть на один ранг выше или ниже", "Эта карта заблокирована", "Больше нет возможных ходов"),
}


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_key_messages_say_what_the_rules_say(locale: str) -> None:
    wrong_rank, blocked, no_moves = KEY_MESSAGES[locale]
    assert refusal_text(Reason.NOT_ADJACENT, locale) == wrong_rank
    assert refusal_text(Reason.BLOCKED, locale) == blocked
    assert blocked_text(locale) == no_moves


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_every_refusal_is_explained(locale: str) -> None:
    texts = [refusal_text(reason, locale) for reason in Reason]
    assert all(texts) and len(set(texts)) == len(texts)


# --- choosing the language ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("override", "platform", "expected"), [
    (None, "en-US", "en"),
    (None, "en-GB", "en"),
    (None, "uk", "uk"),
    (None, "ru", "ru"),
    (None, "ja", "ja"),
    (None, "uk-UA", "uk"),
    (None, "RU", "ru"),
    (None, "ja_JP", "ja"),
    (None, "pt-BR", "en"),
    (None, "zh-CN", "en"),
    (None, "es-419", "en"),
    (None, "", "en"),
    (None, None, "en"),
    ("uk", "en-US", "uk"),
    ("ja", "ru", "ja"),
    ("en", "uk", "en"),
    ("xx", "ru", "ru"),
    ("", "ja", "ja"),
    ("de", "fr", "en"),
])
def test_resolve_locale(override: str | None, platform: str | None, expected: str) -> None:
    assert resolve_locale(override, platform) == expected


def test_unknown_language_gets_english() -> None:
    assert translator("pt-BR").locale == DEFAULT_LOCALE
    assert translator(None).gettext("This card is blocked") == "This card is blocked"
    assert translator("uk-UA") is translator("uk")


def test_catalogues_compile_in_memory() -> None:
    """The translator reads the .po files themselves: what a translator writes is what players get."""
    for locale in SUPPORTED_LOCALES:
        messages = _messages(read_catalogue(locale))
        tr = translator(locale)
        for (context, msgid), message in messages.items():
            if isinstance(message.id, (list, tuple)):
                got = (tr.npgettext(context, message.id[0], message.id[1], 1) if context
                       else tr.ngettext(message.id[0], message.id[1], 1))
                assert got == _forms(message)[0]
            else:
                got = tr.pgettext(context, msgid) if context else tr.gettext(msgid)
                assert got == message.string


def test_read_catalogue_refuses_other_languages() -> None:
    with pytest.raises(ValueError, match="unsupported locale"):
        read_catalogue("de")
