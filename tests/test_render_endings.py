"""What players see around a game: its ending, the review, the shared result, the question before a game in
progress is abandoned, the welcome, the fair hint, the leaderboard's marks.

Snapshots (English and Ukrainian) are in ``tests/snapshots/endings.*.txt`` and ``lifecycle.*.txt``; regenerate
them with ``UPDATE_SNAPSHOTS=1``: each changed snapshot is written and its test fails with the diff, to be read.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools

import pytest
from babel.dates import format_date

from bot.app.codec import decode
from bot.app.commands import (
    Begin,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    KeepPlaying,
    RandomDeal,
    Replay,
    Resume,
    ShowRules,
    WinnableOnly,
)
from bot.app.daily import DailyResult
from bot.app.model import DealVerdict, GameSnapshot, Hint, Offers, PlayerKey, Settings, Stats
from bot.app.outcomes import OldBoard
from bot.app.solver_calls import solver_review
from bot.i18n import SUPPORTED_LOCALES, translator
from bot.render.console import console_rows
from bot.render.endings import render_review, render_share, share_text
from bot.render.game import play_ack, render_game
from bot.render.lifecycle import render_confirm_start, render_kept, render_welcome
from bot.render.offers import render_offers
from bot.render.platforms import discord_rows, telegram_row_fits, telegram_rows
from bot.render.replies import error_text, render_leaderboard, render_settings, render_stats
from bot.render.view import ButtonStyle, View, strip_variation
from core.deal import Rules
from core.game import Draw, Game, Status, Tap, Undo
from core.review import Review, review
from core.solver import solve
from tests.snapshot_check import compare_snapshot
from tests.view_text import payload_of, view_as_text

OWNER = PlayerKey("telegram", "1000")
LOCALES = ("en", "uk")


def snapshot(game: Game, **fields: object) -> GameSnapshot:
    base = GameSnapshot(game_id=42, version=game.moves, owner=OWNER, owner_name="Olena Petrenko-Kovalenko",
                        game=game)
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


@functools.cache
def _won_line() -> tuple[Game, int]:
    game = Game.from_code("TP1-E-AAAAAAC")
    best = solve(game, best=True)
    assert best.line is not None and best.best_score is not None
    for action in best.line:
        game.apply(action)
    assert game.status is Status.WON
    return game, best.best_score


def won(**fields: object) -> GameSnapshot:
    """TP1-E-AAAAAAC won along a best line; the outcome is its last removal's (it clears the last peak)."""
    line, best = _won_line()
    game = Game.from_code("TP1-E-AAAAAAC")
    outcome = None
    for action in line.actions():
        outcome = game.apply(action)
    return snapshot(game, **{"outcome": outcome, "verdict": DealVerdict(True, best), **fields})


@functools.cache
def _lost_by_drawing() -> tuple[Game, Review]:
    """TP1-E-AAAAAAB (winnable) played badly: draw whenever the stock has a card, then whatever fits."""
    game = Game.from_code("TP1-E-AAAAAAB")
    while not game.is_over:
        game.apply(Draw() if game.stock_left else next(iter(game.legal_actions())))
    assert game.status is Status.BLOCKED
    return game, review(Game.from_code("TP1-E-AAAAAAB"), game.actions())


def blocked(**fields: object) -> GameSnapshot:
    game, _ = _lost_by_drawing()
    return snapshot(game.copy(), **{"verdict": DealVerdict(True, 759), **fields})


def _shown(view: View) -> str:
    """The view as text, then the keyboard a Telegram phone shows (rows split to fit, styles, links)."""
    keyboard = "\n".join("  ".join(f"[{strip_variation(b.label)}{f' ({b.style})' if b.style else ''}"
                                   f"{f' -> {b.url}' if b.url else ''}]" for b in row)
                         for row in telegram_rows(view))
    return view_as_text(view) + (f"\n\ntelegram:\n{keyboard}" if keyboard else "")


