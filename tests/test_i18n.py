"""The catalogues: complete, in step with the code, with the right plural forms and the original app's wording."""

from __future__ import annotations

import ast
import datetime as dt
import re
from pathlib import Path

import pytest
from babel import Locale
from babel.dates import format_date
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po
from babel.numbers import format_percent

from bot.i18n import (
    DEFAULT_LOCALE,
    LANGUAGE_NAMES,
    SUPPORTED_LOCALES,
    compile_catalogue,
    language_code,
    match_locale,
    read_catalogue,
    resolve_locale,
    translator,
)
from bot.render.commands import COMMAND_DESCRIPTIONS, OPTION_DESCRIPTIONS
from bot.render.game import blocked_text, refusal_text, stock_text
from bot.render.view import display_width
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


#: Messages a language writes exactly as English does, on purpose.
SAME_AS_ENGLISH: dict[str, set[tuple[str | None, str]]] = {
    "de": {("command", "code")},
    "fr": {("command", "code"), ("command", "minutes")},
}


@pytest.mark.parametrize("locale", [locale for locale in SUPPORTED_LOCALES if locale != "en"])
def test_every_string_is_really_translated(locale: str) -> None:
    """Not English copied over: every msgstr differs from its msgid, but for the few listed above."""
    for key, message in _messages(read_catalogue(locale)).items():
        if key in SAME_AS_ENGLISH.get(locale, set()):
            continue
        ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
        for form in _forms(message):
            assert form not in ids, (locale, key)


def test_english_catalogue_repeats_or_rewords_the_source() -> None:
    for key, message in _messages(read_catalogue("en")).items():
        ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
        assert _forms(message) == ids, key


# --- plurals ------------------------------------------------------------------------------------------------------

#: The catalogue's plural form index of each CLDR category. French, Spanish and Portuguese have a "many" form for
#: millions ("1 000 000 de cartes"): Babel's gettext rule gives it its own index, so these catalogues have three.
_CLDR_INDEX = {
    "en": {"one": 0, "other": 1},
    "uk": {"one": 0, "few": 1, "many": 2},
    "ru": {"one": 0, "few": 1, "many": 2},
    "ja": {"other": 0},
    "de": {"one": 0, "other": 1},
    "fr": {"one": 0, "many": 1, "other": 2},
    "es": {"one": 0, "many": 1, "other": 2},
    "pt_BR": {"one": 0, "many": 1, "other": 2},
    "pl": {"one": 0, "few": 1, "many": 2},
    "tr": {"one": 0, "other": 1},
}


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_plural_rule_is_cldrs(locale: str) -> None:
    """The catalogue's Plural-Forms is Babel's CLDR rule, and picks the form CLDR names for every count."""
    catalogue = read_catalogue(locale)
    assert catalogue.plural_forms == get_plural(locale).plural_forms
    translations = compile_catalogue(catalogue)
    cldr = Locale.parse(locale)
    for n in [*range(0, 250), 1000000, 2000000]:
        index = _CLDR_INDEX[locale][cldr.plural_form(n)]
        # the compiled catalogue's own rule, read through a message whose forms are numbered
        assert translations.plural(n) == index, (locale, n)


