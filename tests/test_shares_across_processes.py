"""A player's share of new solver questions holds across processes (issue 53): two App instances on one database
(as two processes of a deployment: Discord shards, a Telegram webhook behind a load balancer) give a player one
share, not two, and one question at a time."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy.engine import URL

from bot.app.assembly import App
from bot.app.codec import decode
from bot.app.commands import Actor, AskHint, Surface
from bot.app.effects import Answer, EditBoard, Problem
from bot.app.errors import OneAtATime, TryAgainIn
from bot.app.model import PlayerKey
from bot.app.questions import BURST
from bot.store.database import open_database
from tests.conftest import fake_hint, fake_verdict

ANN = PlayerKey("telegram", "7")
BOB = PlayerKey("telegram", "8")


@pytest.fixture
async def two_processes(db_url: URL) -> AsyncIterator[tuple[App, App]]:
    first, second = await open_database(db_url), await open_database(db_url)
    with ThreadPoolExecutor(2) as executor:
        async with App(first, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                       hint_budget=30, owns_database=True) as one, \
                App(second, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                    hint_budget=30, owns_database=True) as other:
            yield one, other


async def hint_then_draw(app: App, player: PlayerKey) -> list[object]:
    """Ask a hint on the player's game as it stands, then draw (the next hint is a new question)."""
    game = await app.games.current_game(player)
    assert game is not None
    actor, surface = Actor(player, "Ann"), Surface(platform=player.platform)
    answered = await app.flow.handle(actor, AskHint(game.game_id, game.version), surface)
    await app.flow.handle(actor, decode(f"tp:g:{game.game_id}:{game.version}:d"), surface)
    return list(answered)


async def test_two_processes_give_a_player_one_share_of_new_questions(two_processes: tuple[App, App]) -> None:
    one, other = two_processes
    await one.starts.new_game(ANN, "Ann")
    answers = [await hint_then_draw((one, other)[turn % 2], ANN) for turn in range(BURST + 1)]
    assert all(isinstance(answer[0], EditBoard) for answer in answers[:BURST])  # 3 in each process
    (refused,) = answers[BURST]  # each process's own share has 3 left: the deployment's has none
    assert isinstance(refused, Answer) and isinstance(refused.content, Problem)
    assert isinstance(refused.content.error, TryAgainIn)
    await other.starts.new_game(BOB, "Bob")  # another player's share is his own
    assert isinstance((await hint_then_draw(other, BOB))[0], EditBoard)


async def test_a_question_answered_in_one_process_holds_the_players_turn_in_the_other(
        two_processes: tuple[App, App]) -> None:
    """Ann's review is being worked out through one process; her hint asked through the other meanwhile is one
    question too many (as it would be in one process), and is answered once the review is done."""
    one, other = two_processes
    answering, done = asyncio.Event(), threading.Event()
    loop = asyncio.get_running_loop()

    async def slow_answer() -> str:
        answering.set()
        await loop.run_in_executor(None, done.wait)
        return "reviewed"

    asking = asyncio.create_task(one.questions.ask(ANN, ("review", 1), slow_answer))
    try:
        await answering.wait()
        with pytest.raises(OneAtATime):
            await other.questions.ask(ANN, ("hint", 2, 0), _answered)
        assert await other.questions.ask(BOB, ("hint", 3, 0), _answered) == "answered"  # Bob is not held by Ann
    finally:
        done.set()
    assert await asking == "reviewed"
    assert await other.questions.ask(ANN, ("hint", 2, 0), _answered) == "answered"


async def _answered() -> str:
    return "answered"
