"""One chat board edited by two processes (two Apps on one database, each a Telegram webhook process behind a
balancer) ends on the game as it stands, whichever edit reaches Telegram last: process A's edit of the game
before a move can arrive after process B's edit of the move, and the board is then drawn again. With no move
elsewhere, each tap edits the board once.

End to end: the real python-telegram-bot Applications on the fake Bot API, each update posted to the process
chosen, on SQLite and PostgreSQL. On Discord (the real bot on SimCord, SQLite) a board the outbox redraws whose
edit a tap's own response overtook is drawn again; with no move meanwhile it is edited once."""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
from sqlalchemy.engine import URL

from bot.adapters.discord.executor import DiscordExecutor, outbox_executor
from bot.adapters.telegram.pacing import TELEGRAM_PACE
from bot.app.assembly import App
from bot.app.codec import encode
from bot.app.commands import AskHint
from bot.app.model import BoardRef, PlayerKey
from bot.render.view import View
from core.game import DRAW, Game
from tests.discord_harness import button, click, shows, text_of
from tests.fakes.telegram_bot_api import FakeBotAPI, FakeChat, FakeUser, RecordedRequest, UpdateHandle
from tests.test_discord_e2e import game_service, table  # noqa: F401 - the fixture is used by name
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    HANDLED,
    NEW,
    SECRET,
    api,
    data_for,
    free_port,
    game_of,
    no_errors_logged,
    running_bot,
    text_boards,
)
from tests.test_telegram_pacing import version_in

pytestmark = pytest.mark.timeout(120)

#: How many taps the common case makes, alternating between the processes.
TAPS = 6


@pytest.fixture
async def processes(api: FakeBotAPI, db_url: URL, no_errors_logged: None) -> AsyncIterator[tuple[str, str]]:
    """Two bot processes on one database, each taking Telegram's updates at its own webhook address (the test posts
    each update to one of them, as a balancer would), at the bot's production pace."""
    async with AsyncExitStack() as stack:
        urls = []
        for _ in range(2):
            port = free_port()
            url = f"http://127.0.0.1:{port}/telegram/hook"
            await stack.enter_async_context(running_bot(
                api, db_url.render_as_string(hide_password=False), pace=TELEGRAM_PACE, telegram_webhook_url=url,
                telegram_webhook_secret=SECRET, telegram_webhook_listen="127.0.0.1", telegram_webhook_port=port))
            urls.append(url)
        yield urls[0], urls[1]


async def handled_by(api: FakeBotAPI, url: str, update: UpdateHandle) -> None:
    """Post ``update`` to the process at ``url``; returns once that process has handled it completely."""
    delivery = await api.post_update_to(url, update, secret_token=SECRET)
    assert delivery.status == 200, delivery
    await api.wait_until(lambda: update.update_id in HANDLED, what=f"update {update.update_id} handled")


def board_edits(api: FakeBotAPI, chat: FakeChat, message_id: int) -> list[RecordedRequest]:
    """Every edit of the board asked of Telegram (whether or not it changed the message), in the order received."""
    return [r for r in api.calls("editMessageText", chat=chat) if r.params.get("message_id") == message_id]


async def started(api: FakeBotAPI, url: str, user: FakeUser, chat: FakeChat) -> int:
    """A new game's board, sent by the process at ``url``: its message id."""
    await handled_by(api, url, api.send_text(user, chat, f"{NEW} {CODE}", queue=False))
    (board,) = api.bot_messages(chat)
    return board.message_id


