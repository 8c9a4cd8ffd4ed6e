"""A game fits a 360-pixel phone on every platform, in every language, in any position a player can reach.

Random deals and random legal play (hypothesis), with and without hints and refusals: every line of the tableau
is at most 30 display columns (East Asian wide characters count two) and holds no emoji variation selector; the
header keeps to its short lines; every Telegram keyboard row fits the phone's width budget
(:func:`bot.render.platforms.telegram_row_fits`); Discord rows keep to 5 buttons.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterator

import discord
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app.abilities import DISCORD_SERVER
from bot.app.codec import decode
from bot.app.commands import Move
from bot.app.model import DealVerdict, GameSnapshot, Hint, PlayerKey, Settings, Stats
from bot.i18n import SUPPORTED_LOCALES
from bot.render.game import render_game
from bot.render.platforms import (
    DISCORD_HEADING_COLUMNS,
    DISCORD_TEXT_COLUMNS,
    DISCORD_WHOLE_LINE_COLUMNS,
    TELEGRAM_ROW_COLUMNS,
    ShownMenu,
    discord_header,
    discord_row_fits,
    discord_rows,
    telegram_row_columns,
    telegram_row_fits,
    telegram_rows,
)
from bot.render.replies import render_settings
from bot.render.tableau import NARROW_COLUMNS, ROW_TEN
from bot.render.view import (
    DISCORD_COMPONENTS_MAX,
    DISCORD_ROW_WIDTH,
    EMOJI,
    HEADER_COLUMNS,
    QUOTE_COLUMNS,
    TABLEAU_COLUMNS,
    TEXT,
    View,
    display_width,
    label_width,
)
from core.deal import GameCode, Rules
from core.game import Draw, Game, Outcome, Tap, Undo
from tests.core_helpers import winning_line
from tests.view_text import payload_of

MAX_ID = 10**18 - 1


@st.composite
def positions(draw: st.DrawFn) -> GameSnapshot:
    """A random deal, a random sequence of legal actions (undo included), maybe a hint or a refused tap after."""
    rules = draw(st.sampled_from(list(Rules)))
    game = Game.from_code(GameCode(rules, draw(st.integers(0, 26**7 - 1))))
    outcome: Outcome | None = None
    for _ in range(draw(st.integers(0, 60))):
        if game.is_over:
            break
        actions = list(game.legal_actions())
        outcome = game.apply(draw(st.sampled_from(actions)))
    hint = None
    if not game.is_over and draw(st.booleans()):
        chance = draw(st.sampled_from([None, 0.0, 0.004, 0.35, 0.8, 1.0]))  # the fair advisor's, or the solver's
        hint = Hint(draw(st.sampled_from(list(game.legal_actions()))), draw(st.sampled_from([True, False, None])),
                    draw(st.sampled_from([None, 700])), chance)
    refused = [s for s in game.playable_slots() if not game.fits(s)]
    if refused and draw(st.booleans()):
        outcome = game.apply(Tap(draw(st.sampled_from(refused))))
    daily = dt.date(2026, 12, 31) if draw(st.booleans()) else None
    verdict = draw(st.sampled_from([None, DealVerdict(True, 772), DealVerdict(False, None)])) if game.is_over else None
    name = draw(st.sampled_from(["ann", "Олександра Кирилівна Ковальчук-Шевченко", "山田花子さんのアカウント", ""]))
    return GameSnapshot(MAX_ID, 10**9 - 1, PlayerKey("telegram", "1"), name, game, outcome=outcome, hint=hint,
                        daily=daily, verdict=verdict, undos_used=draw(st.sampled_from([0, 3, 100])),
                        hints_used=draw(st.sampled_from([0, 1, 51])), dealt_winnable=draw(st.booleans()),
                        abandoned=draw(st.booleans()) if not game.is_over else False)


#: What a board's monospace block may hold: characters a monospace font draws in one column. Not ⑩, which no
#: monospace font has: SimCord's preview at 360 px drew it from another font, wider, and its row slid out of line.
MONOSPACE = set(" *>.[]-0123456789AJQKX") | set("▒♠♥♦♣♤♡♢♧")
#: A ten written with a letter (Latin T, or Cyrillic Т, which reads as the ace, Туз) before a suit.
TEN_AS_LETTER = re.compile("[TТ][♠♥♦♣♤♡♢♧]")


def check_phone(view: View, *, fixed: bool = False) -> None:
    """``fixed``: a header drawn for Discord (``fixed_header``), a line each of whose game, which deal and the
    score, packed by Discord's layout."""
    assert view.tableau is not None
    assert view.tableau.split("\n")[0].strip(), "no blank line on top: the top row empties last, on a win"
    for line in view.tableau.split("\n"):
        assert display_width(line) <= TABLEAU_COLUMNS, line
        assert EMOJI not in line and TEXT not in line, line
        assert not TEN_AS_LETTER.search(line) and set(line) <= MONOSPACE, line
    assert view.narrow_tableau is not None and view.narrow_tableau.split("\n")[0].strip()
    for line in view.narrow_tableau.split("\n"):  # Discord's code block on a phone
        assert display_width(line) <= NARROW_COLUMNS, line
        assert EMOJI not in line and TEXT not in line, line
        assert not TEN_AS_LETTER.search(line) and set(line) <= MONOSPACE, line
    for line in view.header.split("\n") if not fixed else ():
        assert display_width(line) <= HEADER_COLUMNS or " · " not in line, line  # a line that could break did
    for board in (False, True) if not fixed else (True,):  # Discord's heading font is larger, its text narrower
        heading, under = discord_header(view.header, board=board)
        assert display_width(heading) <= DISCORD_HEADING_COLUMNS or " · " not in heading, heading
        for line in under.split("\n"):
            assert display_width(line) <= DISCORD_TEXT_COLUMNS or " · " not in line, line
    for row in telegram_rows(view):
        labels = [b.label for b in row]
        assert telegram_row_fits(labels), (labels, telegram_row_columns(labels))
    rows = discord_rows(view)  # Components V2: a container, its text displays, the rows and their buttons
    assert 1 + 3 + len(rows) + sum(len(row) for row in rows) <= DISCORD_COMPONENTS_MAX
    # a row of card places holds at most four cards (measured on SimCord's preview: four card buttons fit a phone;
    # the pixel estimate puts four red cards with a ten a few pixels over it), any other row fits the estimate
    cards = [row for row in rows if all(b.blank or b.command is not None and isinstance(b.command, Move)
                                        for b in row)]
    assert all(len(row) <= 4 for row in cards)
    assert all(len(row) == 1 or discord_row_fits([b.label for b in row]) for row in rows if row not in cards)
    assert all(len(row) <= DISCORD_ROW_WIDTH for row in discord_rows(view))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_any_position_fits_a_phone_in_every_language(snapshot: GameSnapshot) -> None:
    """Also with the player's name (a board in a group), the undo and hint counters, the winnable mark, and a
    finished game's buttons, on the latest board and on one that is no longer the latest."""
    for locale in SUPPORTED_LOCALES:
        for explain in (True, False):
            for owner_label in (True, False):
                check_phone(render_game(snapshot, locale, Settings(explain_refusals=explain),
                                        owner_label=owner_label))
                check_phone(render_game(snapshot, locale, Settings(explain_refusals=explain),
                                        owner_label=owner_label, fixed_header=True), fixed=True)  # Discord
        check_phone(render_game(snapshot, locale, Settings(), owner_label=True, latest=False))


