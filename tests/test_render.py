"""The renderer: what players see, in every language, within both platforms' limits.

Snapshots of the rendered text are in ``tests/snapshots``; after a deliberate change, regenerate them with
``UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/test_render.py``: each changed snapshot is written and its test fails
with the diff, to be read: it is what players will see.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import random
from collections.abc import Iterator

import pytest

from bot.app.codec import decode
from bot.app.commands import (
    AskHint,
    Blank,
    Language,
    Move,
    NewGame,
    PlayDaily,
    Replay,
    Review,
    SettingChange,
    Share,
)
from bot.app.errors import (
    BadGameCode,
    BadOwnerCommand,
    BadPayload,
    Blocked,
    BotError,
    Busy,
    CardNotInPlay,
    DailyCodeLocked,
    GameNotFound,
    NoActiveGame,
    NotACard,
    NotAPlayer,
    NotOwner,
    NotYourGame,
    NotYourMessage,
    NoWinnableDeal,
    TappedTwice,
)
from bot.app.model import BoardStyle, DealVerdict, GameSnapshot, Hint, PlayerKey, Settings, Stats
from bot.app.outcomes import AlreadyStarted, DayOver, HintOvertaken, OldBoard, OutOfDate
from bot.app.owner import OWNER_USAGE
from bot.app.players import setting_changes
from bot.i18n import LANGUAGE_NAMES, SUPPORTED_LOCALES, translator
from bot.render.commands import (
    COMMAND_DESCRIPTIONS,
    OPTION_DESCRIPTIONS,
    TELEGRAM_DESCRIPTIONS,
    command_description,
    option_description,
)
from bot.render.game import play_ack, refusal_text, render_game
from bot.render.platforms import Rows, ShownMenu, discord_rows, is_card_grid, telegram_rows
from bot.render.replies import (
    DailyNotice,
    daily_notice,
    error_text,
    render_daily,
    render_rules,
    render_settings,
    render_stats,
)
from bot.render.tableau import (
    CELL,
    FACE_DOWN,
    MARK_HINT,
    card_cell,
    card_label,
    card_place,
    row_card,
    slot_column,
)
from bot.render.view import (
    BLANK_LABEL,
    DISCORD_COMPONENTS_MAX,
    DISCORD_CONTENT_MAX,
    DISCORD_CUSTOM_ID_MAX,
    DISCORD_LABEL_MAX,
    DISCORD_ROW_WIDTH,
    TABLEAU_COLUMNS,
    TELEGRAM_BUTTONS_MAX,
    TELEGRAM_CALLBACK_BYTES_MAX,
    TELEGRAM_NOTICE_MAX,
    TELEGRAM_ROW_WIDTH,
    TELEGRAM_TEXT_MAX,
    Button,
    ButtonStyle,
    View,
    strip_variation,
)
from core.deal import GameCode, Rules
from core.errors import InvalidCodeError
from core.game import Action, Draw, Game, Outcome, Reason, Status, Tap, Undo
from core.layout import ALL_SLOTS_MASK, COVER_MASKS, COVERED_BY, ROWS, SLOT_COUNT
from tests.snapshot_check import compare_snapshot
from tests.view_text import payload_of, view_as_text

OWNER = PlayerKey("discord", "1000")
MAX_GAME_ID = 10**18 - 1  # the largest ids bot.app.codec accepts
MAX_VERSION = 10**9 - 1


# --- positions, reached by playing real actions on real deals ------------------------------------------------------


@functools.cache
def fewest_draws_win(text: str) -> tuple[Action, ...] | None:
    """A winning line with the fewest draws (so the best score) from a game's position, or None when no line wins.

    Exhaustive, in layers by the number of draws: each layer is every (removed cards, waste rank) reachable by
    removals from the previous layer's positions with one more card drawn. Small deals only (a test helper)."""
    game = Game.from_text(text)
    ranks = [int(card.rank) for card in game.deal.tableau]
    stock = [int(card.rank) for card in game.deal.stock]

    def fits(a: int, b: int) -> bool:
        return game.rules.adjacent(a, b)

    State = tuple[int, int]
    start: State = (game.removed, int(game.waste.rank))
    layers: list[dict[State, tuple[State, int, Action] | None]] = [{start: None}]
    for k in range(len(stock) - game.drawn + 1):
        seen = layers[k]
        frontier = list(seen)
        while frontier:
            removed, waste = state = frontier.pop()
            if removed == ALL_SLOTS_MASK:
                line: list[Action] = []
                cursor, layer = state, k
                while (parent := layers[layer][cursor]) is not None:
                    cursor, layer, action = parent
                    line.append(action)
                return tuple(reversed(line))
            for slot in range(SLOT_COUNT):
                cover = COVER_MASKS[slot]
                if not removed >> slot & 1 and removed & cover == cover and fits(ranks[slot], waste):
                    following = (removed | 1 << slot, ranks[slot])
                    if following not in seen:
                        seen[following] = (state, k, Tap(slot))
                        frontier.append(following)
        if game.drawn + k < len(stock):
            card = stock[game.drawn + k]
            layers.append({})
            for removed, waste in seen:
                layers[k + 1].setdefault((removed, card), ((removed, waste), k, Draw()))
    return None


def play(code: str, actions: list[Action] | tuple[Action, ...] = ()) -> tuple[Game, Outcome | None]:
    game = Game.from_code(code)
    outcome = None
    for action in actions:
        outcome = game.apply(action)
    return game, outcome


