"""The daily deal: posts at their time (once, across restarts, caught up after downtime, within rate limits, 429s
waited out), the leaderboard's order, and the share line. Time is a controllable clock: nothing really sleeps.

The posts go through the real adapters: each a ``PostTo`` effect carried out by the Telegram executor over the fake
Bot API (with the real Application for /subscribe and /leaderboard), and by the Discord executor on SimCord
(tests/test_daily_discord.py).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete
from telegram import Bot

from bot.adapters.telegram.base import TelegramContext
from bot.adapters.telegram.executor import outbox_executor
from bot.app import daily
from bot.app.assembly import App
from bot.app.codec import encode, game_command
from bot.app.commands import Actor, PlayDaily, ShowLeaderboard
from bot.app.daily import DailyResult, rank
from bot.app.daily_posts import DailyPoster, RateLimiter
from bot.app.effects import Answer, ExecutorFor, LeaderboardOf
from bot.app.model import GameSnapshot, PlayerKey, Settings
from bot.render.effects import draw
from bot.render.endings import share_text
from bot.render.game import render_game, share_line
from bot.store.schema import daily_subscriptions
from core.deal import GameCode
from core.game import Action, Game, Status
from tests.app_helpers import act
from tests.core_helpers import blocking_line, winning_line
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_telegram_e2e import HANDLED, command, running_bot
from tests.test_telegram_inline import another_winning_line

pytestmark = pytest.mark.timeout(60)

DAY = dt.date(2026, 11, 29)
CODE = "TP1-E-AAAAAAC"  # winnable (tests/test_telegram_e2e.py wins it)
POST_TIME = dt.time(9, 0)


class Clock:
    """The poster's clock and sleep: sleeping moves the clock on at once, and is recorded."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> dt.datetime:
        return self.now

    def at(self, hour: int, minute: int = 0, day: dt.date = DAY) -> Clock:
        self.now = dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC)
        return self

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += dt.timedelta(seconds=seconds)
        await asyncio.sleep(0)


def at(hour: int, minute: int = 0, day: dt.date = DAY) -> Clock:
    return Clock(dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC))


@pytest.fixture(autouse=True)
def pinned_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which deal a day gets is daily_code's business (it needs the solver); here every day is CODE."""
    monkeypatch.setattr(daily, "daily_code", lambda day, secret: GameCode.parse(CODE))


# --- Telegram: the bot over the fake Bot API ---------------------------------------------------------------------


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI() as server:
        yield server


@pytest.fixture
def db_file(sqlite_template: Path, tmp_path: Path) -> str:
    path = tmp_path / "tripeaks.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture
async def bot(api: FakeBotAPI) -> AsyncIterator[Bot]:
    """A Bot API client of its own for the poster, as a second bot process would have."""
    client = Bot(api.token, base_url=api.base_url)
    async with client:
        yield client


def executors(service: App, bot: Bot) -> dict[str, ExecutorFor]:
    """The Telegram executor of a bot process of its own, which carries the posts out."""
    return {"telegram": outbox_executor(TelegramContext(service.flow, pace=None), bot)}


def poster(service: App, bot: Bot, clock: Clock, **options: Any) -> DailyPoster:
    return DailyPoster(service.subscriptions, service.daily_codes.code, executors(service, bot), post_time=POST_TIME,
                       clock=clock, sleep=clock.sleep, **options)


def daily_posts_in(api: FakeBotAPI, chat: Any) -> list[Any]:
    return [m for m in api.bot_messages(chat) if any(data and data.startswith("tp:daily:") for _, data in m.buttons)]