def test_the_widest_rows_still_fit() -> None:
    """Ten free cards of the widest labels (tens of red suits, an emoji two columns wide): five a row fit."""
    assert label_width("10♥\ufe0f") == 4
    assert telegram_row_fits(["10♥\ufe0f"] * 5)


def test_the_controls_share_one_row_in_every_language() -> None:
    """Draw, Undo, Hint and New game (in the ranked daily attempt a blank where Undo is) are one row on a 360-px
    phone, on Discord and on Telegram, in every language: Draw's word and the icons of the other three (as words
    they took two rows in every language)."""
    game = Game.from_code("TP1-E-AAAAAAB")
    game.apply(Draw())
    for locale in SUPPORTED_LOCALES:
        for daily in (None, dt.date(2026, 12, 31)):
            view = render_game(GameSnapshot(1, 1, PlayerKey("discord", "1"), "", game, daily=daily), locale,
                               Settings())
            *_, controls = view.buttons
            assert [type(b.command).__name__ for b in controls] == [
                "Move", "Blank" if daily else "Move", "AskHint", "NewGame"]  # 💡 and 🆕 keep their places
            only = View("", buttons=(controls,))
            assert [len(row) for row in telegram_rows(only)] == [len(controls)], (locale, telegram_row_columns(
                [b.label for b in controls]))
            assert [len(row) for row in discord_rows(only)] == [len(controls)], locale
            assert discord_rows(view)[-1] == discord_rows(only)[0]


def test_a_row_too_wide_is_split_evenly_and_in_order() -> None:
    """Four labels of 9 columns need 44 columns in one row (over the 37): two rows of two, in the same order."""
    from bot.render.view import Button

    buttons = tuple(Button(label, decode(f"tp:g:1:0:{i}")) for i, label in enumerate(["Abcdefghi"] * 4))
    rows = telegram_rows(View("", buttons=(buttons,)))
    assert [[payload_of(b) for b in row] for row in rows] == [["tp:g:1:0:0", "tp:g:1:0:1"], ["tp:g:1:0:2", "tp:g:1:0:3"]]
    assert telegram_row_columns(["Abcdefghi"] * 4) > TELEGRAM_ROW_COLUMNS