def snapshot(game: Game, outcome: Outcome | None = None, **fields: object) -> GameSnapshot:
    base = GameSnapshot(game_id=42, version=game.moves, owner=OWNER, owner_name="alice", game=game, outcome=outcome)
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


def fresh() -> GameSnapshot:
    game, _ = play("TP1-E-AAAAAAB")
    return snapshot(game)


def midgame() -> GameSnapshot:
    """Ten moves into the best line of TP1-E-AAAAAAB, then a tap on a face-down card: refused."""
    line = fewest_draws_win(Game.from_code("TP1-E-AAAAAAB").to_text())
    assert line is not None
    game, _ = play("TP1-E-AAAAAAB", line[:10])
    flipped = [s for s in range(18) if game.is_playable(s)]
    assert flipped, "the position should show cards turned face up above the bottom row"
    covered = next(s for s in range(SLOT_COUNT) if not game.is_face_up(s))
    outcome = game.apply(Tap(covered))
    assert outcome.reason is Reason.BLOCKED
    return snapshot(game, outcome)


def hinted() -> GameSnapshot:
    """Two moves into TP1-E-AAAAAAB, with the solver's advice: the next move of a best line."""
    game, outcome = play("TP1-E-AAAAAAB", [Action.parse("d"), Action.parse("d")])
    line = fewest_draws_win(game.to_text())
    assert line is not None
    best, _ = play("TP1-E-AAAAAAB", [Action.parse("d"), Action.parse("d"), *line])
    return snapshot(game, outcome, hint=Hint(line[0], True, best.score))


def won() -> GameSnapshot:
    """TP1-E-AAAAAAC played to the end along a best line: the best score, and its verdict."""
    line = fewest_draws_win(Game.from_code("TP1-E-AAAAAAC").to_text())
    assert line is not None
    game, outcome = play("TP1-E-AAAAAAC", line)
    assert game.status is Status.WON
    return snapshot(game, outcome, verdict=DealVerdict(True, game.score))


def blocked() -> GameSnapshot:
    """TP1-C-AAAAAAI, which no line wins: draw the whole stock, then remove what fits until nothing does."""
    game = Game.from_code("TP1-C-AAAAAAI")
    assert fewest_draws_win(game.to_text()) is None
    outcome = None
    for _ in range(game.stock_left):
        outcome = game.apply(Draw())
    while (fitting := [s for s in game.playable_slots() if game.fits(s)]):
        outcome = game.apply(Tap(fitting[0]))
    assert game.status is Status.BLOCKED
    return snapshot(game, outcome, verdict=DealVerdict(False, None))


POSITIONS = {"fresh": fresh, "midgame": midgame, "hint": hinted, "won": won, "blocked": blocked}


# --- snapshots ----------------------------------------------------------------------------------------------------


def _shown_rows(rows: Rows) -> str:
    return "\n".join("  ".join("[ ]" if b.blank else
                               f"[{strip_variation(b.label)}{f' ({b.style})' if b.style not in (None, 'secondary') else ''}]" for b in row)
                     for row in rows)


def _full_text(view: View) -> str:
    """The view as text, its toast, then the keyboard a Telegram phone shows (rows split to fit, with styles), and
    a game's buttons as Discord lays them out (its card places a peak a row)."""
    text = view_as_text(view)
    if view.notice:
        text += f"\n\nnotice: {view.notice}"
    keyboard = _shown_rows(telegram_rows(view))
    text += f"\n\ntelegram:\n{keyboard}" if keyboard else ""
    if any(is_card_grid(row) for row in view.buttons):
        text += f"\n\ndiscord:\n{_shown_rows(discord_rows(view))}"
    return text + "\n"


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
@pytest.mark.parametrize("position", list(POSITIONS))
def test_game_snapshot(position: str, locale: str) -> None:
    compare_snapshot(f"game-{position}.{locale}.txt", _full_text(render_game(POSITIONS[position](), locale, Settings())))


def _messages_text(locale: str) -> str:
    stats = Stats(games=21, wins=11, best_score=766, current_streak=2, longest_streak=5)
    sections = {
        "rules": view_as_text(render_rules(locale)),
        "stats": view_as_text(render_stats(stats, locale)),
        "stats, none yet": view_as_text(render_stats(Stats(0, 0, None, 0, 0), locale)),
        "settings": _full_text(render_settings(Settings(), locale)).rstrip(),
        "settings, chosen": _full_text(render_settings(
            Settings(language="ja", explain_refusals=False, default_rules=Rules.CLASSIC), locale)).rstrip(),
        "daily": view_as_text(render_daily(dt.date(2026, 11, 29), locale)),
        "refusals": "\n".join(refusal_text(reason, locale) for reason in Reason),
        "errors": "\n".join(error_text(error, locale) for error in _errors()),
        "daily notices": "\n".join(daily_notice(notice, locale, dt.time(9)) for notice in DailyNotice),
        "commands": "\n".join(f"{name}: {command_description(name, locale, 'discord')}"
                               for name in COMMAND_DESCRIPTIONS),
        "telegram's own": "\n".join(f"{name}: {command_description(name, locale, 'telegram')}"
                                     for name in TELEGRAM_DESCRIPTIONS if TELEGRAM_DESCRIPTIONS[name]
                                     != COMMAND_DESCRIPTIONS[name]),
        "options": "\n".join(f"{name}: {option_description(name, locale)}" for name in OPTION_DESCRIPTIONS),
    }
    return "".join(f"== {title} ==\n{body}\n\n" for title, body in sections.items())