async def test_an_admin_subscribes_a_group_and_the_post_comes_at_its_time_once(
        api: FakeBotAPI, db_file: str, bot: Bot) -> None:
    admin = api.user("Ada", language_code="uk")
    member = api.user("Bob")
    group = api.group("Club", members=[member], admins=[admin])
    async with running_bot(api, db_file) as service:
        refused = await command(api, member, group, "/subscribe")
        assert refused.text.startswith("Only an administrator")
        assert await service.subscriptions.all() == []
        done = await command(api, admin, group, "/subscribe")
        assert "09:00 UTC" in done.text and done.text.startswith("Підписано")  # in the admin's language
        again = await command(api, admin, group, "/subscribe")
        assert len(await service.subscriptions.all()) == 1 and "09:00" in again.text

        clock = at(8, 59)
        assert await poster(service, bot, clock).run_once() == 0  # not yet
        assert daily_posts_in(api, group) == []
        clock.at(9, 0)
        assert await poster(service, bot, clock).run_once() == 1
        (post,) = daily_posts_in(api, group)
        # the group's language (its subscriber's); the day, never its code (which would deal every card)
        assert post.text.startswith("Щоденна") and CODE not in post.text
        assert post.buttons == [("Грати", encode(PlayDaily(DAY)))]
        # the same day again, and after a restart (a new poster and a new process on the same database): no repeat
        clock.at(13, 0)
        assert await poster(service, bot, clock).run_once() == 0
    async with running_bot(api, db_file) as restarted:
        assert await poster(restarted, bot, clock).run_once() == 0
        assert len(daily_posts_in(api, group)) == 1
        # the next day, once more
        clock.at(9, 0, DAY + dt.timedelta(days=1))
        assert await poster(restarted, bot, clock).run_once() == 1
        assert len(daily_posts_in(api, group)) == 2

        refused = await command(api, member, group, "/unsubscribe")
        assert refused.text.startswith("Only an administrator")
        await command(api, admin, group, "/unsubscribe")
        assert await restarted.subscriptions.all() == []


async def test_a_post_missed_while_the_bot_was_down_is_made_when_it_comes_back_the_same_day(
        api: FakeBotAPI, db_file: str, bot: Bot) -> None:
    group = api.group("Club")
    async with running_bot(api, db_file) as service:
        await service.subscriptions.subscribe("telegram", str(group.id), community=str(group.id), locale="en")
        # the bot was down from 08:00 to 17:30: it starts at 17:30, and the run's first round catches up
        clock = at(17, 30)
        stop = asyncio.Event()
        runner = poster(service, bot, clock)
        task = asyncio.create_task(runner.run(stop))
        await api.wait_until(lambda: len(daily_posts_in(api, group)) == 1, what="the catch-up post")
        stop.set()
        await task
        assert daily_posts_in(api, group)[0].text.startswith("Daily deal · November 29, 2026")
        # a day that ended while the bot was down is not posted late: at 08:00 the next day nothing is due
        clock.at(8, 0, DAY + dt.timedelta(days=1))
        assert await runner.run_once() == 0
        assert runner.seconds_to_next_round() == 60  # it looks again within a minute


async def test_flood_control_is_waited_out_and_the_post_still_made(api: FakeBotAPI, db_file: str, bot: Bot) -> None:
    group = api.group("Club")
    async with running_bot(api, db_file) as service:
        await service.subscriptions.subscribe("telegram", str(group.id), community=str(group.id), locale="en")
        api.fail_next(group, retry_after=7, count=2, method="sendMessage")
        clock = at(9, 0)
        assert await poster(service, bot, clock).run_once() == 1
        assert clock.slept == [7, 7]  # waited as asked, twice, on the poster's clock
        assert len(daily_posts_in(api, group)) == 1
        refused = [r for r in api.calls("sendMessage", chat=group) if not r.ok]
        assert len(refused) == 2


