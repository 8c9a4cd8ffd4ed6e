"""The picture board on Telegram, end to end (the real bot on the fake Bot API): every player's default. The game
message is a photo of the table with the header and status as its caption and the inline keyboard; a tap edits it
with editMessageMedia (new photo, caption and keyboard in one call); the board setting switches to the text board
and back, each switch sending a new board; the picture is drawn off the event loop."""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters
from __future__ import annotations

import threading
from collections.abc import AsyncIterator

import pytest

from bot.adapters.telegram import base as telegram_base
from bot.app.assembly import App
from bot.app.model import BoardRef, BoardStyle, DealVerdict, GameSnapshot, PlayerKey, Settings
from bot.render.game import render_game
from bot.render.picture import MAX_BYTES, draw_table
from bot.render.view import View
from core.game import DRAW, Game, Outcome, Status, Tap
from tests.core_helpers import winning_line
from tests.fakes.telegram_bot_api import FakeBotAPI, StoredMessage
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    NEW,
    WIN_CODE,
    api,
    assert_all_answered,
    assert_shows,
    command,
    data_for,
    db_url,
    drew,
    fitting,
    game_of,
    no_errors_logged,
    not_fitting,
    played,
    running_bot,
    tap,
    typed_move,
)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def service(api: FakeBotAPI, db_url: str, no_errors_logged: None) -> AsyncIterator[App]:
    async with running_bot(api, db_url) as running:
        yield running


PICTURE = Settings()  # every player's default


def picture_view(game: Game, game_id: int, version: int, *, outcome: Outcome | None = None,
                 verdict: DealVerdict | None = None, settings: Settings = PICTURE) -> View:
    """The board as a player with the picture board (the default) sees it."""
    snapshot = GameSnapshot(game_id, version, PlayerKey("telegram", "0"), "", game, outcome=outcome,
                            settings=settings, verdict=verdict)
    return render_game(snapshot, "en", settings)


def assert_picture(message: StoredMessage, view: View) -> None:
    assert view.table is not None and message.is_photo
    assert_shows(message, view)
    assert message.photo_size == (720, 353) and len(message.photo_bytes or b"") < MAX_BYTES