def _endings_text(locale: str) -> str:
    _, lost = _lost_by_drawing()
    unwinnable = Review(False, 480, None, False, None, 4)
    perfect = Review(True, won().game.score, won().game.score, True, None, 12)
    sections = {
        "won, in a group, daily, with undos and hints": _shown(render_game(
            won(daily=dt.date(2026, 11, 29), undos_used=2, hints_used=1, dealt_winnable=True), locale, Settings(),
            owner_label=True)),
        "won, no longer the latest game": _shown(render_game(won(), locale, Settings(), latest=False)),
        "blocked, below par": _shown(render_game(blocked(), locale, Settings())),
        "blocked, no longer the latest game": _shown(render_game(blocked(), locale, Settings(), latest=False)),
        "abandoned, no longer the latest game": _shown(render_game(
            blocked(abandoned=True), locale, Settings(), latest=False)),
        "review, lost": _shown(render_review(blocked(), lost, locale)),
        "review, won at par": _shown(render_review(won(), perfect, locale)),
        "review, not winnable": _shown(render_review(blocked(verdict=DealVerdict(False, None)), unwinnable,
                                                     locale)),
        "review, not made": _shown(render_review(blocked(), None, locale)),
        "share, telegram": _shown(render_share(won(hints_used=1), locale, replay="https://t.me/tripeaks_bot?start="
                                               "TP1-E-AAAAAAC", url="https://t.me/tripeaks_bot?start=TP1-E-AAAAAAC")),
        "share, daily": share_text(won(daily=dt.date(2026, 11, 29)), locale, replay=None),
        "play by name": "\n".join(play_ack(snap, locale) for snap in _played()),
        "fair hints": "\n".join(render_game(snapshot(Game.from_code("TP1-E-AAAAAAB"), hint=hint), locale,
                                            Settings()).status or "" for hint in _FAIR_HINTS),
    }
    return "".join(f"== {title} ==\n{body}\n\n" for title, body in sections.items())


_FAIR_HINTS = (Hint(Tap(22), None, None, 0.8), Hint(Draw(), None, None, 0.35), Hint(Tap(22), None, None, 0.0),
               Hint(Tap(22), None, None, 0.001))


def _played() -> list[GameSnapshot]:
    """A card played, a card refused, the card that clears a peak and wins."""
    game = Game.from_code("TP1-E-AAAAAAB")
    played = game.copy()
    ok = played.apply(Tap(22))  # K♥ on the A♣
    refused = game.copy()
    no = refused.apply(Tap(27))  # 8♠ on the A♣
    assert ok.ok and no.reason is not None
    return [snapshot(played, outcome=ok), snapshot(refused, outcome=no), won()]


def _lifecycle_text(locale: str) -> str:
    current = snapshot(_midgame())
    results = [
        DailyResult("ann", "1", 760, 40, True, 0, 0, 300.0, dt.datetime(2026, 11, 29, 10)),
        DailyResult("bob", "2", 740, 45, True, 2, 3, 420.0, dt.datetime(2026, 11, 29, 11)),
        DailyResult("cat", "3", 470, 30, False, 0, 1, 200.0, dt.datetime(2026, 11, 29, 12)),
        DailyResult("dan", "4", 490, 10, False, 0, 0, 60.0, dt.datetime(2026, 11, 29, 13), finished=False),
    ]
    sections = {
        "confirm a random deal": _shown(render_confirm_start(current, RandomDeal(), locale, elsewhere=False)),
        "confirm a code, elsewhere": _shown(render_confirm_start(current, DealByCode("tp1-c-aaaaaai"), locale,
                                                                 elsewhere=True)),
        "confirm the daily": _shown(render_confirm_start(current, DailyDeal(), locale, elsewhere=False)),
        "kept": _shown(render_kept(locale)),
        "welcome": _shown(render_welcome(locale)),
        "settings, Classic by default": _shown(render_settings(Settings(default_rules=Rules.CLASSIC), locale)),
        "settings, winnable-only off": _shown(render_settings(Settings(winnable_only=False), locale)),
        "leaderboard": _shown(render_leaderboard(dt.date(2026, 11, 29), results, locale)),
        "leaderboard, no marks": _shown(render_leaderboard(dt.date(2026, 11, 29), results[:1], locale)),
        "stats": _shown(render_stats(Stats(3, 1, 760, 0, 1), locale)),
    }
    return "".join(f"== {title} ==\n{body}\n\n" for title, body in sections.items())


