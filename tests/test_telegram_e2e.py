"""The Telegram bot end to end: the real python-telegram-bot Application built by ``bot.adapters.telegram.app``, over real
HTTP, against the fake Bot API server on 127.0.0.1, with the real App on a SQLite file.

Every test looks at what a player sees: the messages in the chat (text after Telegram's HTML parsing, the inline
keyboard), the toasts that answer taps, and the command menus. The expected game messages are the renderer's view
of a game the test plays on its own engine, so they check that the adapter shows the right game, and shows it
whole; the strings the rules fix (RULES.md) are spelled out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import doctest
import importlib
import logging
import shutil
import socket
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application, TypeHandler

from bot.adapters.telegram.app import CONTEXT_KEY, build_application, start, stop
from bot.adapters.telegram.executor import outbox_executor
from bot.adapters.telegram.keyboard import keyboard, message_text
from bot.adapters.telegram.pacing import Pace
from bot.app.assembly import App
from bot.app.codec import decode, encode, game_command
from bot.app.commands import AskHint, Move, NewGame, PlayDaily
from bot.app.errors import BadPayload, CardNotInPlay, DailyOver, GameNotFound, NoActiveGame, NotYourGame
from bot.app.model import BoardRef, BoardStyle, DealVerdict, GameSnapshot, PlayerKey, Settings, Stats
from bot.config import Config
from bot.render.commands import command_description
from bot.render.game import play_ack, render_game
from bot.render.picture import draw_table
from bot.render.platforms import telegram_row_fits, telegram_rows
from bot.render.replies import error_text, render_settings, render_stats
from bot.render.tableau import card_label, row_card
from bot.render.view import View
from bot.store import players as stored_players
from bot.store.database import open_database
from core.cards import Card
from core.deal import GameCode
from core.game import DRAW, UNDO, Action, Game, Outcome, Status, Tap
from tests.app_helpers import TapTimes
from tests.conftest import fake_hint, fake_verdict
from tests.core_helpers import winning_line
from tests.fakes.telegram_bot_api import CallbackAnswer, FakeBotAPI, FakeChat, FakeUser, StoredMessage
from tests.view_text import payload_of

pytestmark = pytest.mark.timeout(60)

CODE = "TP1-E-AAAAAAB"
WIN_CODE = "TP1-E-AAAAAAC"
NEW = "/tripeaks"
SECRET = "s3cret-Token_for-tests"

# The original app's wording (RULES.md), which the players of uk and ja know.
UK_NOT_ADJACENT = "Має бути на один ранг вищою або нижчою"
JA_NOT_ADJACENT = "ランクが1つ上か1つ下である必要があります"
EN_NOT_ADJACENT = "Must be one rank higher or lower"
STALE = "Nothing was done: that board was behind the game"
DRAWN_ALREADY = "Drawn already: the board is catching up"


# --- the bot, running --------------------------------------------------------------------------------------------


@pytest.fixture
def db_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A migrated SQLite file of this test's own; it outlives every bot process the test starts."""
    path = tmp_path / "tripeaks.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI() as server:
        yield server


@pytest.fixture
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Nothing the bot does in a test may log an error (a "message is not modified", say)."""
    with caplog.at_level(logging.WARNING):
        yield
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not errors, [record.getMessage() for record in errors]


#: The update ids the bot has finished handling (of the current test's fake server).
HANDLED: set[int] = set()
#: The tasks python-telegram-bot runs each update's handlers in (they never block its update processing), by id.
_HANDLING: dict[int, set[asyncio.Task[Any]]] = {}


def _tracked_create_task(application: Application[Any, Any, Any, Any, Any, Any], coroutine: Any,
                         update: object = None, **kwargs: Any) -> asyncio.Task[Any]:
    """``Application.create_task``, remembering the task by the update it handles."""
    task = _create_task(application, coroutine, update, **kwargs)
    if isinstance(update, Update):
        _HANDLING.setdefault(update.update_id, set()).add(task)
    return task


_create_task = Application.create_task


async def _note_handled(update: Update, context: object) -> None:
    """Run after the bot's own handlers have been started for ``update``: note it once they have all ended."""
    handling = _HANDLING.pop(update.update_id, set()) - {asyncio.current_task()}
    if handling:
        await asyncio.wait(handling)
    HANDLED.add(update.update_id)


@asynccontextmanager
async def running_bot(api: FakeBotAPI, db_url: str, *, pace: Pace | None = None, outbox: bool = True,
                      **settings: Any) -> AsyncIterator[App]:
    """A whole bot process: the service on the database file and the Application on the fake Bot API, started as
    the runner starts it (with the outbox delivered, unless ``outbox`` is False); stopped and closed on leaving. It
    writes as fast as the fake lets it unless given a ``pace`` (the fake has no flood control unless asked:
    tests/test_telegram_pacing.py plays under it)."""
    config = Config(telegram_token=api.token, telegram_api_url=api.base_url, **settings)
    db = await open_database(db_url, migrate=False)
    with ThreadPoolExecutor(2) as executor:
        service = App(db, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict)
        app = build_application(service.flow, config, pace)
        # after the bot's own handlers are done with an update, note it (a later group starts after them; each of
        # them is a task of its own, waited for)
        app.add_handler(TypeHandler(Update, _note_handled, block=False), group=99)
        Application.create_task = _tracked_create_task  # type: ignore[method-assign]
        await start(app)
        stop_delivering = asyncio.Event()
        delivering = asyncio.create_task(service.outbox.run(
            {"telegram": outbox_executor(app.bot_data[CONTEXT_KEY], app.bot)}, stop_delivering)) if outbox else None
        try:
            yield service
        finally:
            stop_delivering.set()
            if delivering is not None:
                await delivering
            await stop(app)
            Application.create_task = _create_task  # type: ignore[method-assign]
            await service.close()
            await db.close()


@pytest.fixture(autouse=True)
def text_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the text board (its code block, its marks, editMessageText); new players here choose it.
    The picture board, every player's default, is played in tests/test_telegram_picture.py."""
    monkeypatch.setitem(stored_players.NEW_PLAYER, "board_style", BoardStyle.TEXT.value)


TEXT_BOARD = Settings(board=BoardStyle.TEXT)


@pytest.fixture
async def service(api: FakeBotAPI, db_url: str, no_errors_logged: None) -> AsyncIterator[App]:
    async with running_bot(api, db_url) as running:
        yield running


# --- what the player should see ------------------------------------------------------------------------------------


def plain(view: View) -> str:
    """The view's text as a Telegram client shows it: the HTML markup parsed away. A picture board's text is its
    photo's caption: the header and the status."""
    board = view.tableau if view.table is None else None
    return "\n".join(part for part in (view.header, board, view.status) if part)


def rows(view: View) -> list[list[tuple[str, str]]]:
    """The keyboard a phone shows: the view's rows split to fit 360 pixels (bot.render.platforms)."""
    return [[(button.label, payload_of(button)) for button in row] for row in telegram_rows(view)]