async def test_a_new_game_is_a_photo_and_a_tap_edits_it_with_editmessagemedia(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    game = Game.from_code(CODE)
    assert_picture(message, picture_view(game, game_id, 0))
    assert message.text == "TP1-E-AAAAAAB · Easy\nScore: 500 · Moves: 0"  # the caption: header and status
    assert [r.method for r in api.calls() if r.method.startswith("send")] == ["sendPhoto"]

    slot = fitting(game)
    first = message.photo_bytes
    answer, edited = await tap(api, alice, chat, message, data_for(message, Tap(slot)))
    assert answer.text == played(game.card_at(slot))
    game.push(Tap(slot))
    assert_picture(edited, picture_view(game, game_id, 1))
    assert edited.photo_history == [first] and edited.photo_bytes != first
    methods = [r.method for r in api.calls() if r.method in ("answerCallbackQuery", "editMessageMedia",
                                                             "editMessageText")]
    assert methods == ["answerCallbackQuery", "editMessageMedia"]  # the toast first, then one call for it all
    assert len(api.bot_messages(chat)) == 1
    assert_all_answered(api)


async def test_a_refused_tap_leaves_the_picture_as_it_is(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    game = Game.from_code(CODE)
    slot = not_fitting(game)
    first = message.photo_bytes
    answer, edited = await tap(api, alice, chat, message, data_for(message, Tap(slot)))
    assert answer.text is not None and "was not played" in answer.text  # the toast says why
    # the board shows the game as it stands already: nothing edited, nothing uploaded again
    assert_picture(edited, picture_view(game, game_id, 0))
    assert edited.photo_bytes == first and edited.edit_count == 0
    await tap(api, alice, chat, edited, data_for(edited, Tap(slot)))
    assert [r.method for r in api.calls() if r.method.startswith("edit")] == []
    # a card played changes the picture: a new one is uploaded
    _, played = await tap(api, alice, chat, edited, data_for(edited, Tap(fitting(game))))
    assert [r.method for r in api.calls() if r.method.startswith("edit")][-1] == "editMessageMedia"
    assert played.photo_bytes != first
    assert len(api.bot_messages(chat)) == 1
    assert_all_answered(api)


async def test_yes_under_the_question_sends_the_picture_and_the_question_loses_its_buttons(
        api: FakeBotAPI, service: App) -> None:
    """The question is a text message, which cannot become a photo: Yes sends the new picture board, takes the
    question's Yes and No away (they stayed, issue 27) and closes the old board; no call that Telegram refuses."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    _, board = await tap(api, alice, chat, board, data_for(board, DRAW))
    asked = await command(api, alice, chat, f"{NEW} {WIN_CODE}")
    assert not asked.is_photo and [label for label, _ in asked.buttons] == ["Yes, start", "Keep playing"]
    yes, asked_text = asked.buttons[0][1] or "", asked.text
    since = len(api.requests)
    answer, question = await tap(api, alice, chat, asked, yes)
    assert answer.text is None
    calls = api.calls(since=since)
    assert sorted(r.method for r in calls if r.method != "getUpdates") == [
        "answerCallbackQuery", "editMessageCaption", "editMessageReplyMarkup", "sendPhoto"]
    assert all(r.error is None for r in calls)
    assert question.keyboard == [] and question.text == asked_text  # the question stays, without its buttons
    started = api.last_message(chat)
    new = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
    assert new is not None and str(new.game.code) == WIN_CODE and game_of(started) == (new.game_id, 0)
    assert_picture(started, picture_view(Game.from_code(WIN_CODE), new.game_id, 0))
    closed = api.message(chat, board.message_id)
    assert closed.keyboard == [] and closed.photo_bytes == board.photo_bytes  # closed, its picture kept
    # a second Yes starts nothing and posts nothing
    await tap(api, alice, chat, question, yes, check_button=False)
    assert api.last_message(chat).message_id == started.message_id
    assert_all_answered(api)


async def test_a_whole_game_is_played_to_a_win_on_the_picture(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {WIN_CODE}")
    game_id, _ = game_of(message)
    game = Game.from_code(WIN_CODE)
    line = winning_line(WIN_CODE)
    for action in line:
        answer, message = await tap(api, alice, chat, message, data_for(message, action))
        outcome = game.push(action)
        assert outcome.card is not None and answer.text is not None
        assert answer.text.startswith((played if isinstance(action, Tap) else drew)(outcome.card))
    assert game.status is Status.WON
    verdict = (await service.games.game(game_id)).verdict
    assert_picture(message, picture_view(game, game_id, len(line), outcome=outcome, verdict=verdict))
    assert f"You won! Final score: {game.score}" in message.text
    assert message.edit_count == len(line) and len(api.bot_messages(chat)) == 1
    assert api.calls("editMessageText") == [] and api.calls("sendMessage") == []
    assert all(len(r.params["media"].get("caption", "")) <= 1024 for r in api.calls("editMessageMedia"))
    assert_all_answered(api)


async def test_the_settings_open_in_the_boards_message_and_back_shows_the_new_board(
        api: FakeBotAPI, service: App) -> None:
    """Issue 44 in a private chat: /settings turns the live board's message into the settings (the photo's caption
    and keyboard: the picture stays) and the typed command goes, so nothing is posted under the board; a choice
    redraws the settings there; Back shows the board as the choices say: the four-colour deck in the same photo, a
    text board (a photo cannot become text) as one new message in place of the old one, and back to a picture."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    player = PlayerKey("telegram", str(alice.id))
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(board)
    _, board = await tap(api, alice, chat, board, data_for(board, DRAW))
    game = Game.from_code(CODE)
    game.push(DRAW)
    red_black = board.photo_bytes

    replies, gone = await typed_move(api, alice, chat, "/settings")
    panel = api.message(chat, board.message_id)
    assert replies == [] and gone and len(api.bot_messages(chat)) == 1
    assert panel.is_photo and panel.photo_bytes == red_black and panel.text == "Settings"
    assert panel.keyboard[0] == [("Back to the game", f"tp:bk:{game_id}")]
    assert ("Four colours: off", "tp:set:four:on") in panel.buttons
    _, panel = await tap(api, alice, chat, panel, "tp:set:four:on")
    assert ("✓ Four colours: on", "tp:set:four:off") in panel.buttons and panel.text == "Settings"
    assert panel.photo_bytes == red_black  # the board is redrawn by Back, not under the settings
    _, back = await tap(api, alice, chat, panel, f"tp:bk:{game_id}")
    assert_picture(back, picture_view(game, game_id, 1, settings=Settings(four_colour=True)))
    assert back.photo_bytes != red_black and len(api.bot_messages(chat)) == 1

    # the text board: Back sends it as a new message, and the photo showing the settings goes
    await typed_move(api, alice, chat, "/settings")
    _, panel = await tap(api, alice, chat, back, "tp:set:board:text")
    assert (await service.players.get_settings(player)).board is BoardStyle.TEXT
    assert ("✓ Text", "tp:set:board:text") in panel.buttons and len(api.bot_messages(chat)) == 1
    _, _ = await tap(api, alice, chat, panel, f"tp:bk:{game_id}")
    (text_board,) = api.bot_messages(chat)
    assert not text_board.is_photo and text_board.entity_texts("pre") and game_of(text_board) == (game_id, 1)
    assert (await service.games.game(game_id)).board == BoardRef(str(chat.id), str(text_board.message_id))
    _, text_board = await tap(api, alice, chat, text_board, data_for(text_board, DRAW))  # play goes on
    game.push(DRAW)

    # a text board shows the settings as its text, and Back a picture again
    await typed_move(api, alice, chat, "/settings")
    panel = api.message(chat, text_board.message_id)
    assert panel.text == "Settings" and not panel.is_photo
    _, panel = await tap(api, alice, chat, panel, "tp:set:board:picture")
    await tap(api, alice, chat, panel, f"tp:bk:{game_id}")
    (pictured,) = api.bot_messages(chat)
    assert_picture(pictured, picture_view(game, game_id, 2, settings=Settings(four_colour=True)))
    assert_all_answered(api)


async def test_the_picture_is_drawn_off_the_event_loop(api: FakeBotAPI, service: App,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[threading.Thread] = []

    def recording(table: object) -> bytes:
        threads.append(threading.current_thread())
        return draw_table(table)  # type: ignore[arg-type]

    monkeypatch.setattr(telegram_base, "draw_table", recording)
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    await tap(api, alice, chat, message, data_for(message, DRAW))
    assert len(threads) == 2 and all(thread is not threading.main_thread() for thread in threads)


def test_every_caption_fits_telegram_in_every_language() -> None:
    """The caption (header and status) of a board with the most lines, in every language, within 1,024
    characters: a won game in a group with its verdict, and a hinted position."""
    from bot.adapters.telegram.keyboard import CAPTION_MAX, caption_text
    from bot.app.model import Hint
    from bot.i18n import SUPPORTED_LOCALES

    won = Game.from_code(WIN_CODE)
    for action in winning_line(WIN_CODE):
        won.push(action)
    hinted = Game.from_code(CODE)
    for locale in SUPPORTED_LOCALES:
        for snapshot in (
            GameSnapshot(1, 9, PlayerKey("telegram", "1"), "Maximilian Alexander von Humboldt", won,
                         verdict=DealVerdict(True, 999), hints_used=3, undos_used=2),
            GameSnapshot(1, 0, PlayerKey("telegram", "1"), "Ann", hinted,
                         hint=Hint(Tap(fitting(hinted)), None, None, win_chance=0.8), hints_used=1),
        ):
            view = render_game(snapshot, locale, PICTURE, owner_label=True)
            caption = caption_text(view)
            assert view.table is not None and 0 < len(caption) <= CAPTION_MAX, locale
