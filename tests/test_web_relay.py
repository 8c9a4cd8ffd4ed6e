"""One game everywhere across processes, end to end: two services on one database (a SQLite file, PostgreSQL), as
two bot processes behind one proxy. Process A serves the table and runs no chat platform; process B runs Telegram
(the real python-telegram-bot Application on the fake Bot API) and delivers the outbox. A move at the table in A
redraws the Telegram board via B, once, with the game as it stands; a challenge ended at the table in A tells its
challenger via B, once; and `tripeaks run` itself delivers the outbox."""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.engine import URL

from bot.adapters.telegram.app import CONTEXT_KEY
from bot.adapters.telegram.executor import outbox_executor
from bot.adapters.web.auth import Signer
from bot.adapters.web.server import TableServer
from bot.app.assembly import App
from bot.app.commands import Actor, Begin
from bot.app.model import PlayerKey
from bot.render.endings import challenge_of
from bot.store.database import open_database
from core.game import DRAW, Game, Tap
from tests import test_telegram_e2e
from tests.conftest import fake_hint, fake_verdict
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_service import BLOCK_CODE, play
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    NEW,
    api,
    command,
    fitting,
    no_errors_logged,
    running_bot,
    text_boards,
)
from tests.web_harness import init_data_header

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parent.parent


@contextlib.asynccontextmanager
async def table_process(url: str, api: FakeBotAPI) -> AsyncIterator[tuple[TestClient[Any, Any], TableServer]]:
    """Process A: a service on the database at ``url`` serving the table (Telegram's Mini App), running no chat
    platform: its moves reach the chats through the outbox."""
    db = await open_database(url, migrate=False)
    with ThreadPoolExecutor(2) as executor:
        service = App(db, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict)
        server = TableServer(service.flow, Signer(b"s" * 32), telegram_token=api.token)
        try:
            async with TestClient(TestServer(server.application())) as client:
                yield client, server
        finally:
            await server.stop()
            await service.close()
            await db.close()