def _errors() -> list[Exception | OutOfDate | OldBoard | AlreadyStarted]:
    return [NotYourGame(), NotYourMessage(), OutOfDate(fresh()), OutOfDate(fresh(), Draw()), OutOfDate(fresh(), Undo()),
            GameNotFound(7), NoActiveGame(), BadPayload("x"),
            InvalidCodeError("x"), NoWinnableDeal(), BotError("x"), RuntimeError("x"), OldBoard(midgame()),
            OldBoard(None), DailyCodeLocked(dt.date(2026, 11, 29)), Busy(), NotACard("zz"),
            CardNotInPlay("7D"), NotAPlayer(), TappedTwice(TappedTwice.SHARED), TappedTwice(TappedTwice.REVIEWED),
            AlreadyStarted(), DayOver(dataclasses.replace(fresh(), daily=dt.date(2026, 11, 29), abandoned=True)),
            Blocked(), NotOwner(), BadOwnerCommand(OWNER_USAGE), HintOvertaken(fresh())]


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_messages_snapshot(locale: str) -> None:
    compare_snapshot(f"messages.{locale}.txt", _messages_text(locale))


# --- the picture --------------------------------------------------------------------------------------------------


def test_fresh_deal_shows_the_three_peaks() -> None:
    """Three peaks face down over the ten bottom cards, the ones that fit the waste card (Q♣) with their suit
    outlined, a gap between every two cards (a ten is X); then the stock with its 23 cards and the waste card in
    brackets."""
    view = render_game(fresh(), "en", Settings())
    assert view.tableau is not None
    assert view.tableau.split("\n") == [
        "     ▒▒       ▒▒       ▒▒",
        "    ▒▒ ▒▒    ▒▒ ▒▒    ▒▒ ▒▒",
        "  ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒",
        " 2♣ A♦ 6♠ K♧ K♡ X♥ X♠ J♤ X♦ 8♠",
        "      ▒▒ 23  [Q♣]",
    ]


def test_every_card_that_fits_is_marked_alike_and_never_touches_its_neighbour() -> None:
    """One mark for every fitting card, inside it: its suit outlined, a ten's too (``X♡``); a gap between every
    two cards, so no ``*`` sits between two of them (``5♣*Q♦``) and no ten runs into its neighbour (``9♦10♦``);
    only the hinted card's ``>`` is in its gap, pointing at it; the waste box writes 10 in full."""
    game = Game.from_code("TP1-E-AAAAAAB")
    game.apply(Tap(25))  # J♠: the tens fit now
    wide = render_game(snapshot(game, hint=Hint(Tap(23), True, 700)), "en", Settings())
    assert wide.tableau is not None and wide.narrow_tableau is not None
    assert wide.tableau.split("\n")[-2:] == [" 2♣ A♦ 6♠ K♣ K♥>X♡ X♤    X♢ 8♠", "      ▒▒ 23  [J♠]"]
    assert wide.narrow_tableau.split("\n")[-2:] == ["2♣A♦6♠K♣K♥X♡X♤  X♢8♠", " ▒▒23 [J♠]"]
    assert "*" not in wide.tableau
    game.apply(Tap(23))
    assert (render_game(snapshot(game), "en", Settings()).tableau or "").split("\n")[-1] == "      ▒▒ 23  [10♥]"


def test_each_card_sits_over_the_two_cards_covering_it() -> None:
    """Cards three columns apart in every row, each between the two covering it (half a column left where the
    middle falls between two columns)."""
    for slot in range(SLOT_COUNT):
        if COVERED_BY[slot]:
            left, right = (slot_column(s) for s in COVERED_BY[slot])
            assert right - left == CELL and slot_column(slot) - left in (1, 2), slot


def _row_lines(snap: GameSnapshot, locale: str = "en") -> dict[int, str]:
    """The tableau's line of each row (an emptied row's blank) while a card is left, then the stock and waste."""
    tableau = render_game(snap, locale, Settings()).tableau
    assert tableau is not None
    lines = tableau.split("\n")
    rows = len(ROWS) if snap.game.cards_left else 0
    assert len(lines) == rows + 1, "a line for each row, then the stock and waste"
    return dict(enumerate(lines[:rows]))


@pytest.mark.parametrize("position", list(POSITIONS))
def test_every_slot_is_drawn_where_it_lies(position: str) -> None:
    snap = POSITIONS[position]()
    game = snap.game
    hinted = snap.hint.action if snap.hint is not None else None
    for number, line in _row_lines(snap).items():
        line = line.ljust(TABLEAU_COLUMNS)
        for slot in ROWS[number]:
            cell = line[slot_column(slot):slot_column(slot) + CELL]
            if game.is_removed(slot):
                assert cell == "   "
            elif game.is_face_up(slot):
                mark = MARK_HINT if hinted == Tap(slot) else " "
                assert cell == mark + row_card(game.card_at(slot), fits=game.fits(slot)), slot
            else:
                assert cell == " " + FACE_DOWN
    tableau = render_game(snap, "en", Settings()).tableau or ""
    assert tableau.split("\n")[-1].endswith(f"[{card_cell(game.waste)}]")
    assert f"{game.stock_left:>3}  [" in tableau.split("\n")[-1]