PLURALS = {
    "en": ["0 cards in the stock", "1 card in the stock", "2 cards in the stock", "5 cards in the stock",
           "11 cards in the stock", "21 cards in the stock", "22 cards in the stock", "23 cards in the stock"],
    "uk": ["0 карт у колоді", "1 карта в колоді", "2 карти в колоді", "5 карт у колоді", "11 карт у колоді",
           "21 карта в колоді", "22 карти в колоді", "23 карти в колоді"],
    "ru": ["0 карт в колоде", "1 карта в колоде", "2 карты в колоде", "5 карт в колоде", "11 карт в колоде",
           "21 карта в колоде", "22 карты в колоде", "23 карты в колоде"],
    "ja": ["山札：残り0枚", "山札：残り1枚", "山札：残り2枚", "山札：残り5枚", "山札：残り11枚", "山札：残り21枚",
           "山札：残り22枚", "山札：残り23枚"],
    "de": ["0 Karten im Stapel", "1 Karte im Stapel", "2 Karten im Stapel", "5 Karten im Stapel",
           "11 Karten im Stapel", "21 Karten im Stapel", "22 Karten im Stapel", "23 Karten im Stapel"],
    "fr": ["0 carte dans la pioche", "1 carte dans la pioche", "2 cartes dans la pioche", "5 cartes dans la pioche",
           "11 cartes dans la pioche", "21 cartes dans la pioche", "22 cartes dans la pioche",
           "23 cartes dans la pioche"],
    "es": ["0 cartas en el mazo", "1 carta en el mazo", "2 cartas en el mazo", "5 cartas en el mazo",
           "11 cartas en el mazo", "21 cartas en el mazo", "22 cartas en el mazo", "23 cartas en el mazo"],
    # CLDR makes 0 singular in Brazilian Portuguese ("0 carta"): a label reads right for every count
    "pt_BR": ["Cartas no monte: 0", "Cartas no monte: 1", "Cartas no monte: 2", "Cartas no monte: 5",
              "Cartas no monte: 11", "Cartas no monte: 21", "Cartas no monte: 22", "Cartas no monte: 23"],
    "pl": ["0 kart w talii", "1 karta w talii", "2 karty w talii", "5 kart w talii", "11 kart w talii",
           "21 kart w talii", "22 karty w talii", "23 karty w talii"],
    "tr": ["Destede 0 kart", "Destede 1 kart", "Destede 2 kart", "Destede 5 kart", "Destede 11 kart",
           "Destede 21 kart", "Destede 22 kart", "Destede 23 kart"],
}


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_plural_forms_of_card_counts(locale: str) -> None:
    assert [stock_text(n, locale) for n in (0, 1, 2, 5, 11, 21, 22, 23)] == PLURALS[locale]


@pytest.mark.parametrize(("locale", "expected"), [
    ("uk", ["Поточна серія: 1 перемога", "Поточна серія: 2 перемоги", "Поточна серія: 5 перемог",
            "Поточна серія: 11 перемог", "Поточна серія: 21 перемога", "Поточна серія: 25 перемог"]),
    ("ru", ["Текущая серия: 1 победа", "Текущая серия: 2 победы", "Текущая серия: 5 побед",
            "Текущая серия: 11 побед", "Текущая серия: 21 победа", "Текущая серия: 25 побед"]),
    # Polish: 1 one, 2-4 few (but 12-14 many), everything else many, 21 included
    ("pl", ["Obecna seria: 1 wygrana", "Obecna seria: 2 wygrane", "Obecna seria: 5 wygranych",
            "Obecna seria: 11 wygranych", "Obecna seria: 21 wygranych", "Obecna seria: 25 wygranych"]),
    ("de", ["Aktuelle Serie: 1 Sieg", "Aktuelle Serie: 2 Siege", "Aktuelle Serie: 5 Siege",
            "Aktuelle Serie: 11 Siege", "Aktuelle Serie: 21 Siege", "Aktuelle Serie: 25 Siege"]),
])
def test_plural_forms_of_wins(locale: str, expected: list[str]) -> None:
    tr = translator(locale)
    assert [tr.ngettext("Current streak: {n} win", "Current streak: {n} wins", n).format(n=n)
            for n in (1, 2, 5, 11, 21, 25)] == expected


def test_polish_few_and_many() -> None:
    """2-4 take the few form, except 12-14; 22-24 and 102-104 are few again."""
    tr = translator("pl")
    games = {n: tr.ngettext("{n} game played", "{n} games played", n).format(n=n)
             for n in (1, 2, 4, 5, 12, 13, 14, 22, 24, 25, 102, 112)}
    assert games == {1: "1 rozegrana gra", 2: "2 rozegrane gry", 4: "4 rozegrane gry", 5: "5 rozegranych gier",
                     12: "12 rozegranych gier", 13: "13 rozegranych gier", 14: "14 rozegranych gier",
                     22: "22 rozegrane gry", 24: "24 rozegrane gry", 25: "25 rozegranych gier",
                     102: "102 rozegrane gry", 112: "112 rozegranych gier"}


@pytest.mark.parametrize("locale", ["fr", "es"])
def test_millions_take_the_many_form(locale: str) -> None:
    text = stock_text(1000000, locale)
    assert text == {"fr": "1000000 de cartes dans la pioche", "es": "1000000 de cartas en el mazo"}[locale]