def test_settings_fit_a_phone_in_every_language() -> None:
    """The language picker: two a row, every Telegram row within the budget, the chosen one ticked; and the
    buttons stay where they are as the ✓ moves from one language to another."""
    for locale in SUPPORTED_LOCALES:
        places = set()
        for chosen in (None, *SUPPORTED_LOCALES):
            view = render_settings(Settings(language=chosen, explain_refusals=chosen is None), locale)
            assert all(len(row) <= 2 for row in view.buttons)
            places.add(tuple(tuple(payload_of(b) for b in row) for row in telegram_rows(view)
                             if any(payload_of(b).startswith("tp:set:lang:") for b in row)))
            languages = [row for row in telegram_rows(view) if payload_of(row[0]).startswith("tp:set:lang:")]
            assert [len(row) for row in languages] == [1, 2, 2, 2, 2, 2], locale
            for row in telegram_rows(view):
                assert telegram_row_fits([b.label for b in row]), [b.label for b in row]
            # explanations (when on), the rules, the board, the language
            assert sum(b.label.startswith("✓ ") for b in view.all_buttons()) == 3 + (chosen is None)
        assert len(places) == 1, locale


def finished_snapshots() -> Iterator[GameSnapshot]:
    """A won and a blocked game in a group, with the widest numbers: the longest lines an ending can have."""
    from core.solver import solve

    won = Game.from_code("TP1-E-AAAAAAC")
    line = solve(won).line
    assert line is not None
    for action in line:
        won.apply(action)
    blocked = Game.from_code("TP1-C-AAAAAAI")
    for _ in range(blocked.stock_left):
        blocked.apply(Draw())
    while fitting := [s for s in blocked.playable_slots() if blocked.fits(s)]:
        blocked.apply(Tap(fitting[0]))
    for game in (won, blocked):
        assert game.is_over
        yield GameSnapshot(MAX_ID, 10**9 - 1, PlayerKey("telegram", "1"), "Олександра Ковальчук", game,
                           daily=dt.date(2026, 12, 31), undos_used=12, hints_used=51, dealt_winnable=True,
                           verdict=DealVerdict(True, 772))


def test_ending_buttons_fit_in_every_language() -> None:
    """A won and a blocked game in a group, with counters: Share, Replay, Review and New game (or Undo, Review,
    Replay and New game) within the phone's rows; the confirmation, the welcome and the share's link too."""
    from bot.app.commands import DealByCode
    from bot.render.endings import render_share
    from bot.render.lifecycle import render_confirm_start, render_welcome

    for snap in finished_snapshots():
        for locale in SUPPORTED_LOCALES:
            for latest in (True, False):
                view = render_game(snap, locale, Settings(), owner_label=True, latest=latest)
                check_phone(view)
                assert len(view.all_buttons()) == (4 if latest else 2)
            for other in (render_confirm_start(snap, DealByCode("TP1-E-AAAAAAB"), locale, elsewhere=True),
                          render_welcome(locale), render_share(snap, locale, replay="x", url="https://t.me/x")):
                for row in telegram_rows(other):
                    assert telegram_row_fits([b.label for b in row]), [b.label for b in row]


def test_the_settings_and_a_review_in_the_boards_message_fit_a_phone() -> None:
    """Issue 44: the settings and a review shown in place of a board (a Telegram private chat), Russian and
    Japanese among the widest: Back on a row of its own, first, and every row within the phone's budget; the board
    Back brings is the board these tests already check."""
    from bot.app.effects import Board, ReviewOf, SettingsOf
    from bot.render.effects import draw
    from core.review import review

    reviews = [(snap, review(Game.from_code(str(snap.game.code)), snap.game.actions()))
               for snap in finished_snapshots()]
    for locale in ("ru", "ja", *SUPPORTED_LOCALES):
        views = [draw(SettingsOf(state, in_board=MAX_ID), locale) for state in every_settings_state()]
        for snap, reviewed in reviews:
            for latest in (True, False):
                views.append(draw(ReviewOf(snap, reviewed, Board(snap, latest)), locale))
        for view in views:
            rows = telegram_rows(view)
            assert [payload_of(b) for b in rows[0]] == [f"tp:bk:{MAX_ID}"], (locale, rows[0])
            for row in rows:
                assert telegram_row_fits([b.label for b in row]), (locale, [b.label for b in row])


def test_the_daily_in_private_answer_fits_in_every_language() -> None:
    """The group's answer to /daily (the attempt is in the private chat): its button fits a phone's row whole, and
    the toast of Play under the post stays within Telegram's 200 characters."""
    from bot.render.lifecycle import daily_sent_privately, render_daily_in_private

    for locale in SUPPORTED_LOCALES:
        view = render_daily_in_private(locale, "Олександра Ковальчук", "https://t.me/tripeaks_bot?start=daily")
        (row,) = telegram_rows(view)
        assert telegram_row_fits([b.label for b in row]), [b.label for b in row]
        assert len(daily_sent_privately(locale)) <= 200