async def test_many_groups_are_posted_within_telegrams_limits(api: FakeBotAPI, db_file: str, bot: Bot) -> None:
    groups = [api.group(f"Club {n}") for n in range(45)]
    async with running_bot(api, db_file) as service:
        for group in groups:
            await service.subscriptions.subscribe("telegram", str(group.id), community=str(group.id), locale="en")
        clock = at(9, 0)
        times: list[float] = []
        original = api._m_send_message

        async def timed(params: Any) -> Any:
            times.append(clock().timestamp())
            return await original(params)

        api._m_send_message = timed  # type: ignore[method-assign]
        assert await poster(service, bot, clock).run_once() == 45
        assert all(len(daily_posts_in(api, group)) == 1 for group in groups)
        # never more than 30 sends in any one second
        assert max(sum(1 for t in times if start <= t < start + 1) for start in times) <= 30
        assert clock.slept, "45 posts cannot all go out in the same second"


async def test_the_rate_limiter_keeps_to_20_a_minute_per_group() -> None:
    clock = at(9, 0)
    limiter = RateLimiter(clock, clock.sleep, overall=(30, 1.0), per_chat=(20, 60.0))
    times = []
    for _ in range(25):
        await limiter.wait("-100")
        times.append(clock().timestamp())
    assert times[19] - times[0] < 1 and times[20] - times[0] >= 60
    assert all(sum(1 for t in times if start <= t < start + 60) <= 20 for start in times)


async def test_two_posters_on_one_database_post_once(api: FakeBotAPI, db_file: str, bot: Bot) -> None:
    group = api.group("Club")
    async with running_bot(api, db_file) as service, running_bot(api, db_file) as other:
        await service.subscriptions.subscribe("telegram", str(group.id), community=str(group.id), locale="en")
        clock = at(9, 5)
        sent = await asyncio.gather(poster(service, bot, clock).run_once(), poster(other, bot, clock).run_once())
        assert sorted(sent) == [0, 1]
        assert len(daily_posts_in(api, group)) == 1


# --- claims, on both databases -----------------------------------------------------------------------------------


@pytest.fixture
async def clean(service: App) -> App:
    async with service.db.transaction() as tx:
        await tx.execute(delete(daily_subscriptions))
    return service


async def test_a_claim_is_taken_once_and_a_dead_processs_claim_after_its_lease(clean: App) -> None:
    service = clean
    await service.subscriptions.subscribe("telegram", "-1", community="-1", locale="en")
    (sub,) = await service.subscriptions.all()
    now = dt.datetime(2026, 11, 29, 9, tzinfo=dt.UTC)
    lease = dt.timedelta(minutes=10)
    assert await service.subscriptions.claim(sub.id, DAY, now, lease)
    assert not await service.subscriptions.claim(sub.id, DAY, now + dt.timedelta(minutes=1), lease)
    # the claiming process died before marking it sent: after the lease another takes it over, once
    later = now + dt.timedelta(minutes=11)
    assert await service.subscriptions.claim(sub.id, DAY, later, lease)
    assert not await service.subscriptions.claim(sub.id, DAY, later, lease)
    assert [s.id for s in await service.subscriptions.unsent(DAY, ("telegram",))] == [sub.id]
    await service.subscriptions.finish(sub.id, DAY, later, message_id="5")
    assert await service.subscriptions.unsent(DAY, ("telegram",)) == []
    assert not await service.subscriptions.claim(sub.id, DAY, later + dt.timedelta(hours=1), lease)
    assert await service.subscriptions.claim(sub.id, DAY + dt.timedelta(days=1), later, lease)  # another day


# --- the leaderboard -----------------------------------------------------------------------------------------------


async def play(service: App, who: str, line: list[Action] | tuple[Action, ...], *, board: str | None,
               hint: bool = False) -> GameSnapshot:
    player = PlayerKey("telegram", who)
    snapshot = await service.starts.new_daily_game(player, who, DAY, chat_id=board, community=board)
    if hint:
        snapshot = await act(service, player, who, game_command(snapshot.game_id, snapshot.version, "h"))
    for action in line:
        snapshot = await act(service, player, who, game_command(snapshot.game_id, snapshot.version, str(action)))
    return snapshot