def test_a_won_board_collapses_to_the_stock_and_waste() -> None:
    """No blank lines where the peaks were: a won game shows only the stock and the waste card."""
    snap = won()
    tableau = render_game(snap, "en", Settings()).tableau
    assert tableau is not None
    assert tableau.split("\n") == [f"      ▒▒ {snap.game.stock_left:>2}  [{card_cell(snap.game.waste)}]"]


def test_an_emptied_row_keeps_its_line_so_the_buttons_stay_put() -> None:
    """Play the bottom row away (a best line of a deal) until it is empty: its line stays, blank, so the board is as
    tall as before and the buttons under it do not jump; the cards above it that turned over show."""
    code = "TP1-E-AAAAAAC"
    line = fewest_draws_win(Game.from_code(code).to_text())
    assert line is not None
    game = Game.from_code(code)
    height = len((render_game(snapshot(game), "en", Settings()).tableau or "").split("\n"))
    for action in line:
        game.apply(action)
        if all(game.is_removed(s) for s in ROWS[3]):
            break
    assert all(game.is_removed(s) for s in ROWS[3]) and not game.is_over
    view = render_game(snapshot(game), "en", Settings())
    for board in (view.tableau or "", view.narrow_tableau or ""):
        assert len(board.split("\n")) == height and board.split("\n")[3] == ""
    lines = _row_lines(snapshot(game))
    for slot in game.playable_slots():
        assert row_card(game.card_at(slot), fits=game.fits(slot)) in lines[
            next(i for i, r in enumerate(ROWS) if slot in r)]


def test_removed_cards_leave_gaps_and_flipped_cards_show() -> None:
    snap = midgame()
    game = snap.game
    lines = _row_lines(snap)
    shown_above_bottom = [s for s in range(18) if game.is_playable(s)]
    assert shown_above_bottom
    for slot in shown_above_bottom:
        assert row_card(game.card_at(slot), fits=game.fits(slot)) in lines[
            next(i for i, r in enumerate(ROWS) if slot in r)]


def test_the_hinted_card_and_the_hinted_draw_are_marked() -> None:
    """For clients that show no button colours: ``>`` in the gap before the hinted card, pointing at it (it fits,
    so its suit is outlined too, as the others that fit)."""
    game, _ = play("TP1-E-AAAAAAB")
    card = render_game(snapshot(game, hint=Hint(Tap(21), True, 700)), "en", Settings()).tableau or ""
    assert " 6♠>K♧ K♡" in card
    draw = render_game(snapshot(game, hint=Hint(Draw(), True, 700)), "en", Settings()).tableau or ""
    assert draw.split("\n")[-1].startswith("     >▒▒ 23")


def test_red_and_black_suits_differ_on_buttons() -> None:
    """Red suits take their red emoji form; black suits are forced to text, in the button's own colour."""
    assert card_label(Game.from_code("TP1-E-AAAAAAB").card_at(22)) == "K♥\ufe0f"
    assert card_label(Game.from_code("TP1-E-AAAAAAB").card_at(21)) == "K♣\ufe0e"


# --- the header and the status line -------------------------------------------------------------------------------


def test_header_has_code_rules_score_and_moves_in_short_lines() -> None:
    """Code and rules, then score and moves: two short lines a phone never wraps (the stock is on the board)."""
    snap = hinted()
    assert render_game(snap, "en", Settings()).header == "TP1-E-AAAAAAB · Easy\nScore: 498 · Moves: 2"
    assert render_game(snap, "uk", Settings()).header == "TP1-E-AAAAAAB · Легкий\nРахунок: 498 · Ходи: 2"


def test_daily_and_custom_deals_say_so() -> None:
    game, _ = play("TP1-C-AAAAAAD")
    header = render_game(snapshot(game, daily=dt.date(2026, 11, 29)), "en", Settings()).header
    assert header.split("\n")[:2] == ["Daily deal · Nov 29, 2026", "TP1-C-AAAAAAD · Classic"]
    custom = Game(game.deal, Rules.CLASSIC)
    assert render_game(snapshot(custom), "ja", Settings()).header.startswith("カスタム配札 · クラシック\n")


@pytest.mark.parametrize("reason", list(Reason))
def test_refusal_is_explained_only_when_explanations_are_on(reason: Reason) -> None:
    game, _ = play("TP1-E-AAAAAAB")
    snap = snapshot(game, Outcome(Undo(), reason))
    on = render_game(snap, "uk", Settings(explain_refusals=True))
    off = render_game(snap, "uk", Settings(explain_refusals=False))
    assert on.status == on.notice == refusal_text(reason, "uk")
    assert off.status is None and off.notice is None


def test_wrong_rank_and_covered_taps_say_the_apps_words() -> None:
    game, _ = play("TP1-E-AAAAAAB")
    wrong = game.apply(Tap(18))  # 2♣ on Q♣
    assert wrong.reason is Reason.NOT_ADJACENT
    view = render_game(snapshot(game, wrong), "ja", Settings())
    assert view.status == view.notice == "2♣︎は出せませんでした。ランクが1つ上か1つ下である必要があります"
    covered = game.apply(Tap(0))
    assert covered.reason is Reason.BLOCKED
    assert render_game(snapshot(game, covered), "uk", Settings()).status == "Ця карта заблокована"  # face down


