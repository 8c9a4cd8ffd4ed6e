"""The one door (bot/app/flow.py) as the effects it returns, whatever the platform: a start sends a board (or
asks first), a tap edits the tapped board, a Yes sends the new board and names the game whose board to close, a
refused card by name leaves the board alone, an error is a private line, and what must act once acts once, in the
database: two apps on one database (two processes) receiving the two taps act once too."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy.engine import URL

from bot.app.abilities import TELEGRAM_GROUP, TELEGRAM_PRIVATE
from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.commands import (
    Actor,
    BackToBoard,
    Begin,
    ConfirmStart,
    DealByCode,
    FourColour,
    KeepPlaying,
    Language,
    NewGame,
    PlayCard,
    PlayDaily,
    Replay,
    Review,
    Share,
    ShowSettings,
    Surface,
)
from bot.app.effects import (
    Answer,
    Board,
    BoardAt,
    EditBoard,
    EditMessage,
    Effect,
    Kept,
    PlayAck,
    Post,
    Problem,
    Question,
    RedrawBoard,
    ReviewOf,
    SendBoard,
    SettingsOf,
)
from bot.app.errors import NotYourGame, TappedTwice
from bot.app.flow import Flow
from bot.app.model import BoardRef, GameSnapshot
from bot.app.moves import DOUBLE_TAP_WITHIN
from bot.app.outcomes import AlreadyStarted, OutOfDate
from bot.store.database import open_database
from core.game import Draw, Game, Tap
from tests.app_helpers import TapTimes
from tests.conftest import fake_hint, fake_verdict
from tests.test_service import ALICE, BOB, WIN_CODE, win_game

CODE = "TP1-E-AAAAAAB"
ANN = Actor(ALICE, "Ann", chat_id="1")
#: A platform whose tapped question may become the new board (Telegram)
REUSING = Surface(abilities=TELEGRAM_GROUP)


def game_of(effects: list[Effect]) -> GameSnapshot:
    """The game of the one board effect in ``effects``."""
    (effect,) = effects
    assert isinstance(effect, SendBoard | EditBoard), effect
    return effect.snapshot


async def tap(flow: Flow, actor: Actor, command: object) -> list[Effect]:
    """A tap on a board, on a platform that may redraw a tapped question into the new game's board."""
    assert not isinstance(command, str)
    return await flow.handle(actor, command, REUSING)  # type: ignore[arg-type]


def said_twice(effects: list[Effect], why: object) -> bool:
    """Whether ``effects`` are only the line that says a button was tapped twice (``why``: the error or outcome,
    or the outcome's class)."""
    if len(effects) != 1 or not isinstance(effects[0], Answer) or not isinstance(effects[0].content, Problem):
        return False
    error = effects[0].content.error
    if isinstance(why, type):
        return isinstance(error, why)
    return isinstance(error, TappedTwice) and isinstance(why, TappedTwice) and error.button == why.button


def fitting(code: str) -> int:
    game = Game.from_code(code)
    return next(slot for slot in game.playable_slots() if game.fits(slot))


async def test_a_start_sends_a_board_and_a_start_over_a_game_with_moves_asks_first(service: App) -> None:
    flow = service.flow
    (sent,) = await flow.handle(ANN, Begin(DealByCode(CODE)))
    assert isinstance(sent, SendBoard) and not sent.reuse and sent.snapshot.replaced is None
    first = sent.snapshot
    (moved,) = await tap(flow, ANN, game_command(first.game_id, first.version, str(fitting(CODE))))
    assert isinstance(moved, EditBoard) and moved.snapshot.version == 1 and moved.notice is None

    (asked,) = await flow.handle(ANN, Begin(DealByCode(WIN_CODE)))
    assert isinstance(asked, Answer) and isinstance(asked.content, Question)
    assert asked.content.current.game_id == first.game_id and asked.content.request == DealByCode(WIN_CODE)
    current = await service.games.current_game(ALICE)
    assert current is not None and current.game_id == first.game_id

    (kept,) = await flow.handle(ANN, KeepPlaying(first.game_id))
    assert isinstance(kept, EditMessage) and isinstance(kept.content, Kept)
    assert kept.content.game.game_id == first.game_id

    # Yes under the same question after No (two quick taps): the game goes on
    assert await flow.handle(ANN, ConfirmStart(first.game_id, DealByCode(WIN_CODE))) == []
    current = await service.games.current_game(ALICE)
    assert current is not None and current.game_id == first.game_id and not current.abandoned

    (asked,) = await flow.handle(ANN, Begin(DealByCode(WIN_CODE)))  # asked again: Yes starts it
    assert isinstance(asked, Answer) and isinstance(asked.content, Question)
    (started,) = await flow.handle(ANN, ConfirmStart(first.game_id, DealByCode(WIN_CODE)))
    assert isinstance(started, SendBoard)
    assert started.snapshot.replaced is not None and started.snapshot.replaced.game_id == first.game_id
    again = await flow.handle(ANN, ConfirmStart(first.game_id, DealByCode(WIN_CODE)))  # Yes twice: one game, said so
    assert said_twice(again, AlreadyStarted)


