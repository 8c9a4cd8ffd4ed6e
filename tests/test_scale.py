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
from bot.app.commands import Actor, Begin, DealByCode, Move
from bot.app.effects import Answer
from bot.app.model import PlayerKey
from bot.store.database import open_database
from bot.store.migrate import upgrade_database
from core.game import Action, Draw, Game
from tests.conftest import PostgresServer
from tests.test_service import WIN_CODE, win_game

pytestmark = pytest.mark.postgres

REPO = Path(__file__).resolve().parent.parent
CODE = "TP1-E-AAAAAAC"
PLAYER = PlayerKey("telegram", "42")
DAY = dt.date(2026, 11, 29)

# One bot process: it acts on the game until it is over (choosing from the game as stored, retrying when the other
# process got there first), and runs one round of daily posts whose executor prints what it posts.
PROCESS = """
import asyncio, datetime as dt, sys
from bot.app.codec import game_command
from bot.app.daily_posts import DailyPoster
from bot.app.model import PlayerKey
from bot.app.outcomes import OutOfDate
from bot.app.assembly import App
from bot.app.commands import Actor, Begin, DealByCode, Move
from bot.app.effects import Answer, PostedTo, Sent
from bot.store.database import open_database
from core.deal import GameCode
from core.game import Draw, Tap
from tests.app_helpers import act

url, game_id, name, day = sys.argv[1], int(sys.argv[2]), sys.argv[3], dt.date.fromisoformat(sys.argv[4])

class PrintingExecutor:
    async def run(self, effects):
        for post in effects:
            print("post", post.chat_id, name, flush=True)
        return [PostedTo(post.chat_id, Sent("1")) for post in effects]

async def the_code(day):
    return GameCode.parse(sys.argv[5])

async def main():
    async with App(await open_database(url, migrate=False), owns_database=True) as service:
        poster = DailyPoster(service.subscriptions, the_code, {"telegram": lambda locale: PrintingExecutor()}, post_time=dt.time(9, 0),
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


def two_processes(script: str, *args: str) -> list[list[str]]:
    """Run ``script`` in two processes at once, named first and second (``{name}`` in ``args``); the words of every
    line they printed, once both ended well."""
    children = [
        subprocess.Popen([sys.executable, "-c", script, *(arg.format(name=name) for arg in args)], cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
        for name in ("first", "second")
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (_, errors) in zip(children, outputs, strict=True):
        assert child.returncode == 0, errors
    return [line.split() for out, _ in outputs for line in out.splitlines()]


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

    lines = two_processes(PROCESS, url.render_as_string(hide_password=False), str(game_id), "{name}",
                          DAY.isoformat(), CODE)
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



# One bot process's taps through the one door (issue 38): Share, then Review of a finished game, then No or Yes under
# a question, each tap started when both processes are ready (a barrier on a file), each printing what it did.
TAPS = """
import asyncio, os, sys, time
from pathlib import Path
from bot.app.assembly import App
from bot.app.commands import Actor, Begin, DealByCode, Move
from bot.app.effects import Answer, Problem
from bot.app.commands import Actor, ConfirmStart, DealByCode, KeepPlaying, Review, Share
from bot.store.database import open_database
from bot.app.model import PlayerKey

url, finished, playing, name, barrier = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], Path(sys.argv[5])
actor = Actor(PlayerKey("telegram", "42"), "Ann")

async def together(step):
    (barrier / f"{step}-{name}").touch()
    while len(list(barrier.glob(f"{step}-*"))) < 2:
        await asyncio.sleep(0.001)

async def main():
    async with App(await open_database(url, migrate=False), owns_database=True) as app:
        for step, command in enumerate((Share(finished), Review(finished))):
            await together(step)
            effects = await app.flow.handle(actor, command)  # a second tap only says so: no post, no review
            acted = [e for e in effects if not (isinstance(e, Answer) and isinstance(e.content, Problem))]
            print(type(command).__name__, len(acted), flush=True)
        await together(2)
        # the first process answers No, the second Yes, right after: the game goes on
        if name == "first":
            await app.flow.handle(actor, KeepPlaying(playing))
            (barrier / "kept").touch()
        else:
            while not (barrier / "kept").exists():
                await asyncio.sleep(0.001)
            print("Yes", len(await app.flow.handle(actor, ConfirmStart(playing, DealByCode("TP1-E-AAAAAAB")))),
                  flush=True)

asyncio.run(main())
"""


async def test_two_processes_receiving_the_two_taps_act_once(shared_database: URL, tmp_path: Path) -> None:
    """Issue 38: a double-tapped Share and Review reaching two bot processes act once, and No in one process then
    Yes in the other keeps the game, as the database says, not each process's memory."""

    url = shared_database
    await upgrade_database(url)
    async with App(await open_database(url, migrate=False), owns_database=True) as service:
        finished = await win_game(service, PLAYER)
        playing = (await service.starts.new_game(PLAYER, "Ann", code=CODE)).game_id
        await service.moves.move(PLAYER, "Ann", Move(playing, 0, Draw()))  # a move: starting over asks first
        (asked,) = await service.flow.handle(Actor(PLAYER, "Ann"), Begin(DealByCode(WIN_CODE)))
        assert isinstance(asked, Answer)  # the question, its Yes and No to come from the two processes

    said = two_processes(TAPS, url.render_as_string(hide_password=False), str(finished), str(playing), "{name}",
                         str(tmp_path))
    assert sorted(int(n) for kind, n in said if kind == "Share") == [0, 1]  # one post
    assert sorted(int(n) for kind, n in said if kind == "Review") == [0, 1]  # one review
    assert [int(n) for kind, n in said if kind == "Yes"] == [0]  # Yes after No in another process: nothing
    async with App(await open_database(url, migrate=False), owns_database=True) as service:
        current = await service.games.current_game(PLAYER)
        assert current is not None and current.game_id == playing and not current.abandoned
