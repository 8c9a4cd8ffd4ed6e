"""Faults survived, each on real parts:

- PostgreSQL connections killed under load (``pg_terminate_backend``): the service reconnects, answers the taps
  that follow, and every acknowledged action is in the database.
- SQLite locked by another process (an external connection holding ``BEGIN EXCLUSIVE``): taps wait for the lock
  and are all applied; past the busy timeout a tap gets a clear error, changes nothing, and the next one works.
- The Bot API failing for a while (500s, 429, timeouts), through python-telegram-bot over HTTP against the fake
  server: the long poll's updates are not lost, and the bot catches up; the daily poster sends to other chats while
  one times out, retries passing faults a bounded number of times, gives up a chat only when the chat is gone, and
  takes a 400 about the message as no reason to drop the chat's post.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import select as io_select
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy import select
from sqlalchemy.engine import URL
from sqlalchemy.exc import OperationalError
from telegram import Bot
from telegram.request import HTTPXRequest

from bot.app import daily
from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.daily_posts import MAX_ATTEMPTS, DailyPoster
from bot.app.model import GameSnapshot, PlayerKey
from bot.store import engine as engine_module
from bot.store.database import open_database
from bot.store.schema import daily_posts
from core.deal import GameCode
from tests.app_helpers import act
from tests.conftest import _asyncpg_dsn, fake_hint, fake_verdict
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_daily import executors
from tests.test_telegram_e2e import HANDLED, running_bot

pytestmark = pytest.mark.timeout(120)

CODE = "TP1-E-AAAAAAC"
DAY = dt.date(2026, 11, 29)


async def open_service(url: URL | str) -> App:
    db = await open_database(url, migrate=False)
    return App(db, owns_database=True, executor=ThreadPoolExecutor(2), hint_function=fake_hint,
                       verdict_function=fake_verdict)


class Player:
    """A player drawing and undoing in turn, who knows which of their actions were acknowledged."""

    def __init__(self, service: App, number: int) -> None:
        self.service = service
        self.key = PlayerKey("telegram", str(9000 + number))
        self.name = f"p{number}"
        self.shown: GameSnapshot | None = None  # what the player last saw: an answer, or the game re-read
        self.acknowledged = 0
        self.failed = 0

    async def start(self) -> None:
        self.shown = await self.service.starts.new_game(self.key, self.name, code=CODE)

    async def tap(self) -> None:
        assert self.shown is not None
        word = "d" if self.shown.game.stock_left and self.acknowledged % 2 == 0 else "u"
        try:
            self.shown = await act(self.service, self.key, self.name,
                                                game_command(self.shown.game_id, self.shown.version, word))
            self.acknowledged += 1
        except Exception:  # the connection died under this tap: no answer, so the player looks again
            self.failed += 1
            await asyncio.sleep(0.05)
            with_current = await self._reread()
            if with_current is not None:
                self.shown = with_current

    async def _reread(self) -> GameSnapshot | None:
        try:
            return await self.service.games.current_game(self.key)
        except Exception:
            return None


# --- PostgreSQL: connections killed --------------------------------------------------------------------------------


async def terminate_connections(url: URL) -> int:
    admin = await asyncpg.connect(_asyncpg_dsn(url))
    try:
        rows = await admin.fetch("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                 "WHERE datname = $1 AND pid <> pg_backend_pid()", url.database)
    finally:
        await admin.close()
    return len(rows)


@pytest.mark.postgres
async def test_postgresql_connections_killed_under_load(postgres_migrated: URL) -> None:
    service = await open_service(postgres_migrated)
    try:
        players = [Player(service, n) for n in range(6)]
        for player in players:
            await player.start()
        # idle pooled connections killed: the very next tap reconnects (the pool pings before use)
        assert await terminate_connections(postgres_migrated) >= 1
        await players[0].tap()
        assert players[0].acknowledged == 1 and players[0].failed == 0

        stop = asyncio.Event()
        kills = 0

        async def killer() -> None:
            """Kill the connections again and again while the players play, until five rounds killed some and
            the players had more than 20 actions acknowledged meanwhile."""
            nonlocal kills
            rounds = 0
            while not stop.is_set():
                await asyncio.sleep(0.25)  # the pace of the kills; the taps go on in between
                killed = await terminate_connections(postgres_migrated)
                kills += killed
                rounds += killed > 0
                if rounds >= 5 and sum(p.acknowledged for p in players) > 20:
                    stop.set()

        async def playing(player: Player) -> None:
            while not stop.is_set():
                await player.tap()

        tasks = [asyncio.create_task(killer())] + [asyncio.create_task(playing(p)) for p in players]
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=90)
        assert kills >= 5
        # after the last kill every player's next tap is answered
        before = [p.acknowledged for p in players]
        for player in players:
            await player.tap()
        assert [p.acknowledged for p in players] == [b + 1 for b in before]
    finally:
        await service.close()

    # every acknowledged action is in the database: each stored game is what its player was last shown
    check = await open_service(postgres_migrated)
    try:
        for player in players:
            stored = await check.games.current_game(player.key)
            assert stored is not None and player.shown is not None
            assert stored.version == player.shown.version
            assert stored.game.to_text() == player.shown.game.to_text()
            assert stored.version >= player.acknowledged  # one version an action
    finally:
        await check.close()
    assert sum(p.acknowledged for p in players) > 20


# --- SQLite: locked by another process -----------------------------------------------------------------------------

HOLD_LOCK = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
print("unlocking", flush=True)
connection.execute("COMMIT")
"""