def test_a_card_played_by_name_and_refused_reads_as_two_sentences() -> None:
    """The card refused, then why, a sentence of its own (no capital letter mid-sentence)."""
    game, _ = play("TP1-E-AAAAAAB")
    wrong = game.apply(Tap(18))  # 2♣ on Q♣
    assert play_ack(snapshot(game, wrong), "en") == "2♣︎ was not played. Must be one rank higher or lower"
    assert play_ack(snapshot(game, wrong), "fr").startswith("Impossible de jouer 2♣︎. ")


def test_won_game_says_so_with_the_score_and_verdict() -> None:
    snap = won()
    status = render_game(snap, "en", Settings()).status
    assert status is not None
    lines = status.split("\n")
    assert lines == ["Peak cleared: +100!",  # the last removal empties the last peak, before the win
                     f"🎉 You won! Final score: {snap.game.score}",
                     "You matched the best possible score!"]  # the verdict's best score is this one
    below_par = dataclasses.replace(snap, verdict=DealVerdict(True, snap.game.score + 6))
    assert (render_game(below_par, "en", Settings()).status or "").split("\n")[-1] == (
        f"Par for this deal: {snap.game.score + 6}")


def test_blocked_game_says_so_in_the_apps_words() -> None:
    snap = blocked()
    for locale, words in [("en", "No more possible moves"), ("uk", "Більше немає можливих ходів"),
                          ("ja", "これ以上可能な手がありません"), ("ru", "Больше нет возможных ходов")]:
        status = render_game(snap, locale, Settings()).status
        assert status is not None
        lines = status.split("\n")
        assert words in lines
        assert str(snap.game.score) in status
    assert "This deal could not be won" in (render_game(snap, "en", Settings()).status or "")
    unknown = render_game(dataclasses.replace(snap, verdict=None), "en", Settings()).status or ""
    assert "could not be won" not in unknown and "Par" not in unknown
    par = render_game(dataclasses.replace(snap, verdict=DealVerdict(True, 760)), "en", Settings()).status or ""
    assert par.split("\n")[-1] == "Par for this deal: 760"


@pytest.mark.parametrize(("hint", "expected"), [
    (Hint(Tap(22), True, 759), ["Hint: play K♥\ufe0f", "Best score still possible: 759"]),
    (Hint(Draw(), True, 700), ["Hint: draw a card from the stock", "Best score still possible: 700"]),
    (Hint(Undo(), False, None), ["Hint: undo the last move", "This game can no longer be won"]),
    (Hint(None, False, None), ["No move helps: this game can no longer be won"]),
    (Hint(None, None, None), ["No hint found in time; try again after your next move"]),
    (Hint(Draw(), None, None), ["Hint: draw a card from the stock"]),
])
def test_hint_lines(hint: Hint, expected: list[str]) -> None:
    game, _ = play("TP1-E-AAAAAAB")
    assert render_game(snapshot(game, hint=hint), "en", Settings()).status == "\n".join(expected)


#: Every kind of hint, as a toast carries it: the fair hint (a card, a draw, an undo, a lost game), the solver's, and
#: the busy answer.
TOAST_HINTS = [Hint(Tap(22), None, None, win_chance=0.834), Hint(Draw(), None, None, win_chance=0.05),
               Hint(Undo(), None, None, win_chance=0.5), Hint(None, None, None, win_chance=0.0),
               Hint(Tap(22), True, 759), Hint(Undo(), False, None), Hint(None, None, None),
               Hint(None, None, None, busy=True)]


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_a_hints_toast_says_its_words_and_chance_within_telegrams_limit(locale: str) -> None:
    """The toast of 💡 says what the board will (a busy group's board waits its turn): the hint's lines, the
    chance with them, within the 200 characters of a callback answer."""
    game, _ = play("TP1-E-AAAAAAB")
    for hint in TOAST_HINTS:
        snap = snapshot(game, hint=hint)
        toast = play_ack(snap, locale)
        status = render_game(snap, locale, Settings()).status or ""
        assert toast and toast == status.replace("\n", " · "), hint
        assert len(toast) <= 200, (locale, toast)
    fair = play_ack(snapshot(game, hint=TOAST_HINTS[0]), "en")
    assert fair == "Best move from what you can see: play K♥\ufe0f (about 83% chance to win from here)"


def test_abandoned_game_has_no_buttons() -> None:
    snap = dataclasses.replace(fresh(), abandoned=True)
    view = render_game(snap, "ru", Settings())
    assert view.buttons == ()
    assert view.status == "Эта партия брошена"


# --- buttons ------------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Tapped:
    """What a game button does: the game and version it names (None for a finished game's Replay, Review and
    Share, which name the game only), and its word (a slot, d, u, h, n, r, v or s)."""

    game_id: int
    version: int | None
    command: str


def _decoded(button: Button) -> _Tapped:
    command = decode(payload_of(button))
    assert not isinstance(command, Blank), "a blank place taps nothing"
    if isinstance(command, Replay | Review | Share):
        return _Tapped(command.game_id, None, {Replay: "r", Review: "v", Share: "s"}[type(command)])
    assert isinstance(command, Move | AskHint | NewGame)
    word = str(command.action) if isinstance(command, Move) else "h" if isinstance(command, AskHint) else "n"
    return _Tapped(command.game_id, command.version, word)


