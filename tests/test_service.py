"""The game service as adapters use it, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import random
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from bot.app import errors
from bot.app.assembly import App
from bot.app.codec import decode, game_command
from bot.app.commands import ConfirmStart, Language, Replay, ReplayDeal
from bot.app.daily import daily_code
from bot.app.model import DealVerdict, GameSnapshot, Hint, PlayerKey, Settings, Stats
from bot.app.outcomes import MustConfirm, OldBoard, OutOfDate
from bot.app.solving import BUSY_HINT
from bot.store.database import open_database
from bot.store.engine import Database
from core import solver
from core.advisor import VisiblePosition, advise
from core.deal import GameCode, Rules
from core.game import DRAW, UNDO, Action, Draw, Game, Reason, Status, Tap
from tests.app_helpers import TapTimes, act, challenge, set_settings
from tests.conftest import fake_best_score, fake_hint, fake_verdict, fake_winnable
from tests.core_helpers import winning_line

ALICE = PlayerKey("discord", "100")
BOB = PlayerKey("discord", "200")
ALICE_ON_TELEGRAM = PlayerKey("telegram", "100")

WIN_CODE = "TP1-E-AAAAAAC"  # won by the solver's winning line
BLOCK_CODE = "TP1-E-AAAAAAA"  # blocked after drawing the whole stock


async def play(service: App, player: PlayerKey, game_id: int, version: int, actions: tuple[Action, ...] |
               list[Action]) -> int:
    """Apply ``actions`` one by one, each applied; return the final version."""
    snapshot = None
    for action in actions:
        snapshot = await act(service, player, "Alice", game_command(game_id, version, str(action)))
        assert snapshot.outcome is not None and snapshot.outcome.ok, (action, snapshot.outcome)
        version = snapshot.version
    return version


async def win_game(service: App, player: PlayerKey = ALICE) -> int:
    start = await service.starts.new_game(player, "Alice", code=WIN_CODE)
    await play(service, player, start.game_id, start.version, winning_line(WIN_CODE))
    return start.game_id


async def block_game(service: App, player: PlayerKey = ALICE) -> int:
    start = await service.starts.new_game(player, "Alice", code=BLOCK_CODE)
    await play(service, player, start.game_id, start.version, [DRAW] * 23)
    return start.game_id


# --- starting and resuming --------------------------------------------------------------------------------------


async def test_a_random_deal_is_stored_and_resumed(service: App) -> None:
    started = await service.starts.new_game(ALICE, "Alice")
    assert started.version == 0 and started.owner == ALICE and started.owner_name == "Alice"
    assert started.game.status is Status.PLAYING and started.game.rules is Rules.EASY
    assert started.game.code is not None and started.game.moves == 0 and started.game.stock_left == 23
    resumed = await service.games.current_game(ALICE)
    assert resumed is not None
    assert resumed.game_id == started.game_id and resumed.version == 0
    assert resumed.game.to_text() == started.game.to_text()


async def test_random_deals_differ(service: App) -> None:
    codes = {str((await service.starts.new_game(ALICE, "Alice")).game.code) for _ in range(5)}
    assert len(codes) == 5


async def test_a_code_deals_exactly_that_deal_and_its_rules(service: App) -> None:
    easy = await service.starts.new_game(ALICE, "Alice", code=" tp1-n-aaaaaab ")
    assert easy.game == Game.from_code("TP1-E-AAAAAAB")
    classic = await service.starts.new_game(ALICE, "Alice", code=GameCode(Rules.CLASSIC, 3), rules=Rules.EASY)
    assert classic.game == Game.from_code("TP1-C-AAAAAAD") and classic.game.rules is Rules.CLASSIC


async def test_a_bad_code_is_a_bad_game_code_and_starts_nothing(service: App) -> None:
    with pytest.raises(errors.BadGameCode) as caught:
        await service.starts.new_game(ALICE, "Alice", code="TP2-E-AAAAAAB")
    assert caught.value.text == "TP2-E-AAAAAAB"
    assert isinstance(caught.value, errors.BadPayload)
    assert await service.games.current_game(ALICE) is None


async def test_random_deals_follow_the_rules_asked_for_else_the_players_default(service: App) -> None:
    assert (await service.starts.new_game(ALICE, "Alice", rules=Rules.CLASSIC)).game.rules is Rules.CLASSIC
    assert (await service.starts.new_game(ALICE, "Alice")).game.rules is Rules.EASY
    await set_settings(service, ALICE, default_rules=Rules.CLASSIC)
    assert (await service.starts.new_game(ALICE, "Alice")).game.rules is Rules.CLASSIC
    assert (await service.starts.new_game(ALICE, "Alice", rules=Rules.EASY)).game.rules is Rules.EASY


async def test_a_daily_game_is_marked_with_its_day(service: App) -> None:
    day = dt.date(2026, 11, 29)
    service.daily_codes.clock = lambda: dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
    snapshot = await service.starts.new_daily_game(ALICE, "Alice", day)
    # the day's deal under this database's own secret
    assert snapshot.daily == day and snapshot.game.code == daily_code(day, await service.daily_codes.secret())
    assert (await service.games.current_game(ALICE)).daily == day  # type: ignore[union-attr]
    with pytest.raises(errors.BadPayload):  # a later day than today is a tampered button
        await service.starts.new_daily_game(ALICE, "Alice", service.daily_codes.today() + dt.timedelta(days=1))


async def test_a_daily_deals_code_is_hidden_in_every_game_of_it_while_its_day_runs(service: App) -> None:
    """A code deals every card. While the day runs, the attempt, its replay (by button, or asked first: the
    question's Yes names the game, not the code), the code typed under the other letter once the attempt is over
    and a friend's challenge of it are games of the day's deal (``practice_of``) whose code is hidden; the next day
    their codes show, but for an attempt still being played."""
    day = dt.date(2026, 12, 2)
    now = [dt.datetime.combine(day, dt.time(23), tzinfo=dt.UTC)]
    service.daily_codes.clock = lambda: now[0]
    service.daily_codes.function = lambda d, secret: GameCode.parse(WIN_CODE if d == day else "TP1-E-AAAAAAD")
    carol = PlayerKey("discord", "300")
    playing = await service.starts.new_daily_game(carol, "Carol", day)
    attempt = await service.starts.new_daily_game(ALICE, "Alice", day)
    assert attempt.code_hidden and playing.code_hidden
    await play(service, ALICE, attempt.game_id, attempt.version, winning_line(WIN_CODE))
    assert (await service.games.game(attempt.game_id)).code_hidden
    replay = await act(service, ALICE, "Alice", Replay(attempt.game_id))
    assert (replay.daily, replay.practice_of, replay.code_hidden) == (None, day, True)
    await play(service, ALICE, replay.game_id, replay.version, [DRAW])
    asked = await act(service, ALICE, "Alice", Replay(attempt.game_id), ask=True)
    assert isinstance(asked, MustConfirm)
    assert asked.request == ReplayDeal(attempt.game_id)
    again = await service.starts.start(ALICE, "Alice", ConfirmStart(replay.game_id, ReplayDeal(attempt.game_id)))
    assert (str(again.game.code), again.practice_of, again.code_hidden) == (WIN_CODE, day, True)
    with pytest.raises(errors.NotYourGame):  # a replay by game is of one's own game only
        await service.starts.start(BOB, "Bob", ReplayDeal(attempt.game_id))
    classic = str(GameCode(Rules.CLASSIC, GameCode.parse(WIN_CODE).number))
    typed = await service.starts.new_game(ALICE, "Alice", code=classic)
    assert (typed.game.rules, typed.practice_of, typed.code_hidden) == (Rules.CLASSIC, day, True)
    await service.starts.new_daily_game(BOB, "Bob", day)
    await service.starts.new_game(BOB, "Bob")  # his attempt abandoned: over
    challenged = await service.starts.start(BOB, "Bob", await challenge(service, attempt.game_id))
    assert (challenged.practice_of, challenged.code_hidden) == (day, True)
    other = await service.starts.new_game(BOB, "Bob", code="TP1-E-AAAAAAB")
    assert (other.practice_of, other.code_hidden) == (None, False)

    now[0] += dt.timedelta(hours=2)  # the day is over
    for game_id in (attempt.game_id, replay.game_id, again.game_id, typed.game_id, challenged.game_id):
        assert not (await service.games.game(game_id)).code_hidden, game_id
    assert (await service.games.game(playing.game_id)).code_hidden  # Carol's attempt is still being played


async def test_players_are_keyed_by_platform_and_user_id(service: App) -> None:
    on_discord = await service.starts.new_game(ALICE, "Alice")
    on_telegram = await service.starts.new_game(ALICE_ON_TELEGRAM, "Alice T")
    assert (await service.games.current_game(ALICE)).game_id == on_discord.game_id  # type: ignore[union-attr]
    assert (await service.games.current_game(ALICE_ON_TELEGRAM)).game_id == on_telegram.game_id  # type: ignore[union-attr]
    assert await service.games.current_game(BOB) is None


async def test_a_new_game_abandons_the_one_in_progress(service: App) -> None:
    old = await service.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
    drawn = await act(service, ALICE, "Alice", game_command(old.game_id, old.version, "d"))
    new = await service.starts.new_game(ALICE, "Alice")
    assert (await service.games.current_game(ALICE)).game_id == new.game_id  # type: ignore[union-attr]
    gone = await service.games.game(old.game_id)
    assert gone.abandoned and gone.version == drawn.version + 1
    assert gone.game.moves == 1  # what was played is kept
    # a tap on the old board never turns it into the new game: a private note names the game that is current
    note = await act(service, ALICE, "Alice", game_command(old.game_id, drawn.version, "u"))
    assert isinstance(note, OldBoard)
    assert note.current is not None and note.current.game_id == new.game_id
    # with the right version the abandoned game takes no more actions
    refused = await act(service, ALICE, "Alice", game_command(old.game_id, gone.version, "u"))
    assert refused.outcome is not None and refused.outcome.reason is Reason.GAME_OVER
    assert refused.version == gone.version and refused.game.moves == 1
    assert await service.players.stats(ALICE) == Stats(games=1, wins=0, best_score=None, current_streak=0,
                                               longest_streak=0)


async def test_display_names_follow_the_platform(service: App) -> None:
    game = await service.starts.new_game(ALICE, "Alice")
    after = await act(service, ALICE, "Alicia", game_command(game.game_id, game.version, "d"))
    assert after.owner_name == "Alicia"
    assert (await service.games.game(game.game_id)).owner_name == "Alicia"


# --- acting -------------------------------------------------------------------------------------------------------


async def test_actions_apply_in_order_and_are_stored(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    line = winning_line(WIN_CODE)[:6]
    expected = Game.from_code(WIN_CODE)
    version = start.version
    for action in line:
        outcome = expected.apply(action)
        snapshot = await act(service, ALICE, "Alice", game_command(start.game_id, version, str(action)))
        assert snapshot.version == version + 1
        assert snapshot.outcome == outcome
        assert snapshot.game.to_text() == expected.to_text()
        version = snapshot.version
    undone = await act(service, ALICE, "Alice", game_command(start.game_id, version, "u"))
    expected.apply(UNDO)
    assert undone.outcome is not None and undone.outcome.ok and undone.version == version + 1
    stored = await service.games.current_game(ALICE)
    assert stored is not None and stored.version == version + 1 and stored.game.to_text() == expected.to_text()


async def test_a_refused_action_changes_nothing_and_says_why(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
    game = Game.from_code("TP1-E-AAAAAAB")
    wrong_rank = next(s for s in game.playable_slots() if not game.fits(s))
    for command, reason in (("0", Reason.BLOCKED),  # a top card, face down
                            (str(wrong_rank), Reason.NOT_ADJACENT),
                            ("u", Reason.NOTHING_TO_UNDO)):
        snapshot = await act(service, ALICE, "Alice", game_command(start.game_id, 0, command))
        assert snapshot.outcome is not None and snapshot.outcome.reason is reason, command
        assert snapshot.version == 0
    stored = await service.games.game(start.game_id)
    assert stored.version == 0 and stored.game.to_text() == game.to_text()


async def test_a_stale_version_changes_nothing_and_returns_the_game_as_it_stands(service: App) -> None:
    times = TapTimes(service)
    start = await service.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
    first = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "d"))
    times.wait(0.1)
    caught = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "d"))  # the same tap again, from the old message
    assert isinstance(caught, OutOfDate) and caught.repeat == Draw()
    assert caught.current.version == 1
    assert caught.current.game.to_text() == first.game.to_text()
    # a version from nowhere
    assert isinstance(await act(service, ALICE, "Alice", game_command(start.game_id, 7, "d")), OutOfDate)
    stored = await service.games.game(start.game_id)
    assert stored.version == 1 and stored.game.stock_left == 22


async def test_bad_input_gets_a_distinct_error_and_reaches_nothing(service: App) -> None:
    mine = await service.starts.new_game(ALICE, "Alice")
    # a game that does not exist and a game that is someone else's: one answer, which names nobody
    with pytest.raises(errors.NotYourGame) as not_found:
        await act(service, ALICE, "Alice", game_command(mine.game_id + 1000, 0, "d"))
    with pytest.raises(errors.NotYourGame) as not_yours:
        await act(service, BOB, "Bob", game_command(mine.game_id, 0, "d"))
    assert str(not_found.value) == str(not_yours.value) and "Alice" not in str(not_yours.value)
    with pytest.raises(errors.NotYourGame):
        await act(service, ALICE_ON_TELEGRAM, "Alice", game_command(mine.game_id, 0, "d"))
    for command in ("28", "99", "x", "", "dd", "-1", " d", "12 "):
        with pytest.raises(errors.BadPayload):
            await act(service, ALICE, "Alice", game_command(mine.game_id, 0, command))
    for game_id, version in ((-1, 0), (mine.game_id, -1), (True, 0), ("1", 0)):
        with pytest.raises(errors.BadPayload):
            await act(service, ALICE, "Alice", game_command(game_id, version, "d"))  # type: ignore[arg-type]
    with pytest.raises(errors.GameNotFound):
        await service.games.game(mine.game_id + 1000)
    kinds = {errors.GameNotFound, errors.NotYourGame, errors.BadPayload}
    assert all(issubclass(kind, errors.BotError) for kind in kinds)
    assert not any(issubclass(a, b) for a in kinds for b in kinds if a is not b)
    stored = await service.games.game(mine.game_id)
    assert stored.version == 0 and stored.game.moves == 0 and await service.players.stats(BOB) == Stats(0, 0, None, 0, 0)


async def test_a_won_game_is_over(service: App) -> None:
    game_id = await win_game(service)
    won = await service.games.game(game_id)
    assert won.game.status is Status.WON
    assert await service.games.current_game(ALICE) is None  # nothing left to resume
    for command in ("u", "d", "5"):
        snapshot = await act(service, ALICE, "Alice", game_command(game_id, won.version, command))
        assert snapshot.outcome is not None and snapshot.outcome.reason is Reason.GAME_OVER
        assert snapshot.version == won.version
    stats = await service.players.stats(ALICE)
    assert stats == Stats(games=1, wins=1, best_score=won.game.score, current_streak=1, longest_streak=1)
    assert stats.win_rate == 1.0


async def test_a_blocked_game_stays_current_and_undo_revives_it(service: App) -> None:
    game_id = await block_game(service)
    blocked = await service.games.current_game(ALICE)
    assert blocked is not None and blocked.game_id == game_id and blocked.game.status is Status.BLOCKED
    assert await service.players.stats(ALICE) == Stats(games=1, wins=0, best_score=blocked.game.score, current_streak=0,
                                               longest_streak=0)
    revived = await act(service, ALICE, "Alice", game_command(game_id, blocked.version, "u"))
    assert revived.game.status is Status.PLAYING
    assert await service.players.stats(ALICE) == Stats(0, 0, None, 0, 0)  # playing again: not counted


async def test_statistics_count_ended_games_and_win_streaks(service: App) -> None:
    await win_game(service)
    await win_game(service)
    await service.starts.new_game(ALICE, "Alice")  # untouched, then replaced: no game at all
    await service.starts.new_game(ALICE, "Alice")  # untouched as well
    stats = await service.players.stats(ALICE)
    assert (stats.games, stats.wins, stats.current_streak, stats.longest_streak) == (2, 2, 2, 2)
    started = await service.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
    await act(service, ALICE, "Alice", game_command(started.game_id, 0, "d"))  # one move, then abandoned: a loss
    for _ in range(3):
        await win_game(service)
    stats = await service.players.stats(ALICE)
    assert (stats.games, stats.wins, stats.current_streak, stats.longest_streak) == (6, 5, 3, 3)
    assert stats.win_rate == pytest.approx(5 / 6)
    won_score = (await service.games.game(await win_game(service))).game.score
    assert (await service.players.stats(ALICE)).current_streak == 4
    await block_game(service)
    stats = await service.players.stats(ALICE)
    assert (stats.games, stats.wins, stats.current_streak, stats.longest_streak) == (8, 6, 0, 4)
    assert stats.best_score == won_score  # abandoned games (still at 500) do not count for the best score
    assert await service.players.stats(BOB) == Stats(0, 0, None, 0, 0)


# --- hints ---------------------------------------------------------------------------------------------------------


async def test_a_hint_shows_the_solvers_move_without_changing_the_game(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
    snapshot = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "h"))
    assert snapshot.hint == fake_hint(Game.from_code("TP1-E-AAAAAAB").to_text(), 1.0)
    assert snapshot.hint is not None and snapshot.hint.action is not None
    assert snapshot.version == 0 and snapshot.hints_used == 1 and snapshot.outcome is None
    again = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "h"))  # the same position
    assert again.hints_used == 1 and (await service.games.game(start.game_id)).hints_used == 1
    # the hinted action can be played from the same message
    played = await act(service, ALICE, "Alice", game_command(start.game_id, 0, str(snapshot.hint.action)))
    assert played.outcome is not None and played.outcome.ok
    # 💡 on the board behind the game: the hint for the game as it stands
    behind = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "h"))
    assert isinstance(behind, GameSnapshot) and behind.version == 1 and behind.hints_used == 2
    assert behind.hint == fake_hint(played.game.to_text(), 1.0)
    with pytest.raises(errors.NotYourGame):
        await act(service, BOB, "Bob", game_command(start.game_id, 1, "h"))


def _stuck_hint(state: str, budget: float) -> Hint:
    _release.wait(timeout=60)
    return Hint(DRAW, True, 700)


_release = threading.Event()


async def test_a_hint_the_solver_cannot_give_in_time_says_busy_and_is_not_counted(database: Database) -> None:
    _release.clear()
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_function=_stuck_hint, verdict_function=fake_verdict,
                               hint_budget=0.05) as service:
            start = await service.starts.new_game(ALICE, "Alice")
            snapshot = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "h"))
            _release.set()
    assert snapshot.hint == BUSY_HINT  # not "nothing to suggest": the player is told to ask again
    assert snapshot.hints_used == 0 and snapshot.version == 0


def _hint_dying_once(state: str, budget: float) -> Hint:
    """Kills its worker process the first time (as a crash in the solver would), then hints a draw."""
    marker = Path(os.environ["TRIPEAKS_TEST_HINT_MARKER"])
    if not marker.exists():
        marker.touch()
        os._exit(1)
    return Hint(DRAW, None, None)


async def test_hints_run_in_worker_processes_that_are_replaced_when_they_die(
        database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRIPEAKS_TEST_HINT_MARKER", str(tmp_path / "died"))
    async with App(database, hint_function=_hint_dying_once, verdict_function=fake_verdict,
                           hint_budget=60) as service:
        start = await service.starts.new_game(ALICE, "Alice")
        lost = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "h"))
        assert lost.hint == BUSY_HINT and (tmp_path / "died").exists()  # not computed: asked again
        again = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "h"))
        assert again.hint == Hint(DRAW, None, None) and again.hints_used == 1


# --- the solver's verdict and winnable deals -------------------------------------------------------------------


async def test_an_ended_game_carries_the_solvers_verdict_on_its_deal(service: App) -> None:
    start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    assert start.verdict is None
    expected = fake_verdict(WIN_CODE, 1.0, True)
    assert await service.verdicts.wait_for(start.game_id, timeout=30) == expected
    assert (await service.games.game(start.game_id)).verdict is None  # not shown while playing
    await play(service, ALICE, start.game_id, 0, winning_line(WIN_CODE))
    assert (await service.games.game(start.game_id)).verdict == expected
    blocked_id = await block_game(service)
    assert await service.verdicts.wait_for(blocked_id, timeout=30) == fake_verdict(BLOCK_CODE, 1.0, True)
    assert (await service.games.game(blocked_id)).verdict == fake_verdict(BLOCK_CODE, 1.0, True)


async def test_a_deal_solved_for_one_player_is_not_solved_again(database: Database) -> None:
    calls: list[str] = []

    def counting_verdict(code: str, budget: float, best: bool) -> DealVerdict:
        calls.append(code)
        return fake_verdict(code, budget, best)

    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_function=fake_hint,
                               verdict_function=counting_verdict) as service:
            first = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
            await service.verdicts.wait_for(first.game_id, timeout=30)
            second = await service.starts.new_game(BOB, "Bob", code=WIN_CODE)
            await play(service, BOB, second.game_id, 0, winning_line(WIN_CODE))
            assert (await service.games.game(second.game_id)).verdict == fake_verdict(WIN_CODE, 1.0, True)
    assert calls == [WIN_CODE]


async def test_a_winnable_deal_is_one_the_solver_proved_winnable(service: App) -> None:
    for rules in (Rules.EASY, Rules.CLASSIC, Rules.EASY, Rules.CLASSIC, Rules.EASY):
        snapshot = await service.starts.new_game(ALICE, "Alice", rules=rules, winnable=True)
        code = str(snapshot.game.code)
        assert snapshot.game.rules is rules and fake_winnable(code), code
    await play(service, ALICE, snapshot.game_id, 0, [DRAW] * 23)
    ended = await service.games.game(snapshot.game_id)
    if ended.game.status is Status.BLOCKED:
        assert await service.verdicts.wait_for(snapshot.game_id, timeout=30) == DealVerdict(
            True, fake_best_score(code))
    # "new game" from the buttons deals another winnable deal with the same rules
    again = await act(service, ALICE, "Alice", game_command(snapshot.game_id, ended.version, "n"))
    assert again.game_id != snapshot.game_id and fake_winnable(str(again.game.code))


async def test_no_winnable_deal_in_time_is_an_error(database: Database) -> None:
    def never(code: str, budget: float, best: bool) -> DealVerdict:
        return DealVerdict(False, None)

    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_function=fake_hint, verdict_function=never,
                               winnable_budget=0.05) as service:
            with pytest.raises(errors.NoWinnableDeal):
                await service.starts.new_game(ALICE, "Alice", winnable=True)
            assert await service.games.current_game(ALICE) is None


async def test_new_game_from_a_game_message_keeps_its_rules(service: App) -> None:
    old = await service.starts.new_game(ALICE, "Alice", code="TP1-C-AAAAAAD")
    new = await act(service, ALICE, "Alice", game_command(old.game_id, 0, "n"))
    assert new.game_id != old.game_id and new.version == 0 and new.game.rules is Rules.CLASSIC
    assert (await service.games.game(old.game_id)).abandoned
    assert (await service.games.current_game(ALICE)).game_id == new.game_id  # type: ignore[union-attr]
    assert isinstance(await act(service, ALICE, "Alice", game_command(old.game_id, 0, "n")), OldBoard)  # a second tap on the same old message starts nothing
    with pytest.raises(errors.NotYourGame):
        await act(service, BOB, "Bob", game_command(new.game_id, 0, "n"))
    assert (await service.games.current_game(ALICE)).game_id == new.game_id  # type: ignore[union-attr]


# --- settings ------------------------------------------------------------------------------------------------------


async def test_settings_default_then_change_and_persist(service: App, db_url: URL) -> None:
    assert await service.players.get_settings(ALICE) == Settings(language=None, explain_refusals=True,
                                                         default_rules=Rules.EASY)
    changed = await set_settings(service, ALICE, name="Alice", language="uk", explain_refusals=False)
    assert changed == Settings(language="uk", explain_refusals=False, default_rules=Rules.EASY)
    assert await set_settings(service, ALICE, default_rules="classic") == Settings("uk", False, Rules.CLASSIC)
    assert await set_settings(service, ALICE, language=None) == Settings(None, False, Rules.CLASSIC)
    assert await service.players.get_settings(BOB) == Settings()
    # they are in the database, and every snapshot of the player's games carries them
    async with App(await open_database(db_url, migrate=False), owns_database=True) as reopened:
        assert await reopened.players.get_settings(ALICE) == Settings(None, False, Rules.CLASSIC)
    game = await service.starts.new_game(ALICE, "Alice")
    assert game.settings == Settings(None, False, Rules.CLASSIC)
    assert (await act(service, ALICE, "Alice", game_command(game.game_id, 0, "d"))).settings == game.settings


async def test_bad_settings_are_refused(service: App) -> None:
    """Settings change only by typed changes, which the payload codec reads (tests/test_render.py tries forged
    setting payloads); a language tag that is none is refused even so."""
    for tag in ("english please", "", "x" * 40):
        with pytest.raises(errors.BadPayload):
            await service.players.change_setting(ALICE, "Alice", Language(tag))
    for payload in ("tp:set:lang:english", "tp:set:rules:hard", "tp:set:four:yes", "tp:set:board:photo"):
        with pytest.raises(errors.BadPayload):
            decode(payload)
    assert await service.players.get_settings(ALICE) == Settings()


# --- concurrency -------------------------------------------------------------------------------------------------


@pytest.fixture
async def two_services(db_url: URL) -> AsyncIterator[tuple[App, App]]:
    """Two services with their own engines on one database, as two bot processes would be."""
    with ThreadPoolExecutor(2) as executor:
        first = App(await open_database(db_url, migrate=False), executor=executor, owns_database=True,
                            hint_function=fake_hint, verdict_function=fake_verdict)
        second = App(await open_database(db_url, migrate=False), executor=executor, owns_database=True,
                             hint_function=fake_hint, verdict_function=fake_verdict)
        async with first, second:
            yield first, second


async def test_a_double_tap_applies_once(two_services: tuple[App, App]) -> None:
    first, second = two_services
    start = await first.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
    for round_ in range(5):
        taps = [act(service, ALICE, "Alice", game_command(start.game_id, round_, "d")) for service in (first, second, first)]
        results = await asyncio.gather(*taps, return_exceptions=True)
        applied = [r for r in results if not isinstance(r, BaseException | OutOfDate)]
        stale = [r for r in results if isinstance(r, OutOfDate)]
        assert len(applied) == 1 and len(stale) == 2, results
        assert applied[0].version == round_ + 1
    stored = await second.games.game(start.game_id)
    assert stored.version == 5 and stored.game.moves == 5 and stored.game.stock_left == 18


async def test_concurrent_actions_equal_a_serial_replay(two_services: tuple[App, App]) -> None:
    """Players tapping at once through two processes: every applied action was applied to the state its tap
    saw, one after the other, so replaying them in version order gives exactly the stored game. The taps all come
    at one moment (the tap clock stands still), so a Draw (or Undo) tapped on the board version of the one before
    it is its double tap, in whichever process it lands."""
    start = await two_services[0].starts.new_game(ALICE, "Alice", code=WIN_CODE)
    times = TapTimes()
    for service in two_services:
        service.moves.clock = times
    applied: list[tuple[int, Action]] = []
    stale = 0

    async def player(service: App, seed: int) -> None:
        nonlocal stale
        rng = random.Random(seed)
        snapshot = await service.games.game(start.game_id)
        while len(applied) < 40 and snapshot.game.status is not Status.WON:
            options = list(snapshot.game.legal_actions())
            action = rng.choice(options + [Tap(rng.randrange(28))])  # now and then a tap that may not fit
            after = await act(service, ALICE, "Alice", game_command(start.game_id, snapshot.version, str(action)))
            if isinstance(after, OutOfDate):
                assert after.current.version > snapshot.version
                assert after.repeat == action or after.current.game.is_over  # a double tap, or the game won
                stale += 1
                snapshot = after.current
                continue
            if after.outcome is None:  # the same card again, from an older board: played already, nothing done
                assert isinstance(action, Tap) and after.game.is_removed(action.slot)
                assert after.version > snapshot.version
            elif after.outcome.ok:
                # a tap from an older board applies to the game as it now stands (a Draw or Undo unless that
                # board's own came at the same moment: a double tap)
                assert after.version > snapshot.version
                applied.append((after.version, action))
            else:
                assert after.version >= snapshot.version
            snapshot = after

    await asyncio.gather(*(player(two_services[i % 2], seed) for i, seed in enumerate(range(6))))
    versions = [version for version, _ in applied]
    assert sorted(versions) == list(range(1, len(applied) + 1))  # no version applied twice, none skipped
    replay = Game.from_code(WIN_CODE)
    for _, action in sorted(applied, key=lambda pair: pair[0]):
        assert replay.apply(action).ok
    stored = await two_services[1].games.game(start.game_id)
    assert stored.version == len(applied)
    assert stored.game.to_text() == replay.to_text()
    assert stale > 0  # the players really did race


async def test_concurrent_new_games_leave_one_current_game(two_services: tuple[App, App]) -> None:
    first, second = two_services
    started = await asyncio.gather(*(service.starts.new_game(ALICE, "Alice") for service in (first, second) * 3))
    current = await first.games.current_game(ALICE)
    assert current is not None and current.game_id in {s.game_id for s in started}
    others = [s.game_id for s in started if s.game_id != current.game_id]
    assert len(others) == 5
    for game_id in others:
        assert (await second.games.game(game_id)).abandoned
    assert (await first.players.stats(ALICE)).games == 0  # deals left untouched are no games played


async def test_an_action_is_stored_before_it_is_reported(service: App, db_url: URL) -> None:
    """What an action returns is already committed: a separate connection sees it at once."""
    start = await service.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
    async with App(await open_database(db_url, migrate=False), owns_database=True) as other:
        for version in range(3):
            done = await act(service, ALICE, "Alice", game_command(start.game_id, version, "d" if version < 2 else "u"))
            seen = await other.games.game(start.game_id)
            assert seen.version == done.version and seen.game.to_text() == done.game.to_text()



# --- with the real solver ---------------------------------------------------------------------------------------


@pytest.fixture
async def solving_service(database: Database) -> AsyncIterator[App]:
    """The service with the real solver (in threads here, so the test process needs no workers)."""
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_budget=30) as svc:
            yield svc


# On SQLite only: the advice never touches the database (the service hands the position to the advisor), and how a
# hint is counted and stored is tested on both databases above (test_a_hint_shows_the_solvers_move...).
@pytest.mark.parametrize("backend", ["sqlite"])
async def test_hints_are_the_fair_advisors_from_what_the_player_sees(solving_service: App) -> None:
    start = await solving_service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    version = start.version
    for _ in range(3):  # each hint solves dozens of arrangements (about half a second), and the test a second time
        hinted = await act(solving_service, ALICE, "Alice", game_command(start.game_id, version, "h"))
        advice = advise(VisiblePosition.of(hinted.game))  # what the player can see, and nothing else
        assert hinted.hint == Hint(advice.action, None, None, advice.win_chance)
        played = await act(solving_service, ALICE, "Alice", game_command(start.game_id, version, str(advice.action)))
        assert played.outcome is not None and played.outcome.ok
        version = played.version
    assert played.hints_used == played.game.moves == 3  # one hint a move, counted


async def test_a_fair_hint_with_no_sample_solved_in_time_is_no_hint_and_not_counted(database: Database) -> None:
    # Out of time before one arrangement is solved: "no hint in time", never a verdict such as "looks lost".
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_budget=1e-5) as service:
            start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
            hinted = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "h"))
    assert hinted.hint == Hint(None, None, None, None)
    assert hinted.hints_used == 0 and hinted.version == 0


async def test_the_real_solvers_verdict_is_recorded_for_an_ended_game(solving_service: App) -> None:
    expected = solver.solve(Game.from_code(WIN_CODE), best=True)
    assert expected.winnable and expected.best_score is not None
    game_id = await win_game(solving_service)
    verdict = await solving_service.verdicts.wait_for(game_id, timeout=60)
    assert verdict == DealVerdict(True, expected.best_score)
    won = await solving_service.games.game(game_id)
    assert won.verdict == verdict and won.game.score <= expected.best_score  # how close the player came


async def test_the_real_solver_says_when_a_deal_cannot_be_won(solving_service: App) -> None:
    code = next(str(c) for c in (GameCode(Rules.CLASSIC, n) for n in range(500))
                if solver.solve(Game.from_code(c)).winnable is False)
    start = await solving_service.starts.new_game(ALICE, "Alice", code=code)
    assert await solving_service.verdicts.wait_for(start.game_id, timeout=60) == DealVerdict(False, None)


async def test_a_winnable_deal_from_the_real_solver_can_be_won(solving_service: App) -> None:
    start = await solving_service.starts.new_game(ALICE, "Alice", rules=Rules.CLASSIC, winnable=True)
    assert start.game.rules is Rules.CLASSIC
    line = solver.solve(Game.from_code(str(start.game.code))).line
    assert line is not None
    await play(solving_service, ALICE, start.game_id, 0, line)
    assert (await solving_service.games.game(start.game_id)).game.status is Status.WON


async def test_the_real_solver_runs_in_worker_processes_by_default(database: Database) -> None:
    async with App(database, hint_budget=30) as service:
        start = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
        hinted = await act(service, ALICE, "Alice", game_command(start.game_id, 0, "h"))
        expected = advise(VisiblePosition.of(Game.from_code(WIN_CODE)))
        assert hinted.hint == Hint(expected.action, None, None, expected.win_chance)
        assert expected.action is not None
        assert await service.verdicts.wait_for(start.game_id, timeout=60) == DealVerdict(
            True, solver.solve(Game.from_code(WIN_CODE), best=True).best_score)