def hold_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path), str(seconds)], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    return holder


@pytest.fixture
def sqlite_file(sqlite_template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "games.db"
    shutil.copyfile(sqlite_template, path)
    return path


async def test_sqlite_locked_by_another_process_for_a_few_seconds(sqlite_file: Path) -> None:
    service = await open_service(f"sqlite+aiosqlite:///{sqlite_file}")
    try:
        players = [Player(service, n) for n in range(4)]
        for player in players:
            await player.start()
        holder = hold_lock(sqlite_file, 2.5)
        await asyncio.gather(*(player.tap() for player in players))
        # the taps were answered after the holder began to let go: they waited for the lock (the holder says
        # "unlocking" before its COMMIT, so the line is already there)
        assert holder.stdout is not None and io_select.select([holder.stdout], [], [], 0)[0], "the taps did not wait"
        assert holder.stdout.readline() == "unlocking\n"
        holder.wait(timeout=30)
        assert [p.acknowledged for p in players] == [1, 1, 1, 1] and not any(p.failed for p in players)
    finally:
        await service.close()
    check = await open_service(f"sqlite+aiosqlite:///{sqlite_file}")
    try:
        for player in players:
            stored = await check.games.current_game(player.key)
            assert stored is not None and stored.game.moves == 1
    finally:
        await check.close()


async def test_sqlite_locked_past_the_busy_timeout_is_a_clear_error_and_nothing_half_done(
        sqlite_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_module, "SQLITE_BUSY_TIMEOUT_MS", 500)
    service = await open_service(f"sqlite+aiosqlite:///{sqlite_file}")
    try:
        player = Player(service, 1)
        await player.start()
        assert player.shown is not None
        holder = hold_lock(sqlite_file, 3)
        with pytest.raises(OperationalError, match="locked"):
            await act(service, player.key, player.name, game_command(player.shown.game_id, player.shown.version, "d"))
        holder.wait(timeout=30)
        current = await service.games.current_game(player.key)
        assert current is not None and current.game.moves == 0  # the refused tap changed nothing
        await player.tap()  # the lock is gone: the same tap again is applied
        assert player.acknowledged == 1
    finally:
        await service.close()


# --- the Bot API failing for a while ------------------------------------------------------------------------------


@pytest.fixture
def db_file(sqlite_file: Path) -> str:
    return f"sqlite+aiosqlite:///{sqlite_file}"


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI() as server:
        yield server


async def test_the_long_poll_failing_for_a_while_loses_no_update(api: FakeBotAPI, db_file: str) -> None:
    players = [api.user(f"Player {n}") for n in range(3)]
    chats = [api.private_chat(player) for player in players]
    async with running_bot(api, db_file) as service:
        messages = []
        for player, chat in zip(players, chats, strict=True):
            handle = api.send_text(player, chat, f"/tripeaks {CODE}")
            messages.append(await handle.reply(timeout=30))
        # Telegram has a bad minute: getUpdates answers 500, 502, then 429 (retry after 1 s)
        api.inject_error("getUpdates", error_code=500, description="Internal Server Error", count=2,
                         polling=True)
        api.inject_error("getUpdates", error_code=502, description="Bad Gateway", polling=True)
        api.inject_error("getUpdates", error_code=429, description="Too Many Requests: retry after 1",
                         retry_after=1, polling=True)
        # the long poll in flight returns with a message; the polls after it fail, and meanwhile the players tap
        api.send_text(players[0], chats[0], "/help")
        await api.wait_until(lambda: any(r.status == 500 for r in api.calls("getUpdates")), timeout=30,
                             what="the first failed long poll")
        presses = []
        for player, chat, message in zip(players, chats, messages, strict=True):
            draw = next(data for _, data in sum(message.keyboard, []) if data.endswith(":d"))
            presses.append(api.press(player, chat, message.message_id, draw))
        # the bot catches up: every press answered once, every message edited, every draw stored once
        for press in presses:
            await press.answer(timeout=30)
            await press.edited(timeout=30)
        failed_polls = [r for r in api.calls("getUpdates") if r.status and r.status >= 400]
        assert len(failed_polls) == 4
        for player in players:
            stored = await service.games.current_game(PlayerKey("telegram", str(player.id)))
            assert stored is not None and stored.game.moves == 1
        assert api.pending_updates() == []


# --- the daily poster --------------------------------------------------------------------------------------------


class Clock:
    """The poster's clock and sleep: sleeping moves the clock on at once (HTTP timeouts stay real)."""

    def __init__(self) -> None:
        self.now = dt.datetime.combine(DAY, dt.time(9, 0), tzinfo=dt.UTC)
        self.slept: list[float] = []

    def __call__(self) -> dt.datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += dt.timedelta(seconds=seconds)
        await asyncio.sleep(0)


@pytest.fixture
def pinned_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daily, "daily_code", lambda day, secret: GameCode.parse(CODE))


