"""The catalogues speak the glossary: every game term in one fixed word per language (bot/locales/GLOSSARY.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from babel.messages.catalog import Message

from bot.i18n import SUPPORTED_LOCALES, read_catalogue

GLOSSARY = Path(__file__).resolve().parent.parent / "bot" / "locales" / "GLOSSARY.md"

#: For each term, the messages that name it: the glossary's word (or one of its forms) must be in each of them
#: that the catalogue holds (a message the code no longer uses leaves the template), and at least one must be.
TERM_MESSAGES: dict[str, list[tuple[str | None, str]]] = {
    "deal": [(None, "Custom deal"), (None, "This deal could not be won")],
    "stock": [(None, "The stock is empty"), (None, "{n} card in the stock")],
    "waste": [(None, "Layout: 28 cards form three peaks in four rows of 3, 6, 9 and 10 cards. Only "
                                     "the bottom row starts face up; each card above it is partly covered by two "
                                     "cards of the next row. One card starts on the waste, and the other 23 make "
                                     "the stock.")],
    "draw": [("button", "Draw"), (None, "Hint: draw a card from the stock")],
    "peak": [(None, "Peak cleared: +100!")],
    "free card": [(None, "Play a free card by its name, such as 7h = 7♥ or QS = Q♠")],
    "blocked": [(None, "This card is blocked")],
    "undo": [("button", "Undo"), (None, "Hint: undo the last move")],
    "hint": [(None, "Hints: {n}"), (None, "Hint: play {card}")],
    "score": [(None, "Score: {score}"), (None, "Best score: {score}")],
    "streak": [(None, "Current streak: {n} win"), (None, "Longest streak: {n} win")],
    "daily deal": [(None, "Daily deal"), (None, "The daily deal is not posted here")],
    "leaderboard": [(None, "Daily leaderboard")],
    "subscribe": [("command", "subscribe"),
                  (None, "Subscribed: the daily deal will be posted here every day at {time} UTC")],
    "explanations setting": [("button", "Explanations: on"), ("button", "Explanations: off")],
    "winnable": [(None, "No winnable deal was found in time; please try again")],
    "board": [(None, "On the board: ▒▒ is a face-down card, a card that fits the waste card has its suit outlined "
                     "(K♧), X is a ten, and > points at the hinted card (before the stock: the hint is to draw). "
                     "The last line is the stock with the number of cards left, then the waste card in brackets."),
              (None, "That board is from an older game; your current game, {code}, has its own board"),
              (None, "That board is from an older game; your current game, the daily deal of {date}, has its own "
                     "board"),
              (None, "Language, rules for new games, explanations, board (picture or text), four-colour deck")],
}
TERMS = list(TERM_MESSAGES)
SHARE_LINE = (None, "TriPeaks daily {date}: score {score}, peaks {peaks}/3")
#: Languages written without spaces between words: a word matches anywhere.
UNSPACED = {"ja"}
#: Set phrases that hold a rejected word but name something else than its term (GLOSSARY.md says why): "four-colour
#: deck" is the whole pack's colours in the picture setting, not the stock.
SET_PHRASES = {"en": ("four-colour deck",)}


@dataclass(frozen=True)
class Entry:
    word: str
    forms: tuple[str, ...]
    rejected: tuple[str, ...]


def _cells(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip() and part.strip() != "—")


def parse_glossary(text: str) -> dict[str, dict[str, Entry]]:
    """``{locale: {term: Entry}}`` from the Markdown: a ``## `code` ...`` heading, then its table's rows."""
    glossary: dict[str, dict[str, Entry]] = {}
    locale = None
    for line in text.splitlines():
        heading = re.match(r"^## `([A-Za-z_]+)`", line)
        if heading:
            locale = heading.group(1)
            glossary[locale] = {}
            continue
        if locale is None or not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] in ("term", "") or set(cells[0]) <= set("-: "):
            continue
        assert len(cells) == 4, f"{locale}: a row needs term | word | forms | rejected: {line}"
        term, word, forms, rejected = cells
        assert term not in glossary[locale], f"{locale}: {term} twice"
        glossary[locale][term] = Entry(word, _cells(forms), _cells(rejected))
    return glossary


