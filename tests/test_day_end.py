"""A daily attempt ends with its UTC day (issue 43, point 7): at 23:57 two players start the daily; at 00:01 the
day's code is out (a review, `tripeaks daily`), so the attempt still open accepts no move, ends as it stands
(counted, played and not won), and so does every attempt still open when the day's end runs; and a code of a day
still to come is refused as today's is before its attempt. On a controlled clock, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.app import daily
from bot.app.assembly import App
from bot.app.codec import decode, game_command
from bot.app.commands import Actor, Begin, DealByCode, Move
from bot.app.day_end import DayEnd
from bot.app.effects import Answer, EditBoard, Problem, SendBoard
from bot.app.errors import DailyCodeLocked
from bot.app.model import Settings
from bot.app.outcomes import DayOver
from bot.render.game import render_game
from bot.render.replies import error_text
from bot.store.engine import Database
from core.deal import GameCode
from core.game import Draw
from tests.app_helpers import act
from tests.conftest import fake_hint, fake_verdict
from tests.test_service import ALICE, BOB

DAY = dt.date(2026, 12, 6)
CODES = {DAY: GameCode.parse("TP1-E-AAAAAAF"), DAY + dt.timedelta(days=1): GameCode.parse("TP1-E-AAAAAAG"),
         DAY - dt.timedelta(days=1): GameCode.parse("TP1-E-AAAAAAH")}


class Clock:
    """A UTC clock the test moves."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(dt.datetime.combine(DAY, dt.time(23, 57), tzinfo=dt.UTC))


@pytest.fixture
async def app(database: Database, clock: Clock) -> AsyncIterator[App]:
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                       daily_code_function=lambda day, secret: CODES[day], clock=clock) as started:
            yield started


async def test_an_attempt_open_at_midnight_takes_no_move_after_it_and_ends_as_it_stands(
        app: App, clock: Clock) -> None:
    alices = await app.starts.new_daily_game(ALICE, "Alice")
    drawn = await act(app, ALICE, "Alice", game_command(alices.game_id, 0, "d"))
    bobs = await app.starts.new_daily_game(BOB, "Bob")
    clock.now = dt.datetime.combine(DAY + dt.timedelta(days=1), dt.time(0, 1), tzinfo=dt.UTC)
    # Alice's next move is refused, through the one door: the day is over (so says the line with the board, not "out
    # of date"), and her attempt ends with the score it had, its board saying so
    (answer,) = await app.flow.handle(Actor(ALICE, "Alice"), Move(alices.game_id, drawn.version, Draw()))
    assert isinstance(answer, EditBoard) and answer.notice is not None
    assert isinstance(answer.notice.error, DayOver) and answer.notice.error.current.daily == DAY
    assert error_text(answer.notice.error, "en") == "The daily deal of Dec 6, 2026 is over: only today's can be played"
    assert render_game(answer.snapshot, "en", Settings()).status == "The day is over: this attempt ended as it stood"
    ended = await app.games.game(alices.game_id)
    assert ended.abandoned and ended.game.score == drawn.game.score and ended.game.moves == 1
    assert await app.games.current_game(ALICE) is None
    # a tap from the board she still sees changes nothing more, and says the same
    again = await act(app, ALICE, "Alice", game_command(alices.game_id, drawn.version, "d"))
    assert isinstance(again, DayOver) and again.current.game.moves == 1
    assert (await app.games.game(alices.game_id)).game.moves == 1
    # Bob's untouched attempt is still open until the day's end runs; then it ends too, counted
    assert (await app.games.game(bobs.game_id)).game.moves == 0
    assert await app.day_end.end_past_attempts() == 1
    assert (await app.games.game(bobs.game_id)).abandoned
    assert await app.day_end.end_past_attempts() == 0  # once
    board = await app.leaderboards.of("telegram", "g", DAY)
    assert board == []  # neither was seen in a group: no leaderboard lists them, and nothing is still playing