@pytest.fixture
async def poster_bot(api: FakeBotAPI) -> AsyncIterator[Bot]:
    """The poster's Bot API client, with a short read timeout so that a slow answer is a timeout here."""
    client = Bot(api.token, base_url=api.base_url, request=HTTPXRequest(read_timeout=0.5, connect_timeout=2))
    async with client:
        yield client


async def post_status(service: App) -> dict[int, tuple[str, str | None]]:
    async with service.db.engine.connect() as connection:
        rows = (await connection.execute(select(daily_posts.c.subscription_id, daily_posts.c.status,
                                                daily_posts.c.error))).all()
    return {row.subscription_id: (row.status, row.error) for row in rows}


def daily_posts_in(api: FakeBotAPI, chat: Any) -> list[Any]:
    return [m for m in api.bot_messages(chat) if any(data and data.startswith("tp:daily:") for _, data in m.buttons)]


async def test_the_daily_poster_survives_timeouts_5xx_429_and_tells_a_gone_chat_from_a_bad_message(
        api: FakeBotAPI, db_file: str, poster_bot: Bot, pinned_code: None) -> None:
    slow, flaky, limited, blocked, refused, *fine = [api.group(f"Club {n}") for n in range(10)]
    service = await open_service(db_file)
    try:
        ids = {}
        for group in (slow, flaky, limited, blocked, refused, *fine):
            await service.subscriptions.subscribe("telegram", str(group.id), community=str(group.id), locale="en")
        for subscription in await service.subscriptions.all():
            ids[int(subscription.channel_id)] = subscription.id
        api.delay_next("sendMessage", chat=slow, seconds=3, count=2)  # two timeouts, then it goes through
        api.inject_error("sendMessage", chat=flaky, error_code=500, description="Internal Server Error", count=2)
        api.fail_next(limited, retry_after=3, method="sendMessage")
        api.set_member_status(blocked, None, "kicked")  # the bot was removed from the group
        api.inject_error("sendMessage", chat=refused, description="Bad Request: message text is empty")
        clock = Clock()
        poster = DailyPoster(service.subscriptions, service.daily_codes.code, executors(service, poster_bot), post_time=dt.time(9, 0),
                             clock=clock,
                             sleep=clock.sleep)
        order: list[int] = []
        original = api._m_send_message

        async def noted(params: Any) -> Any:
            result = await original(params)
            order.append(int(params["chat_id"]))
            return result

        api._m_send_message = noted  # type: ignore[method-assign]
        assert await poster.run_once() == 8  # all but the blocked group and the refused message
        # the slow group did not hold up the others: they were posted while it was still timing out
        assert order.index(slow.id) > max(order.index(group.id) for group in fine[:3])
        for group in (slow, flaky, limited, *fine):
            assert len(daily_posts_in(api, group)) == 1, group.title
        status = await post_status(service)
        assert status[ids[blocked.id]][0] == "failed"  # the chat is gone: given up for the day
        assert ids[refused.id] not in status  # a 400 about the message: released, not given up
        assert 3 in clock.slept  # the 429's pause was waited out
        # the next round makes the refused group's post
        assert await poster.run_once() == 1
        assert len(daily_posts_in(api, refused)) == 1
        assert daily_posts_in(api, blocked) == []
    finally:
        await service.close()