def test_a_button_for_each_free_card_in_its_place_then_the_controls() -> None:
    """Ten places in two rows of five, a free card at its column's place (:func:`card_place`), the others blank."""
    snap = midgame()
    game = snap.game
    view = render_game(snap, "en", Settings())
    *card_rows, controls = view.buttons
    assert [len(row) for row in card_rows] == [5, 5]
    places = [button for row in card_rows for button in row]
    cards = [button for button in places if not button.blank]
    slots = [int(_decoded(button).command) for button in cards]
    assert sorted(slots) == game.playable_slots()
    assert [places.index(button) for button in cards] == [card_place(s) for s in slots]
    assert [slot_column(s) for s in slots] == sorted(slot_column(s) for s in slots)
    assert all(b.disabled and b.label == BLANK_LABEL for b in places if b.blank)
    for slot, button in zip(slots, cards, strict=True):
        assert button.label == card_label(game.card_at(slot))
        assert button.style is (ButtonStyle.SUCCESS if game.fits(slot) else ButtonStyle.SECONDARY)
    assert [_decoded(b).command for b in controls] == ["d", "u", "h", "n"]
    assert controls[0].label == "Draw"  # the stock's count is on the board
    assert not any(b.disabled for b in controls)


def test_controls_are_disabled_when_they_cannot_act() -> None:
    view = render_game(fresh(), "en", Settings())
    draw, undo, hint, new = view.buttons[-1]
    assert undo.disabled and not draw.disabled
    game, _ = play("TP1-E-AAAAAAB", [Draw()] * 23)
    assert game.status is Status.PLAYING  # the last stock card fits a bottom card
    draw = render_game(snapshot(game), "en", Settings()).buttons[-1][0]
    assert draw.disabled and draw.label == "Draw"


def test_draw_stands_out_when_no_card_fits() -> None:
    game, _ = play("TP1-E-AAAAAAB", [Draw()])
    assert not any(game.fits(s) for s in game.playable_slots())
    draw = render_game(snapshot(game), "en", Settings()).buttons[-1][0]
    assert draw.style is ButtonStyle.PRIMARY


def test_the_hinted_move_is_highlighted() -> None:
    snap = hinted()
    assert snap.hint is not None and snap.hint.action is not None
    view = render_game(snap, "en", Settings())
    highlighted = [b for b in view.all_buttons() if b.style is ButtonStyle.PRIMARY]
    assert [_decoded(b).command for b in highlighted] == [str(snap.hint.action)]
    game, _ = play("TP1-E-AAAAAAB")
    view = render_game(snapshot(game, hint=Hint(Tap(21), True, 700)), "en", Settings())
    styles = {_decoded(b).command: b.style for b in view.all_buttons() if not b.blank}
    assert styles["21"] is ButtonStyle.PRIMARY  # the hinted card: blue
    assert styles["22"] is ButtonStyle.SUCCESS  # another card that fits: green


def test_finished_games_offer_their_ending_buttons() -> None:
    """A win: Share, Replay, Review, New game (blue); blocked: Undo, Share (a lost result is shared too), Review,
    Replay, New game; a finished board that
    is no longer the player's latest game: Share and Review only; an abandoned one nothing."""
    def words(view: View) -> list[list[str]]:
        return [[_decoded(b).command for b in row] for row in view.buttons]

    won_view = render_game(won(), "en", Settings())
    assert words(won_view) == [["s", "r", "v", "n"]]
    assert [b.label for b in won_view.all_buttons()] == ["Share", "Replay", "Review", "New game"]
    assert won_view.all_buttons()[-1].style is ButtonStyle.PRIMARY
    assert words(render_game(blocked(), "en", Settings())) == [["u", "s", "v", "r", "n"]]
    for position in (won, blocked):
        assert words(render_game(position(), "en", Settings(), latest=False)) == [["s", "v"]]
    assert render_game(dataclasses.replace(blocked(), abandoned=True), "en", Settings(), latest=False).buttons == ()
    assert render_game(midgame(), "en", Settings(), latest=False).buttons == ()
    for button in won_view.all_buttons():
        assert _decoded(button).game_id == 42


def test_buttons_carry_the_game_and_its_version() -> None:
    snap = dataclasses.replace(midgame(), game_id=MAX_GAME_ID, version=MAX_VERSION)
    for button in render_game(snap, "en", Settings()).all_buttons():
        if not button.blank:
            payload = _decoded(button)
            assert (payload.game_id, payload.version) == (MAX_GAME_ID, MAX_VERSION)


def _random_positions(count: int) -> Iterator[GameSnapshot]:
    """Random playouts of random deals, every position along the way, with the largest ids."""
    rng = random.Random(5)
    for _ in range(count):
        game = Game.from_code(GameCode(rng.choice(list(Rules)), rng.randrange(26**7)))
        for _ in range(200):
            yield snapshot(game.copy(), game_id=MAX_GAME_ID, version=MAX_VERSION)
            if game.is_over:
                break
            legal = list(game.legal_actions())
            taps = [a for a in legal if isinstance(a, Tap)]
            roll = rng.random()
            if game.undo_depth and roll < 0.05:
                game.apply(Undo())
            elif taps and roll < 0.85:
                game.apply(rng.choice(taps))
            elif game.stock_left:
                game.apply(Draw())
            else:
                game.apply(rng.choice(taps))