def styles(view: View) -> list[list[str | None]]:
    return [[button.style for button in row] for row in telegram_rows(view)]


def expected_view(game: Game, game_id: int, version: int, *, locale: str = "en", outcome: Outcome | None = None,
                  verdict: DealVerdict | None = None, undos: int = 0, owner: str | None = None,
                  latest: bool = True) -> View:
    """The board of this game as its player sees it; ``owner``: in a group, where the board names its player."""
    settings = TEXT_BOARD
    snapshot = GameSnapshot(game_id, version, PlayerKey("telegram", "0"), owner or "", game, outcome=outcome,
                            settings=settings, verdict=verdict, undos_used=undos)
    return render_game(snapshot, locale, settings, owner_label=owner is not None, latest=latest)


def spaced(text: str) -> str:
    """No-break spaces read as spaces: the bot starts the tableau with them so that Telegram, which trims
    whitespace at the start of an entity, keeps the first row of the peaks in line."""
    return text.replace("\u00a0", " ")


def assert_shows(message: StoredMessage, view: View) -> None:
    """The message shows exactly this view: text, the whole tableau as one code block (or the picture board as a
    photo with the header and status as its caption), and the keyboard."""
    assert spaced(message.text) == spaced(plain(view))
    if view.table is not None:
        assert message.is_photo and message.photo_bytes == draw_table(view.table)
        assert message.entity_texts("pre") == []
    elif view.tableau is not None:
        assert not message.is_photo
        assert [spaced(block) for block in message.entity_texts("pre")] == [spaced(view.tableau)]
    assert message.entity_texts("bold") == [view.header]
    assert message.keyboard == rows(view)
    assert message.styles == styles(view)


def game_of(message: StoredMessage) -> tuple[int, int]:
    """The game id and version a game message's buttons carry (all of them the same)."""
    payloads = {decode(data) for _, data in message.buttons if data is not None}
    games = {(p.game_id, p.version) for p in payloads if isinstance(p, Move | AskHint | NewGame)}
    assert len(games) == 1, games
    return games.pop()


def data_for(message: StoredMessage, action: Action | str) -> str:
    """The callback_data of the button doing ``action`` on the message as it is now."""
    game_id, version = game_of(message)
    data = encode(game_command(game_id, version, str(action)))
    assert data in [d for _, d in message.buttons], f"no button for {action} on {message.buttons}"
    return data


def fitting(game: Game) -> int:
    return next(s for s in game.playable_slots() if game.fits(s))


def not_fitting(game: Game) -> int:
    return next(s for s in game.playable_slots() if not game.fits(s))


def after(code: str, *actions: Action) -> Game:
    game = Game.from_code(code)
    for action in actions:
        game.push(action)
    return game


async def tap(api: FakeBotAPI, user: FakeUser, chat: FakeChat, message: StoredMessage, data: str, *,
              check_button: bool = True) -> tuple[CallbackAnswer, StoredMessage]:
    """Press a button and wait until the bot has handled the press completely; returns the toast it answered
    with and the message as it is then."""
    handle = api.press(user, chat, message.message_id, data, check_button=check_button)
    await api.wait_until(lambda: handle.update_id in HANDLED, what=f"the bot to handle the press of {data!r}")
    assert handle.record.answer is not None, f"the press of {data!r} was not answered"
    return handle.record.answer, api.message(chat, message.message_id)


async def command(api: FakeBotAPI, user: FakeUser, chat: FakeChat, text: str) -> StoredMessage:
    """Send a command; the bot's one reply to it, once the bot has handled it completely."""
    handle = api.send_text(user, chat, text)
    await api.wait_until(lambda: handle.update_id in HANDLED, what=f"the bot to handle {text!r}")
    sent = handle.update["message"]["message_id"]
    replies = [m for m in api.bot_messages(chat) if m.message_id > sent]
    assert len(replies) == 1, replies
    return replies[0]


async def typed_move(api: FakeBotAPI, user: FakeUser, chat: FakeChat, text: str) -> tuple[list[StoredMessage], bool]:
    """Send a card by name; the bot's replies to it and whether the typed message is gone, once handled."""
    handle = api.send_text(user, chat, text)
    await api.wait_until(lambda: handle.update_id in HANDLED, what=f"the bot to handle {text!r}")
    sent = handle.update["message"]["message_id"]
    gone = sent not in [m.message_id for m in api.messages(chat)]
    return [m for m in api.bot_messages(chat) if m.message_id > sent], gone


def played(card: Card) -> str:
    """The toast of a card tap that applied: the card played, now the waste card."""
    return f"You played {card_label(card)}"


def drew(card: Card) -> str:
    """The toast of Draw: the card turned onto the waste."""
    return f"You drew {card_label(card)}"


def assert_all_answered(api: FakeBotAPI) -> None:
    assert api.unanswered_callbacks() == []


# --- a game by command, taps, draw and undo --------------------------------------------------------------------


