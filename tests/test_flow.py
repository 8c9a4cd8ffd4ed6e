"""The one game flow (bot/app/flow.py) as the effects it returns, whatever the platform: a start sends a board (or
asks first), a tap edits the tapped board, a Yes sends the new board and names the game whose board to close, a
refused card by name leaves the board alone, an error is a private line, and a double New game asks once where the
platform wants it so."""

from __future__ import annotations

from bot.app.codec import game_command
from bot.app.commands import ConfirmStart, DealByCode, KeepPlaying, NewGame, Replay, Review, Share
from bot.app.effects import (
    Answer,
    EditBoard,
    EditMessage,
    Effect,
    Kept,
    PlayAck,
    Post,
    Problem,
    Question,
    RedrawBoard,
    SendBoard,
)
from bot.app.errors import NotYourGame, StaleGame
from bot.app.flow import Actor, Flow
from bot.app.model import GameSnapshot
from bot.app.service import GameService
from core.game import Game
from tests.test_service import ALICE, BOB, WIN_CODE, win_game

CODE = "TP1-E-AAAAAAB"
ANN = Actor(ALICE, "Ann", chat_id="1")


def game_of(effects: list[Effect]) -> GameSnapshot:
    """The game of the one board effect in ``effects``."""
    (effect,) = effects
    assert isinstance(effect, SendBoard | EditBoard), effect
    return effect.snapshot


def fitting(code: str) -> int:
    game = Game.from_code(code)
    return next(slot for slot in game.playable_slots() if game.fits(slot))


async def test_a_start_sends_a_board_and_a_start_over_a_game_with_moves_asks_first(service: GameService) -> None:
    flow = Flow(service)
    (sent,) = await flow.start(ANN, DealByCode(CODE))
    assert isinstance(sent, SendBoard) and not sent.reuse and sent.snapshot.replaced is None
    first = sent.snapshot
    (moved,) = await flow.tap(ANN, game_command(first.game_id, first.version, str(fitting(CODE))))
    assert isinstance(moved, EditBoard) and moved.snapshot.version == 1 and moved.notice is None

    (asked,) = await flow.start(ANN, DealByCode(WIN_CODE))
    assert isinstance(asked, Answer) and isinstance(asked.content, Question)
    assert asked.content.current.game_id == first.game_id and asked.content.request == DealByCode(WIN_CODE)
    current = await service.current_game(ALICE)
    assert current is not None and current.game_id == first.game_id

    (kept,) = await flow.keep(ANN, KeepPlaying(first.game_id))
    assert isinstance(kept, EditMessage) and isinstance(kept.content, Kept)
    assert kept.content.game.game_id == first.game_id

    # Yes under the same question after No (two quick taps): the game goes on
    assert await flow.start(ANN, ConfirmStart(first.game_id, DealByCode(WIN_CODE))) == []
    current = await service.current_game(ALICE)
    assert current is not None and current.game_id == first.game_id and not current.abandoned

    (asked,) = await flow.start(ANN, DealByCode(WIN_CODE))  # asked again: Yes starts it
    assert isinstance(asked, Answer) and isinstance(asked.content, Question)
    (started,) = await flow.start(ANN, ConfirmStart(first.game_id, DealByCode(WIN_CODE)))
    assert isinstance(started, SendBoard)
    assert started.snapshot.replaced is not None and started.snapshot.replaced.game_id == first.game_id
    assert await flow.start(ANN, ConfirmStart(first.game_id, DealByCode(WIN_CODE))) == []  # Yes twice: one game


async def test_a_stale_tap_refreshes_the_board_and_says_why(service: GameService) -> None:
    flow = Flow(service)
    game = game_of(await flow.start(ANN, DealByCode(CODE)))
    await flow.tap(ANN, game_command(game.game_id, 0, "d"))
    (again,) = await flow.tap(ANN, game_command(game.game_id, 0, "d"))  # a double tap: the second is stale
    assert isinstance(again, EditBoard) and again.snapshot.version == 1
    assert again.notice is not None and isinstance(again.notice.error, StaleGame)


