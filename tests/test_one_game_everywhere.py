"""One game everywhere (issue 49, point 3), end to end on the real python-telegram-bot against the fake Bot API
with Telegram's flood control: quick moves at the table reach the chat board as one edit of the game as it stands
(never a replay of moves), and a game started at the table closes the chat's old board and shows the new game in the
chat, through the outbox."""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters
from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.telegram.pacing import TELEGRAM_PACE
from bot.adapters.web.auth import Signer
from bot.adapters.web.server import TableServer
from bot.app.codec import encode
from bot.app.commands import NewGame
from bot.app.model import PlayerKey
from tests.fakes.telegram_bot_api import FakeBotAPI, FloodLimits
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    HANDLED,
    NEW,
    command,
    db_url,
    no_errors_logged,
    running_bot,
    text_boards,
)
from tests.web_harness import init_data_header

pytestmark = pytest.mark.timeout(120)

#: Quick moves at the table, and how soon the chat's board shows the last of them (issue 49: 6 s).
QUICK_MOVES = 14
CATCH_UP = 6.0


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI(flood_control=FloodLimits()) as server:
        yield server


async def post(client: TestClient[Any, Any], headers: dict[str, str], payload: str) -> dict[str, Any]:
    answer = await client.post("/api/act", headers=headers, json={"payload": payload})
    assert answer.status == 200, await answer.text()
    return dict(await answer.json())


def moves_shown(text: str) -> int:
    found = re.search(r"Moves: (\d+)", text)
    assert found is not None, text
    return int(found.group(1))


async def test_quick_moves_at_the_table_reach_the_chat_board_as_the_game_stands(
        api: FakeBotAPI, db_url: str, no_errors_logged: None) -> None:
    async with running_bot(api, db_url, pace=TELEGRAM_PACE) as service:
        alice = api.user("Alice")
        chat = api.private_chat(alice)
        message = await command(api, alice, chat, f"{NEW} {CODE}")
        server = TableServer(service.flow, Signer(b"s" * 32), telegram_token=api.token)
        async with TestClient(TestServer(server.application())) as table:
            headers = init_data_header(alice.id, name="Alice", token=api.token)
            board = (await (await table.get("/api/table", headers=headers)).json())["board"]
            edits_before = len(api.calls("editMessageText", chat=chat))
            for _ in range(QUICK_MOVES):  # Draws, as fast as the table answers
                board = (await post(table, headers, f"tp:g:{board['game']}:{board['version']}:d"))["board"]
            assert board["version"] == QUICK_MOVES
            await api.wait_until(lambda: f"Moves: {QUICK_MOVES}" in api.message(chat, message.message_id).text,
                                 timeout=CATCH_UP, what="the chat's board to show the table's last move")
        edits = [call for call in api.calls("editMessageText", chat=chat)[edits_before:] if call.ok]
        shown = [moves_shown(str(call.params["text"])) for call in edits]
        # the game as it stands each time, never a replay of the moves one by one
        assert shown == sorted(set(shown)) and len(shown) < QUICK_MOVES and shown[-1] == QUICK_MOVES
        assert api.flood_refusals(chat) == []


async def test_a_game_started_at_the_table_closes_the_chats_board_and_shows_the_new_one(
        api: FakeBotAPI, db_url: str, no_errors_logged: None) -> None:
    async with running_bot(api, db_url, pace=TELEGRAM_PACE) as service:
        alice = api.user("Alice")
        chat = api.private_chat(alice)
        old = await command(api, alice, chat, f"{NEW} {CODE}")
        assert any(label == "Draw" or "Draw" in label for label, _ in old.buttons)
        server = TableServer(service.flow, Signer(b"s" * 32), telegram_token=api.token)
        async with TestClient(TestServer(server.application())) as table:
            headers = init_data_header(alice.id, name="Alice", token=api.token)
            board = (await (await table.get("/api/table", headers=headers)).json())["board"]
            board = (await post(table, headers, f"tp:g:{board['game']}:{board['version']}:d"))["board"]
            asked = await post(table, headers, encode(NewGame(board["game"], board["version"])))  # 🆕: asked first
            (yes,) = [button["payload"] for button in asked["message"]["buttons"]
                      if button["payload"].startswith("tp:y:")]
            started = (await post(table, headers, yes))["board"]
            assert started["game"] != board["game"]

            def new_board() -> list[Any]:
                return [m for m in api.bot_messages(chat) if m.message_id != old.message_id and "Moves: 0" in m.text]

            await api.wait_until(lambda: len(new_board()) == 1 and not any(
                "Draw" in label for label, _ in api.message(chat, old.message_id).buttons),
                timeout=30, what="the old board closed and the new game shown in the chat")
        (shown,) = new_board()
        assert any("Draw" in label for label, _ in shown.buttons)
        current = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
        assert current is not None and current.game_id == started["game"]
        for _ in range(300):  # recorded as the new game's live board once Telegram answered
            current = await service.games.game(started["game"])
            if current.board is not None:
                break
            await asyncio.sleep(0.1)
        assert current.board is not None and current.board.message_id == str(shown.message_id)


async def test_resume_leaves_one_live_board(api: FakeBotAPI, db_url: str, no_errors_logged: None) -> None:
    """/resume shows the game in progress as a new message and closes its older board (no buttons of a game in
    progress left on it), so one board of the game is live."""
    async with running_bot(api, db_url) as service:
        alice = api.user("Alice")
        chat = api.private_chat(alice)
        old = await command(api, alice, chat, f"{NEW} {CODE}")
        resumed = await command(api, alice, chat, "/resume")
        assert resumed.message_id != old.message_id and any("Draw" in label for label, _ in resumed.buttons)
        await api.wait_until(lambda: not api.message(chat, old.message_id).buttons, what="the older board closed")
        assert "Moves: 0" in api.message(chat, old.message_id).text
        current = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
        assert current is not None and current.board is not None
        assert current.board.message_id == str(resumed.message_id)