def _midgame() -> Game:
    game = Game.from_code("TP1-E-AAAAAAB")
    for action in (Tap(22), Draw(), Draw()):
        game.apply(action)
    return game


@pytest.mark.parametrize("locale", LOCALES)
def test_endings_snapshot(locale: str) -> None:
    compare_snapshot(f"endings.{locale}.txt", _endings_text(locale))


@pytest.mark.parametrize("locale", LOCALES)
def test_lifecycle_snapshot(locale: str) -> None:
    compare_snapshot(f"lifecycle.{locale}.txt", _lifecycle_text(locale))


# --- the board ----------------------------------------------------------------------------------------------------


def test_a_board_in_a_group_names_its_player_and_counts_undos_and_hints() -> None:
    game = _midgame()
    view = render_game(snapshot(game, undos_used=2, hints_used=1), "en", Settings(), owner_label=True)
    assert view.header.split("\n") == ["Olena Petrenko-K…'s game", "TP1-E-AAAAAAB · Easy",
                                       "Score: 497 · Moves: 3 · Moves undone: 2", "Hints: 1"] or view.header.split(
        "\n") == ["Olena Petrenko-K…'s game", "TP1-E-AAAAAAB · Easy", "Score: 497 · Moves: 3",
                  "Moves undone: 2 · Hints: 1"]
    private = render_game(snapshot(game), "en", Settings())
    assert "Olena" not in private.header and "Undos" not in private.header  # no counters while both are 0
    daily = render_game(snapshot(game, daily=dt.date(2026, 11, 29)), "en", Settings())
    # always on the daily attempt: the hints; and why its board has no ↶ in place of an undo count, always 0
    assert "Hints: 0" in daily.header and "Moves undone" not in daily.header
    assert "ranked attempt: no undo" in daily.header.split("\n")


def test_the_header_counts_the_live_chain_and_leaves_the_score_as_it_is() -> None:
    """The cards removed in a row since the last draw, from two on; the score still loses 1 a card (RULES.md)."""
    game = Game.from_code("TP1-E-AAAAAAB")
    headers = []
    for action in (Tap(21), Tap(19), Tap(18), Draw()):
        game.push(action)
        headers.append(render_game(snapshot(game), "en", Settings()).header)
    assert [header.split("\n")[1] for header in headers] == [
        "Score: 499 · Moves: 1", "Score: 498 · Moves: 2 · Chain: 2", "Score: 497 · Moves: 3 · Chain: 3",
        "Score: 496 · Moves: 4"]
    game.push(Undo())
    assert "Chain: 3" in render_game(snapshot(game), "en", Settings()).header  # the draw taken back
    for locale in SUPPORTED_LOCALES:
        chain = translator(locale).gettext("Chain: {n}").format(n=3)
        assert chain != "Chain: 3" or locale == "en"


def test_a_deal_proven_winnable_says_so_in_the_header() -> None:
    game = Game.from_code("TP1-C-AAAAAAB")
    assert render_game(snapshot(game, dealt_winnable=True), "en", Settings()).header.split("\n")[0] == (
        "TP1-C-AAAAAAB · Classic · winnable")
    assert "winnable" not in render_game(snapshot(game), "en", Settings()).header


def test_the_fair_hint_names_the_move_and_the_chance() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    lines = [render_game(snapshot(game, hint=hint), "en", Settings()).status for hint in _FAIR_HINTS]
    assert lines == [
        "Best move from what you can see: play K♥\ufe0f (about 80% chance to win from here)",
        "Best move from what you can see: draw a card (about 35% chance to win from here)",
        "From what you can see, this game looks lost",
        "Best move from what you can see: play K♥\ufe0f (about 1% chance to win from here)",  # never 0% when not nil
    ]
    german = render_game(snapshot(game, hint=_FAIR_HINTS[0]), "de", Settings()).status or ""
    assert "80\u00a0%" in german  # the locale's own percent format
    # the exact solver's texts stay for a hint without a chance
    exact = render_game(snapshot(game, hint=Hint(Tap(22), True, 759)), "en", Settings()).status
    assert exact == "Hint: play K♥\ufe0f\nBest score still possible: 759"