async def test_a_double_tap_refreshes_the_board_and_says_what_the_first_did(service: App) -> None:
    flow, times = service.flow, TapTimes(service)
    game = game_of(await flow.handle(ANN, Begin(DealByCode(CODE))))
    await tap(flow, ANN, game_command(game.game_id, 0, "d"))
    times.wait(0.2)
    (again,) = await tap(flow, ANN, game_command(game.game_id, 0, "d"))  # a double tap: the second does nothing
    assert isinstance(again, EditBoard) and again.snapshot.version == 1
    assert again.notice is not None and isinstance(again.notice.error, OutOfDate)
    assert again.notice.error.repeat == Draw()


async def test_draw_on_two_boards_of_one_game_is_two_taps_and_on_one_board_twice_one(service: App) -> None:
    """Issue 49: two messages showing one game at the same version (the board /resume replaced, still with its
    buttons while a busy group's edits wait): Draw tapped on each within DOUBLE_TAP_WITHIN is the player's two
    intents, and draws twice; Draw tapped twice on one message (or on one message seen on two devices: one
    message, one id) within it is a double tap, and draws once."""
    flow, times = service.flow, TapTimes(service)
    game = game_of(await flow.handle(ANN, Begin(DealByCode(CODE))))
    on_a, on_b = (dataclasses.replace(game_command(game.game_id, 0, "d"), board=board) for board in ("1/10", "1/11"))
    (drawn,) = await tap(flow, ANN, on_a)
    assert isinstance(drawn, EditBoard) and drawn.notice is None and drawn.snapshot.version == 1
    times.wait(DOUBLE_TAP_WITHIN / 4)
    (drawn_on_b,) = await tap(flow, ANN, on_b)  # the other board: a draw of its own
    assert isinstance(drawn_on_b, EditBoard) and drawn_on_b.notice is None
    assert drawn_on_b.snapshot.version == 2 and drawn_on_b.snapshot.game.stock_left == 21
    times.wait(DOUBLE_TAP_WITHIN / 4)
    (again_on_a,) = await tap(flow, ANN, on_a)  # the first board again, within the window: a double tap
    assert isinstance(again_on_a, EditBoard) and again_on_a.snapshot.version == 2
    assert again_on_a.notice is not None and isinstance(again_on_a.notice.error, OutOfDate)
    assert again_on_a.notice.error.repeat == Draw()


async def test_a_draw_or_undo_from_a_board_behind_the_game_is_a_tap_of_its_own(service: App) -> None:
    """A board behind the game (Telegram paces a group's edits) loses no tap: a card played, then Draw tapped on
    the board that did not show it yet, draws, and so does Draw tapped again on it 1.5 s later (drawing card after
    card); Undo from that board takes a draw back, and again a second later. Only the same button on the same
    board within DOUBLE_TAP_WITHIN of the tap that counted is a double tap, applied once."""
    flow, times = service.flow, TapTimes(service)
    game = game_of(await flow.handle(ANN, Begin(DealByCode(CODE))))
    await tap(flow, ANN, game_command(game.game_id, 0, str(fitting(CODE))))
    times.wait(1.5)
    (drawn,) = await tap(flow, ANN, game_command(game.game_id, 0, "d"))  # the board still shows version 0
    assert isinstance(drawn, EditBoard) and drawn.notice is None
    assert drawn.snapshot.version == 2 and drawn.snapshot.game.moves == 2
    times.wait(1.5)
    (drawn_again,) = await tap(flow, ANN, game_command(game.game_id, 0, "d"))  # still version 0: a draw of its own
    assert isinstance(drawn_again, EditBoard) and drawn_again.notice is None
    assert drawn_again.snapshot.version == 3 and drawn_again.snapshot.game.stock_left == 21
    times.wait(DOUBLE_TAP_WITHIN - 0.1)
    (again,) = await tap(flow, ANN, game_command(game.game_id, 0, "d"))  # a double tap of the last one
    assert isinstance(again, EditBoard) and again.snapshot.version == 3
    assert again.notice is not None and isinstance(again.notice.error, OutOfDate)
    times.wait(1.0)
    (undone,) = await tap(flow, ANN, game_command(game.game_id, 1, "u"))
    assert isinstance(undone, EditBoard) and undone.notice is None and undone.snapshot.version == 4
    times.wait(0.1)
    (twice,) = await tap(flow, ANN, game_command(game.game_id, 1, "u"))
    assert isinstance(twice, EditBoard) and twice.snapshot.version == 4
    assert twice.notice is not None and isinstance(twice.notice.error, OutOfDate) and twice.notice.error.repeat
    times.wait(1.0)
    (undone_again,) = await tap(flow, ANN, game_command(game.game_id, 1, "u"))
    assert isinstance(undone_again, EditBoard) and undone_again.notice is None
    assert undone_again.snapshot.game.actions() == [Tap(fitting(CODE))]
    times.wait(0.1)
    (drawn_after,) = await tap(flow, ANN, game_command(game.game_id, 1, "d"))  # another button: a tap of its own
    assert isinstance(drawn_after, EditBoard) and drawn_after.notice is None and drawn_after.snapshot.version == 6