def _check_limits(view: View) -> None:
    rows = view.buttons
    assert all(1 <= len(row) <= min(DISCORD_ROW_WIDTH, TELEGRAM_ROW_WIDTH) for row in rows)
    # a Components V2 message: the container, a text display each for header, tableau and status, rows, buttons
    assert 4 + len(rows) + len(view.all_buttons()) <= DISCORD_COMPONENTS_MAX
    assert len(view.all_buttons()) <= TELEGRAM_BUTTONS_MAX
    for button in view.all_buttons():
        assert 1 <= len(button.label) <= DISCORD_LABEL_MAX
        assert 1 <= len(payload_of(button).encode("utf-8")) <= TELEGRAM_CALLBACK_BYTES_MAX
        assert len(payload_of(button)) <= DISCORD_CUSTOM_ID_MAX
    # the whole message as Discord content (header in bold, tableau in a code block) and as Telegram text
    body = f"**{view.header}**\n```\n{view.tableau}\n```\n{view.status or ''}"
    assert len(body) <= DISCORD_CONTENT_MAX
    assert len(body.encode("utf-16-le")) // 2 <= TELEGRAM_TEXT_MAX
    assert view.notice is None or len(view.notice) <= TELEGRAM_NOTICE_MAX


def test_every_button_fits_both_platforms() -> None:
    """Every position of 60 random playouts (about 3,000), each in one language in turn, and in all ten when ten
    cards are free (the fullest keyboard): each language is drawn at some 400 positions, the fullest among them."""
    positions = 0
    most_cards = 0
    for snap in _random_positions(60):
        free = len(snap.game.playable_slots())
        locales = SUPPORTED_LOCALES if free == 10 else [SUPPORTED_LOCALES[positions % len(SUPPORTED_LOCALES)]]
        for locale in locales:
            view = render_game(snap, locale, Settings())
            _check_limits(view)
            for button in view.all_buttons():
                if button.blank:
                    continue
                payload = _decoded(button)
                assert payload.game_id == MAX_GAME_ID and payload.version in (MAX_VERSION, None)
                if payload.command.isdigit():
                    assert snap.game.is_playable(int(payload.command))
        most_cards = max(most_cards, free)
        positions += 1
    assert positions > 1000 and most_cards == 10


def test_hint_and_refusal_views_fit_too() -> None:
    for locale in SUPPORTED_LOCALES:
        for position in POSITIONS.values():
            snap = position()
            _check_limits(render_game(snap, locale, Settings()))
            _check_limits(render_game(dataclasses.replace(snap, hint=Hint(Draw(), False, None)), locale, Settings()))


def test_no_more_than_ten_cards_are_ever_free() -> None:
    """Ten chains (a bottom card and what sits straight above it) cover the tableau, so at most ten cards are free
    at once: two rows of five card buttons, and one row of controls."""
    chains: list[set[int]] = [{18 + j} for j in range(10)]
    for j in range(9):
        chains[j].add(9 + j)
    for p in range(3):
        chains[3 * p].add(3 + 2 * p)
        chains[3 * p].add(p)
        chains[3 * p + 2].add(4 + 2 * p)
    assert set().union(*chains) == set(range(SLOT_COUNT))
    for chain in chains:
        ordered = sorted(chain, reverse=True)
        for lower, upper in zip(ordered, ordered[1:], strict=False):
            assert lower in _above(upper), (lower, upper)


def _above(slot: int) -> set[int]:
    """Every slot that (transitively) covers ``slot``."""
    found: set[int] = set()
    todo = list(COVERED_BY[slot])
    while todo:
        s = todo.pop()
        if s not in found:
            found.add(s)
            todo.extend(COVERED_BY[s])
    return found


# --- other replies ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_other_replies_fit(locale: str) -> None:
    for view in (render_rules(locale), render_stats(Stats(10**6, 10**5, 772, 10**4, 10**5), locale),
                 render_settings(Settings(), locale), render_daily(dt.date(2026, 12, 31), locale)):
        _check_limits(view)
    for platform in ("discord", "telegram"):
        for name in COMMAND_DESCRIPTIONS:
            assert 1 <= len(command_description(name, locale, platform)) <= 100
    for name in OPTION_DESCRIPTIONS:
        assert 1 <= len(option_description(name, locale)) <= 100


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_errors_are_localised_and_name_nobody(locale: str) -> None:
    texts = [error_text(error, locale) for error in _errors()]
    # every error its own text, but for a game that is not the player's and no game at all: one answer
    assert all(texts) and len(set(texts)) == len(texts) - 1
    assert "alice" not in texts[0] and "/tripeaks new" in texts[0]
    assert texts[0] == texts[5]  # a game that is not the player's and no game at all: one answer
    assert "/new" in error_text(NoActiveGame(), locale, new_command="/new")
    assert "TP1-E-AAAAAAB" in error_text(InvalidCodeError("x"), locale)
    assert error_text(BadGameCode("TP9", "x"), locale) == error_text(InvalidCodeError("x"), locale)


def test_english_error_wording() -> None:
    assert error_text(NotYourGame(), "en") == "This is not your game; start your own with /tripeaks new"
    assert error_text(NotACard("zz"), "en") == "That is not a card: write one like 7h = 7♥ or QS = Q♠ (h ♥, d ♦, c ♣, s ♠)"
    assert error_text(CardNotInPlay("7D"), "en") == "That card is not in play yet"
    assert error_text(OldBoard(midgame()), "en") == (
        "That board is from an older game; your current game, TP1-E-AAAAAAB, has its own board")
    assert error_text(OldBoard(None), "en", "/new") == "That game is over; start a new one with /new"


