"""A game is never lost by a tap, and the daily deal cannot be gamed: the service's rules for stale taps, starting
over, the daily attempt, the leaderboard, reviews and winnable-only deals (on SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.app import errors
from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.commands import ConfirmStart, DealByCode, RandomDeal, Replay
from bot.app.model import BoardRef, PlayerKey
from bot.app.outcomes import AlreadyStarted, MustConfirm, OldBoard, OutOfDate
from bot.store.engine import Database
from core.deal import GameCode, Rules
from core.game import DRAW, Game, Status, Tap
from tests.app_helpers import act, set_settings
from tests.conftest import fake_hint, fake_verdict
from tests.core_helpers import winning_line
from tests.test_service import ALICE, BLOCK_CODE, BOB, WIN_CODE, block_game, play, win_game

DAY = dt.date(2026, 11, 29)
DAILY_CODE = "TP1-E-AAAAAAF"
YESTERDAYS_CODE = "TP1-E-AAAAAAG"


@pytest.fixture
async def service(database: Database) -> AsyncIterator[App]:
    """The service on a fixed day, with fixed daily deals (which deal a day gets is bot.app.daily's business)."""
    codes = {DAY: GameCode.parse(DAILY_CODE), DAY - dt.timedelta(days=1): GameCode.parse(YESTERDAYS_CODE)}
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                               daily_code_function=lambda day, secret: codes[day],
                               clock=lambda: dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)) as svc:
            yield svc


def free_fitting(game: Game) -> list[int]:
    return [slot for slot in game.playable_slots() if game.fits(slot)]


# --- taps ---------------------------------------------------------------------------------------------------------


async def test_two_quick_card_taps_from_one_board_both_apply(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    line = winning_line(WIN_CODE)
    taps = [action for action in line[:2]]
    assert all(isinstance(action, Tap) for action in taps), "the line starts with two removals"
    # both taps carry the version of the board they were on: 0
    first = await act(service, ALICE, "Alice", game_command(start.game_id, 0, str(taps[0])))
    second = await act(service, ALICE, "Alice", game_command(start.game_id, 0, str(taps[1])))
    assert first.outcome is not None and first.outcome.ok
    assert second.outcome is not None and second.outcome.ok and second.version == 2
    assert second.game.moves == 2


async def test_a_card_tapped_twice_is_played_once_and_the_second_tap_refused_nothing(service: App) -> None:
    """The double tap of one card: played by the first tap; the second shows the game as it stands, with no
    refusal to explain (not "This card has already been removed")."""
    start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    slot = free_fitting(start.game)[0]
    await act(service, ALICE, "Alice", game_command(start.game_id, 0, str(slot)))
    again = await act(service, ALICE, "Alice", game_command(start.game_id, 0, str(slot)))  # the double tap
    assert again.outcome is None and again.version == 1 and again.game.is_removed(slot)


async def test_a_double_tap_of_draw_or_undo_applies_once(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE)
    drawn = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "d"))
    stale = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "d"))
    assert isinstance(stale, OutOfDate)
    assert stale.current.version == drawn.version and stale.current.game.stock_left == 22
    await act(service, ALICE, "Alice", game_command(start.game_id, 1, "u"))
    assert isinstance(await act(service, ALICE, "Alice", game_command(start.game_id, 1, "u")), OutOfDate)
    assert (await service.games.game(start.game_id)).game.stock_left == 23


# --- starting over --------------------------------------------------------------------------------------------------


async def test_a_game_with_moves_is_not_abandoned_without_confirmation(service: App) -> None:
    old = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE)
    await service.starts.new_game(ALICE, "Alice", ask=True)  # an untouched deal is replaced without a question
    old = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE)
    await act(service, ALICE, "Alice", game_command(old.game_id, 0, "d"))
    asked = await service.starts.start(ALICE, "Alice", RandomDeal(Rules.EASY), ask=True)
    assert isinstance(asked, MustConfirm)
    assert asked.current.game_id == old.game_id and asked.current.game.moves == 1
    assert (await service.games.current_game(ALICE)).game_id == old.game_id  # type: ignore[union-attr]

    confirmed = ConfirmStart(old.game_id, DealByCode(WIN_CODE))
    new = await service.starts.start(ALICE, "Alice", confirmed)
    assert str(new.game.code) == WIN_CODE
    assert new.replaced is not None and new.replaced.game_id == old.game_id and new.replaced.abandoned
    assert isinstance(await service.starts.start(ALICE, "Alice", confirmed), AlreadyStarted)  # Yes tapped twice: one new game, and nothing to say
    assert (await service.games.current_game(ALICE)).game_id == new.game_id  # type: ignore[union-attr]