async def test_errors_are_private_lines_and_nothing_else(service: App) -> None:
    flow = service.flow
    game_id = await win_game(service)
    (answer,) = await tap(flow, Actor(BOB, "Bob"), Review(game_id))
    assert isinstance(answer, Answer) and isinstance(answer.content, Problem)
    assert isinstance(answer.content.error, NotYourGame)


async def test_a_card_by_name_redraws_the_live_board_only_when_played(service: App) -> None:
    flow = service.flow
    await flow.handle(ANN, Begin(DealByCode(CODE)))
    game = Game.from_code(CODE)
    unfitting = next(s for s in game.playable_slots() if not game.fits(s))
    refused = await flow.handle(ANN, PlayCard(str(game.card_at(unfitting))))
    (ack,) = refused
    assert isinstance(ack, Answer) and isinstance(ack.content, PlayAck)
    played = await flow.handle(ANN, PlayCard(str(game.card_at(fitting(CODE)))))
    assert [type(effect) for effect in played] == [Answer, RedrawBoard]


async def test_d_typed_in_a_private_chat_draws(service: App) -> None:
    """Issue 54: the help and the console say ``d`` draws; typed as a message it drew nothing."""
    flow = service.flow
    await flow.handle(ANN, Begin(DealByCode(CODE)))
    drawn = await flow.handle(ANN, PlayCard("d", loose=True))
    assert [type(effect) for effect in drawn] == [Answer, RedrawBoard]
    ack = drawn[0].content
    assert isinstance(ack, PlayAck) and ack.snapshot.game.actions() == [Draw()]
    assert isinstance(drawn[1], RedrawBoard) and drawn[1].snapshot.game.stock_left == 22


async def test_new_game_tapped_twice_asks_once(service: App) -> None:
    flow = service.flow
    game = game_of(await flow.handle(ANN, Begin(DealByCode(CODE))))
    moved = game_of(await tap(flow, ANN, game_command(game.game_id, 0, "d")))
    new = NewGame(game.game_id, moved.version)
    assert len(await tap(flow, ANN, new)) == 1  # the question
    assert await tap(flow, ANN, new) == []  # the same tap again: the question is on its way
    (kept,) = await flow.handle(ANN, KeepPlaying(game.game_id))
    assert isinstance(kept, EditMessage)
    (asked,) = await flow.handle(ANN, Begin(DealByCode(CODE)))  # asked again, then Yes
    assert isinstance(asked, Answer) and isinstance(asked.content, Question)
    (started,) = await flow.handle(ANN, ConfirmStart(game.game_id, DealByCode(CODE)))
    assert isinstance(started, SendBoard)


async def test_new_game_on_a_board_without_moves_may_reuse_the_tapped_message(service: App) -> None:
    flow = service.flow
    game = game_of(await flow.handle(ANN, Begin(DealByCode(CODE))))
    (started,) = await tap(flow, ANN, NewGame(game.game_id, game.version))
    assert isinstance(started, SendBoard) and started.reuse