def test_undo_only_positions_fit_too() -> None:
    """A blocked game (Undo and New game) and a game with only Undo hinted."""
    game = Game.from_code("TP1-C-AAAAAAI")
    for _ in range(game.stock_left):
        game.apply(Draw())
    snap = GameSnapshot(1, 1, PlayerKey("telegram", "1"), "", game, hint=Hint(Undo(), False, None))
    for locale in SUPPORTED_LOCALES:
        check_phone(render_game(snap, locale, Settings()))
        assert label_width(render_game(snap, locale, Settings()).header) > 0


@settings(max_examples=80, deadline=None)
@given(positions())
def test_the_narrow_board_shows_every_card_where_the_wide_one_does(snapshot: GameSnapshot) -> None:
    """Discord's 20-column board holds the same cards as the 30-column one, row by row, a fitting card's suit
    outlined; face-down cards and the stock's count and the waste card too."""
    game = snapshot.game
    view = render_game(snapshot, "en", Settings())
    assert view.narrow_tableau is not None and view.tableau is not None
    wide = [line for line in view.tableau.split("\n")]
    narrow = view.narrow_tableau.split("\n")
    assert len(wide) == len(narrow)
    outline = str.maketrans("♤♡♢♧", "♠♥♦♣")
    for wide_line, narrow_line in zip(wide[:-1], narrow[:-1], strict=True):
        cards = lambda line: "".join(ch for ch in line if ch not in " *>.").translate(outline)  # noqa: E731
        assert cards(narrow_line) == cards(wide_line)
    fitting = sum(1 for slot in game.playable_slots() if game.fits(slot)) if not game.is_over else 0
    assert sum(view.narrow_tableau.count(s) for s in "♤♡♢♧") == fitting
    assert str(game.stock_left) in narrow[-1] and game.waste.suit.symbol in narrow[-1]


@settings(max_examples=80, deadline=None)
@given(positions())
def test_a_ten_is_never_a_letter_and_never_touches_a_card(snapshot: GameSnapshot) -> None:
    """No T for a ten (in Russian and Ukrainian shorthand Т is the ace): in a row of either board every face-up
    ten is X (the Roman ten, one column in any monospace font), with a gap between it and the next card on the
    wide board (``9♦10♦`` read as one); the waste box writes 10 in full, as its button (10♥)."""
    game = snapshot.game
    view = render_game(snapshot, "ru", Settings())
    assert view.tableau is not None and view.narrow_tableau is not None
    tens = [slot for slot in range(28)
            if game.is_face_up(slot) and not game.is_removed(slot) and game.card_at(slot).rank == 10]
    *wide_rows, wide_last = view.tableau.split("\n")
    *narrow_rows, narrow_last = view.narrow_tableau.split("\n")
    for rows in (wide_rows, narrow_rows):
        assert "\n".join(rows).count(ROW_TEN) == len(tens) and ROW_TEN == "X" and "10" not in "\n".join(rows)
    assert not any(re.search("[♠♥♦♣♤♡♢♧][^ >]", row) for row in wide_rows)
    if game.waste.rank == 10:
        assert f"[10{game.waste.suit.symbol}]" in wide_last and f"[10{game.waste.suit.symbol}]" in narrow_last


def test_discord_headers_do_not_wrap_on_a_phone() -> None:
    """The wraps seen on a 360-px phone: es "Puntuación: 490 · Movimientos: 10" (the plain lines) and ru
    "TP1-C-AAAAAAE · Классический" (the heading) now split between their groups."""
    game = Game.from_code("TP1-C-AAAAAAE")
    for _ in range(10):
        game.apply(Draw())
    for locale in ("es", "ru"):
        view = render_game(GameSnapshot(1, 10, PlayerKey("discord", "1"), "", game), locale, Settings())
        heading, under = discord_header(view.header)
        assert display_width(heading) <= DISCORD_HEADING_COLUMNS and heading.startswith("TP1-C-AAAAAAE")
        assert all(display_width(line) <= DISCORD_TEXT_COLUMNS for line in under.split("\n")), under
    es = discord_header(render_game(GameSnapshot(1, 10, PlayerKey("discord", "1"), "", game), "es",
                                    Settings()).header)[1]
    assert "Puntuación: 490\nMovimientos: 10" in es


#: Names as long as players choose them, in three scripts, and a short one.
LONG_NAMES = ("Maximilian Alexander von Humboldt", "Олександра Кирилівна Ковальчук-Шевченко", "山田花子さんのアカウント",
              "Ann")
#: A day of every month (the longest month names), and the last of a 30- and a 31-day month.
DAYS = (*(dt.date(2026, month, 28) for month in range(1, 13)), dt.date(2026, 9, 30), dt.date(2026, 12, 31))


