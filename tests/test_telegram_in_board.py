"""Issue 44 in a Telegram private chat, end to end (the real Application against the fake Bot API): the settings and
a review open in the board's own message, in place of the board, and Back brings the board back, so nothing new is
posted under the board to push it off a phone's screen. The picture board's side (its caption, the picture kept, a
board style changed) is in tests/test_telegram_picture.py."""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters
from __future__ import annotations

import dataclasses

import pytest

from bot.app.assembly import App
from bot.app.codec import encode
from bot.app.commands import BackToBoard, BoardChoice, Review
from bot.app.model import BoardRef, BoardStyle
from bot.render import effects as drawn
from bot.render.endings import render_review
from bot.render.game import render_game
from bot.render.replies import render_settings
from core.deal import Rules
from core.game import Game, Tap
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    NEW,
    TEXT_BOARD,
    api,
    assert_all_answered,
    assert_shows,
    command,
    data_for,
    db_url,
    fitting,
    game_of,
    no_errors_logged,
    plain,
    service,
    tap,
    text_boards,
    typed_move,
)
from tests.test_telegram_lifecycle import board_with_a_move, current, player_of, won_board

pytestmark = pytest.mark.timeout(60)


async def test_review_shows_in_the_boards_message_and_back_restores_the_board(
        api: FakeBotAPI, service: App) -> None:
    """Review on a won board: the board's message shows the review with Back and the board's own buttons; no
    message is posted; Back shows the board as the game stands; Back tapped twice acts once."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    won = await won_board(api, alice, chat)
    won_id, _ = game_of(won)
    answer, shown = await tap(api, alice, chat, won, encode(Review(won_id)))
    assert answer.text is None and len(api.bot_messages(chat)) == 1
    snapshot = await service.games.game(won_id)
    review = render_review(snapshot, await service.advice.review(player_of(alice), won_id), "en")
    assert shown.text == plain(review)
    assert [label for label, _ in shown.buttons] == ["Back to the game", "Share", "Replay", "Review", "New game"]

    edits = shown.edit_count
    answer, back = await tap(api, alice, chat, shown, encode(BackToBoard(won_id)))
    assert answer.text is None and back.edit_count == edits + 1
    assert_shows(back, render_game(snapshot, "en", TEXT_BOARD))  # as it stands (the last move's toast said the rest)
    again, same = await tap(api, alice, chat, back, encode(BackToBoard(won_id)), check_button=False)
    assert again.text is None and same.edit_count == edits + 1  # the board already: nothing more
    _, reviewed = await tap(api, alice, chat, same, encode(Review(won_id)))  # Review again after Back
    assert reviewed.text == plain(review) and reviewed.edit_count == edits + 2
    assert len(api.bot_messages(chat)) == 1
    assert_all_answered(api)


async def test_typed_settings_open_in_a_finished_games_board(api: FakeBotAPI, service: App) -> None:
    """The board of a game just won is the one at the bottom of the chat: /settings opens there too, and Back
    shows the won board again with its own buttons."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    won = await won_board(api, alice, chat)
    won_id, _ = game_of(won)
    text, buttons = won.text, won.buttons  # the message object follows its edits
    replies, gone = await typed_move(api, alice, chat, "/settings")
    panel = api.message(chat, won.message_id)
    assert replies == [] and gone and len(api.bot_messages(chat)) == 1
    assert panel.text != text and panel.keyboard[0] == [("Back to the game", encode(BackToBoard(won_id)))]
    _, back = await tap(api, alice, chat, panel, encode(BackToBoard(won_id)))
    assert_shows(back, render_game(await service.games.game(won_id), "en", TEXT_BOARD))  # as it stands
    assert back.buttons == buttons
    assert_all_answered(api)


