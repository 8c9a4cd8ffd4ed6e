"""Several bot processes on one PostgreSQL database: two real processes act on one game and make one daily post
at the same time; no acknowledged action is lost, none is applied twice, and the post is made once."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import URL

from bot.app.assembly import App
from bot.app.model import PlayerKey
from bot.store.database import open_database
from bot.store.migrate import upgrade_database
from core.game import Action, Game
from tests.conftest import PostgresServer

pytestmark = pytest.mark.postgres

REPO = Path(__file__).resolve().parent.parent
CODE = "TP1-E-AAAAAAC"
PLAYER = PlayerKey("telegram", "42")
DAY = dt.date(2026, 11, 29)

# One bot process: it acts on the game until it is over (choosing from the game as stored, retrying when the other
# process got there first), and runs one round of daily posts whose sender prints what it sends.
PROCESS = """
import asyncio, datetime as dt, sys
from bot.app.codec import game_command
from bot.app.daily_posts import DailyPoster
from bot.app.model import PlayerKey
from bot.app.outcomes import OutOfDate
from bot.app.assembly import App
from bot.store.database import open_database
from core.deal import GameCode
from core.game import Draw, Tap
from tests.app_helpers import act

url, game_id, name, day = sys.argv[1], int(sys.argv[2]), sys.argv[3], dt.date.fromisoformat(sys.argv[4])

class PrintingSender:
    platform = "telegram"
    async def send_daily(self, channel_id, view):
        print("post", channel_id, name, flush=True)
        return "1"

async def the_code(day):
    return GameCode.parse(sys.argv[5])

async def main():
    async with App(await open_database(url, migrate=False), owns_database=True) as service:
        poster = DailyPoster(service.subscriptions, the_code, [PrintingSender()], post_time=dt.time(9, 0),
                             clock=lambda: dt.datetime.combine(day, dt.time(9, 30), tzinfo=dt.UTC))
        posting = asyncio.create_task(poster.run_once())
        player = PlayerKey("telegram", "42")
        while True:
            snapshot = await service.games.game(game_id)
            game = snapshot.game
            if game.is_over:
                break
            fitting = [s for s in game.playable_slots() if game.fits(s)]
            action = Tap(fitting[0]) if fitting else Draw()
            done = await act(service, player, "Ann", game_command(game_id, snapshot.version, str(action)))
            if isinstance(done, OutOfDate):
                continue
            if done.outcome is None or not done.outcome.ok:
                continue  # a card from a board the other process had moved on from, no longer legal: refused
            print("ack", done.version, action, flush=True)
        await posting

asyncio.run(main())
"""


@pytest.fixture
def shared_database(postgres_server: PostgresServer) -> Iterator[URL]:
    url = postgres_server.create_database("scale")
    yield url
    postgres_server.drop_database(url)


async def test_two_processes_share_one_game_and_one_daily_post(shared_database: URL) -> None:
    url = shared_database
    await upgrade_database(url)
    async with App(await open_database(url, migrate=False), owns_database=True) as service:
        game_id = (await service.starts.new_game(PLAYER, "Ann", code=CODE)).game_id
        assert await service.subscriptions.subscribe("telegram", "-100", community="-100", locale="en")

    argv = [url.render_as_string(hide_password=False), str(game_id)]
    children = [
        subprocess.Popen([sys.executable, "-c", PROCESS, *argv, name, DAY.isoformat(), CODE], cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
        for name in ("first", "second")
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (_, errors) in zip(children, outputs, strict=True):
        assert child.returncode == 0, errors

    lines = [line.split() for out, _ in outputs for line in out.splitlines()]
    acks = sorted((int(version), action) for kind, version, action in (ln for ln in lines if ln[0] == "ack"))
    posts = [ln for ln in lines if ln[0] == "post"]

    # every acknowledged action has its own version: none was applied twice, none against an old state
    versions = [version for version, _ in acks]
    assert versions == list(range(1, len(acks) + 1))
    # the stored game is exactly the acknowledged actions replayed in order: nothing lost
    async with App(await open_database(url, migrate=False), owns_database=True) as service:
        stored = await service.games.game(game_id)
        assert stored.version == len(acks)
        replay = Game.from_code(CODE)
        for _, action in acks:
            assert replay.apply(Action.parse(action)).ok
        assert stored.game.to_text() == replay.to_text()
        assert stored.game.is_over
        # one post between the two processes, and it is recorded as sent
        assert len(posts) == 1 and posts[0][1] == "-100"
        assert await service.subscriptions.unsent(DAY, ("telegram",)) == []