async def test_share_review_and_replay_tapped_twice_act_once(service: App) -> None:
    """Share posts one message and Review answers once for a double tap; the second Replay, once the deal is dealt
    again, does nothing (never "that board is not your current game" about a game of that very deal). Each second
    tap is told so in a line (a Discord click met with silence looks lost)."""
    flow = service.flow
    game_id = await win_game(service)
    first = await tap(flow, ANN, Share(game_id))
    assert [type(e) for e in first] == [Post]
    assert said_twice(await tap(flow, ANN, Share(game_id)), TappedTwice(TappedTwice.SHARED))
    (review,) = await tap(flow, ANN, Review(game_id))
    assert isinstance(review, Answer)
    assert said_twice(await tap(flow, ANN, Review(game_id)), TappedTwice(TappedTwice.REVIEWED))
    (replayed,) = await tap(flow, ANN, Replay(game_id))
    assert isinstance(replayed, SendBoard) and str(replayed.snapshot.game.code) == WIN_CODE
    assert said_twice(await tap(flow, ANN, Replay(game_id)), AlreadyStarted)
    current = await service.games.current_game(ALICE)
    assert current is not None and current.game_id == replayed.snapshot.game_id


async def test_a_card_tapped_twice_is_played_once_without_a_word(service: App) -> None:
    """The second tap of the same card (from the board it was on) shows the board as it stands, no refusal; a card
    that fitted before another card was played says the waste card changed."""
    flow = service.flow
    game = game_of(await flow.handle(ANN, Begin(DealByCode(CODE))))
    slot = fitting(CODE)
    played = game_of(await tap(flow, ANN, game_command(game.game_id, 0, str(slot))))
    (again,) = await tap(flow, ANN, game_command(game.game_id, 0, str(slot)))
    assert isinstance(again, EditBoard) and again.notice is None
    assert again.snapshot.outcome is None and again.snapshot.version == played.version
    after = played.game
    stale = next(s for s in after.playable_slots() if not after.fits(s) and Game.from_code(CODE).fits(s))
    (refused,) = await tap(flow, ANN, game_command(game.game_id, 0, str(stale)))
    assert isinstance(refused, EditBoard) and refused.snapshot.waste_changed
    assert refused.snapshot.outcome is not None and not refused.snapshot.outcome.ok


# --- once, across processes ---------------------------------------------------------------------------------------


@pytest.fixture
async def other(db_url: URL) -> AsyncIterator[App]:
    """A second bot process's application on the same database: its own engine and connections, no memory shared
    with the ``service`` fixture's."""
    db = await open_database(db_url, migrate=False)
    with ThreadPoolExecutor(1) as executor:
        async with App(db, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict) as app:
            yield app
    await db.close()


async def test_share_and_review_tapped_twice_in_two_processes_act_once(service: App, other: App) -> None:
    game_id = await win_game(service)
    shares = await asyncio.gather(service.flow.handle(ANN, Share(game_id)), other.flow.handle(ANN, Share(game_id)))
    assert sorted(said_twice(effects, TappedTwice(TappedTwice.SHARED)) for effects in shares) == [False, True]
    assert sum(isinstance(effect, Post) for effects in shares for effect in effects) == 1
    reviews = await asyncio.gather(service.flow.handle(ANN, Review(game_id)), other.flow.handle(ANN, Review(game_id)))
    assert sorted(said_twice(effects, TappedTwice(TappedTwice.REVIEWED)) for effects in reviews) == [False, True]


async def test_no_in_one_process_then_yes_in_another_keeps_the_game(service: App, other: App) -> None:
    game = game_of(await service.flow.handle(ANN, Begin(DealByCode(CODE))))
    await tap(service.flow, ANN, game_command(game.game_id, 0, "d"))
    (asked,) = await service.flow.handle(ANN, Begin(DealByCode(WIN_CODE)))
    assert isinstance(asked, Answer) and isinstance(asked.content, Question)
    (kept,) = await service.flow.handle(ANN, KeepPlaying(game.game_id))
    assert isinstance(kept, EditMessage)
    assert await other.flow.handle(ANN, ConfirmStart(game.game_id, DealByCode(WIN_CODE))) == []
    current = await other.games.current_game(ALICE)
    assert current is not None and current.game_id == game.game_id and not current.abandoned


async def test_new_game_tapped_twice_in_two_processes_asks_once(service: App, other: App) -> None:
    game = game_of(await service.flow.handle(ANN, Begin(DealByCode(CODE))))
    moved = game_of(await tap(service.flow, ANN, game_command(game.game_id, 0, "d")))
    new = NewGame(game.game_id, moved.version)
    answers = await asyncio.gather(tap(service.flow, ANN, new), tap(other.flow, ANN, new))
    assert sorted(len(effects) for effects in answers) == [0, 1]