async def test_errors_are_private_lines_and_nothing_else(service: GameService) -> None:
    flow = Flow(service)
    game_id = await win_game(service)
    (answer,) = await flow.tap(Actor(BOB, "Bob"), Review(game_id))
    assert isinstance(answer, Answer) and isinstance(answer.content, Problem)
    assert isinstance(answer.content.error, NotYourGame)


async def test_a_card_by_name_redraws_the_live_board_only_when_played(service: GameService) -> None:
    flow = Flow(service)
    await flow.start(ANN, DealByCode(CODE))
    game = Game.from_code(CODE)
    unfitting = next(s for s in game.playable_slots() if not game.fits(s))
    refused = await flow.play(ANN, str(game.card_at(unfitting)))
    (ack,) = refused
    assert isinstance(ack, Answer) and isinstance(ack.content, PlayAck)
    played = await flow.play(ANN, str(game.card_at(fitting(CODE))))
    assert [type(effect) for effect in played] == [Answer, RedrawBoard]


async def test_new_game_asks_once_for_a_double_tap_where_the_platform_wants_it(service: GameService) -> None:
    for once, second in ((None, 1), (3.0, 0)):
        flow = Flow(service, ask_once_within=once)
        game = game_of(await flow.start(ANN, DealByCode(CODE)))
        moved = game_of(await flow.tap(ANN, game_command(game.game_id, 0, "d")))
        tap = NewGame(game.game_id, moved.version)
        assert len(await flow.tap(ANN, tap)) == 1  # the question
        assert len(await flow.tap(ANN, tap)) == second
        (kept,) = await flow.keep(ANN, KeepPlaying(game.game_id))
        assert isinstance(kept, EditMessage)
        await flow.start(ANN, DealByCode(CODE))  # asked again, then Yes
        await flow.start(ANN, ConfirmStart(game.game_id, DealByCode(CODE)))


async def test_new_game_on_a_board_without_moves_may_reuse_the_tapped_message(service: GameService) -> None:
    flow = Flow(service)
    game = game_of(await flow.start(ANN, DealByCode(CODE)))
    (started,) = await flow.tap(ANN, NewGame(game.game_id, game.version))
    assert isinstance(started, SendBoard) and started.reuse


async def test_share_review_and_replay_tapped_twice_act_once(service: GameService) -> None:
    """Share posts one message and Review answers once for a double tap; the second Replay, once the deal is dealt
    again, does nothing (never "that board is not your current game" about a game of that very deal)."""
    flow = Flow(service)
    game_id = await win_game(service)
    first = await flow.tap(ANN, Share(game_id))
    assert [type(e) for e in first] == [Post]
    assert await flow.tap(ANN, Share(game_id)) == []
    (review,) = await flow.tap(ANN, Review(game_id))
    assert isinstance(review, Answer)
    assert await flow.tap(ANN, Review(game_id)) == []
    (replayed,) = await flow.tap(ANN, Replay(game_id))
    assert isinstance(replayed, SendBoard) and str(replayed.snapshot.game.code) == WIN_CODE
    assert await flow.tap(ANN, Replay(game_id)) == []
    current = await service.current_game(ALICE)
    assert current is not None and current.game_id == replayed.snapshot.game_id


async def test_a_card_tapped_twice_is_played_once_without_a_word(service: GameService) -> None:
    """The second tap of the same card (from the board it was on) shows the board as it stands, no refusal; a card
    that fitted before another card was played says the waste card changed."""
    flow = Flow(service)
    game = game_of(await flow.start(ANN, DealByCode(CODE)))
    slot = fitting(CODE)
    played = game_of(await flow.tap(ANN, game_command(game.game_id, 0, str(slot))))
    (again,) = await flow.tap(ANN, game_command(game.game_id, 0, str(slot)))
    assert isinstance(again, EditBoard) and again.notice is None
    assert again.snapshot.outcome is None and again.snapshot.version == played.version
    after = played.game
    stale = next(s for s in after.playable_slots() if not after.fits(s) and Game.from_code(CODE).fits(s))
    (refused,) = await flow.tap(ANN, game_command(game.game_id, 0, str(stale)))
    assert isinstance(refused, EditBoard) and refused.snapshot.waste_changed
    assert refused.snapshot.outcome is not None and not refused.snapshot.outcome.ok