async def test_new_game_tapped_twice_on_a_finished_board_starts_one_game(service: App) -> None:
    won = await service.games.game(await win_game(service))
    new = await act(service, ALICE, "Alice", game_command(won.game_id, won.version, "n"), ask=True)
    assert new.replaced is not None and new.replaced.game_id == won.game_id
    assert isinstance(await act(service, ALICE, "Alice", game_command(won.game_id, won.version, "n"), ask=True), OldBoard)
    replay_tapped = await service.games.game(won.game_id)
    assert isinstance(await act(service, ALICE, "Alice", Replay(replay_tapped.game_id)), OldBoard)  # a replay from a board that is no longer the latest


async def test_replay_deals_the_same_deal_again(service: App) -> None:
    won = await service.games.game(await win_game(service))
    again = await act(service, ALICE, "Alice", Replay(won.game_id))
    assert again.game.code == won.game.code and again.game.moves == 0 and again.game_id != won.game_id


async def test_play_by_name_refuses_words_and_hidden_cards_with_their_own_errors(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    with pytest.raises(errors.NotACard):
        await service.moves.play_card(ALICE, "Alice", "zz")
    hidden = start.game.card_at(0)  # a top card, face down
    with pytest.raises(errors.CardNotInPlay):
        await service.moves.play_card(ALICE, "Alice", str(hidden))
    slot = free_fitting(start.game)[0]
    played = await service.moves.play_card(ALICE, "Alice", str(start.game.card_at(slot)))
    assert played.outcome is not None and played.outcome.ok and played.game.is_removed(slot)
    with pytest.raises(errors.NoActiveGame):
        await service.moves.play_card(BOB, "Bob", "7h")


async def test_the_board_location_is_kept_with_the_game(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE, chat_id="c1")
    await service.games.show_board(start.game_id, BoardRef("c1", "m7"))
    assert (await service.games.game(start.game_id)).board == BoardRef("c1", "m7")
    new = await service.starts.new_game(ALICE, "Alice")
    assert new.replaced is not None and new.replaced.board == BoardRef("c1", "m7")


# --- the daily deal -------------------------------------------------------------------------------------------------


async def test_the_daily_attempt_is_resumed_never_restarted(service: App) -> None:
    attempt = await service.starts.new_daily_game(ALICE, "Alice", community="g1")
    assert attempt.daily == DAY and str(attempt.game.code) == DAILY_CODE
    drawn = await act(service, ALICE, "Alice", game_command(attempt.game_id, 0, "d"))
    again = await service.starts.new_daily_game(ALICE, "Alice", community="g1")
    assert again.game_id == attempt.game_id and again.version == drawn.version  # resumed, draws kept
    # abandoning it (confirmed) ends the attempt; it still counts, as finished and not won
    await service.starts.start(ALICE, "Alice", ConfirmStart(attempt.game_id, RandomDeal(Rules.EASY)))
    board = await service.leaderboards.of("discord", "g1", DAY)
    assert [(r.name, r.won, r.finished) for r in board] == [("Alice", False, True)]
    replay = await service.starts.new_daily_game(ALICE, "Alice", community="g1")
    assert replay.game_id != attempt.game_id and replay.daily is None  # a replay ranks nowhere
    assert replay.practice_of == DAY
    assert str(replay.game.code) == DAILY_CODE
    assert len(await service.leaderboards.of("discord", "g1", DAY)) == 1


async def test_the_days_code_is_no_practice_game_before_the_attempt_has_ended(service: App) -> None:
    for code, day in ((DAILY_CODE, DAY), (YESTERDAYS_CODE, DAY - dt.timedelta(days=1))):
        with pytest.raises(errors.DailyCodeLocked) as locked:
            await service.starts.new_game(ALICE, "Alice", code=code)
        assert locked.value.day == day
    attempt = await service.starts.new_daily_game(ALICE, "Alice", community="g1")
    with pytest.raises(errors.DailyCodeLocked):
        await service.starts.new_game(ALICE, "Alice", code=DAILY_CODE)
    line = winning_line(DAILY_CODE)
    await play(service, ALICE, attempt.game_id, 0, line)
    practice = await service.starts.new_game(ALICE, "Alice", code=DAILY_CODE)  # the attempt is over: practise away
    assert practice.daily is None


async def test_the_leaderboard_ranks_won_first_then_score_hints_undos_and_time(service: App) -> None:
    players = [PlayerKey("discord", str(n)) for n in range(4)]
    line = winning_line(DAILY_CODE)
    for index, player in enumerate(players):
        attempt = await service.starts.new_daily_game(player, f"P{index}", community="g1")
        version = 0
        hint = game_command(attempt.game_id, version, "h")
        if index == 2:  # two hints, on two positions (a hint asked again on one position is not counted again)
            await act(service, player, f"P{index}", hint)
            await act(service, player, f"P{index}", hint)
            version = await play(service, player, attempt.game_id, version, line[:1])
            hint = game_command(attempt.game_id, version, "h")
            line_left = line[1:]
        else:
            line_left = line
        if index in (1, 2):
            version = (await act(service, player, f"P{index}", hint)).version
        if index == 3:  # gives up after one draw
            await play(service, player, attempt.game_id, version, [DRAW])
            continue
        await play(service, player, attempt.game_id, version, line_left)
    board = await service.leaderboards.of("discord", "g1", DAY)
    assert [r.user_id for r in board] == ["0", "1", "2", "3"]
    assert [(r.hints, r.undos, r.won) for r in board] == [(0, 0, True), (1, 0, True), (2, 0, True), (0, 0, False)]


# --- winnable-only deals and the review ---------------------------------------------------------------------------


async def test_classic_deals_are_winnable_only_unless_the_player_says_otherwise(service: App) -> None:
    classic = await service.starts.new_game(ALICE, "Alice", rules=Rules.CLASSIC)
    assert classic.dealt_winnable and classic.game.code is not None and classic.game.code.number % 7 == 0
    assert not (await service.starts.new_game(ALICE, "Alice", rules=Rules.EASY)).dealt_winnable
    await set_settings(service, ALICE, winnable_only=False)
    assert not (await service.starts.new_game(ALICE, "Alice", rules=Rules.CLASSIC)).dealt_winnable
    await set_settings(service, ALICE, winnable_only=True)
    assert (await service.starts.new_game(ALICE, "Alice", rules=Rules.EASY)).dealt_winnable


async def test_a_finished_game_is_reviewed_by_the_exact_solver(service: App) -> None:
    game_id = await block_game(service)
    review = await service.advice.review(ALICE, game_id)
    assert review is not None and not review.won and review.score == 477
    won = await service.advice.review(ALICE, await win_game(service))
    assert won is not None and won.won and won.lost_at is None
    playing = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    assert await service.advice.review(ALICE, playing.game_id) is None  # nothing to review while it is being played


async def test_taps_from_two_boards_race_without_losing_one(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    line = [a for a in winning_line(WIN_CODE)[:6]]
    taps = [slot for slot in (a.slot for a in line if isinstance(a, Tap))][:3]
    results = await asyncio.gather(*(act(service, ALICE, "Alice", game_command(start.game_id, 0, str(s)))
                                     for s in taps))
    applied = [r for r in results if r.outcome is not None and r.outcome.ok]
    assert (await service.games.game(start.game_id)).version == len(applied)
    assert (await service.games.game(start.game_id)).game.status is Status.PLAYING


async def test_new_game_on_the_board_of_a_game_with_moves_asks_first(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code="TP1-C-AAAAAAD")
    drawn = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "d"))
    asked = await act(service, ALICE, "Alice", game_command(start.game_id, drawn.version, "n"), ask=True)
    assert isinstance(asked, MustConfirm)
    assert asked.current.game_id == start.game_id
    assert asked.request == RandomDeal(Rules.CLASSIC, False)  # the same rules, for the question's Yes
    replay_asked = await act(service, ALICE, "Alice", Replay(start.game_id), ask=True)
    assert isinstance(replay_asked, MustConfirm)
    assert replay_asked.request == DealByCode("TP1-C-AAAAAAD")
    assert (await service.games.current_game(ALICE)).game_id == start.game_id  # type: ignore[union-attr]


async def test_only_the_player_asked_can_answer_the_question(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE)
    await act(service, ALICE, "Alice", game_command(start.game_id, 0, "d"))
    with pytest.raises(errors.NotYourGame):
        await service.starts.start(BOB, "Bob", ConfirmStart(start.game_id, RandomDeal()))
    with pytest.raises(errors.NotYourGame):
        await service.starts.keep_playing(BOB, start.game_id)
    kept = await service.starts.keep_playing(ALICE, start.game_id)
    assert kept.game_id == start.game_id and kept.game.moves == 1
    assert (await service.games.current_game(ALICE)).game_id == start.game_id  # type: ignore[union-attr]