def test_a_daily_ending_has_no_share_line_but_a_share_button() -> None:
    view = render_game(won(daily=dt.date(2026, 11, 29)), "en", Settings())
    assert "Share your result" not in (view.status or "") and "TriPeaks daily" not in (view.status or "")
    assert [b.label for b in view.all_buttons()][0] == "Share"


def test_play_ack_says_what_was_played_or_why_not() -> None:
    ok, refused, last = (play_ack(snap, "en") for snap in _played())
    assert ok == "You played K♥\ufe0f"
    assert refused.endswith("was not played. Must be one rank higher or lower")
    assert last.startswith("You played ") and "Peak cleared: +100!" in last and "You won!" in last
    assert play_ack(snapshot(Game.from_code("TP1-E-AAAAAAB")), "en") == ""


# --- the review and the share -------------------------------------------------------------------------------------


def test_the_review_names_the_losing_move_and_the_best_line_from_before_it() -> None:
    game, lost = _lost_by_drawing()
    assert lost.lost_at is not None and lost.best_line
    status = render_review(blocked(), lost, "en").status or ""
    lines = status.split("\n")
    assert lines[0] == f"Final score: {game.score} · par 759"  # also read by others in a group
    # the review says it judges with every card known (the hint judged from the visible cards only)
    assert lines[1].startswith(f"With every card known: after move {lost.lost_at + 1}, ") and lines[1].endswith(
        "the deal could no longer be won")
    assert lines[2].startswith(f"Best line from just before that move (final score {lost.best_line_score}): ")
    steps = lines[2].split(": ", 1)[1].split()
    assert steps[-1] == "…" and len(steps) == 11  # the first ten steps, compact
    # the steps name the cards the best line plays from the position before the losing move
    before = Game(game.deal, game.rules, game.code)
    for action in game.actions()[:lost.lost_at]:
        before.apply(action)
    for step, action in zip(steps[:10], lost.best_line, strict=False):
        expected = before.card_at(action.slot).symbol() if isinstance(action, Tap) else "draw"
        assert strip_variation(step) == expected
        before.apply(action)
    assert lines[-1] == f"Longest chain: {lost.longest_chain} card{'s' if lost.longest_chain != 1 else ''} in a row"
    assert len(status) < 400  # short enough for a phone
    (replay,), = render_review(blocked(), lost, "en").buttons
    assert decode(payload_of(replay)) == Replay(42)


def test_after_an_undo_the_review_numbers_the_losing_move_as_the_header_did() -> None:
    """An undone move still counts in the header's "Moves: n" (the counter never goes down): the review's "After
    move n" is the number the header showed when that move was made, through the stored state as the app reads it."""
    played, _ = _lost_by_drawing()
    game = Game.from_code("TP1-E-AAAAAAB")
    boards = []  # the game just after each standing action
    for index, action in enumerate(played.actions()):
        if index == 3:
            game.apply(action)
            game.apply(Undo())  # taken back, and counted
        game.apply(action)
        boards.append(game.copy())
    stored = Game.from_text(game.to_text())
    lost = solver_review(stored.to_text())
    assert lost.lost_at is not None and lost.lost_at > 3
    header = render_game(snapshot(boards[lost.lost_at]), "en", Settings()).header
    n = boards[lost.lost_at].moves
    assert n == lost.lost_at + 2 and f"Moves: {n}" in header
    assert f"With every card known: after move {n}, " in (render_review(snapshot(stored), lost, "en").status or "")