def discord_titled_views(locale: str) -> Iterator[View]:
    """Every message Discord shows with a title (a header), with the longest names, dates and codes it takes."""
    from bot.app.commands import ChallengeDeal, DailyDeal, DealByCode, RandomDeal, ReplayDeal
    from bot.app.daily import DailyResult, Recap, Standing
    from bot.app.model import Challenge
    from bot.render.challenges import render_answered
    from bot.render.endings import render_review, render_share
    from bot.render.lifecycle import render_confirm_start, render_kept
    from bot.render.replies import (
        render_daily,
        render_leaderboard,
        render_rules,
        render_settings,
        render_stats,
    )
    from core.review import Review

    best = DailyResult(LONG_NAMES[0], "1", 772, 28, True, 0, 0, 60.0, dt.datetime(2026, 12, 31, 9, tzinfo=dt.UTC))
    game = Game.from_code("TP1-C-ZZZZZZZ")
    game.apply(Draw())
    for name in LONG_NAMES:
        for daily, practice in ((None, None), (DAYS[-1], None), (None, DAYS[-1])):
            for hidden in (False, True) if daily or practice else (False,):  # the day's code hidden while it runs
                snapshot = GameSnapshot(MAX_ID, 1, PlayerKey("discord", "1"), name, game, daily=daily,
                                        practice_of=practice, undos_used=100, hints_used=51, dealt_winnable=True,
                                        code_hidden=hidden)
                for owner_label in (True, False):
                    yield render_game(snapshot, locale, Settings(), owner_label=owner_label)
                    yield render_game(snapshot, locale, Settings(), owner_label=owner_label, fixed_header=True)
        yield render_share(GameSnapshot(MAX_ID, 1, PlayerKey("discord", "1"), name, game), locale, replay="x")
        for finished in (True, False):  # a game from a challenge: the score to beat, with the challenger's name
            challenge = Challenge(MAX_ID, name, 772, finished)
            taken = GameSnapshot(MAX_ID, 1, PlayerKey("discord", "1"), name, game, challenge=challenge,
                                 undos_used=100, hints_used=51, code_hidden=True)
            yield render_game(taken, locale, Settings(), owner_label=True)
            yield render_answered(dataclasses.replace(taken, game=game if finished else Game.from_code(
                "TP1-C-ZZZZZZZ")), taken, locale)
    current = GameSnapshot(MAX_ID, 1, PlayerKey("discord", "1"), "", game)
    for request in (RandomDeal(), *(RandomDeal(rules=rules) for rules in Rules), DealByCode("TP1-C-ZZZZZZZ"),
                    ChallengeDeal(1, "TP1-E-ZZZZZZZ"), ChallengeDeal(1, None), DailyDeal(), DailyDeal(DAYS[-1]),
                    ReplayDeal(1)):
        yield render_confirm_start(current, request, locale, elsewhere=True)
    for day in DAYS:
        yield render_daily(day, locale)
        yield render_leaderboard(day, [], locale)
        yield render_daily(day, locale, Recap(day, GameCode.parse("TP1-C-ZZZZZZZ"), 99, best, 772))
        for standing in (Standing(None, 0), Standing(None, 999), Standing(999, 999), Standing(1, 1)):
            yield render_leaderboard(day, [], locale, standing=standing)
    result = DailyResult("Ann", "1", 650, 30, True, 0, 0, 185.0, dt.datetime(2026, 12, 31, 9, 0, tzinfo=dt.UTC))
    yield render_leaderboard(DAYS[-1], [result], locale)
    yield render_kept(locale)
    yield render_settings(Settings(), locale)
    yield render_rules(locale)
    yield render_stats(Stats(games=0, wins=0, best_score=None, current_streak=0, longest_streak=0), locale)
    snapshot = GameSnapshot(MAX_ID, 1, PlayerKey("discord", "1"), "", game)  # a bot's game has a code (a deal card
    yield render_review(snapshot, None, locale)                               # by card is the command line's)
    yield render_review(snapshot, Review(False, 480, 700, True, None, 5), locale)
    for day in DAYS:  # a daily deal's review while its code is hidden: by its day
        yield render_review(dataclasses.replace(snapshot, daily=day, code_hidden=True), None, locale)


def test_every_discord_title_fits_a_phone_in_every_language() -> None:
    """Every title Discord shows (the heading, a larger bold font) within :data:`DISCORD_HEADING_COLUMNS` and every
    line under it within :data:`DISCORD_TEXT_COLUMNS`, in every language: a board's (its player's name, the daily
    deal and its date, a practice replay), the question before a game is abandoned (every kind of start), the
    daily post and the leaderboard (every month), a shared result (long names in three scripts), the review, the
    settings, the rules and the statistics. Seen wrapping before: the daily date line, the question (ru, ja, tr,
    es), the leaderboard title (en, ru, ja, de, es)."""
    for locale in SUPPORTED_LOCALES:
        for view in discord_titled_views(locale):
            heading, under = discord_header(view.header, board=view.tableau is not None)
            assert display_width(heading) <= DISCORD_HEADING_COLUMNS, (locale, heading, display_width(heading))
            for line in under.split("\n"):
                assert display_width(line) <= DISCORD_TEXT_COLUMNS, (locale, line, display_width(line))