def test_daily_post_has_a_play_button() -> None:
    view = render_daily(dt.date(2026, 11, 29), "uk")
    (button,), = view.buttons
    assert decode(payload_of(button)) == PlayDaily(dt.date(2026, 11, 29))
    # the title and its date, on two lines as they do not fit one (CLDR: a narrow no-break space before р.)
    assert view.header == "Щоденна роздача\n29 листопада 2026\u202fр."


# --- settings -----------------------------------------------------------------------------------------------------


def test_settings_buttons_change_settings() -> None:
    view = render_settings(Settings(), "en")
    payloads = [payload_of(b) for b in view.all_buttons()]
    assert all(isinstance(decode(p), SettingChange) for p in payloads)
    assert payloads == [
        "tp:set:explain:off", "tp:set:rules:easy", "tp:set:rules:classic", "tp:set:winnable:on",
        "tp:set:board:picture", "tp:set:board:text", "tp:set:four:on",
        "tp:set:lang:auto", *(f"tp:set:lang:{code}" for code in SUPPORTED_LOCALES)]
    chosen = [b.label for b in view.all_buttons() if b.style is ButtonStyle.SUCCESS]
    assert chosen == ["✓ Explanations: on", "✓ Easy", "✓ Picture", "✓ Automatic"]  # ticked as well as green
    assert all(len(row) <= 3 for row in view.buttons[3:])  # languages three a row
    settings = Settings()
    for text in ("tp:set:explain:off", "tp:set:rules:classic", "tp:set:lang:uk", "tp:set:board:text",
                 "tp:set:four:on"):
        settings = _apply(text, settings)
    assert settings == Settings(language="uk", explain_refusals=False, default_rules=Rules.CLASSIC,
                                board=BoardStyle.TEXT, four_colour=True)
    assert _apply("tp:set:lang:auto", settings).language is None


def test_discord_shows_the_languages_as_one_select_menu() -> None:
    """On Discord the language is a select menu (Automatic and the ten languages, each by its own name, the chosen
    one the menu's default, no "✓" in a label), one row after the other settings' buttons, in the same place
    whatever is chosen; each option asks for the command its button asks for on Telegram."""
    for locale in SUPPORTED_LOCALES:
        shapes = set()
        for chosen in (None, *SUPPORTED_LOCALES):
            view = render_settings(Settings(language=chosen), locale)
            rows = discord_rows(view)
            *buttons, menu = rows
            assert isinstance(menu, ShownMenu) and not any(isinstance(row, ShownMenu) for row in buttons)
            assert menu.emoji == "🌐"  # "Automatic" shown in the menu reads as the language's
            assert [option.command for option in menu.options] == [Language(None), *map(Language, SUPPORTED_LOCALES)]
            assert [option.label for option in menu.options][1:] == [
                "Português (BR)" if code == "pt_BR" else LANGUAGE_NAMES[code] for code in SUPPORTED_LOCALES]
            assert [option.command for option in menu.options if option.chosen] == [Language(chosen)]
            assert not any(option.label.startswith("✓") for option in menu.options)
            assert all(not isinstance(b.command, Language) for row in buttons for b in row)
            shapes.add(tuple(len(row) for row in buttons))
        assert len(shapes) == 1, locale


def _apply(payload: str, settings: Settings) -> Settings:
    change = decode(payload)
    assert isinstance(change, SettingChange)
    return dataclasses.replace(settings, **setting_changes(change))  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["tp:set:lang:xx", "tp:set:explain:yes", "tp:set:rules:",
                                  "tp:set:lang:uk:x", "", "tp:set:colour:red"])
def test_bad_settings_payloads_are_refused(text: str) -> None:
    with pytest.raises(BadPayload):
        change = decode(text)
        assert isinstance(change, SettingChange)


def test_settings_say_each_value_once_on_its_button() -> None:
    """No status repeating the buttons and no puzzling default note: the title, then the buttons, a switch saying
    its state, the chosen one of a choice green and ticked."""
    view = render_settings(Settings(language="ja", explain_refusals=False, default_rules=Rules.CLASSIC), "ja")
    tr = translator("ja")
    assert view.status is None and view.header == tr.gettext("Settings")
    only_winnable = tr.pgettext("button", "Only winnable: on")
    assert [b.label for b in view.all_buttons() if b.style is ButtonStyle.SUCCESS] == [
        "✓ クラシック", f"✓ {only_winnable}", "✓ 画像", "✓ 日本語"]  # winnable-only: on by default for Classic
    toggle = view.buttons[0][0]
    assert toggle.label == tr.pgettext("button", "Explanations: off") and payload_of(toggle) == "tp:set:explain:on"
    assert not toggle.label.startswith("✓")  # green and ticked only when on
    labels = [b.label.removeprefix("✓ ") for b in view.all_buttons()]
    assert len(labels) == len(set(labels))


def test_a_card_that_fitted_before_the_last_move_says_the_waste_card_changed() -> None:
    """Two quick taps of two green cards: the second, refused, names the card and says the first one changed the
    waste card (not only "Must be one rank higher or lower")."""
    game, _ = play("TP1-E-AAAAAAB", [Tap(21)])
    outcome = game.apply(Tap(22))
    assert outcome.reason is Reason.NOT_ADJACENT
    view = render_game(snapshot(game, outcome, waste_changed=True), "en", Settings())
    expected = "K♥ was not played. Your previous move changed the waste card to K♣"
    assert view.notice is not None and strip_variation(view.notice) == strip_variation(expected)
    assert "Must be one rank" not in (view.status or "")