async def test_the_leaderboard_counts_each_players_first_attempt_finished_or_not(service: App) -> None:
    service.daily_codes.clock = at(12)
    win = winning_line(CODE)
    poor = blocking_line(CODE)
    group, other = "-100", "-200"
    alice = await play(service, "alice", win, board=group, hint=True)
    assert alice.game.status is Status.WON and alice.hints_used == 1
    await play(service, "bob", win, board=group)
    # carol's attempt ends blocked; starting the daily again gives a replay that ranks nowhere, even won
    carol = await play(service, "carol", poor, board=group)
    assert carol.game.status is Status.BLOCKED
    carol_key = PlayerKey("telegram", "carol")
    await act(service, carol_key, "carol", game_command(carol.game_id, carol.version, "n"))  # leaves the board
    replay = await service.starts.new_daily_game(carol_key, "carol", DAY, community=group)
    assert replay.daily is None and replay.practice_of == DAY
    await play(service, "dave", win, board=other)  # another group's board
    await play(service, "erin", win, board=None)  # a private chat first: erin's attempt is on no board
    fred = await service.starts.new_daily_game(PlayerKey("telegram", "fred"), "fred", DAY, community=group)  # still playing

    board = await service.leaderboards.of("telegram", group, DAY)
    assert [(r.name, r.score, r.won, r.hinted, r.finished) for r in board] == [
        ("bob", alice.game.score, True, False, True),
        ("alice", alice.game.score, True, True, True),
        ("carol", carol.game.score, False, False, True),
        ("fred", fred.game.score, False, False, False),  # never played: its 500 is no result, after every played one
    ]
    assert [r.name for r in await service.leaderboards.of("telegram", other, DAY)] == ["dave"]
    assert await service.leaderboards.of("discord", group, DAY) == []  # boards are per platform
    assert await service.leaderboards.of("telegram", group, DAY + dt.timedelta(days=1)) == []


def test_won_goes_first_then_score_then_fewer_hints_fewer_undos_and_the_shorter_time_shown() -> None:
    t = dt.datetime(2026, 11, 29, 12, tzinfo=dt.UTC)

    def result(name: str, score: int, *, won: bool = True, hints: int = 0, undos: int = 0,
               seconds: float = 60, minute: int = 0) -> DailyResult:
        return DailyResult(name, name, score, 40, won, hints=hints, undos=undos, seconds=seconds,
                           finished_at=t + dt.timedelta(minutes=minute))

    results = [result("slow", 700, seconds=75), result("undone", 700, undos=2), result("quick", 700, seconds=50,
                                                                                     minute=9),
               result("best", 720, undos=9), result("helped", 760, hints=1), result("lost", 900, won=False),
               result("helped-more", 760, hints=2)]
    assert [r.name for r in rank(results)] == ["helped", "helped-more", "best", "quick", "slow", "undone", "lost"]


async def test_leaderboard_command_in_a_group_and_in_a_private_chat(api: FakeBotAPI, db_file: str) -> None:
    """In a group: the group's leaderboard, with Play under it (as under the daily post). In a private chat: the
    player's own place among everyone who played today on this bot, naming nobody; not played yet: how many have,
    and Play."""
    alice = api.user("Alice")
    group = api.group("Club", members=[alice])
    monkey_today = pytest.MonkeyPatch()
    monkey_today.setattr(daily, "today", lambda now=None: DAY)
    try:
        async with running_bot(api, db_file) as service:
            empty = await command(api, alice, group, "/leaderboard")
            assert "Nobody here has finished today's deal yet" in empty.text
            assert empty.buttons == [("Play", encode(PlayDaily(DAY)))]
            bob = api.user("Bob")
            nobody = await command(api, bob, api.private_chat(bob), "/leaderboard")
            assert "Nobody has played today's daily deal yet" in nobody.text
            assert nobody.buttons == [("Play", encode(PlayDaily(DAY)))]
            # alice taps Play under the day's post in the group and wins
            snapshot = await service.starts.new_daily_game(PlayerKey("telegram", str(alice.id)), "Alice", DAY,
                                                    chat_id=str(group.id), community=str(group.id))
            for action in winning_line(CODE):
                snapshot = await act(service, PlayerKey("telegram", str(alice.id)), "Alice", game_command(snapshot.game_id, snapshot.version, str(action)))
            board = await command(api, alice, group, "/leaderboard")
            assert f"1. Alice\n  score {snapshot.game.score} · {snapshot.game.moves} moves · " in board.text
            assert board.buttons == [("Play", encode(PlayDaily(DAY)))]
            private = await command(api, alice, api.private_chat(alice), "/leaderboard")
            assert private.text == "Daily leaderboard · Nov 29, 2026\nYour place today: 1 of 1 player"
            # Bob has not played: how many have, and Play; no name
            unplayed = await command(api, bob, api.private_chat(bob), "/leaderboard")
            assert "1 player has played today's daily deal" in unplayed.text and "Alice" not in unplayed.text
            assert unplayed.buttons == [("Play", encode(PlayDaily(DAY)))]
    finally:
        monkey_today.undo()