def test_leaderboard_names_are_shortened() -> None:
    """A long name is cut with "…" on the leaderboard, so it does not push its entry over several lines."""
    from bot.app.daily import DailyResult
    from bot.render.replies import LEADERBOARD_NAME_COLUMNS, render_leaderboard

    name = "Maximilian Alexander von Humboldt"
    result = DailyResult(name=name, user_id="1", score=650, moves=30, won=True, hints=0, undos=0, seconds=185,
                         finished_at=dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC))
    view = render_leaderboard(dt.date(2026, 12, 1), [result], "en")
    assert name not in (view.status or "") and "Maximilian Al…" in (view.status or "")
    assert display_width("Maximilian Al…") == LEADERBOARD_NAME_COLUMNS


def test_every_leaderboard_entry_fits_a_telegram_line_in_every_language() -> None:
    """An entry was one line (place, name, score, moves, time, marks) that wrapped mid-entry on a phone: now two,
    each within the width of a Telegram text line (:data:`HEADER_COLUMNS`), in every language, for twenty players
    with long Latin, Cyrillic and Japanese names, every mark, and the largest numbers (score 772, 999 moves, 99
    hints and undos, a time of 23:59:59); the legend too. The footnote is prose, which wraps between words."""
    from bot.app.daily import DailyResult
    from bot.render.replies import render_leaderboard

    names = ["Maximilian Alexander von Humboldt", "Олександра Кирилівна Ковальчук-Шевченко",
             "山田花子さんのアカウント", "a" * 60]
    ended = dt.datetime(2026, 12, 31, 23, 59, tzinfo=dt.UTC)
    results = [DailyResult(names[i % 4], str(i), 772 - i, 999 - i, won=i % 3 == 0, hints=99, undos=99,
                           seconds=86399.0 - i, finished_at=ended, finished=i % 5 != 1) for i in range(20)]
    for locale in SUPPORTED_LOCALES:
        status = render_leaderboard(dt.date(2026, 12, 31), results, locale).status or ""
        *lines, footnote = status.split("\n")
        assert len(lines) >= 2 * len(results) and "20. " in status, locale
        for line in lines:
            assert display_width(line) <= HEADER_COLUMNS, (locale, line, display_width(line))
        entries = lines[:2 * len(results)]
        assert all(line.startswith(f"{place}. ") for place, line in enumerate(entries[::2], start=1))
        assert all("772" not in line and "999" not in line for line in entries[::2])  # the result: under the name
        assert all(str(result.score) in line and str(result.moves) in line and "23:59:" in line
                   for result, line in zip(results, entries[1::2], strict=True)), locale


def test_japanese_questions_fit_one_telegram_line() -> None:
    """The question before a game in progress is abandoned is the message's bold first line: in Japanese it ran
    past a phone's line (「2026/12/31のデイリー配札を始めますか？」, 「新しいゲーム（クラシック）を始めますか？」, 38 columns),
    and Japanese breaks anywhere, so 「か？」 was left alone on the next line. Every question now fits one line."""
    from bot.app.commands import DailyDeal, DealByCode, RandomDeal
    from bot.render.lifecycle import render_confirm_start

    game = Game.from_code("TP1-E-AAAAAAB")
    game.apply(Draw())
    current = GameSnapshot(1, 1, PlayerKey("telegram", "1"), "", game)
    requests = [RandomDeal(), *(RandomDeal(rules=rules) for rules in Rules), DealByCode("TP1-C-ZZZZZZZ"),
                DailyDeal(), DailyDeal(dt.date(2026, 12, 31)), DailyDeal(dt.date(2026, 9, 30))]
    for request in requests:
        header = render_confirm_start(current, request, "ja", elsewhere=True).header
        assert "\n" not in header and display_width(header) <= HEADER_COLUMNS, (header, display_width(header))
        assert header.endswith("？")


def every_settings_state() -> Iterator[Settings]:
    """Every combination a player can choose: explanations, the rules, winnable-only (never chosen too), the board,
    four colours, and the language (automatic, or chosen)."""
    import itertools

    from bot.app.model import BoardStyle

    for explain, rules, winnable, board, four, language in itertools.product(
            (True, False), Rules, (None, True, False), BoardStyle, (True, False), (None, "ja")):
        yield Settings(language=language, explain_refusals=explain, default_rules=rules, winnable_only=winnable,
                       board=board, four_colour=four)