def test_the_share_names_no_card_and_links_the_deal() -> None:
    snap = won(hints_used=1)
    text = share_text(snap, "en", replay="https://t.me/bot?start=TP1-E-AAAAAAC")
    assert text == (f"TriPeaks TP1-E-AAAAAAC: score {snap.game.score}, peaks 3/3 ⛰⛰⛰ · with hints · "
                    f"par {snap.verdict.best_score if snap.verdict else ''}\n"
                    "Play this deal: https://t.me/bot?start=TP1-E-AAAAAAC")
    assert not any(suit in text for suit in "♠♥♦♣")
    view = render_share(snap, "en", replay="x", url="https://t.me/bot?start=TP1-E-AAAAAAC")
    (link,), = view.buttons
    assert link.url == "https://t.me/bot?start=TP1-E-AAAAAAC" and payload_of(link) == ""
    (shown,), = telegram_rows(view)
    assert shown.url == link.url and discord_rows(view)[0][0].url == link.url
    assert console_rows(view) == ()  # the console shows the text; a link is no key
    assert render_share(snap, "en", replay="x").buttons == ()


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_the_share_says_an_undo_was_used_as_it_says_hints_were(locale: str) -> None:
    """Issue 44: the shared result said "with hints" but not that moves were taken back; both marks, in every
    language, and neither on a game played straight."""
    tr = translator(locale)
    straight = share_text(won(), locale, replay=None)
    assert tr.gettext("with hints") not in straight and tr.gettext("with undos") not in straight
    both = share_text(won(hints_used=1, undos_used=2), locale, replay=None)
    assert f" · {tr.gettext('with hints')} · {tr.gettext('with undos')}" in both
    assert tr.gettext("with undos") != "with undos" or locale == "en"
    assert share_text(won(undos_used=1), locale, replay=None).count(tr.gettext("with undos")) == 1


def test_a_closed_lost_board_does_not_invite_an_undo() -> None:
    """A lost board that is no longer the player's latest keeps only Share and Review: its lines say the score,
    not "Undo a move or start a new game"."""
    view = render_game(blocked(), "en", Settings(), latest=False)
    assert (view.status or "").split("\n")[:2] == ["No more possible moves", f"Final score: {blocked().game.score}"]
    assert [b.label for b in view.all_buttons()] == ["Share", "Review"]
    assert "Undo a move" in (render_game(blocked(), "en", Settings()).status or "")  # the latest board still does


def test_the_share_names_its_player_for_whoever_reads_it() -> None:
    """A shared result is forwarded to friends: its title names the player, not "Your result"; a long name is cut
    so the title keeps to a phone's heading (24 columns)."""
    snap = dataclasses.replace(won(), owner_name="Olena  Petrenko")
    assert render_share(snap, "en", replay="x").header == "Olena Petrenko's result"
    assert render_share(dataclasses.replace(snap, owner_name="Olena Koval"), "uk", replay="x").header == \
        "Результат: Olena Koval"
    assert render_share(snap, "uk", replay="x").header == "Результат: Olena Petren…"
    assert render_share(dataclasses.replace(snap, owner_name=" "), "en", replay="x").header == "A TriPeaks result"


# --- starting and keeping -----------------------------------------------------------------------------------------


def test_the_confirmation_names_what_would_be_lost_and_carries_yes_and_no() -> None:
    current = snapshot(_midgame(), game_id=77)
    view = render_confirm_start(current, DealByCode("TP1-C-AAAAAAI"), "en", elsewhere=True)
    assert view.header == "Start TP1\u2011C\u2011AAAAAAI?"
    assert view.status == ("Your game in progress (TP1\u2011E\u2011AAAAAAB, score 497, 3 moves) will be abandoned and count "
                           "as played and not won.\nThat game is in another chat.")
    (yes, no), = view.buttons
    assert decode(payload_of(yes)) == ConfirmStart(77, DealByCode("TP1-C-AAAAAAI")) and yes.style is ButtonStyle.DANGER
    assert decode(payload_of(no)) == KeepPlaying(77)
    here = render_confirm_start(current, DailyDeal(), "en", elsewhere=False)
    assert "another chat" not in (here.status or "") and here.header == "Start the daily deal?"
    assert [key for row in console_rows(view) for key, _ in row] == ["y", "c"]
    kept = render_kept("en")  # no dead end: a way back to the board
    assert kept.header == "Your game goes on"
    assert [(b.label, decode(payload_of(b))) for b in kept.all_buttons()] == [("Back to the game", Resume())]
    assert [key for row in console_rows(kept) for key, _ in row] == ["resume"]


def test_the_welcome_is_short_with_play_daily_and_rules() -> None:
    for locale in LOCALES:
        view = render_welcome(locale)
        assert len(view_as_text(view)) < 500 and len((view.status or "").split("\n")) <= 4
        assert [decode(payload_of(b)) for b in view.all_buttons()] == [Begin(RandomDeal()), Begin(DailyDeal()),
                                                                   ShowRules(play=True)]
        assert all(telegram_row_fits([b.label for b in row]) for row in telegram_rows(view))


