"""The natives' fixes of issue 54 stay fixed: what French, Brazilian Portuguese and Spanish readers flagged."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.app.commands import Blank
from bot.app.daily import DailyResult
from bot.app.model import GameSnapshot, PlayerKey, Settings
from bot.i18n import SUPPORTED_LOCALES, translator
from bot.render.endings import render_review
from bot.render.game import HINT_ICON, NEW_GAME_ICON, render_game
from bot.render.platforms import discord_rows, telegram_rows
from bot.render.replies import render_leaderboard
from bot.render.view import View, named_title
from core.game import Draw, Game
from core.review import review

DAY = dt.date(2026, 3, 1)
NAMES = ["Émile", "Alice", "Olivier", "Hugo", "Ursula"]


@pytest.mark.parametrize("name", NAMES)
def test_french_never_elides_before_a_name(name: str) -> None:
    """"de Émile" is wrong and "d'Émile" breaks on "Hugo" (aspirate or not): the titles write around the name."""
    tr = translator("fr")
    shown = [
        named_title(tr.pgettext("title", "You vs {name}"), name),
        tr.gettext("{name}'s final score: {score}; your game goes on").format(name=name, score=750),
        named_title(tr.gettext("{name}'s result"), name),
        tr.gettext("{name}'s challenge").format(name=name),
        named_title(tr.gettext("{name}'s game"), name),
    ]
    assert shown == [
        f"Vous contre {name}",
        f"{name} a terminé avec 750\u00a0; votre partie continue",
        f"Résultat\u00a0: {name}",
        f"défi lancé par {name}",
        f"Partie\u00a0: {name}",
    ]
    assert not any(f"de {name}" in line or f"d’{name}" in line or f"d'{name}" in line for line in shown)


@pytest.mark.parametrize("card", ["K♠", "A♥", "7♦"])
def test_french_undo_fits_every_card(card: str) -> None:
    """A King or an Ace is masculine: no participle that agrees with "carte"."""
    assert translator("fr").gettext("Undone: {card} is back in its place").format(card=card) == f"Coup annulé\u00a0: {card} revient à sa place"


def _result(name: str, moves: int) -> DailyResult:
    return DailyResult(name=name, user_id=name, score=500 - moves, moves=moves, won=False, hints=0, undos=0,
                       seconds=5, finished_at=dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC))


def test_portuguese_leaderboard_line_has_no_count_noun() -> None:
    """0 takes the singular in pt_BR ("0 jogada"): the line names the moves as a label, for every count."""
    status = render_leaderboard(DAY, [_result("Ana", n) for n in (0, 1, 2, 21)], "pt_BR").status
    assert status is not None
    for n in (0, 1, 2, 21):
        assert f"{500 - n} pts · jogadas: {n} · 0:05" in status
    assert " jogada " not in status


def test_portuguese_names_a_run_of_cards_cadeia() -> None:
    """The glossary: a run of cards is a "cadeia"; "seguidas" and "sequência" name other things."""
    tr = translator("pt_BR")
    assert tr.gettext("Chain: {n}").format(n=5) == "Cadeia: 5"
    for n in (1, 2, 11):
        line = tr.ngettext("Longest chain: {n} card in a row", "Longest chain: {n} cards in a row", n).format(n=n)
        assert line == f"Maior cadeia de cartas: {n}"


def test_spanish_best_line_starts_from_the_position_before_the_move() -> None:
    """An earlier native reading had "desde justo antes" removed; it must not come back."""
    text = translator("es").gettext("Best line from just before that move (final score {score}): {steps}").format(
        score=750, steps="7♠ 8♦")
    assert "justo antes" not in text
    assert text == ("Mejor secuencia de movimientos desde la posición anterior a ese movimiento "
                    "(puntuación final 750): 7♠ 8♦")


# --- no zeros said, and the daily's controls keep their places (issue 54) -----------------------------------------


def _shown_text(view: View) -> str:
    return "\n".join(part or "" for part in (view.header, view.status, view.tally))


def test_counters_say_no_zero() -> None:
    """"Moves undone: 0" read as noise: a counter is said once it counts something (the daily's hints always, as
    its ranked attempt shows what it used)."""
    game = Game.from_code("TP1-E-AAAAAAB")
    game.apply(Draw())
    owner = PlayerKey("telegram", "1")
    for locale in SUPPORTED_LOCALES:
        tr = translator(locale)
        undone = tr.gettext("Moves undone: {n}").format(n=0)
        hints = tr.gettext("Hints: {n}").format(n=0)
        for fixed in (True, False):
            shown = _shown_text(render_game(GameSnapshot(1, 1, owner, "", game, hints_used=2), locale, Settings(),
                                            fixed_header=fixed))
            assert undone not in shown and tr.gettext("Hints: {n}").format(n=2) in shown, (locale, shown)
            shown = _shown_text(render_game(GameSnapshot(1, 1, owner, "", game, undos_used=1), locale, Settings(),
                                            fixed_header=fixed))
            assert hints not in shown and tr.gettext("Moves undone: {n}").format(n=1) in shown, (locale, shown)


def test_a_review_of_draws_only_says_no_longest_chain_of_zero() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    while not game.is_over and game.stock_left:
        game.apply(Draw())
    drawn = review(Game.from_code("TP1-E-AAAAAAB"), game.actions())
    assert drawn.longest_chain == 0
    status = render_review(GameSnapshot(1, 1, PlayerKey("telegram", "1"), "", game), drawn, "en").status or ""
    assert "Longest chain" not in status


def test_on_the_daily_hint_and_new_game_keep_their_places() -> None:
    """The daily attempt has no ↶: a blank stands in its place, so 💡 and 🆕 are where they are on every board."""
    game = Game.from_code("TP1-E-AAAAAAB")
    owner = PlayerKey("discord", "1")
    plain = render_game(GameSnapshot(1, 1, owner, "", game), "en", Settings()).buttons[-1]
    daily = render_game(GameSnapshot(1, 1, owner, "", game, daily=DAY), "en", Settings()).buttons[-1]
    assert [b.label for b in daily][2:] == [b.label for b in plain][2:] == [HINT_ICON, NEW_GAME_ICON]
    assert isinstance(daily[1].command, Blank) and daily[1].disabled
    assert [len(row) for row in telegram_rows(View("", buttons=(daily,)))] == [4]
    assert [len(row) for row in discord_rows(View("", buttons=(daily,)))] == [4]


def test_four_colour_buttons_show_diamonds_blue_as_the_picture_does() -> None:
    """The four-colour deck draws diamonds blue: the card buttons' ♦ follow it (they kept the red ♦️)."""
    from bot.app.model import BoardStyle
    from bot.render.picture import suit_colour
    from bot.render.tableau import BLUE_DIAMOND, card_label
    from core.cards import Suit

    assert suit_colour(Suit.DIAMONDS, True) != suit_colour(Suit.HEARTS, True)  # the picture's blue
    game = Game.from_code("TP1-E-AAAAAAB")
    owner = PlayerKey("telegram", "1")
    diamonds = [game.card_at(s) for s in game.playable_slots() if game.card_at(s).suit is Suit.DIAMONDS]
    assert diamonds
    for four in (True, False):
        view = render_game(GameSnapshot(1, 1, owner, "", game), "en",
                           Settings(board=BoardStyle.PICTURE, four_colour=four))
        labels = [b.label for b in view.all_buttons()]
        for card in diamonds:
            assert (card.rank.label + BLUE_DIAMOND in labels) is four and (card_label(card) in labels) is not four


def test_a_game_code_never_breaks_in_the_question_and_reads_back() -> None:
    """A phone broke "TP1-E-" / "AAAAAAB" in the question before a new game: the code's hyphens are no-break ones
    there, and such a code typed (or pasted) back deals the same cards."""
    from bot.app.commands import DealByCode
    from bot.app.model import NO_BREAK_HYPHEN
    from bot.app.records import parse_code
    from bot.render.lifecycle import render_confirm_start

    game = Game.from_code("TP1-E-AAAAAAB")
    game.apply(Draw())
    current = GameSnapshot(1, 1, PlayerKey("telegram", "1"), "", game)
    for locale in SUPPORTED_LOCALES:
        view = render_confirm_start(current, DealByCode("TP1-C-AAAAAAC"), locale, elsewhere=False)
        shown = f"{view.header}\n{view.status}"
        assert "TP1\u2011E\u2011AAAAAAB" in shown and "TP1\u2011C\u2011AAAAAAC" in shown, (locale, shown)
        assert "TP1-" not in shown, (locale, shown)
    assert str(parse_code(f"TP1{NO_BREAK_HYPHEN}E{NO_BREAK_HYPHEN}AAAAAAB")) == "TP1-E-AAAAAAB"