async def test_the_daily_play_button_counts_the_game_on_the_groups_board(api: FakeBotAPI, db_file: str) -> None:
    alice = api.user("Alice")
    group = api.group("Club", members=[alice])
    monkey_today = pytest.MonkeyPatch()
    monkey_today.setattr(daily, "today", lambda now=None: DAY)
    try:
        async with running_bot(api, db_file) as service:
            await command(api, alice, group, "/daily")
            current = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
            assert current is not None and current.daily == DAY and str(current.game.code) == CODE
            for action in winning_line(CODE):
                current = await act(service, PlayerKey("telegram", str(alice.id)), "Alice", game_command(current.game_id, current.version, str(action)))
            assert [r.name for r in await service.leaderboards.of("telegram", str(group.id), DAY)] == ["Alice"]
    finally:
        monkey_today.undo()


# --- the share line ------------------------------------------------------------------------------------------------


def test_a_finished_daily_game_ends_with_a_spoiler_free_share_line() -> None:
    game = Game.from_code(CODE)
    for action in winning_line(CODE):
        game.push(action)
    line = share_line(DAY, game, False, "en")
    assert line == f"TriPeaks daily 2026-11-29: score {game.score}, peaks 3/3 ⛰⛰⛰"  # the day, not its code
    assert not set("♠♥♦♣") & set(line)
    snapshot = GameSnapshot(1, 60, PlayerKey("telegram", "1"), "a", game, daily=DAY, hints_used=2)
    shared = share_text(snapshot, "en", replay="https://t.me/tripeaks_bot?start=x1_daily")
    assert shared == (f"TriPeaks daily 2026-11-29: score {game.score}, peaks 3/3 ⛰⛰⛰ · with hints\n"
                      "Play this deal: https://t.me/tripeaks_bot?start=x1_daily")
    assert share_text(snapshot, "en", replay=None) == f"TriPeaks daily 2026-11-29: score {game.score}, peaks 3/3 ⛰⛰⛰ · with hints"
    # the finished board offers it as a button rather than a line to copy
    labels = [b.label for row in render_game(snapshot, "en", Settings()).buttons for b in row]
    assert labels[0] == "Share" and "Share" not in (render_game(snapshot, "en", Settings()).status or "")
    blocked = Game.from_code(CODE)
    for action in blocking_line(CODE):
        blocked.push(action)
    uk = share_line(DAY, blocked, False, "uk")
    assert uk.startswith(f"TriPeaks, щоденна роздача 2026-11-29: рахунок {blocked.score}, очищено вершин: ")
    assert not set("♠♥♦♣") & set(uk)
    # a game not over yet has nothing to share
    fresh = GameSnapshot(1, 0, PlayerKey("telegram", "1"), "a", Game.from_code(CODE), daily=DAY)
    assert render_game(fresh, "en", Settings()).status is None
    assert "Share" not in [b.label for row in render_game(fresh, "en", Settings()).buttons for b in row]