GLOSSARY_TABLES = parse_glossary(GLOSSARY.read_text(encoding="utf-8"))


def _fold(text: str, locale: str) -> str:
    """Lower case for matching; Turkish has its own dotted and dotless i."""
    if locale == "tr":
        text = text.replace("İ", "i").replace("I", "ı")
    return text.lower()


def contains(text: str, word: str, locale: str) -> bool:
    """Whether ``word`` starts a word of ``text`` (anywhere in it, for a language written without spaces)."""
    text, word = _fold(text, locale), _fold(word, locale)
    if locale in UNSPACED:
        return word in text
    return re.search(r"(?<!\w)" + re.escape(word), text) is not None


def _forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]


def _texts(locale: str) -> dict[tuple[str | None, str], list[str]]:
    """Each message's translations without their ``{placeholders}``, command names with ``-`` and ``_`` read as
    spaces."""
    texts = {}
    for message in read_catalogue(locale):
        if not message.id:
            continue
        msgid = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
        forms = [re.sub(r"{\w*}", "", form) for form in _forms(message)]
        for phrase in SET_PHRASES.get(locale, ()):
            forms = [re.sub(re.escape(phrase), " ", form, flags=re.IGNORECASE) for form in forms]
        if message.context == "command":
            forms = [re.sub(r"[-_]", " ", form) for form in forms]
        texts[(message.context, msgid)] = forms
    return texts


def test_glossary_has_every_language_and_term() -> None:
    assert list(GLOSSARY_TABLES) == list(SUPPORTED_LOCALES)
    for locale, entries in GLOSSARY_TABLES.items():
        assert list(entries) == TERMS, locale
        for term, entry in entries.items():
            assert entry.word, (locale, term)


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_no_word_is_both_chosen_and_rejected(locale: str) -> None:
    entries = GLOSSARY_TABLES[locale]
    chosen = [w for entry in entries.values() for w in (entry.word, *entry.forms)]
    for term, entry in entries.items():
        for rejected in entry.rejected:
            assert not any(contains(word, rejected, locale) for word in chosen), (locale, term, rejected)


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_catalogue_uses_no_rejected_word(locale: str) -> None:
    found = []
    for key, forms in _texts(locale).items():
        for term, entry in GLOSSARY_TABLES[locale].items():
            for rejected in entry.rejected:
                found += [(term, rejected, key) for form in forms if contains(form, rejected, locale)]
    assert found == []


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
@pytest.mark.parametrize("term", TERMS)
def test_catalogue_uses_the_glossary_word(locale: str, term: str) -> None:
    entry = GLOSSARY_TABLES[locale][term]
    texts = _texts(locale)
    keys = [key for key in TERM_MESSAGES[term] if key in texts]
    assert keys, f"no message names {term!r} any more: update TERM_MESSAGES"
    for key in keys:
        for form in texts[key]:
            assert any(contains(form, word, locale) for word in (entry.word, *entry.forms)), (
                f"{locale}: {form!r} ({key[1]!r}) does not say {term!r} as the glossary does: {entry.word!r}")


@pytest.mark.parametrize("locale", [locale for locale in SUPPORTED_LOCALES if locale != "en"])
def test_share_line_names_the_daily_deal(locale: str) -> None:
    """The shared result says "daily deal" with its noun (uk «щоденна роздача», not a bare «щоденна»). English
    keeps its msgid, "TriPeaks daily"."""
    entry = GLOSSARY_TABLES[locale]["daily deal"]
    (line,) = _texts(locale)[SHARE_LINE]
    assert line.startswith("TriPeaks")
    assert any(contains(line, word, locale) for word in (entry.word, *entry.forms)), line


@pytest.mark.parametrize(("text", "word", "locale", "expected"), [
    ("5 карт у прикупі", "прикуп", "uk", True),
    ("Cette carte est bloquée", "talon", "fr", False),
    ("étalon", "talon", "fr", False),
    ("İpucu: son hamleyi geri alın", "ipucu", "tr", True),
    ("出せない理由を表示：オン", "理由", "ja", True),
    ("abone ol", "abone ol", "tr", True),
])
def test_matching(text: str, word: str, locale: str, expected: bool) -> None:
    assert contains(text, word, locale) is expected