def test_the_winnable_only_toggle() -> None:
    classic = render_settings(Settings(default_rules=Rules.CLASSIC), "en")
    toggles = [b for b in classic.all_buttons() if isinstance(decode(payload_of(b)), WinnableOnly)]
    assert [(b.label, decode(payload_of(b)), b.style) for b in toggles] == [
        ("✓ Only winnable: on", WinnableOnly(False), ButtonStyle.SUCCESS)]
    assert classic.status is None  # the state is said once, on the button
    easy = render_settings(Settings(), "en")
    assert [(b.label, decode(payload_of(b))) for b in easy.all_buttons() if isinstance(decode(payload_of(b)), WinnableOnly)] \
        == [("Only winnable: off", WinnableOnly(True))]
    chosen = render_settings(Settings(default_rules=Rules.CLASSIC, winnable_only=False), "en")
    assert [b.label for b in chosen.all_buttons() if isinstance(decode(payload_of(b)), WinnableOnly)] == [
        "Only winnable: off"]


def test_the_leaderboard_marks_games_not_won_hints_and_undos() -> None:
    results = [
        DailyResult("ann", "1", 760, 40, True, 0, 0, 300.0, dt.datetime(2026, 11, 29, 10)),
        DailyResult("bob", "2", 740, 45, True, 2, 3, 420.0, dt.datetime(2026, 11, 29, 11)),
        DailyResult("cat", "3", 470, 30, False, 0, 1, 200.0, dt.datetime(2026, 11, 29, 12)),
    ]
    lines = (render_leaderboard(dt.date(2026, 11, 29), results, "en").status or "").split("\n")
    assert lines[:7] == ["1. ann", "  score 760 · 40 moves · 5:00", "2. bob 💡2 ↶3", "  score 740 · 45 moves · 7:00",
                         "3. cat ✗ ↶1", "  score 470 · 30 moves · 3:20", "✗ not won · 💡 hints · ↶ undos"]
    plain = render_leaderboard(dt.date(2026, 11, 29), results[:1], "en").status or ""
    assert "✗" not in plain and "💡" not in plain  # no legend without marks


# --- a daily deal's code while its day runs ------------------------------------------------------------------------


@functools.cache
def review_of_the_deal(code: str) -> Review:
    return review(Game.from_code(code), [])


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_a_hidden_code_is_named_by_its_day_in_every_view_of_the_game(locale: str) -> None:
    """The code deals every card: while its day runs, a daily deal's games (the attempt, a practice) show it in no
    view, text or button, in any language: their board, its closed form, the review, the shared result (its Play
    button and link), the question before abandoning it, the answer to a tap on an old board, the inline offer."""
    code = "TP1-E-ATLPTSL"
    game = Game.from_code(code)
    day = dt.date(2026, 12, 2)
    attempt = GameSnapshot(7, 3, PlayerKey("telegram", "1"), "Ann", game, daily=day, code_hidden=True,
                           settings=Settings())
    practice = dataclasses.replace(attempt, daily=None, practice_of=day)
    for snapshot in (attempt, practice):
        views = [render_game(snapshot, locale, snapshot.settings, owner_label=True),
                 render_game(dataclasses.replace(snapshot, abandoned=True), locale, snapshot.settings, latest=False),
                 render_review(snapshot, review_of_the_deal(code), locale),
                 render_share(snapshot, locale, replay=None, challenge=True),
                 render_confirm_start(snapshot, RandomDeal(), locale, elsewhere=False)]
        texts = [str(view) for view in views]
        texts.append(error_text(OldBoard(snapshot), locale))
        texts.append(str(render_offers(Offers(snapshot, None, day), locale, lambda request: repr(request))))
        texts.append(share_text(snapshot, locale, replay=None))
        for text in texts:
            for letter in "EC":
                assert f"TP1-{letter}-ATLPTSL" not in text and "ATLPTSL" not in text, text
        assert format_date(day, format="medium", locale=translator(locale).babel_locale) in views[2].header
    # once the day is over (the snapshot's code no longer hidden), a practice game names its code again
    shown = dataclasses.replace(practice, code_hidden=False)
    assert code in render_game(shown, locale, shown.settings).header
    assert code in render_review(shown, review_of_the_deal(code), locale).header