#: Placeholders that count something and are often 1: a move's number, the difference of two scores, how many moves
#: were undone, hints asked for, cards face down or left in the stock, games played or won.
COUNTS = ("n", "diff")
#: Languages whose noun does not change after a number (ja has no plural; tr keeps the singular after a numeral):
#: "{diff}点", "{diff} puan" read right for every count.
UNINFLECTED = {"ja", "tr"}
#: A count followed by a word (after spaces): "um {diff} Punkte" read "um 1 Punkte" (de), "de {diff} points" read
#: "de 1 points" (fr). Punctuation, a bracket or the end after the count is a label's or a sentence's end.
_COUNT_THEN_WORD = re.compile(r"{(" + "|".join(COUNTS) + r")}\s*[^\W\d_]")


def _counted(message: Message) -> bool:
    ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
    return any(name in COUNTS for text in ids for name in _placeholders(text))


@pytest.mark.parametrize("locale", [locale for locale in SUPPORTED_LOCALES if locale not in UNINFLECTED])
def test_no_word_follows_a_count_outside_ngettext(locale: str) -> None:
    """A count that is often 1 is either in an ngettext message, whose forms each agree with their number, or has no
    word after it that would have to agree ("Hints: {n}", "by {diff}", "After move {n}, ...")."""
    offenders = [(key, form) for key, message in _messages(read_catalogue(locale)).items()
                 if _counted(message) and not isinstance(message.id, (list, tuple))
                 for form in _forms(message) if _COUNT_THEN_WORD.search(form)]
    assert offenders == []


def test_every_count_reaches_translators_with_a_comment() -> None:
    """Every message with a count that is often 1 tells translators so: a ``TRANSLATORS:`` comment naming it."""
    missing = []
    for message in _template():
        if not message.id or not _counted(message):
            continue
        ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
        names = {name for text in ids for name in _placeholders(text) if name in COUNTS}
        comment = " ".join(message.auto_comments)
        if "TRANSLATORS:" not in comment or not all(f"{{{name}}}" in comment for name in names):
            missing.append(ids[0])
    assert missing == []


def test_the_count_check_catches_a_unit_word() -> None:
    """What the check above reads as a unit word after a count, and what it does not."""
    assert _COUNT_THEN_WORD.search("Du hast {name} um {diff} Punkte geschlagen")
    assert _COUNT_THEN_WORD.search("de {diff}\u00a0points")
    assert not _COUNT_THEN_WORD.search("Vorsprung: {diff}")
    assert not _COUNT_THEN_WORD.search("Nach Zug {n} ({card} gezogen)")
    assert not _COUNT_THEN_WORD.search("{n}. hamleden sonra")


def test_french_punctuation_keeps_to_its_word() -> None:
    """French puts a space before ``: ; ! ?`` and ``»`` and after ``«``: a no-break one (U+00A0), so a narrow screen
    never starts a line with the punctuation. No ordinary space there in any French message."""
    offenders = [form for message in _messages(read_catalogue("fr")).values() for form in _forms(message)
                 if re.search(r" [:;!?»]|« ", form)]
    assert offenders == []


#: One way to say a thing in a catalogue, beside the glossary's game terms: (locale, the wording it uses, the one it
#: once mixed in and no longer uses).
ONE_WAY = [
    ("ja", "出す", "取り除"),  # playing a card (the hints and refusals say 出す)
    ("ja", "友だち", "友達"),
    ("de", "Schaltfläche", "Knöpf"),
    ("pt_BR", "sua partida", "seu jogo"),
    ("tr", "'", "’"),  # a suffix after a number or a name: 10'un, UTC'de
]


@pytest.mark.parametrize(("locale", "used", "avoided"), ONE_WAY)
def test_one_way_to_say_it(locale: str, used: str, avoided: str) -> None:
    texts = [form for message in _messages(read_catalogue(locale)).values() for form in _forms(message)]
    assert any(used.lower() in text.lower() for text in texts)
    assert [text for text in texts if avoided.lower() in text.lower()] == []


