"""The table's buttons on Telegram, end to end (the real bot on the fake Bot API): with PUBLIC_URL, a game in a
private chat has an "Open the board" ``web_app`` button and the bot's menu button opens the table; in a group (where
Telegram allows no ``web_app`` button) the Mini App's direct link, when its short name is set; without PUBLIC_URL
no table button at all."""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters
from __future__ import annotations

import json
from typing import Any

import pytest

from core.game import Game, Tap
from tests.fakes.telegram_bot_api import FakeBotAPI, StoredMessage
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    NEW,
    api,
    command,
    data_for,
    db_url,
    fitting,
    no_errors_logged,
    running_bot,
    tap,
)

pytestmark = pytest.mark.timeout(120)

PUBLIC_URL = "https://tripeaks.example.org"


def table_buttons(message: StoredMessage) -> list[dict[str, Any]]:
    rows = (message.reply_markup or {}).get("inline_keyboard", [])
    return [button for row in rows for button in row if "web_app" in button or "url" in button]


async def test_a_private_game_opens_the_table_in_the_app(api: FakeBotAPI, db_url: str,
                                                         no_errors_logged: None) -> None:
    async with running_bot(api, db_url, public_url=PUBLIC_URL):
        alice = api.user("Alice")
        chat = api.private_chat(alice)
        message = await command(api, alice, chat, f"{NEW} {CODE}")
        assert table_buttons(message) == [{"text": "Open the board", "web_app": {"url": f"{PUBLIC_URL}/"}}]
        assert (message.reply_markup or {})["inline_keyboard"][-1] == table_buttons(message)  # a row of its own
        _, edited = await tap(api, alice, chat, message, data_for(message, Tap(fitting(Game.from_code(CODE)))))
        assert table_buttons(edited) == table_buttons(message)  # still there after a tap
        (menu,) = api.calls("setChatMenuButton")
        button = json.loads(menu.params["menu_button"]) if isinstance(menu.params["menu_button"], str) \
            else menu.params["menu_button"]
        # one menu button for every private chat: a label of no language
        assert button == {"type": "web_app", "text": "🃏 TriPeaks", "web_app": {"url": f"{PUBLIC_URL}/"}}


@pytest.mark.parametrize("mini_app", ["table", None])
async def test_a_group_game_links_to_the_mini_app(api: FakeBotAPI, db_url: str, no_errors_logged: None,
                                                  mini_app: str | None) -> None:
    async with running_bot(api, db_url, public_url=PUBLIC_URL, telegram_mini_app=mini_app):
        alice = api.user("Alice")
        group = api.group(members=[alice])
        message = await command(api, alice, group, f"{NEW} {CODE}")
        expected = [] if mini_app is None else [
            {"text": "Open the board", "url": f"https://t.me/{api.bot_username}/table?startapp=play"}]
        assert table_buttons(message) == expected


async def test_without_a_public_url_there_is_no_table_button(api: FakeBotAPI, db_url: str,
                                                             no_errors_logged: None) -> None:
    async with running_bot(api, db_url):
        alice = api.user("Alice")
        message = await command(api, alice, api.private_chat(alice), f"{NEW} {CODE}")
        assert table_buttons(message) == []
        assert api.calls("setChatMenuButton") == []


async def test_a_move_at_the_table_redraws_the_chats_board(api: FakeBotAPI, db_url: str, no_errors_logged: None,
                                                           ) -> None:
    from aiohttp.test_utils import TestClient, TestServer

    from bot.adapters.web.auth import Signer
    from bot.adapters.web.server import TableServer
    from tests.web_harness import init_data_header

    async with running_bot(api, db_url, public_url=PUBLIC_URL) as service:
        alice = api.user("Alice")
        chat = api.private_chat(alice)
        message = await command(api, alice, chat, f"{NEW} {CODE}")
        assert "Moves: 0" in message.text
        server = TableServer(service.flow, Signer(b"s" * 32), telegram_token=api.token)
        slot = fitting(Game.from_code(CODE))
        async with TestClient(TestServer(server.application())) as client:
            headers = init_data_header(alice.id, name="Alice", token=api.token)
            board = (await (await client.get("/api/table", headers=headers)).json())["board"]
            played = await client.post("/api/act", headers=headers,
                                       json={"payload": f"tp:g:{board['game']}:{board['version']}:{slot}"})
            assert played.status == 200
            await api.wait_until(lambda: "Moves: 1" in api.message(chat, message.message_id).text,
                                 what="the chat's board to show the table's move")
            await server.stop()
        edited = api.message(chat, message.message_id)
        assert "Score: 499" in edited.text and table_buttons(edited) == table_buttons(message)