def test_the_settings_are_a_title_and_buttons_that_fit_a_phone() -> None:
    """The settings message, in every state and language: the title within a line on both platforms and no status
    (it said every value a second time, in 7-9 lines of the ~670-px message); every Telegram row of buttons within
    the phone's budget."""
    for locale in SUPPORTED_LOCALES:
        for state in every_settings_state():
            for pictures in (True, False):
                view = render_settings(state, locale, pictures=pictures)
                assert view.status is None
                assert display_width(view.header) <= HEADER_COLUMNS, (locale, view.header)
                heading, under = discord_header(view.header)
                assert not under and display_width(heading) <= DISCORD_HEADING_COLUMNS, (locale, heading)
                for row in telegram_rows(view):
                    assert telegram_row_fits([b.label for b in row]), (locale, [b.label for b in row])
                for shown in discord_rows(view):  # a button alone on its row too (es, pt_BR, tr were wider)
                    if not isinstance(shown, ShownMenu):
                        assert discord_row_fits([b.label for b in shown]), (locale, [b.label for b in shown])


def test_the_welcomes_three_buttons_share_one_row_in_every_language() -> None:
    """Play, Daily and Rules under the welcome are one row on a 360-px phone (fr, es and pl took two rows, pt_BR
    three, with "Daily" 13-19 columns wide)."""
    from bot.render.lifecycle import render_welcome

    for locale in SUPPORTED_LOCALES:
        view = render_welcome(locale)
        labels = [b.label for b in view.buttons[0]]
        assert len(labels) == 3 and [len(row) for row in telegram_rows(view)] == [3], (locale, labels)


def test_the_daily_header_lines_do_not_wrap_on_discord() -> None:
    """The daily attempt's and its practice's header on Discord, every line within its font's width at 360 px, the
    line that is one group ("ranked attempt: no undo", "practice, unranked") within the narrower budget of a line
    that cannot be split (ru "…без / отмены", de "keine / Rücknahme", ja "ん" alone on a line were seen)."""
    from bot.i18n import translator

    game = Game.from_code("TP1-C-ZZZZZZZ")
    game.apply(Draw())
    for locale in SUPPORTED_LOCALES:
        tr = translator(locale)
        whole = {tr.gettext("ranked attempt: no undo"), tr.gettext("practice, unranked")}
        for day in DAYS:
            for kind in ("daily", "practice"):
                snapshot = GameSnapshot(1, 1, PlayerKey("discord", "1"), "Ann", game,
                                        daily=day if kind == "daily" else None,
                                        practice_of=day if kind == "practice" else None, code_hidden=True,
                                        dealt_winnable=True)
                view = render_game(snapshot, locale, Settings(), owner_label=True, fixed_header=True)
                heading, under = discord_header(view.header, board=True)
                groups = [group for line in under.split("\n") for group in line.split(" · ")]
                assert whole & set(groups), (locale, kind, under)
                for line in under.split("\n"):
                    assert display_width(line) <= DISCORD_TEXT_COLUMNS, (locale, line, display_width(line))
                for group in whole & set(groups):
                    assert display_width(group) <= DISCORD_WHOLE_LINE_COLUMNS, (locale, group, display_width(group))


def test_a_leaderboard_entry_keeps_its_indent_on_discord() -> None:
    """Each entry is two lines, the second ("score · moves · time") indented under the name; Discord's markdown
    drops a line's leading spaces, so its output starts that line with no-break spaces, which it keeps."""
    from bot.adapters.discord.views import INDENT_SPACE, status_text
    from bot.app.daily import DailyResult
    from bot.render.replies import LEADERBOARD_INDENT, render_leaderboard

    results = [DailyResult(name, str(i), 650 - i, 30 + i, i % 2 == 0, i, 0, 185.0 + i,
                           dt.datetime(2026, 12, 31, 9, 0, tzinfo=dt.UTC))
               for i, name in enumerate(["Ann", "Олександра", "山田花子"])]
    for locale in SUPPORTED_LOCALES:
        status = render_leaderboard(dt.date(2026, 12, 31), results, locale).status or ""
        shown = status_text(status).split("\n")
        for place, result in enumerate(results, start=1):
            first, second = shown[2 * place - 2], shown[2 * place - 1]
            assert first.startswith(f"> {place}\\. "), first
            indent = INDENT_SPACE * len(LEADERBOARD_INDENT)
            assert second.startswith(f"> {indent}") and second[2 + len(indent)] != " ", second
            assert str(result.score) in second, (locale, second)


# --- Discord: the cards' buttons keep their place (issue 41) -----------------------------------------------------


def discord_lines_above_the_cards(view: View) -> int:
    """How far down a 360-px phone a Discord board's first row of card buttons is, in lines of text: the lines of
    every text display above it (each line checked to fit its font's width there, so none wraps), the board itself
    (the picture, of one fixed size; the text board's code block) counted as one. (The text board's own height
    follows the position, a row left out once all its cards are gone: the tableau's business, not the layout's.)"""
    from bot.adapters.discord.views import layout

    (container,) = layout(view).children
    assert isinstance(container, discord.ui.Container)
    lines = 0
    for item in container.children:
        if isinstance(item, discord.ui.ActionRow):
            return lines
        if isinstance(item, discord.ui.TextDisplay) and not item.content.startswith("```"):
            for line in item.content.split("\n"):
                heading = line.startswith("### ")
                shown = line.removeprefix("### ").replace("\\", "")
                assert display_width(shown) <= (DISCORD_HEADING_COLUMNS if heading else DISCORD_TEXT_COLUMNS), line
                lines += 1
        else:
            lines += 1  # the board
    raise AssertionError("no buttons")


