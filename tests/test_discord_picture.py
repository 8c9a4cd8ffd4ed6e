"""The picture board on Discord, end to end (the real bot on SimCord): every player's default. The board's container
holds a media gallery showing the attached board.png (its description the board in words, for screen readers),
the header and status as text and the buttons as before; each tap edits the message with a new picture; the
board setting switches the live board to the code block and back."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.app.assembly import App
from bot.app.model import BoardStyle, GameSnapshot, PlayerKey, Settings
from bot.render.game import render_game
from bot.render.picture import draw_table
from bot.render.table import seen_table, table_alt
from core.game import DRAW, Game, Tap
from tests.discord_harness import (
    UPDATE_MESSAGE,
    button,
    click,
    components_of,
    open_service,
    slash,
    text_of,
)
from tests.test_discord_e2e import CODE, plain_label, table

MEDIA_GALLERY = 12


@pytest.fixture
async def game_service(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[App]:
    async with open_service(sqlite_template, tmp_path / "tripeaks.db", board=BoardStyle.PICTURE) as service:
        yield service


def galleries(message: Any) -> list[dict[str, Any]]:
    found = []
    stack = list(components_of(message))
    while stack:
        component = stack.pop(0)
        if component.get("type") == MEDIA_GALLERY:
            found.append(component)
        stack.extend(component.get("components") or [])
    return found


async def picture(message: Any) -> bytes:
    """The PNG the message's media gallery shows."""
    (attachment,) = message.attachments
    assert attachment.filename == "board.png"
    data: bytes = await attachment.read()
    return data


def expected_png(game: Game, settings: Settings = Settings()) -> bytes:  # noqa: B008 - frozen, never changed
    return draw_table(seen_table(game, four_colour=settings.four_colour))


async def test_a_new_game_shows_the_picture_in_its_container(game_service: App,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        (gallery,) = galleries(message)
        (item,) = gallery["items"]
        assert item["description"] == table_alt(seen_table(game), "en")
        assert "```" not in text_of(message)  # no code block beside the picture
        assert f"{CODE} · Easy\nScore: 500 · Moves: 0" in text_of(message)
        png = await picture(message)
        assert png == expected_png(game)
        assert Image.open(io.BytesIO(png)).size == (720, 353)

        # a tap edits the message with a new picture: the attachment replaced
        slot = next(s for s in game.playable_slots() if game.fits(s))
        tapped, sent = await click(t.env, t.alice, message, button(message, label=plain_label(game.card_at(slot))))
        assert sent.type == UPDATE_MESSAGE
        game.push(Tap(slot))
        assert await picture(tapped) == expected_png(game)
        assert len(galleries(tapped)) == 1 and len(tapped.attachments) == 1
        assert len(t.public_messages()) == 1


async def test_the_board_setting_switches_the_live_board_to_text_and_back(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        board = await t.new_game()
        board, _ = await click(t.env, t.alice, board, button(board, command="d"))
        panel, _ = await slash(t.env, t.alice, t.channel, "tripeaks settings")
        assert button(panel, label="✓ Picture")
        panel, sent = await click(t.env, t.alice, panel, button(panel, label="Text"))
        assert sent.type == UPDATE_MESSAGE and button(panel, label="✓ Text")
        settings = await game_service.players.get_settings(PlayerKey("discord", str(t.alice.id)))
        assert settings.board is BoardStyle.TEXT
        live = t.message(board.id)  # the live board, edited in place: the code block, no picture
        assert "```" in text_of(live) and galleries(live) == [] and live.attachments == []

        panel, _ = await click(t.env, t.alice, panel, button(panel, label="Picture"))
        panel, _ = await click(t.env, t.alice, panel, button(panel, label="Four colours: off"))
        assert button(panel, label="✓ Four colours: on")
        live = t.message(board.id)
        game = Game.from_code(CODE)
        game.push(DRAW)
        assert "```" not in text_of(live) and len(galleries(live)) == 1
        assert await picture(live) == expected_png(game, Settings(four_colour=True))
        snapshot = GameSnapshot(1, 1, PlayerKey("discord", str(t.alice.id)), "alice", game)
        assert render_game(snapshot, "en", Settings(four_colour=True)).table == seen_table(game, four_colour=True)