async def test_a_private_standing_ranks_everyone_on_the_deployment_and_names_nobody(service: App) -> None:
    """Three players won, lost and never moved on two platforms; each looks from a private chat: their place among
    those who played (a started attempt without a move is no result), and the share they are ahead of."""
    async def attempt(player: PlayerKey, line: tuple[Action, ...]) -> int:
        snapshot = await service.starts.new_daily_game(player, player.user_id, community="g1")
        for action in line:
            snapshot = await act(service, player, player.user_id,
                                 game_command(snapshot.game_id, snapshot.version, str(action)))
        return snapshot.game.score

    service.daily_codes.clock = at(12)
    ann, bea, lost, idle = (PlayerKey("telegram", "ann"), PlayerKey("discord", "bea"), PlayerKey("discord", "lost"),
                            PlayerKey("telegram", "idle"))
    scores = {ann: await attempt(ann, winning_line(CODE)), bea: await attempt(bea, another_winning_line(CODE))}
    assert scores[ann] != scores[bea]
    first, second = sorted(scores, key=scores.__getitem__, reverse=True)  # both won: the higher score first
    await attempt(lost, tuple(blocking_line(CODE)))
    await attempt(idle, ())
    day = service.daily_codes.today()
    standings = [await service.leaderboards.standing(player, day) for player in (first, second, lost, idle)]
    assert [(s.place, s.players) for s in standings] == [(1, 3), (2, 3), (3, 3), (None, 3)]
    (answer,) = await service.flow.handle(Actor(second, second.user_id), ShowLeaderboard())
    assert isinstance(answer, Answer) and isinstance(answer.content, LeaderboardOf)  # privately: for them only
    view = draw(answer.content, "en")
    assert view.status == "Your place today: 2 of 3 players\nYou are ahead of 33% of them"
    assert first.user_id not in f"{view.header}\n{view.status}"


async def test_each_post_gives_yesterdays_code_and_how_it_went_in_the_group(
        api: FakeBotAPI, db_file: str, bot: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    """The day after: the post names the day before's deal by its code (public now: anyone can replay it) with the
    group's result, and never today's code."""
    today, yesterdays_code, todays_code = DAY + dt.timedelta(days=1), CODE, "TP1-E-AAAAAAB"
    monkeypatch.setattr(daily, "daily_code",
                        lambda day, secret: GameCode.parse(yesterdays_code if day == DAY else todays_code))
    monkeypatch.setattr(daily, "today", lambda now=None: DAY)
    admin, alice = api.user("Ada"), api.user("Alice")
    group = api.group("Club", members=[alice], admins=[admin])
    quiet = api.group("Quiet", members=[], admins=[admin])
    async with running_bot(api, db_file) as service:
        await command(api, admin, group, "/subscribe")
        await command(api, admin, quiet, "/subscribe")
        player = PlayerKey("telegram", str(alice.id))
        snapshot = await service.starts.new_daily_game(player, "Alice", DAY, chat_id=str(group.id),
                                                       community=str(group.id))
        for action in winning_line(CODE):
            snapshot = await act(service, player, "Alice", game_command(snapshot.game_id, snapshot.version,
                                                                        str(action)))
        clock = at(9, 0, day=today)
        assert await poster(service, bot, clock, recap=service.leaderboards.recap).run_once() == 2
        (post,) = daily_posts_in(api, group)
        assert f"Yesterday's deal: {yesterdays_code}" in post.text and todays_code not in post.text
        assert f"1 player here, best: {snapshot.game.score} (Alice)" in post.text
        assert post.buttons == [("Play", encode(PlayDaily(today)))]
        (elsewhere,) = daily_posts_in(api, quiet)
        assert f"Yesterday's deal: {yesterdays_code}" in elsewhere.text and "Nobody here played it" in elsewhere.text