def test_polish_speaks_to_the_player_in_lower_case() -> None:
    """pl: "ty", "ci", "twoja" ... in lower case inside a sentence, as most messages had ("rzuca Ci" and "niż Ty" did
    not); a sentence may start with one."""
    pronoun = re.compile(r"(?<![.!?:;]) (Ty|Ci|Cię|Ciebie|Tobie|Tobą|Twój|Twoja|Twoje|Twoją|Twojej|Twoich|Twoim)\b")
    offenders = [form for message in _messages(read_catalogue("pl")).values() for form in _forms(message)
                 if pronoun.search(form)]
    assert offenders == []


# --- the original app's wording (RULES.md) -----------------------------------------------------------------------

#: Copied from RULES.md ("Moves" and "End of the game"); the wording of the other languages is ours.
KEY_MESSAGES = {
    "en": ("Must be one rank higher or lower", "This card is blocked", "No more possible moves"),
    "uk": ("Має бути на один ранг вищою або нижчою", "Ця карта заблокована", "Більше немає можливих ходів"),
    "ja": ("ランクが1つ上か1つ下である必要があります", "このカードはブロックされています", "これ以上可能な手がありません"),
    "ru": ("Должна быть на один ранг выше или ниже", "Эта карта заблокирована", "Больше нет возможных ходов"),
    "de": ("Muss einen Rang höher oder niedriger sein", "Diese Karte ist blockiert", "Keine Züge mehr möglich"),
    "fr": ("Doit être d’un rang au-dessus ou en dessous", "Cette carte est bloquée", "Plus aucun coup possible"),
    "es": ("Debe ser un rango más alto o más bajo", "Esta carta está bloqueada", "No hay más movimientos posibles"),
    "pt_BR": ("Precisa ser um valor acima ou abaixo", "Esta carta está bloqueada", "Não há mais jogadas possíveis"),
    "pl": ("Musi być o jedną wartość wyższa lub niższa", "Ta karta jest zablokowana", "Brak możliwych ruchów"),
    "tr": ("Bir değer yüksek ya da düşük olmalı", "Bu kart kilitli", "Başka olası hamle yok"),
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
    (None, "zh-CN", "en"),
    (None, "it", "en"),
    (None, "", "en"),
    (None, None, "en"),
    # Discord's locales: de, fr, es-ES, es-419, pt-BR, pl, tr
    (None, "de", "de"),
    (None, "fr", "fr"),
    (None, "es-ES", "es"),
    (None, "es-419", "es"),
    (None, "pt-BR", "pt_BR"),
    (None, "pl", "pl"),
    (None, "tr", "tr"),
    # Telegram's IETF language_code: often only the language, sometimes a lower-case region
    (None, "pt", "pt_BR"),
    (None, "pt-br", "pt_BR"),
    (None, "pt_BR", "pt_BR"),
    (None, "pt-PT", "pt_BR"),
    (None, "de-AT", "de"),
    (None, "fr-CA", "fr"),
    (None, "es-MX", "es"),
    (None, "TR", "tr"),
    ("uk", "en-US", "uk"),
    ("ja", "ru", "ja"),
    ("en", "uk", "en"),
    ("xx", "ru", "ru"),
    ("", "ja", "ja"),
    ("de", "fr", "de"),
    ("pt_BR", "en-US", "pt_BR"),
    ("it", "zh-CN", "en"),
])
def test_resolve_locale(override: str | None, platform: str | None, expected: str) -> None:
    assert resolve_locale(override, platform) == expected


def test_unknown_language_gets_english() -> None:
    assert translator("zh-CN").locale == DEFAULT_LOCALE
    assert translator(None).gettext("This card is blocked") == "This card is blocked"
    assert translator("uk-UA") is translator("uk")
    assert translator("pt-BR") is translator("pt_BR") is translator("pt")
    assert translator("es-419") is translator("es-ES") is translator("es")


def test_match_locale_says_whether_the_bot_speaks_a_tag() -> None:
    """What the adapters ask before falling back to their configured default."""
    assert [match_locale(tag) for tag in ("pt-BR", "es-419", "en-GB", "it", "", None)] == \
        ["pt_BR", "es", "en", None, None, None]


def test_language_codes_for_platforms_without_regions() -> None:
    """Telegram's setMyCommands takes a two-letter ISO 639-1 code."""
    codes = [language_code(locale) for locale in SUPPORTED_LOCALES]
    assert codes == ["en", "uk", "ru", "ja", "de", "fr", "es", "pt", "pl", "tr"]
    assert all(re.fullmatch(r"[a-z]{2}", code) for code in codes)