async def test_a_tap_about_something_else_than_its_message_shows_edits_no_message(service: App) -> None:
    """A settings choice forged onto a daily post (whose only button is Play), a Draw of one's own game forged onto
    another board: nothing edits or becomes the tapped message; the board goes to its own live board, the settings
    privately to the player."""
    game = game_of(await service.flow.handle(ANN, Begin(DealByCode(CODE))))
    post = Surface(abilities=TELEGRAM_GROUP, buttons=(PlayDaily(dt.date(2026, 12, 6)),))
    settings, redrawn = await service.flow.handle(ANN, Language("ja"), post)
    assert isinstance(settings, Answer) and isinstance(settings.content, SettingsOf)
    # issue 54: the live board speaks the new language at once, not from the next tap
    assert isinstance(redrawn, RedrawBoard) and redrawn.snapshot.settings.language == "ja"
    other_board = Surface(abilities=TELEGRAM_GROUP, buttons=(game_command(game.game_id + 1, 0, "d"),))
    (moved,) = await service.flow.handle(ANN, game_command(game.game_id, 0, "d"), other_board)
    assert isinstance(moved, RedrawBoard) and moved.snapshot.version == 1
    (edited,) = await service.flow.handle(ANN, game_command(game.game_id, 1, "d"), REUSING)
    assert isinstance(edited, EditBoard)  # on a platform that does not say, as ever


async def test_settings_and_a_review_take_the_boards_place_where_the_surface_allows(service: App) -> None:
    """Issue 44, in place (a Telegram private chat): /settings shows in the live board's message when it is in the
    actor's chat; a choice there redraws the settings there and leaves the board to Back (the board style or the
    deck changed too); Back shows the board, and nothing when the message shows it already; Review shows in the
    tapped board's message with its buttons, the board no longer the latest once replaced. Elsewhere: answers."""
    flow = service.flow
    in_place = Surface(abilities=TELEGRAM_PRIVATE)
    (alone,) = await flow.handle(ANN, ShowSettings(), in_place)
    assert alone == Answer(SettingsOf(await service.players.get_settings(ALICE)))  # no board: a message
    game = game_of(await flow.handle(ANN, Begin(DealByCode(CODE))))
    where = BoardRef("1", "10")
    await flow.record([BoardAt(game.game_id, where)])
    settings = await service.players.get_settings(ALICE)
    assert await flow.handle(ANN, ShowSettings(), in_place) == [
        EditMessage(SettingsOf(settings, in_board=game.game_id), where=where)]
    assert await flow.handle(ANN, ShowSettings(), REUSING) == [Answer(SettingsOf(settings))]
    elsewhere = Actor(ALICE, "Ann", chat_id="2")
    assert await flow.handle(elsewhere, ShowSettings(), in_place) == [Answer(SettingsOf(settings))]

    panel = Surface(abilities=TELEGRAM_PRIVATE, buttons=(BackToBoard(game.game_id), FourColour(True)))
    changed = await flow.handle(ANN, FourColour(True), panel)
    after = await service.players.get_settings(ALICE)
    assert after.four_colour and changed == [EditMessage(SettingsOf(after, in_board=game.game_id))]
    (back,) = await flow.handle(ANN, BackToBoard(game.game_id), panel)
    assert isinstance(back, EditBoard) and back.snapshot.settings.four_colour and back.notice is None
    board = Surface(abilities=TELEGRAM_PRIVATE, buttons=(game_command(game.game_id, 0, "d"),))
    assert await flow.handle(ANN, BackToBoard(game.game_id), board) == []  # Back tapped twice

    won_id = await win_game(service)
    won = Surface(abilities=TELEGRAM_PRIVATE, buttons=(Review(won_id),))
    (review,) = await flow.handle(ANN, Review(won_id), won)
    assert isinstance(review, EditMessage) and isinstance(review.content, ReviewOf) and review.where is None
    assert review.content.in_board == Board(await service.games.game(won_id), latest=True)
    await flow.handle(ANN, Begin(DealByCode(CODE)))  # a new game: the won board is no longer the latest
    (closed,) = await flow.handle(ANN, BackToBoard(won_id),
                                  Surface(abilities=TELEGRAM_PRIVATE, buttons=(BackToBoard(won_id),)))
    assert closed == EditMessage(Board(await service.games.game(won_id), latest=False))