async def test_an_edit_overtaken_by_another_processs_newer_edit_is_drawn_again(
        api: FakeBotAPI, processes: tuple[str, str]) -> None:
    """A hint answered through process A and a Draw through process B: A's edit (the game before the Draw, with
    its hint) reaches Telegram after B's edit of the Draw; the board is drawn again, at the game as it stands."""
    one, other = processes
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await started(api, one, alice, chat)
    game_id, version = game_of(api.message(chat, board))

    held = api.hold_next("editMessageText", chat=chat)  # A's edit takes longer on its way than B's
    hint = api.press(alice, chat, board, encode(AskHint(game_id, version)), queue=False)
    delivery = await api.post_update_to(one, hint, secret_token=SECRET)
    assert delivery.status == 200
    await held.arrived.wait()
    await handled_by(api, other, api.press(alice, chat, board, data_for(api.message(chat, board), DRAW),
                                           queue=False))
    assert game_of(api.message(chat, board)) == (game_id, version + 1)  # B's edit: the Draw
    held.release()
    await api.wait_until(lambda: hint.update_id in HANDLED, what="the hint handled")
    assert held.request is not None and held.request.ok
    assert version_in(held.request.params["reply_markup"]) == version  # A's edit drew the game before the Draw
    await api.wait_until(lambda: len(board_edits(api, chat, board)) == 3 and board_edits(api, chat, board)[-1].done,
                         what="the board drawn again after the edit that came late")
    assert game_of(api.message(chat, board)) == (game_id, version + 1)
    # in the order they arrived: A's (held, then applied over B's), B's, and A's again, all applied
    edits = board_edits(api, chat, board)
    assert edits[0] is held.request and all(r.ok for r in edits)
    assert [version_in(r.params["reply_markup"]) for r in edits] == [version, version + 1, version + 1]


async def test_with_no_move_elsewhere_each_tap_edits_the_board_once(
        api: FakeBotAPI, processes: tuple[str, str]) -> None:
    """Taps one after another, through either process: each edits the board once (the check after each edit, that
    the game did not move elsewhere, sends nothing), and the board shows every tap."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await started(api, processes[0], alice, chat)
    game_id, version = game_of(api.message(chat, board))
    for tap in range(TAPS):
        press = api.press(alice, chat, board, data_for(api.message(chat, board), DRAW), queue=False)
        await handled_by(api, processes[tap % 2], press)
        assert game_of(api.message(chat, board)) == (game_id, version + tap + 1)
    edits = board_edits(api, chat, board)
    assert len(edits) == TAPS and all(r.ok for r in edits)


# --- Discord: a board the outbox redraws (the tap's own response is Discord's to order) --------------------------


async def redrawn_by_the_outbox(service: App, monkeypatch: pytest.MonkeyPatch, *, move_meanwhile: bool
                                ) -> tuple[list[View], Any, Game]:
    """Alice's Discord board redrawn through the outbox (as after a start at the table); with ``move_meanwhile``
    she taps Draw on the board (an interaction another process may answer) while that edit is on its way, so
    her tap's own response reaches Discord first. The edits the outbox's executor made, the board as it ends, and
    the game as it stands."""
    game = Game.from_code(CODE)
    async with table(service, monkeypatch) as t:
        board = await t.new_game()
        current = await service.games.current_game(PlayerKey("discord", str(t.alice.id)))
        assert current is not None
        await service.outbox.ask_boards([(current.game_id, None)], None)
        edits: list[View] = []
        edit = DiscordExecutor.edit

        async def late_edit(executor: DiscordExecutor, where: BoardRef, view: View) -> bool:
            edits.append(view)
            if move_meanwhile and len(edits) == 1:
                await click(t.env, t.alice, board, button(board, command=str(DRAW)))
                game.apply(DRAW)
                assert shows(t.message(board.id), game)  # the tap's own response: the Draw
            return await edit(executor, where, view)

        monkeypatch.setattr(DiscordExecutor, "edit", late_edit)
        assert await service.outbox.deliver({"discord": outbox_executor(t.env.bot.ctx)}) == 1
        return edits, t.message(board.id), game


async def test_a_discord_board_the_outbox_redraws_is_drawn_again_when_a_tap_overtook_its_edit(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    edits, board, game = await redrawn_by_the_outbox(game_service, monkeypatch, move_meanwhile=True)
    assert len(edits) == 2  # the outbox's edit of the game before the Draw landed last: drawn again
    assert shows(board, game) and "Moves: 1" in text_of(board)


async def test_a_discord_board_the_outbox_redraws_with_no_move_meanwhile_is_edited_once(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    edits, board, game = await redrawn_by_the_outbox(game_service, monkeypatch, move_meanwhile=False)
    assert len(edits) == 1 and shows(board, game) and "Moves: 0" in text_of(board)