def test_every_language_has_its_own_name() -> None:
    assert list(LANGUAGE_NAMES) == list(SUPPORTED_LOCALES)
    assert LANGUAGE_NAMES["de"] == "Deutsch" and LANGUAGE_NAMES["pt_BR"] == "Português (Brasil)"
    assert len(set(LANGUAGE_NAMES.values())) == len(LANGUAGE_NAMES)


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_babel_formats_dates_and_numbers_in_every_language(locale: str) -> None:
    """The renderer formats dates and the win rate with ``tr.babel_locale``."""
    babel_locale = translator(locale).babel_locale
    day = dt.date(2026, 11, 29)
    for style in ("medium", "long"):
        assert "2026" in format_date(day, format=style, locale=babel_locale)
    assert "50" in format_percent(0.5, locale=babel_locale)


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
        read_catalogue("it")


# --- fitting the platforms ----------------------------------------------------------------------------------------

#: Discord's rule for command and option names (its regex, with the lower-case requirement checked apart).
DISCORD_NAME = re.compile(r"^[-_\w]{1,32}$")


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_command_names_are_valid_discord_names(locale: str) -> None:
    """Discord stores each command and option name per locale: lower-case letters, digits, - or _, at most 32
    characters, and no two the same (the options "code" and "card" share the namespace of their commands)."""
    names = {key: message.string for key, message in _messages(read_catalogue(locale)).items()
             if key[0] == "command"}
    assert len(names) == 16
    for key, name in names.items():
        assert DISCORD_NAME.match(name) and name == name.lower(), (locale, key, name)
    commands = [name for (_, msgid), name in names.items() if msgid not in ("code", "card", "minutes")]
    assert len(set(commands)) == len(commands), (locale, commands)


def test_descriptions_fit_discord() -> None:
    """Command and option descriptions are at most 100 characters in every language."""
    for locale in SUPPORTED_LOCALES:
        tr = translator(locale)
        for text in (*COMMAND_DESCRIPTIONS.values(), *OPTION_DESCRIPTIONS.values()):
            assert 1 <= len(tr.gettext(text)) <= 100, (locale, text, tr.gettext(text))


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_the_draw_button_is_short(locale: str) -> None:
    """Draw shares a phone's row with the icons of Undo, Hint and New game (tests/test_phone_width.py lays the row
    out on Discord and Telegram): at most 7 columns."""
    assert display_width(translator(locale).pgettext("button", "Draw")) <= 7


#: Each platform's own places, in every language: a Telegram text never names a Discord server (or Discord), a
#: Discord text never a Telegram group.
SERVER_WORDS = {"en": "server", "uk": "сервер", "ru": "сервер", "ja": "サーバー", "de": "server", "fr": "serveur",
                "es": "servidor", "pt_BR": "servidor", "pl": "serwer", "tr": "sunucu"}
GROUP_WORDS = {"en": "group", "uk": "груп", "ru": "групп", "ja": "グループ", "de": "gruppe", "fr": "groupe",
               "es": "grupo", "pt_BR": "grupo", "pl": "grup", "tr": "grub"}


def test_each_platform_speaks_of_its_own_places() -> None:
    """Telegram's menu and its daily notices name groups and never a server or Discord; Discord's command tree and
    notices name servers and never a group; in every language."""
    from bot.render.commands import TELEGRAM_DESCRIPTIONS, command_description
    from bot.render.replies import DailyNotice, daily_notice

    telegram_notices = (DailyNotice.NEEDS_GROUP, DailyNotice.NEEDS_GROUP_ADMIN)
    discord_notices = (DailyNotice.NEEDS_SERVER, DailyNotice.NEEDS_MANAGE_SERVER)
    for locale in SUPPORTED_LOCALES:
        telegram = [command_description(key, locale, "telegram") for key in TELEGRAM_DESCRIPTIONS]
        telegram += [daily_notice(notice, locale) for notice in telegram_notices]
        discord = [command_description(key, locale, "discord") for key in COMMAND_DESCRIPTIONS]
        discord += [daily_notice(notice, locale) for notice in discord_notices]
        for text in telegram:
            assert SERVER_WORDS[locale] not in text.lower() and "discord" not in text.lower(), (locale, text)
        for text in discord:
            assert GROUP_WORDS[locale] not in text.lower(), (locale, text)
        assert GROUP_WORDS[locale] in command_description("leaderboard", locale, "telegram").lower(), locale
        assert SERVER_WORDS[locale] in command_description("leaderboard", locale, "discord").lower(), locale