def one_game_in_every_state(daily: dt.date | None) -> Iterator[GameSnapshot]:
    """One game as a player meets it on Discord: fresh, then later with a hint shown, a refused card, a peak just
    cleared, and the undo and hint counters (a daily attempt always shows them); scores and moves of every width."""
    code = "TP1-E-AAAAAAB"
    game = Game.from_code(code)
    owner = PlayerKey("discord", "1")
    yield GameSnapshot(MAX_ID, 0, owner, "Олександра Кирилівна", game.copy(), daily=daily)
    for action in winning_line(code):
        outcome = game.apply(action)
        if outcome.cleared_peak is not None:
            break
    assert outcome.cleared_peak is not None
    yield GameSnapshot(MAX_ID, game.moves, owner, "Олександра Кирилівна", game.copy(), outcome=outcome,
                       daily=daily, undos_used=0 if daily else 2, hints_used=1)
    hint = Hint(next(iter(game.legal_actions())), True, 700, None)
    fair = Hint(next(iter(game.legal_actions())), None, None, 0.35)
    for shown in (hint, fair):
        yield GameSnapshot(MAX_ID, game.moves, owner, "Олександра Кирилівна", game.copy(), hint=shown, daily=daily,
                           hints_used=1)
    refused = next(s for s in game.playable_slots() if not game.fits(s))
    refusing = game.copy()
    yield GameSnapshot(MAX_ID, game.moves, owner, "Олександра Кирилівна", refusing,
                       outcome=refusing.apply(Tap(refused)), daily=daily, undos_used=100, hints_used=51)


def test_discord_card_buttons_keep_their_place_in_every_state() -> None:
    """The hint line, a refusal, "Peak cleared" and the undo and hint counters come and go during a game: on
    Discord they sit under the buttons, so the first row of cards stays the same number of lines down the screen
    (Draw stood at y 382, 474, 404 and 430 px in one game when they sat above; 136 px apart in Russian). Every
    language, in a server (the player's name) and in DMs, the daily attempt and a practice game, text and picture
    boards."""
    from bot.app.effects import Board
    from bot.app.model import BoardStyle
    from bot.render.effects import draw

    for locale in SUPPORTED_LOCALES:
        for daily in (None, dt.date(2026, 12, 31)):
            for board in BoardStyle:
                for named in (True, False):
                    places = set()
                    for snapshot in one_game_in_every_state(daily):
                        shown = dataclasses.replace(snapshot, settings=Settings(board=board))
                        view = draw(Board(shown), locale, DISCORD_SERVER, named=named)
                        places.add(discord_lines_above_the_cards(view))
                    assert len(places) == 1, (locale, daily, board, named, places)


def test_peak_cleared_is_one_discord_status_line_in_every_language() -> None:
    """"Peak cleared: +100!" reads as one line under a Discord board on a phone (Japanese wrapped "+100！" alone on a
    line of its own)."""
    from bot.i18n import translator

    for locale in SUPPORTED_LOCALES:
        line = translator(locale).gettext("Peak cleared: +100!")
        assert display_width(line) <= QUOTE_COLUMNS, (locale, line)


def test_discord_board_headers_take_few_lines_in_every_language() -> None:
    """A board's header on Discord (heading included) at 360 px, with the longest dates (and a long name, which is
    cut to its one line): a game at most 4 lines, the daily attempt and a practice of it 6 (each has a line saying
    which it is; one more each for the winnable mark); the counters are under the buttons. Seen before: Russian and Spanish daily headers of 7 lines
    ("Классический" alone on a line, "выигрышная" glued to the score)."""
    game = Game.from_code("TP1-C-ZZZZZZZ")
    game.apply(Draw())
    most = {"game": 4, "daily": 6, "practice": 6}
    for locale in SUPPORTED_LOCALES:
        for kind, days in (("game", DAYS[:1]), ("daily", DAYS), ("practice", DAYS)):
            for day in days:
                for winnable in (False, True):
                    for owner_label in (True, False):
                        snapshot = GameSnapshot(MAX_ID, 1, PlayerKey("discord", "1"), LONG_NAMES[1], game,
                                                daily=day if kind == "daily" else None,
                                                practice_of=day if kind == "practice" else None,
                                                code_hidden=kind != "game", dealt_winnable=winnable,
                                                undos_used=100, hints_used=51)
                        view = render_game(snapshot, locale, Settings(), owner_label=owner_label, fixed_header=True)
                        heading, under = discord_header(view.header, board=True)
                        lines = 1 + len(under.split("\n"))
                        assert lines <= most[kind] + winnable, (locale, kind, winnable, heading, under)