@pytest.fixture
def telegram_apps(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The Telegram Applications the bot processes of the test build, for their outbox's executor."""
    built: list[Any] = []
    build = test_telegram_e2e.build_application
    monkeypatch.setattr(test_telegram_e2e, "build_application",
                        lambda flow, config, pace: built.append(build(flow, config, pace)) or built[-1])
    yield built


@contextlib.asynccontextmanager
async def relaying(service: App, application: Any) -> AsyncIterator[None]:
    """Process B's outbox loop, as the runner starts it, until the block ends."""
    stop = asyncio.Event()
    executor = outbox_executor(application.bot_data[CONTEXT_KEY], application.bot)
    loop = asyncio.create_task(service.outbox.run({"telegram": executor}, stop))
    try:
        yield
    finally:
        stop.set()
        await loop


async def post(client: TestClient[Any, Any], headers: dict[str, str], payload: str) -> dict[str, Any]:
    answer = await client.post("/api/act", headers=headers, json={"payload": payload})
    assert answer.status == 200, await answer.text()
    return dict(await answer.json())


def plain(url: URL) -> str:
    return url.render_as_string(hide_password=False)


async def test_a_move_at_the_table_of_another_process_redraws_the_chats_board_once(
        api: FakeBotAPI, db_url: URL, telegram_apps: list[Any], no_errors_logged: None) -> None:
    async with running_bot(api, plain(db_url), outbox=False) as chat_process, table_process(plain(db_url), api) as (table, server):
        alice = api.user("Alice")
        chat = api.private_chat(alice)
        message = await command(api, alice, chat, f"{NEW} {CODE}")
        assert "Moves: 0" in message.text
        headers = init_data_header(alice.id, name="Alice", token=api.token)
        board = (await (await table.get("/api/table", headers=headers)).json())["board"]
        game = Game.from_code(CODE)
        for _ in range(2):  # two moves before process B looks: one redraw, of the second
            slot = fitting(game)
            board = (await post(table, headers, f"tp:g:{board['game']}:{board['version']}:{slot}"))["board"]
            game.apply(Tap(slot))
        async with relaying(chat_process, telegram_apps[0]):
            await api.wait_until(lambda: "Moves: 2" in api.message(chat, message.message_id).text,
                                 what="the chat's board to show the table's two moves")
        assert api.message(chat, message.message_id).edit_count == 1
        assert len(api.calls("editMessageText", chat=chat)) == 1
        assert await chat_process.outbox.undelivered() == []  # nothing left for anyone


async def test_a_challenge_ended_at_the_table_of_another_process_tells_the_challenger_once(
        api: FakeBotAPI, db_url: URL, telegram_apps: list[Any], no_errors_logged: None) -> None:
    async with running_bot(api, plain(db_url), outbox=False) as chat_process, table_process(plain(db_url), api) as (table, server):
        ann, bob = api.user("Ann"), api.user("Bob")
        ann_chat = api.private_chat(ann)
        await command(api, ann, ann_chat, f"{NEW} {BLOCK_CODE}")
        ann_key, bob_key = PlayerKey("telegram", str(ann.id)), PlayerKey("telegram", str(bob.id))
        shared = await chat_process.games.current_game(ann_key)
        assert shared is not None
        await play(chat_process, ann_key, shared.game_id, shared.version, [DRAW] * 23)
        challenge = challenge_of(await chat_process.challenges.signed(await chat_process.games.game(shared.game_id)))
        assert challenge is not None
        await chat_process.flow.handle(Actor(bob_key, "Bob", chat_id=str(bob.id)), Begin(challenge))
        told_before = len(api.bot_messages(ann_chat))
        async with relaying(chat_process, telegram_apps[0]):
            headers = init_data_header(bob.id, name="Bob", token=api.token)
            board = (await (await table.get("/api/table", headers=headers)).json())["board"]
            while not board["over"]:
                board = (await post(table, headers, f"tp:g:{board['game']}:{board['version']}:d"))["board"]
            await api.wait_until(lambda: len(api.bot_messages(ann_chat)) > told_before,
                                 what="Ann to be told how her challenge went")
        (told,) = api.bot_messages(ann_chat)[told_before:]
        assert told.text.startswith("You vs Bob") and "with Bob" in told.text  # Ann's own challenge, Bob's answer
        assert await chat_process.outbox.undelivered() == []


async def test_the_bot_process_carries_out_the_table_moves_of_another_process(tmp_path: Path) -> None:
    """`tripeaks run` as an operator starts it (Telegram only, no table of its own) redraws the board of a move made
    at the table of another process on its database: the runner delivers the outbox."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"
    async with FakeBotAPI() as api:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "PUBLIC_URL", "WEB_"))}
        env |= {"TELEGRAM_TOKEN": api.token, "TELEGRAM_API_URL": api.base_url, "DATABASE_URL": database,
                "PYTHONPATH": str(REPO)}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, start_new_session=True)
        try:
            alice = api.user("Alice")
            chat = api.private_chat(alice)
            message = await api.send_text(alice, chat, f"{NEW} {CODE}").reply(timeout=60)
            assert "Moves: 0" in message.text
            async with table_process(database, api) as (table, _):
                headers = init_data_header(alice.id, name="Alice", token=api.token)
                board = (await (await table.get("/api/table", headers=headers)).json())["board"]
                slot = fitting(Game.from_code(CODE))
                await post(table, headers, f"tp:g:{board['game']}:{board['version']}:{slot}")
            await api.wait_until(lambda: "Moves: 1" in api.message(chat, message.message_id).text,
                                 what="the bot process to redraw the board moved at the other process's table")
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 128 + signal.SIGTERM and "Traceback" not in err.decode()
    assert api.message(chat, message.message_id).edit_count == 1


async def test_a_board_whose_place_was_never_recorded_is_sent_anew_and_recorded(
        api: FakeBotAPI, db_url: URL, no_errors_logged: None) -> None:
    """A process that died between sending a game's board and recording where it is (``Flow.record`` comes after
    the platform's answer) leaves the game with no live board: the next move at the table sends the board anew in
    the game's chat and records it, so the chat does not lose the game; the next one edits that message."""
    async with running_bot(api, plain(db_url)) as service, table_process(plain(db_url), api) as (table, _):
        alice = api.user("Alice")
        chat = api.private_chat(alice)
        started = await service.starts.new_game(PlayerKey("telegram", str(alice.id)), "Alice", code=CODE,
                                                chat_id=str(alice.id))
        assert started.board is None
        headers = init_data_header(alice.id, name="Alice", token=api.token)
        board = (await (await table.get("/api/table", headers=headers)).json())["board"]
        game = Game.from_code(CODE)
        slot = fitting(game)
        game.apply(Tap(slot))
        board = (await post(table, headers, f"tp:g:{board['game']}:{board['version']}:{slot}"))["board"]
        await api.wait_until(lambda: any("Moves: 1" in m.text for m in api.bot_messages(chat)),
                             what="the board sent anew in the chat")
        (sent,) = api.bot_messages(chat)
        recorded = await service.games.game(started.game_id)
        for _ in range(600):  # recorded once the platform answered
            if recorded.board is not None:
                break
            await asyncio.sleep(0.1)
            recorded = await service.games.game(started.game_id)
        assert recorded.board is not None and recorded.board.message_id == str(sent.message_id)
        await post(table, headers, f"tp:g:{board['game']}:{board['version']}:d")
        await api.wait_until(lambda: "Moves: 2" in api.message(chat, sent.message_id).text,
                             what="the recorded board edited")
        assert len(api.bot_messages(chat)) == 1