#: Messages whose meaning depends on where they appear (a label, a fragment, a title, a state, a count's label, a
#: sentence completed by another): besides every message with a context (``button``, ``setting``, ``command``...),
#: each of these has a translator comment in the template saying where it shows and what it names.
CONTEXT_DEPENDENT = [
    "Settings", "Easy", "Classic", "{name}'s game",
    "{name}'s result", "Daily deal", "Daily leaderboard", "practice, unranked", "Custom deal", "Score: {score}", "Moves undone: {n}",
    "ranked attempt: no undo", "Chain: {n}",
    "Review: {code}", "Final score: {score}", "Final score: {score} · par {par}", "par {score}", "with hints",
    "Par for this deal: {score}", "Play this deal: {replay}",
    "Best line from just before that move (final score {score}): {steps}",
    "TriPeaks {code}: score {score}, peaks {peaks}/3", "TriPeaks daily {date}: score {score}, peaks {peaks}/3",
    "{card} was not played. {reason}", "This game was abandoned", "Peak cleared: +100!", "Your game goes on",
    "Start {code}?", "Start a new game?", "Start an Easy game?", "Start a Classic game?", "Start the daily deal?",
    "Your TriPeaks statistics", "daily deal of {date}",
    "✗ not won", "⏳ still playing", "💡 hints", "↶ undos", "score {score} · {moves} move · {time}",
    "This deal could not be won",
    "Only the player this message answers can use its buttons", "This is not your game; start your own with {command}",
    "Only a member with the Manage Server permission can change the daily posts",
    "Daily posts are for groups, not private chats",
]


def test_context_dependent_messages_have_translator_comments() -> None:
    """Every message with a context and every message of :data:`CONTEXT_DEPENDENT` reaches the translators with a
    ``TRANSLATORS:`` comment (pybabel extracts it into the template and the catalogues)."""
    with POT.open("rb") as f:
        template = read_po(f)
    by_id = {(m.context, m.id if isinstance(m.id, str) else m.id[0]): m for m in template if m.id}
    wanted = [key for key in by_id if key[0] is not None] + [(None, msgid) for msgid in CONTEXT_DEPENDENT]
    missing = [key for key in wanted
               if key not in by_id or not any(c.startswith("TRANSLATORS:") for c in by_id[key].auto_comments)]
    assert missing == []


#: What the winnable-only button says in each language to name a filter of deals (only these deals), not a claim
#: about one deal: es read "Se puede ganar: sí" ("it can be won: yes").
ONLY_WINNABLE_WORDS = {"en": "Only", "uk": "Лише", "ru": "Только", "ja": "のみ", "de": "Nur", "fr": "Donnes",
                       "es": "Solo", "pt_BR": "Só", "pl": "Tylko", "tr": "Kazanılabilenler"}


def test_the_winnable_setting_is_a_filter_and_an_unwinnable_deal_is_named_once() -> None:
    """The settings button of "Only winnable deals" says "only" (or names the deals, fr "Donnes gagnables", tr
    "Kazanılabilenler") in every language; the verdict on a deal no play could win names the deal once (ja read
    「この配札は勝てない配札でした」)."""
    from tests.test_glossary import GLOSSARY_TABLES

    for locale in SUPPORTED_LOCALES:
        tr = translator(locale)
        for label in (tr.pgettext("button", "Only winnable: on"), tr.pgettext("button", "Only winnable: off")):
            assert ONLY_WINNABLE_WORDS[locale] in label, (locale, label)
        deal = GLOSSARY_TABLES[locale]["deal"]
        words = "|".join(re.escape(word.lower()) for word in (deal.word, *deal.forms))
        named = f"(?:{words})" if locale == "ja" else rf"(?<!\w)(?:{words})(?!\w)"
        for text in (tr.gettext("This deal could not be won"),
                     tr.gettext("This deal could not be won from the start, whatever the play")):
            assert len(re.findall(named, text.lower())) == 1, (locale, text)
    assert translator("ja").gettext("This deal could not be won") == "勝てない配札でした"