async def test_a_new_game_by_command_shows_the_deal_with_a_button_per_free_card(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")

    game_id, version = game_of(message)
    assert version == 0
    assert_shows(message, expected_view(Game.from_code(CODE), game_id, 0))
    assert message.parse_mode == "HTML"
    assert message.text.startswith(f"{CODE} · Easy")
    # one button for each of the ten face-up cards, then draw, undo, hint and a new game
    game = Game.from_code(CODE)
    taps = [decode(data) for _, data in message.buttons[:10] if data]
    assert [str(p.action) for p in taps if isinstance(p, Move)] == [str(s) for s in game.playable_slots()]
    assert all(len(data.encode()) <= 64 for _, data in message.buttons if data)
    # the cards that fit the waste card are green; nothing else is coloured while a card fits
    style_of = dict(zip((data for _, data in message.buttons), (s for row in message.styles for s in row),
                        strict=True))
    for slot in game.playable_slots():
        assert style_of[data_for(message, Tap(slot))] == ("success" if game.fits(slot) else None), slot
    assert style_of[data_for(message, DRAW)] is None
    # no row is wider than a 360-px phone shows whole
    assert all(telegram_row_fits([label for label, _ in row]) for row in message.keyboard)

    snapshot = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
    assert snapshot is not None and snapshot.game_id == game_id and str(snapshot.game.code) == CODE


async def test_tripeaks_classic_deals_under_classic_rules_and_a_bad_code_is_explained(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} classic")
    assert "· Classic" in message.text.splitlines()[0]
    assert "-C-" in message.text.splitlines()[0]

    reply = await command(api, alice, chat, f"{NEW} TP1-X-NOPE")
    assert reply.text == "That is not a game code: a code looks like TP1-E-AAAAAAB (E Easy, C Classic)"
    assert reply.keyboard == []


async def test_a_legal_tap_is_answered_and_the_message_edited_in_place(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    slot = fitting(Game.from_code(CODE))

    answer, edited = await tap(api, alice, chat, message, data_for(message, Tap(slot)))

    # the toast says what the tap did, while the board catches up
    assert answer.text == played(Game.from_code(CODE).card_at(slot)) and not answer.show_alert
    assert edited.message_id == message.message_id and edited.edit_count == 1
    assert len(api.bot_messages(chat)) == 1  # edited, not sent anew
    game = after(CODE, Tap(slot))
    assert_shows(edited, expected_view(game, game_id, 1))
    assert "500" not in edited.text.splitlines()[1] and "499" in edited.text.splitlines()[1]
    assert card_cell_on_waste(edited) == Game.from_code(CODE).card_at(slot)
    # the answer came before the edit
    methods = [r.method for r in api.calls() if r.method in ("answerCallbackQuery", "editMessageText")]
    assert methods == ["answerCallbackQuery", "editMessageText"]
    assert_all_answered(api)


def card_cell_on_waste(message: StoredMessage) -> Card:
    """The card in the waste box of the tableau, as the player reads it."""
    last = message.entity_texts("pre")[0].splitlines()[-1]  # the stock, then the waste card in brackets
    return Card.parse(last.split("[")[1].rstrip("]"))


async def test_a_refused_tap_says_why_in_the_toast_and_changes_nothing(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    game = Game.from_code(CODE)
    slot = not_fitting(game)

    answer, edited = await tap(api, alice, chat, message, data_for(message, Tap(slot)))

    assert answer.text == f"{card_label(game.card_at(slot))} was not played. {EN_NOT_ADJACENT}"  # names the card
    # the board already shows the game as it stands: nothing to edit, Telegram's allowance kept for real moves
    assert edited.edit_count == 0 and api.calls("editMessageText") == []
    assert_shows(edited, expected_view(game, game_id, 0))

    # the same refusal again: the same answer, still no edit
    answer, again = await tap(api, alice, chat, edited, data_for(edited, Tap(slot)))
    assert answer.text == f"{card_label(game.card_at(slot))} was not played. {EN_NOT_ADJACENT}"
    assert again.edit_count == 0 and api.calls("editMessageText") == []
    assert len(api.bot_messages(chat)) == 1  # no error shown, no message sent instead
    # and play goes on
    answer, moved = await tap(api, alice, chat, again, data_for(again, Tap(fitting(game))))
    assert answer.text == played(game.card_at(fitting(game))) and game_of(moved) == (game_id, 1)
    assert_all_answered(api)


async def test_the_hinted_card_is_blue_and_the_others_that_fit_green(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    _, hinted = await tap(api, alice, chat, message, data_for(message, "h"))
    game = Game.from_code(CODE)
    suggested = next(iter(game.legal_actions()))  # the stand-in solver's hint: the first legal action
    assert isinstance(suggested, Tap)
    style_of = dict(zip((data for _, data in hinted.buttons), (s for row in hinted.styles for s in row),
                        strict=True))
    assert style_of[data_for(hinted, suggested)] == "primary"
    others = [s for s in game.playable_slots() if game.fits(s) and Tap(s) != suggested]
    assert others and all(style_of[data_for(hinted, Tap(s))] == "success" for s in others)
    # the board marks it too, for clients that show no colours
    assert f">{row_card(game.card_at(suggested.slot), fits=True)}" in hinted.entity_texts("pre")[0]
    assert_all_answered(api)


async def test_draw_then_undo(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    assert "Draw" in [label for label, _ in message.buttons]

    answer, drawn = await tap(api, alice, chat, message, data_for(message, DRAW))
    assert answer.text == drew(Game.from_code(CODE).deal.stock[0])
    game = after(CODE, DRAW)
    assert_shows(drawn, expected_view(game, game_id, 1))
    assert card_cell_on_waste(drawn) == Game.from_code(CODE).deal.stock[0]
    assert "Draw" in [label for label, _ in drawn.buttons] and "22  [" in drawn.text

    answer, undone = await tap(api, alice, chat, drawn, data_for(drawn, UNDO))
    assert answer.text == f"Undone: {card_label(Game.from_code(CODE).deal.stock[0])} is back in its place"
    game.push(UNDO)
    assert_shows(undone, expected_view(game, game_id, 2, undos=1))
    assert card_cell_on_waste(undone) == Game.from_code(CODE).deal.waste
    assert "23  [" in undone.text
    assert game.score == 500 and game.moves == 1  # the score comes back, the move counter does not go down

    # nothing left to undo: the tap is refused and says so
    answer, _ = await tap(api, alice, chat, undone, data_for(undone, UNDO))
    assert answer.text == "Nothing to undo"
    assert_all_answered(api)


async def test_a_scripted_deal_played_to_a_win_by_tapping(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {WIN_CODE}")
    game_id, _ = game_of(message)
    game = Game.from_code(WIN_CODE)

    for action in winning_line(WIN_CODE):
        answer, message = await tap(api, alice, chat, message, data_for(message, action))
        outcome = game.push(action)
        assert outcome.card is not None and answer.text is not None
        assert answer.text.startswith((played if isinstance(action, Tap) else drew)(outcome.card))

    assert game.status is Status.WON
    verdict = (await service.games.game(game_id)).verdict  # what the solver said of the deal is the service's business
    won = expected_view(game, game_id, len(winning_line(WIN_CODE)), outcome=outcome, verdict=verdict)
    assert_shows(message, won)
    assert f"You won! Final score: {game.score}" in message.text
    # issue 16: a won game offers to share the result, replay the deal, review it, or a new deal
    assert [label for label, _ in message.buttons] == ["Share", "Replay", "Review", "New game"]
    assert len(api.bot_messages(chat)) == 1
    assert_all_answered(api)

    stats = await command(api, alice, chat, "/stats")
    expected = render_stats(Stats(games=1, wins=1, best_score=game.score, current_streak=1, longest_streak=1), "en")
    assert stats.text == plain(expected)

    # New game under the won one starts the next deal in a new message (issue 15); the won board stays as it
    # ended, with only Share and Review left on it
    answer, kept = await tap(api, alice, chat, message, data_for(message, "n"))
    fresh = api.last_message(chat)
    new_id, version = game_of(fresh)
    assert answer.text is None and new_id != game_id and version == 0
    assert fresh.message_id != message.message_id
    assert fresh.text.splitlines()[0].endswith("· Easy")
    assert_shows(kept, expected_view(game, game_id, len(winning_line(WIN_CODE)), verdict=verdict, latest=False))
    assert [label for label, _ in kept.buttons] == ["Share", "Review"]


# --- other players, groups, tampering ----------------------------------------------------------------------------


async def test_a_group_with_two_players_each_playing_their_own_game(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    bob = api.user("Bob", language_code="ja")
    group = api.group("Cards night", members=[alice, bob])
    alice_game = await command(api, alice, group, f"{NEW}@{api.bot_username} {CODE}")
    bob_game = await command(api, bob, group, f"{NEW} {WIN_CODE}")
    alice_id, _ = game_of(alice_game)
    bob_id, _ = game_of(bob_game)
    assert alice_game.reply_to_message_id is not None and bob_game.reply_to_message_id is not None
    assert "イージー" in bob_game.text  # Bob's game speaks Bob's language
    assert "Alice" in alice_game.text.splitlines()[0] and "Bob" in bob_game.text.splitlines()[0]  # boards named

    # Bob taps Alice's game: a toast in Bob's language, and nothing changes
    answer, unchanged = await tap(api, bob, group, alice_game, data_for(alice_game, DRAW))
    assert answer.text == error_text(NotYourGame(), "ja", NEW)
    assert "Alice" not in answer.text  # the toast names nobody: a forged id learns nothing
    assert unchanged.edit_count == 0 and unchanged.text == alice_game.text

    # and Alice taps Bob's
    answer, unchanged = await tap(api, alice, group, bob_game, data_for(bob_game, DRAW))
    assert answer.text == "This is not your game; start your own with /tripeaks"
    assert unchanged.edit_count == 0

    # each plays their own
    answer, alice_after = await tap(api, alice, group, alice_game, data_for(alice_game, DRAW))
    assert answer.text == drew(Game.from_code(CODE).deal.stock[0])
    assert_shows(alice_after, expected_view(after(CODE, DRAW), alice_id, 1, owner="Alice"))
    answer, bob_after = await tap(api, bob, group, bob_game, data_for(bob_game, DRAW))
    assert answer.text == f"{card_label(Game.from_code(WIN_CODE).deal.stock[0])}をめくりました"
    assert_shows(bob_after, expected_view(after(WIN_CODE, DRAW), bob_id, 1, locale="ja", owner="Bob"))
    assert_all_answered(api)


async def test_another_users_tap_in_a_private_chat_is_refused_the_same_way(
        api: FakeBotAPI, service: App) -> None:
    # a message forwarded elsewhere keeps its buttons: whoever taps it, the game stays its owner's
    alice = api.user("Alice")
    mallory = api.user("Mallory", language_code="uk")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    answer, unchanged = await tap(api, mallory, chat, message, data_for(message, DRAW))
    assert answer.text == error_text(NotYourGame(), "uk", NEW)
    assert unchanged.edit_count == 0
    snapshot = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
    assert snapshot is not None and snapshot.version == 0


async def test_tampered_callback_data_changes_nothing_and_says_so(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    bob = api.user("Bob")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    bob_message = await command(api, bob, api.private_chat(bob), f"{NEW} {WIN_CODE}")
    game_id, _ = game_of(message)
    bob_id, _ = game_of(bob_message)
    unreadable = error_text(BadPayload(), "en", NEW)

    cases = {
        f"tp:g:{game_id}:0:28": unreadable,  # no slot 28
        f"tp:g:{game_id}:0:zz": unreadable,
        f"tp:g:{game_id}:-1:d": unreadable,
        "tp:daily:2999-01-01": unreadable,  # a daily deal of the future
        "tp:set:lang:xx": unreadable,
        "hello": unreadable,
        f"tp:g:{bob_id}:0:d": error_text(NotYourGame(), "en", NEW),
        "tp:g:987654:0:d": error_text(GameNotFound(987654), "en", NEW),
    }
    for data, toast in cases.items():
        answer, shown = await tap(api, alice, chat, message, data, check_button=False)
        assert answer.text == toast, data
        assert shown.edit_count == 0 and shown.text == message.text and shown.keyboard == message.keyboard, data

    # a version that is not the game's: stale; the message is refreshed to the game as it stands (here: as shown)
    answer, shown = await tap(api, alice, chat, message, f"tp:g:{game_id}:5:d", check_button=False)
    assert answer.text == STALE
    assert shown.text == message.text and shown.keyboard == message.keyboard

    for player, version in ((alice, 0), (bob, 0)):
        snapshot = await service.games.current_game(PlayerKey("telegram", str(player.id)))
        assert snapshot is not None and snapshot.version == version and snapshot.game.moves == 0
    assert_all_answered(api)


# --- restarts and webhooks ---------------------------------------------------------------------------------------


async def test_after_a_restart_a_tap_on_the_old_message_plays_on(
        api: FakeBotAPI, db_url: str, no_errors_logged: None) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    async with running_bot(api, db_url):
        message = await command(api, alice, chat, f"{NEW} {CODE}")
        game_id, _ = game_of(message)
        _, message = await tap(api, alice, chat, message, data_for(message, DRAW))

    game = after(CODE, DRAW)
    async with running_bot(api, db_url) as service:  # a new process: new Application, new service, same database
        times = TapTimes(service)
        slot = fitting(game) if any(game.fits(s) for s in game.playable_slots()) else None
        action: Action = Tap(slot) if slot is not None else DRAW
        answer, message = await tap(api, alice, chat, message, data_for(message, action))
        outcome = game.push(action)
        assert outcome.card is not None
        assert answer.text == (played if slot is not None else drew)(outcome.card)
        assert_shows(message, expected_view(game, game_id, 2))

        # the game goes on in a newer message (/resume): the older one is closed, one board is live
        newer = await command(api, alice, chat, "/resume")
        assert_shows(newer, expected_view(game, game_id, 2))
        await api.wait_until(lambda: not api.message(chat, message.message_id).buttons, what="the older closed")
        first_draw = data_for(newer, DRAW)
        _, newer = await tap(api, alice, chat, newer, first_draw)
        game.push(DRAW)
        assert_shows(newer, expected_view(game, game_id, 3))
        times.wait(0.1)  # Draw on the board as it was, at once: that tap again, which says so and draws nothing
        answer, newer = await tap(api, alice, chat, newer, first_draw, check_button=False)
        assert answer.text == DRAWN_ALREADY
        assert_shows(newer, expected_view(game, game_id, 3))
    assert_all_answered(api)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_webhook_mode_refuses_posts_without_the_secret_and_plays_with_it(
        api: FakeBotAPI, db_url: str, no_errors_logged: None) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram/hook"
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    async with running_bot(api, db_url, telegram_webhook_url=url, telegram_webhook_secret=SECRET,
                           telegram_webhook_listen="127.0.0.1", telegram_webhook_port=port):
        assert api.webhook_url == url and api.webhook_secret_token == SECRET
        assert api.calls("getUpdates") == []

        for secret in (None, "wrong-secret"):
            update = api.send_text(alice, chat, f"{NEW} TP1-E-AAAAAAA", queue=False)
            delivery = await api.post_update_to(url, update, secret_token=secret)
            assert delivery.status == 403, secret

        update = api.send_text(alice, chat, f"{NEW} {CODE}", queue=False)
        delivery = await api.post_update_to(url, update, secret_token=SECRET)
        assert delivery.status == 200
        message = await api.wait_for_message(chat)
        game_id, _ = game_of(message)
        assert_shows(message, expected_view(Game.from_code(CODE), game_id, 0))

        # Telegram itself (the fake) pushes taps with the secret: answered and edited as with polling
        answer = await api.press(alice, chat, message.message_id, data_for(message, DRAW)).answer()
        assert answer.text == drew(Game.from_code(CODE).deal.stock[0])
        await api.wait_until(lambda: api.message(chat, message.message_id).edit_count == 1)
        assert_shows(api.message(chat, message.message_id), expected_view(after(CODE, DRAW), game_id, 1))
        # only the game with the secret was ever started
        assert len([m for m in api.bot_messages(chat)]) == 1
    assert_all_answered(api)


# --- languages, settings, menus and the other commands ---------------------------------------------------------


@pytest.mark.parametrize(("language", "easy", "draw", "not_adjacent"), [
    ("uk", "Легкий", "Добрати", UK_NOT_ADJACENT),
    ("ja", "イージー", "めくる", JA_NOT_ADJACENT),
    ("ko", "Easy", "Draw", EN_NOT_ADJACENT),  # a language the bot does not speak: English
])
async def test_replies_in_the_players_language(api: FakeBotAPI, service: App, language: str, easy: str,
                                               draw: str, not_adjacent: str) -> None:
    player = api.user("Oksana", language_code=language)
    chat = api.private_chat(player)
    message = await command(api, player, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    locale = "en" if language == "ko" else language
    assert_shows(message, expected_view(Game.from_code(CODE), game_id, 0, locale=locale))
    assert easy in message.text.splitlines()[0]
    assert draw in [label for label, _ in message.buttons]

    refused = Game.from_code(CODE).card_at(not_fitting(Game.from_code(CODE)))
    answer, edited = await tap(api, player, chat, message, data_for(message, Tap(not_fitting(Game.from_code(CODE)))))
    assert answer.text.endswith(not_adjacent) and card_label(refused) in answer.text
    assert edited.edit_count == 0  # a refusal changes nothing on the board: the toast says why

    reply = await command(api, player, chat, "/resume@" + api.bot_username)
    assert easy in reply.text.splitlines()[0]
    stats = await command(api, player, chat, "/stats")
    assert stats.text == plain(render_stats(Stats(0, 0, None, 0, 0), locale))
    assert_all_answered(api)


async def test_the_language_setting_overrides_telegrams_and_explanations_can_be_turned_off(
        api: FakeBotAPI, service: App) -> None:
    oksana = api.user("Oksana", language_code="uk")
    chat = api.private_chat(oksana)
    settings = await command(api, oksana, chat, "/settings")
    assert settings.text == "Налаштування"  # Telegram's language, Ukrainian, until one is chosen
    answer, settings = await tap(api, oksana, chat, settings, "tp:set:lang:ja")
    assert answer.text is None
    assert settings.text == plain(render_settings(Settings(language="ja", board=BoardStyle.TEXT), "ja"))

    message = await command(api, oksana, chat, f"{NEW} {CODE}")
    assert "イージー" in message.text.splitlines()[0]
    answer, _ = await tap(api, oksana, chat, message, data_for(message, Tap(not_fitting(Game.from_code(CODE)))))
    assert answer.text.endswith(JA_NOT_ADJACENT) and answer.text.startswith(card_label(
        Game.from_code(CODE).card_at(not_fitting(Game.from_code(CODE)))))

    # issue 54: a language chosen in the settings redraws the live board at once, not at the next tap
    _, settings = await tap(api, oksana, chat, settings, "tp:set:lang:de")
    await api.wait_until(lambda: "Leicht" in api.message(chat, message.message_id).text.splitlines()[0], 30,
                         what="the live board redrawn in German")

    # explanations off: the refusal is answered without a toast
    _, settings = await tap(api, oksana, chat, settings, "tp:set:lang:ja")
    await api.wait_until(lambda: "イージー" in api.message(chat, message.message_id).text.splitlines()[0], 30,
                         what="the live board redrawn in Japanese")
    _, settings = await tap(api, oksana, chat, settings, "tp:set:explain:off")
    game_id, _ = game_of(message)
    answer, shown = await tap(api, oksana, chat, message, data_for(message, Tap(not_fitting(Game.from_code(CODE)))),
                              check_button=False)
    assert answer.text is None
    assert JA_NOT_ADJACENT not in shown.text
    assert_all_answered(api)


async def test_settings_in_a_group_belong_to_who_asked(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    bob = api.user("Bob")
    group = api.group(members=[alice, bob])
    settings = await command(api, alice, group, "/settings")
    answer, unchanged = await tap(api, bob, group, settings, "tp:set:lang:uk")
    assert answer.text == "Only the player this message answers can use its buttons"  # naming nobody
    assert unchanged.edit_count == 0
    assert (await service.players.get_settings(PlayerKey("telegram", str(bob.id)))).language is None
    answer, changed = await tap(api, alice, group, settings, "tp:set:lang:uk")
    assert answer.text is None and changed.edit_count == 1
    assert (await service.players.get_settings(PlayerKey("telegram", str(alice.id)))).language == "uk"
    # the /settings command deleted (by Alice or an admin): Telegram no longer says whom the message answers, so
    # its buttons are nobody's, Alice's included (she types /settings again)
    typed = api.message(group, changed.reply_to_message_id)  # type: ignore[arg-type]
    typed.deleted = True
    answer, unchanged = await tap(api, bob, group, changed, "tp:set:lang:ru")
    assert answer.text == "Only the player this message answers can use its buttons" and unchanged.edit_count == 1
    assert (await service.players.get_settings(PlayerKey("telegram", str(bob.id)))).language is None
    assert (await service.players.get_settings(PlayerKey("telegram", str(alice.id)))).language == "uk"


async def test_command_menus_are_set_per_language(api: FakeBotAPI, service: App) -> None:
    for language in ("", "uk", "ru", "ja"):
        menu = api.commands(language_code=language)
        locale = language or "en"
        names = [name for name, _ in menu]
        core = ["tripeaks", "daily", "resume", "play", "rules", "stats", "settings", "leaderboard", "subscribe",
                "unsubscribe", "help"]
        assert [name for name in names if name in core] == core  # every command, in this order
        assert menu[0] == ("tripeaks", command_description("new", locale, "telegram"))
        for name, description in menu[1:]:
            assert description == command_description(name, locale, "telegram")
    assert dict(api.commands(language_code="uk"))["play"] != dict(api.commands())["play"]
    assert api.visible_commands(api.user("Ken", language_code="ja"), api.group())[0] == (
        "tripeaks", command_description("new", "ja", "telegram"))
    assert api.visible_commands(api.user("Ann", language_code="ko"), api.group())[0] == (
        "tripeaks", "Start a new game, or replay a deal from its code")


async def test_play_a_card_by_name_and_the_other_commands(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    nothing = await command(api, alice, chat, "/resume")
    assert nothing.text == error_text(NoActiveGame(), "en", NEW)

    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    game = Game.from_code(CODE)
    slot = fitting(game)
    replies, gone = await typed_move(api, alice, chat, f"/play {game.card_at(slot).symbol()}")
    game.push(Tap(slot))
    # issue 44: the live board is edited in place and the typed move deleted (a bot may, in a private chat), with
    # no acknowledgement: nothing scrolls the board away, it stays the chat's last message
    board = api.message(chat, message.message_id)
    assert_shows(board, expected_view(game, game_id, 1))
    assert replies == [] and gone and api.messages(chat)[-1].message_id == message.message_id

    hidden = game.card_at(0)  # a top card, face down: not something the player can name to play
    refused = await command(api, alice, chat, f"/play {hidden}")
    assert refused.text == error_text(CardNotInPlay(str(hidden)), "en", NEW) == "That card is not in play yet"
    snapshot = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
    assert snapshot is not None and snapshot.version == 1

    rules = await command(api, alice, chat, "/rules")
    assert rules.text.startswith("How to play TriPeaks")
    assert "772" in rules.text
    help_text = await command(api, alice, chat, "/help")
    assert "/tripeaks" in help_text.text and "/daily" in help_text.text
    assert command_description("new", "en", "telegram") in help_text.text


# --- the adapter's own guarantees ----------------------------------------------------------------------------------


async def test_every_button_of_a_game_fits_telegrams_limits() -> None:
    # the longest ids a payload can carry, in the language with the longest labels
    game = Game.from_code(CODE)
    view = expected_view(game, 2**62 - 1, 10**9 - 1, locale="uk")
    markup = keyboard(view)
    assert markup is not None
    assert all(len(row) <= 8 for row in markup.inline_keyboard)
    data = [button.callback_data for row in markup.inline_keyboard for button in row]
    assert all(isinstance(d, str) and len(d.encode()) <= 64 for d in data)
    assert message_text(view).count("<pre>") == 1


def test_html_in_any_text_is_escaped() -> None:
    view = View(header="Bob <b>&</b>", tableau="<pre>", status="a < b")
    assert message_text(view) == "<b>Bob &lt;b&gt;&amp;&lt;/b&gt;</b>\n<pre>&lt;pre&gt;</pre>\na &lt; b"



# --- when something goes wrong -------------------------------------------------------------------------------------


async def test_a_failure_inside_the_bot_still_answers_the_tap(
        api: FakeBotAPI, db_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    alice = api.user("Alice", language_code="ja")
    chat = api.private_chat(alice)
    async with running_bot(api, db_url) as service:
        message = await command(api, alice, chat, f"{NEW} {CODE}")

        async def broken(*args: object, **kwargs: object) -> GameSnapshot:
            raise RuntimeError("the database went away")

        monkeypatch.setattr(service.moves, "move", broken)
        answer, shown = await tap(api, alice, chat, message, data_for(message, DRAW))
        assert answer.text == error_text(RuntimeError(), "ja", NEW)  # "something went wrong", in Japanese
        assert shown.edit_count == 0
        assert_all_answered(api)
    assert any("the database went away" in str(record.exc_info[1]) for record in caplog.records if record.exc_info)


async def test_a_message_that_can_no_longer_be_edited_is_followed_by_a_new_one(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    api.inject_error("editMessageText", chat=chat, description="Bad Request: message can't be edited")

    answer, old = await tap(api, alice, chat, message, data_for(message, DRAW))

    assert answer.text == drew(Game.from_code(CODE).deal.stock[0])
    assert old.edit_count == 0
    newest = api.last_message(chat)
    assert newest.message_id != message.message_id
    assert_shows(newest, expected_view(after(CODE, DRAW), game_id, 1))


async def test_flood_control_on_an_edit_is_waited_out(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(message)
    api.fail_next(chat, retry_after=1, method="editMessageText")

    answer, edited = await tap(api, alice, chat, message, data_for(message, DRAW))

    assert answer.text == drew(Game.from_code(CODE).deal.stock[0])
    assert [r.error is None for r in api.calls("editMessageText")] == [False, True]
    assert_shows(edited, expected_view(after(CODE, DRAW), game_id, 1))
    assert len(api.bot_messages(chat)) == 1


@pytest.mark.parametrize("module", ["bot.adapters.telegram.keyboard", "bot.adapters.telegram.app"])
def test_the_docstring_examples_hold(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


async def test_daily_by_command_and_by_the_play_button(
        api: FakeBotAPI, service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    # which deal a day gets is bot.app.daily's business (and its own tests'); here the service is given its day and
    # its deals
    day = dt.date(2026, 11, 29)
    service.daily_codes.clock = lambda: dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
    service.daily_codes.function = lambda chosen, secret: {
        day: GameCode.parse(CODE), day - dt.timedelta(days=1): GameCode.parse(WIN_CODE)}[chosen]
    alice = api.user("Alice")
    bob = api.user("Bob", language_code="uk")
    group = api.group(members=[alice, bob])
    alice_chat = api.private_chat(alice)  # alice has started the bot; bob never has
    link = f"https://t.me/{api.bot_username}?start=daily"

    # the ranked attempt is played away from the group: its board goes to alice's private chat, and the group gets
    # a button that opens it there
    answer = await command(api, alice, group, "/daily")
    assert answer.text == "Alice, your daily attempt is played in your private chat with the bot, away from the group"
    assert answer.links == [("Play in private", link)]
    message = api.last_message(alice_chat)
    game_id, _ = game_of(message)
    snapshot = await service.games.game(game_id)
    assert snapshot.daily == day and str(snapshot.game.code) == CODE
    assert snapshot.board == BoardRef(str(alice_chat.id), str(message.message_id))
    assert_shows(message, render_game(snapshot, "en", TEXT_BOARD))
    assert "Daily deal" in message.text
    # the group's leaderboard lists her all the same
    assert [r.name for r in await service.leaderboards.of("telegram", str(group.id), day)] == ["Alice"]

    # the Play button under a daily post gives whoever taps it a game of their own; bob never started the bot, so
    # the answer to his tap opens his private chat, where the link shows his attempt
    post = api.last_message(group)
    sent_before = len(api.bot_messages(group))
    answer, _ = await tap(api, bob, group, post, encode(PlayDaily(day)), check_button=False)
    assert answer.text is None and answer.url == link
    assert len(api.bot_messages(group)) == sent_before  # nothing of his attempt in the group
    bob_chat = api.private_chat(bob)
    bobs = await command(api, bob, bob_chat, "/start daily")
    bob_id, _ = game_of(bobs)
    bob_snapshot = await service.games.game(bob_id)
    assert bob_snapshot.owner == PlayerKey("telegram", str(bob.id)) and str(bob_snapshot.game.code) == CODE
    assert bob_snapshot.daily == day
    assert_shows(bobs, render_game(bob_snapshot, "uk", TEXT_BOARD))
    assert sorted(r.name for r in await service.leaderboards.of("telegram", str(group.id), day)) == ["Alice", "Bob"]
    # now that he has started the bot, Play again shows his attempt in his private chat, and the toast says so
    answer, _ = await tap(api, bob, group, post, encode(PlayDaily(day)), check_button=False)
    assert answer.text == "Вашу спробу в щоденній роздачі надіслано вам в особистий чат із ботом"
    assert game_of(api.last_message(bob_chat)) == (bob_id, 0)
    # a day gone is over (only today's daily can be started)
    answer, _ = await tap(api, bob, group, post, encode(PlayDaily(day - dt.timedelta(days=1))), check_button=False)
    assert answer.text == error_text(DailyOver(day - dt.timedelta(days=1)), "uk", NEW)
    # a day still to come is not a daily deal anyone can have
    answer, _ = await tap(api, bob, group, post, encode(PlayDaily(day + dt.timedelta(days=1))),
                          check_button=False)
    assert answer.text == error_text(BadPayload(), "uk", NEW)
    assert len(api.bot_messages(group)) == sent_before


# --- card buttons keep their places ---------------------------------------------------------------------------------


def places(message: StoredMessage) -> dict[int, tuple[int, int]]:
    """Where each card button is on the keyboard: slot -> (row, column)."""
    where = {}
    for r, row in enumerate(message.keyboard):
        for c, (_, data) in enumerate(row):
            command = decode(data or "")
            if isinstance(command, Move) and isinstance(command.action, Tap):
                where[command.action.slot] = (r, c)
    return where


async def test_a_card_keeps_its_button_place_while_it_is_free(api: FakeBotAPI, service: App) -> None:
    """Taps that remove cards (and draws) never move another free card's button: the row of ten places keeps a
    blank button where a card went; a tap on a blank is answered silently and changes nothing."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")
    game = Game.from_code(CODE)
    assert [len(row) for row in message.keyboard[:2]] == [5, 5]
    blanks_seen = 0
    for _ in range(12):
        before = places(message)
        fits = [s for s in game.playable_slots() if game.fits(s)]
        action: Action = Tap(fits[0]) if fits else DRAW
        _, message = await tap(api, alice, chat, message, data_for(message, action))
        game.push(action)
        after_tap = places(message)
        assert sorted(after_tap) == game.playable_slots()
        for slot, where in after_tap.items():
            if slot in before:
                assert where == before[slot], (slot, before, after_tap)
        assert [len(row) for row in message.keyboard[:2]] == [5, 5]
        blanks = [data for row in message.keyboard[:2] for _, data in row if data and data.startswith("tp:-:")]
        assert len(blanks) == 10 - len(after_tap)
        blanks_seen = max(blanks_seen, len(blanks))
    assert blanks_seen > 0
    edits = message.edit_count
    answer, same = await tap(api, alice, chat, message, blanks[0])
    assert answer.text is None and same.edit_count == edits and same.keyboard == message.keyboard
    assert_all_answered(api)


async def test_double_taps_act_once(api: FakeBotAPI, service: App) -> None:
    """Share tapped twice posts one message; Review tapped twice shows the review in the board's message once (a
    private chat: nothing posted under the board), each second tap's toast saying so; the same card tapped twice
    is played once and the second tap says nothing (no "This card has already been removed")."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {WIN_CODE}")
    for action in winning_line(WIN_CODE):
        _, message = await tap(api, alice, chat, message, data_for(message, action))
    for word, posted, edited, said in (("s", 1, 0, "Shared already: the first tap posted it"),
                                       ("v", 0, 1, "Your review is shown already: the first tap asked for it")):
        count, edits = len(api.bot_messages(chat)), api.message(chat, message.message_id).edit_count
        first, _ = await tap(api, alice, chat, message, data_for(message, word))
        second, now = await tap(api, alice, chat, message, data_for(message, word))
        assert len(api.bot_messages(chat)) == count + posted, word
        assert now.edit_count == edits + edited, word
        assert second.text == said

    board = await command(api, alice, chat, f"{NEW} {CODE}")
    slot = fitting(Game.from_code(CODE))
    data = data_for(board, Tap(slot))
    _, played = await tap(api, alice, chat, board, data)
    again, same = await tap(api, alice, chat, board, data, check_button=False)  # the keyboard the player saw
    assert again.text is None
    assert same.text == played.text and same.keyboard == played.keyboard
    assert "already been removed" not in same.text
    assert_all_answered(api)


async def test_a_typed_move_in_a_group_is_deleted_only_where_the_bot_is_an_admin(
        api: FakeBotAPI, service: App) -> None:
    """A bot may delete others' messages in a group only as an admin: elsewhere the typed move stays, answered with
    the one-line acknowledgement; as an admin it goes, and nothing is added under the board."""
    alice = api.user("Alice")
    group = api.group("Cards night", members=[alice])
    board = await command(api, alice, group, f"{NEW}@{api.bot_username} {CODE}")
    game_id, _ = game_of(board)
    game = Game.from_code(CODE)
    slot = fitting(game)
    replies, gone = await typed_move(api, alice, group, f"/play {game.card_at(slot).symbol()}")
    outcome = game.push(Tap(slot))
    snapshot = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
    assert snapshot is not None and not gone
    assert [m.text for m in replies] == [play_ack(dataclasses.replace(snapshot, outcome=outcome), "en")]
    api.set_member_status(group, None, "administrator")
    slot = fitting(game)
    replies, gone = await typed_move(api, alice, group, f"/play {game.card_at(slot).symbol()}")
    game.push(Tap(slot))
    assert replies == [] and gone
    assert_shows(api.message(group, board.message_id), expected_view(game, game_id, 2, owner="Alice"))


async def test_a_refused_play_in_a_group_is_answered_privately(api: FakeBotAPI, service: App) -> None:
    """Issue 54: a /play the game refuses was answered in the group, under everyone's eyes; it is the player's
    business, answered in their private chat with the bot."""
    alice = api.user("Alice")
    group = api.group("Cards night", members=[alice])
    await command(api, alice, api.private_chat(alice), "/start")  # Alice has talked to the bot
    await command(api, alice, group, f"{NEW}@{api.bot_username} {CODE}")
    game = Game.from_code(CODE)
    unfitting = not_fitting(game)
    before = len(api.bot_messages(api.private_chat(alice)))
    replies, _ = await typed_move(api, alice, group, f"/play {game.card_at(unfitting).symbol()}")
    assert replies == []  # nothing added in the group
    await api.wait_until(lambda: len(api.bot_messages(api.private_chat(alice))) > before, what="a private answer")
    said = api.bot_messages(api.private_chat(alice))[-1].text
    assert said.startswith(f"{card_label(game.card_at(unfitting))} was not played."), said


async def test_a_rank_alone_and_words_in_a_private_chat(api: FakeBotAPI, service: App) -> None:
    """/play K plays the only free King (several: a message listing them); in a private chat a card's name
    without a command plays it, and other words get a one-line pointer to /help."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    message = await command(api, alice, chat, f"{NEW} {CODE}")  # free: 2♣ A♦ 6♠ K♣ K♥ 10♥ 10♠ J♠ 10♦ 8♠, on Q♣
    kings = await command(api, alice, chat, "/play k")
    assert kings.text == ("More than one free card has that rank: K♣\ufe0e, K♥\ufe0f. Add the suit, such as kc")
    assert await typed_move(api, alice, chat, "/play J") == ([], True)  # played: the board says so
    assert "Score: 499 · Moves: 1" in api.message(chat, message.message_id).text
    eight = await command(api, alice, chat, "8")  # no command: the card's name alone, the only free 8
    assert eight.text.startswith("8♠") and "was not played" in eight.text  # 8♠ does not fit J♠
    two = await command(api, alice, chat, "2c")
    assert two.text.startswith("2♣") and "was not played" in two.text
    hello = await command(api, alice, chat, "hello")
    assert hello.text == "To play a card, send its name, such as 7h = 7♥; for everything else, /help"


async def test_dead_ends_have_a_way_on(api: FakeBotAPI, service: App) -> None:
    """/start with a damaged code: the code's error and the welcome; Rules from the welcome has Play under it;
    "Your game goes on" has a button back to the board."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    handle = api.send_text(alice, chat, "/start garbage")
    await api.wait_until(lambda: handle.update_id in HANDLED, what="/start garbage")
    sent = handle.update["message"]["message_id"]
    error, welcome = [m for m in api.bot_messages(chat) if m.message_id > sent]
    assert error.text == "That is not a game code: a code looks like TP1-E-AAAAAAB (E Easy, C Classic)"
    assert welcome.text.startswith("Welcome to TriPeaks solitaire!")

    count = len(api.bot_messages(chat))
    await tap(api, alice, chat, welcome, "tp:rules")
    rules = api.last_message(chat)
    assert len(api.bot_messages(chat)) == count + 1 and rules.text.startswith("How to play TriPeaks")
    assert [label for label, _ in rules.buttons] == ["Play"]
    _, _ = await tap(api, alice, chat, rules, rules.buttons[0][1] or "")
    board = api.last_message(chat)
    game_id, _ = game_of(board)
    await tap(api, alice, chat, board, data_for(board, DRAW))
    asked = await command(api, alice, chat, f"{NEW} {CODE}")
    no = next(data for label, data in asked.buttons if label == "Keep playing")
    _, kept = await tap(api, alice, chat, asked, no or "")
    assert kept.text == "Your game goes on" and [label for label, _ in kept.buttons] == ["Back to the game"]
    await tap(api, alice, chat, kept, kept.buttons[0][1] or "")
    again = api.last_message(chat)
    assert again.message_id > kept.message_id and game_of(again)[0] == game_id
    assert_all_answered(api)


async def test_anonymous_admins_and_channels_are_no_players(api: FakeBotAPI, service: App) -> None:
    """Issue 43: Telegram sends every anonymous group administrator (and every channel's post) as one user,
    GroupAnonymousBot. Such a command is answered, in words that say to play as oneself, and starts nothing: no
    daily attempt of "Group" in group A that an admin of an unrelated group B could resume or abandon."""
    anonymous = api.user("Group", username="GroupAnonymousBot", id=1087968824)
    alice = api.user("Alice")
    for title in ("A", "B"):
        group = api.group(title, members=[alice])
        for text in ("/daily", "/tripeaks", "/stats"):
            handle = api.send_text(anonymous, group, text, on_behalf_of=group)
            reply = await handle.reply(timeout=10)
            assert reply.text == "Games are played by people, not by a group or a channel: send it from your own account to play"
    assert await service.games.latest_game(PlayerKey("telegram", str(anonymous.id))) is None


#: /start parameters and button payloads of any size and script (issue 43): a review number past any integer a
#: column holds, a superscript digit (str.isdigit says yes, int() says no), another script, control characters.
ODD_STARTS = ["review-" + "9" * 30, "review-²", "review--1", "x" + "9" * 40 + "_daily", "日本語のコード",
              "TP1-E-" + "Z" * 300, "\u202eTP1-E-AAAAAAB", "x1_TP1-E-AAAAAAB" + "A" * 50]
ODD_PAYLOADS = ["tp:g:" + "9" * 30 + ":0:d", "tp:g:1:²:d", "tp:set:lang:" + "x" * 40, "日本", "tp:daily:2026-02-30",
                "tp:y:1:c:" + "Z" * 40, "\x00", ""]


async def test_odd_start_parameters_and_payloads_get_the_polite_answer(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    for parameter in ODD_STARTS:
        handle = api.send_text(alice, chat, f"/start {parameter}")
        await api.wait_until(lambda update_id=handle.update_id: update_id in HANDLED, what=parameter)
        sent = handle.update["message"]["message_id"]
        answers = [m.text or "" for m in api.bot_messages(chat) if m.message_id > sent]
        assert answers, parameter
        assert not any("went wrong" in text for text in answers), (parameter, answers)
        assert any(text == "This is not your game; start your own with /tripeaks"
                   or text.startswith("That is not a game code") for text in answers), (parameter, answers)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    for payload in ODD_PAYLOADS:
        answer, unchanged = await tap(api, alice, chat, board, payload, check_button=False)
        assert answer.text == "This button could not be read; start a new game with /tripeaks", payload
        assert unchanged.edit_count == board.edit_count
    assert_all_answered(api)


async def test_a_forged_tap_on_another_members_message_rewrites_nothing(api: FakeBotAPI, service: App) -> None:
    """Issue 41, point 4: a member's client can send any callback data against any message of the group. Bob's own
    game's Draw, a settings choice and a Yes, each forged onto Alice's board: her board is not edited and is not
    recorded as Bob's; Bob's own game takes his Draw on his own board; a message that answers Alice takes no
    settings choice of his."""
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group(members=[alice, bob])
    alices = await command(api, alice, group, f"{NEW} {CODE}")
    bobs = await command(api, bob, group, f"{NEW} TP1-E-AAAAAAB")
    bob_game, _ = game_of(bobs)
    bob_key = PlayerKey("telegram", str(bob.id))
    edits, text, buttons = alices.edit_count, alices.text, list(alices.buttons)  # as Alice's board stands
    for forged in (data_for(bobs, DRAW), "tp:set:lang:ja", f"tp:y:{bob_game}:c:TP1-E-AAAAAAC"):
        _, after = await tap(api, bob, group, alices, forged, check_button=False)
        assert (after.edit_count, after.text, after.buttons) == (edits, text, buttons), forged
        if forged.endswith(":d"):
            played = await service.games.game(bob_game)
            assert played.game.moves == 1  # his own Draw applied to his own game, on his own board
            assert played.board is not None and played.board.message_id == str(bobs.message_id)
            assert game_of(api.message(group, bobs.message_id)) == (bob_game, 1)
    assert (await service.players.get_settings(bob_key)).language is None
    alice_game, _ = game_of(alices)
    assert (await service.games.game(alice_game)).board == BoardRef(str(group.id), str(alices.message_id))