async def test_a_review_too_long_for_a_caption_is_a_new_message_as_before(
        api: FakeBotAPI, service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """A picture board's caption holds 1,024 characters: a review longer than that leaves the board as it is and
    comes as a new message under it, as before."""
    long_line = "A chain of cards. " * 70  # 1,260 characters
    real = drawn.render_review
    monkeypatch.setattr(drawn, "render_review", lambda snapshot, review, locale: dataclasses.replace(
        real(snapshot, review, locale), status=long_line))
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    await service.players.change_setting(player_of(alice), "Alice", BoardChoice(BoardStyle.PICTURE))
    won = await won_board(api, alice, chat)
    assert won.is_photo
    won_id, _ = game_of(won)
    edits = won.edit_count
    answer, unchanged = await tap(api, alice, chat, won, encode(Review(won_id)))
    assert answer.text is None and unchanged.edit_count == edits
    (_, posted) = api.bot_messages(chat)
    assert not posted.is_photo and long_line.strip() in posted.text
    assert [label for label, _ in posted.buttons] == ["Replay"]
    assert_all_answered(api)


async def test_typed_settings_open_in_the_live_board_and_a_choice_shows_after_back(
        api: FakeBotAPI, service: App) -> None:
    """/settings with a board in the chat: the board's message shows them and the typed command goes; a choice
    (classic deals) redraws them there; Back shows the board; /settings again does the same (no new message)."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await board_with_a_move(api, alice, chat)
    game_id, version = game_of(board)
    at_first = board.text
    for _ in range(2):
        replies, gone = await typed_move(api, alice, chat, "/settings")
        panel = api.message(chat, board.message_id)
        assert replies == [] and gone and len(api.bot_messages(chat)) == 1
        settings = await service.players.get_settings(player_of(alice))
        assert panel.text == plain(render_settings(settings, "en"))
        assert panel.keyboard[0] == [("Back to the game", encode(BackToBoard(game_id)))]
        _, panel = await tap(api, alice, chat, panel, "tp:set:rules:classic")
        assert (await service.players.get_settings(player_of(alice))).default_rules is Rules.CLASSIC
        assert panel.keyboard[0] == [("Back to the game", encode(BackToBoard(game_id)))]
        _, back = await tap(api, alice, chat, panel, encode(BackToBoard(game_id)))
        assert back.text == at_first and game_of(back) == (game_id, version)
    assert (await current(service, alice)).board == BoardRef(str(chat.id), str(board.message_id))
    assert_all_answered(api)


async def test_settings_without_a_board_here_are_a_message_of_their_own(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    settings = await command(api, alice, chat, "/settings")
    assert settings.text == "Settings" and [label for label, _ in settings.keyboard[0]] != ["Back to the game"]
    assert_all_answered(api)


async def test_a_board_button_tapped_while_the_settings_show_is_played(api: FakeBotAPI, service: App) -> None:
    """A card the player tapped on the board just before it showed the settings (their client still drew the
    board): the card is played and the message is the board again; the same card tapped twice so is played once,
    the board shown as the game stands, as on any board."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(board)
    game = Game.from_code(CODE)
    slot = fitting(game)
    card = data_for(board, Tap(slot))
    await typed_move(api, alice, chat, "/settings")
    answer, played = await tap(api, alice, chat, board, card, check_button=False)
    game.push(Tap(slot))
    assert answer.text is not None and answer.text.startswith("You played")
    assert game_of(played) == (game_id, 1) and len(api.bot_messages(chat)) == 1
    snapshot = await current(service, alice)
    assert snapshot.game.to_text() == game.to_text()

    await typed_move(api, alice, chat, "/settings")
    answer, shown = await tap(api, alice, chat, board, card, check_button=False)  # the same card, twice
    assert answer.text is None and game_of(shown) == (game_id, 1)
    assert (await current(service, alice)).version == 1
    assert_all_answered(api)


async def test_back_on_the_settings_of_a_game_since_replaced_never_takes_the_live_board(
        api: FakeBotAPI, service: App) -> None:
    """The settings shown on game A's board; the player starts game B: A's message is closed, and Back tapped there
    (their client still drew it) changes nothing: B's board stays the live one."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    old = await command(api, alice, chat, f"{NEW} {CODE}")
    old_id, _ = game_of(old)
    await typed_move(api, alice, chat, "/settings")
    new = await command(api, alice, chat, NEW)
    new_id, _ = game_of(new)
    assert new_id != old_id and api.message(chat, old.message_id).keyboard == []
    edits = api.message(chat, old.message_id).edit_count
    answer, same = await tap(api, alice, chat, old, encode(BackToBoard(old_id)), check_button=False)
    assert answer.text is None and same.edit_count == edits
    assert (await current(service, alice)).board == BoardRef(str(chat.id), str(new.message_id))
    assert_all_answered(api)