async def test_an_attempt_the_days_end_ended_says_the_day_is_over_and_new_game_on_it_starts_one(
        app: App, clock: Clock) -> None:
    """The attempt left open past midnight, ended by the day's end, tapped the next day: the day is over (not "out
    of date", nor "abandoned"), a 💡 says the same, and 🆕 on its board starts a new game without a question."""
    alices = await app.starts.new_daily_game(ALICE, "Alice")
    drawn = await act(app, ALICE, "Alice", game_command(alices.game_id, 0, "d"))
    clock.now = dt.datetime.combine(DAY + dt.timedelta(days=1), dt.time(0, 0, 1), tzinfo=dt.UTC)
    assert await app.day_end.end_past_attempts() == 1
    for word in ("d", "h"):
        (answer,) = await app.flow.handle(Actor(ALICE, "Alice", "1", "g"), decode(f"tp:g:{alices.game_id}:1:{word}"))
        assert isinstance(answer, EditBoard) and isinstance(answer.notice, Problem), word
        assert isinstance(answer.notice.error, DayOver) and answer.snapshot.game.moves == drawn.game.moves
        assert "is over" in error_text(answer.notice.error, "en")
        assert "abandoned" not in (render_game(answer.snapshot, "en", Settings()).status or "")
    (started,) = await app.flow.handle(Actor(ALICE, "Alice"), decode(f"tp:g:{alices.game_id}:1:n"))
    assert isinstance(started, SendBoard) and started.snapshot.daily is None and started.snapshot.game.moves == 0
    assert (await app.games.current_game(ALICE)) is not None


async def test_the_days_end_leaves_todays_attempts_and_finished_ones_alone(app: App, clock: Clock) -> None:
    clock.now = dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
    today = await app.starts.new_daily_game(ALICE, "Alice")
    assert await app.day_end.end_past_attempts() == 0
    assert (await app.games.game(today.game_id)).game.moves == 0
    assert await app.games.current_game(ALICE) is not None
    assert 0 < app.day_end.seconds_to_midnight() <= 12 * 3600


async def test_a_code_of_a_day_still_to_come_is_refused_like_todays(app: App, clock: Clock) -> None:
    clock.now = dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
    secret = await app.daily_codes.secret()
    in_a_month = DAY + dt.timedelta(days=30)
    future = daily.daily_candidates(in_a_month, secret, 1)[0]  # what an operator's `tripeaks daily` would print
    for code in (str(CODES[DAY]), str(future)):
        with pytest.raises(DailyCodeLocked):
            await app.starts.new_game(ALICE, "Alice", code=code)
    (answer,) = await app.flow.handle(Actor(ALICE, "Alice"), Begin(DealByCode(str(future))))
    assert isinstance(answer, Answer) and isinstance(answer.content, Problem)
    assert isinstance(answer.content.error, DailyCodeLocked) and answer.content.error.day == in_a_month
    assert await app.games.current_game(ALICE) is None
    # an ordinary code deals as ever
    assert (await app.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")).game.moves == 0  # type: ignore[union-attr]


async def test_the_days_end_runs_at_start_then_sleeps_to_just_past_midnight(app: App, clock: Clock) -> None:
    """A process that was down at midnight ends the past attempts as it starts, then waits for the next midnight;
    a stop ends the wait."""
    alices = await app.starts.new_daily_game(ALICE, "Alice")
    clock.now = dt.datetime.combine(DAY + dt.timedelta(days=1), dt.time(6), tzinfo=dt.UTC)
    stop = asyncio.Event()
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        stop.set()  # the bot stops while the day's end waits for midnight
        await asyncio.Event().wait()

    await asyncio.wait_for(DayEnd(app.db, clock, sleep).run(stop), timeout=30)
    assert (await app.games.game(alices.game_id)).abandoned
    assert slept == [18 * 3600 + 1.0]


async def test_the_days_deal_is_found_at_start_so_no_players_start_waits_for_it(
        database: Database, clock: Clock) -> None:
    """Issue 49: the first `/tripeaks new code:` after a restart waited seconds for today's deal to be searched for.
    The day's end, as the process starts, finds today's deal and the day before's: a code typed in later is checked
    against them with no search (the solver is never asked again)."""
    searched: list[dt.date] = []

    def find(day: dt.date, secret: str) -> GameCode:
        searched.append(day)
        return CODES[day]

    clock.now = dt.datetime.combine(DAY, dt.time(6), tzinfo=dt.UTC)
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                       daily_code_function=find, clock=clock) as app:
            stop = asyncio.Event()

            async def sleep(seconds: float) -> None:  # waiting for midnight: the start's work is done
                stop.set()
                await asyncio.Event().wait()

            app.day_end.sleep = sleep
            await asyncio.wait_for(app.day_end.run(stop), timeout=30)
            assert sorted(searched) == [DAY - dt.timedelta(days=1), DAY]
            started = await app.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
            assert not isinstance(started, Exception) and sorted(searched) == [DAY - dt.timedelta(days=1), DAY]