async def test_a_chat_failing_every_time_gets_a_bounded_number_of_tries_a_round(
        api: FakeBotAPI, db_file: str, poster_bot: Bot, pinned_code: None) -> None:
    group = api.group("Club")
    service = await open_service(db_file)
    try:
        await service.subscriptions.subscribe("telegram", str(group.id), community=str(group.id), locale="en")
        api.inject_error("sendMessage", chat=group, error_code=502, description="Bad Gateway", count=100)
        clock = Clock()
        poster = DailyPoster(service.subscriptions, service.daily_codes.code, executors(service, poster_bot), post_time=dt.time(9, 0),
                             clock=clock,
                             sleep=clock.sleep)
        assert await poster.run_once() == 0
        assert len(api.calls("sendMessage", chat=group)) == MAX_ATTEMPTS
        assert await post_status(service) == {}  # released for the next round, not given up
        api._injected.clear()  # Telegram is back
        assert await poster.run_once() == 1
        assert len(daily_posts_in(api, group)) == 1
    finally:
        await service.close()



# --- a tap's two calls, and a send that timed out ------------------------------------------------------------------


async def test_a_tap_whose_answer_keeps_failing_still_gets_its_board_edited(api: FakeBotAPI, db_file: str) -> None:
    """answerCallbackQuery answers 500 every time (more often than the bot tries): only the toast is lost; the
    board is edited and the draw stored."""
    player = api.user("Toast")
    chat = api.private_chat(player)
    async with running_bot(api, db_file) as service:
        message = await api.send_text(player, chat, f"/tripeaks {CODE}").reply(timeout=30)
        draw = next(data for _, data in sum(message.keyboard, []) if data.endswith(":d"))
        api.inject_error("answerCallbackQuery", error_code=500, description="Internal Server Error", count=50)
        press = api.press(player, chat, message.message_id, draw)
        edited = await press.edited(timeout=30)
        assert "Score: 499" in edited.text
        await api.wait_until(lambda: press.update_id in HANDLED, timeout=30, what="the tap handled")
        stored = await service.games.current_game(PlayerKey("telegram", str(player.id)))
        assert stored is not None and stored.game.moves == 1


async def test_a_board_whose_send_timed_out_is_not_sent_twice(api: FakeBotAPI, db_file: str) -> None:
    """Telegram sent the board but its answer never came back in time: the bot does not send the board again (a
    second board of one game was seen), and it sends no apology for a message that may well have arrived."""
    player = api.user("Slow")
    chat = api.private_chat(player)
    async with running_bot(api, db_file):
        api.delay_next("sendMessage", chat=chat, seconds=8, answer_late=True)  # past the client's 5 s read timeout
        handle = api.send_text(player, chat, f"/tripeaks {CODE}")
        await api.wait_until(lambda: handle.update_id in HANDLED, timeout=60, what="the command handled")
        boards = api.bot_messages(chat)
        assert len(boards) == 1, [board.text for board in boards]
        assert CODE in boards[0].text
