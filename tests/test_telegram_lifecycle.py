"""A game's life on Telegram, end to end (issues 15-18): quick and double taps, old boards, the question before a
game in progress is abandoned, finished games (Share, Review, Replay), the welcome and challenge links, the daily
deal again, play by name, retries through Telegram's failures, and languages (pt-br) and menus.

The bot runs as in ``tests/test_telegram_e2e.py`` (whose helpers and fixtures this module shares): the real
python-telegram-bot Application over real HTTP against the fake Bot API, with the real service on SQLite. The
expected messages are the renderer's views, so each test checks that the player is shown the right thing, in the
right message.
"""

# The fixtures of tests/test_telegram_e2e.py are imported by name, and pytest hands them to the tests as
# parameters of the same names:
# ruff: noqa: F811

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import AsyncIterator

import pytest

from bot.adapters.telegram.menu import COMMANDS
from bot.app.assembly import App
from bot.app.challenges import challenge_key
from bot.app.codec import encode, game_command
from bot.app.commands import (
    Begin,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    KeepPlaying,
    PlayDaily,
    RandomDeal,
    Replay,
    Review,
    Share,
    ShowRules,
    StartRequest,
)
from bot.app.errors import CardNotInPlay, NotACard, NotYourGame
from bot.app.model import BoardRef, BoardStyle, GameSnapshot, PlayerKey
from bot.app.outcomes import OldBoard
from bot.i18n import SUPPORTED_LOCALES, language_code
from bot.render.commands import TELEGRAM_DESCRIPTIONS, command_description
from bot.render.endings import render_review, render_share
from bot.render.game import render_game
from bot.render.lifecycle import render_confirm_start, render_kept, render_welcome
from bot.render.replies import error_text, render_leaderboard, render_rules, render_settings
from bot.render.view import View
from core.deal import GameCode, Rules
from core.game import DRAW, Game, Tap
from tests.app_helpers import set_settings
from tests.core_helpers import winning_line
from tests.fakes.telegram_bot_api import FakeBotAPI, FakeChat, FakeUser, StoredMessage
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    HANDLED,
    NEW,
    TEXT_BOARD,
    WIN_CODE,
    after,
    api,
    assert_all_answered,
    assert_shows,
    command,
    data_for,
    db_url,
    drew,
    expected_view,
    game_of,
    no_errors_logged,
    plain,
    played,
    service,
    tap,
    text_boards,
    typed_move,
)

pytestmark = pytest.mark.timeout(60)

DAY = dt.date(2026, 11, 29)
#: What a second tap of Yes or Replay says: the first started the game.
STARTED_ALREADY = "Started already: the first tap started the game"


def player_of(user: FakeUser) -> PlayerKey:
    return PlayerKey("telegram", str(user.id))


async def current(service: App, user: FakeUser) -> GameSnapshot:
    snapshot = await service.games.current_game(player_of(user))
    assert snapshot is not None
    return snapshot


def new_messages(api: FakeBotAPI, chat: FakeChat, after: StoredMessage) -> list[StoredMessage]:
    return [m for m in api.bot_messages(chat) if m.message_id > after.message_id]


async def board_with_a_move(api: FakeBotAPI, user: FakeUser, chat: FakeChat) -> StoredMessage:
    """A game of CODE with one draw: a game in progress that is not abandoned without asking."""
    board = await command(api, user, chat, f"{NEW} {CODE}")
    _, board = await tap(api, user, chat, board, data_for(board, DRAW))
    return board


async def won_board(api: FakeBotAPI, user: FakeUser, chat: FakeChat) -> StoredMessage:
    board = await command(api, user, chat, f"{NEW} {WIN_CODE}")
    for action in winning_line(WIN_CODE):
        _, board = await tap(api, user, chat, board, data_for(board, action))
    return board


def question(snapshot: GameSnapshot, request: StartRequest, *, elsewhere: bool = False) -> View:
    return render_confirm_start(snapshot, request, "en", elsewhere=elsewhere)


@pytest.fixture
async def daily_service(service: App) -> AsyncIterator[App]:
    """The running bot's service on a fixed day, with fixed daily deals (which deal a day gets is the app's
    business)."""
    service.daily_codes.clock = lambda: dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
    service.daily_codes.function = lambda day, secret: {DAY: GameCode.parse("TP1-E-AAAAAAF"),
                                               DAY - dt.timedelta(days=1): GameCode.parse("TP1-E-AAAAAAG")}[day]
    yield service


# --- issue 15: taps ------------------------------------------------------------------------------------------------


async def test_two_quick_card_taps_from_one_keyboard_both_apply(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(board)
    # K♣ fits the waste card, and A♦ fits K♣: both are on the first keyboard, tapped before it changes
    first, second = api.press(alice, chat, board.message_id, data_for(board, Tap(21))), \
        api.press(alice, chat, board.message_id, data_for(board, Tap(19)))
    await api.wait_until(lambda: {first.update_id, second.update_id} <= HANDLED, what="both taps handled")

    game = Game.from_code(CODE)
    assert first.record.answer is not None and first.record.answer.text == played(game.card_at(21))
    assert second.record.answer is not None and second.record.answer.text == played(game.card_at(19))
    game.push(Tap(21))
    game.push(Tap(19))
    assert (await current(service, alice)).game.moves == 2
    # whatever order the two edits were made in, the board ends on the game after both
    assert_shows(api.message(chat, board.message_id), expected_view(game, game_id, 2))
    assert len(api.bot_messages(chat)) == 1
    assert_all_answered(api)


async def test_a_double_tap_on_new_game_asks_once_and_confirms_nothing(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await board_with_a_move(api, alice, chat)
    before = await current(service, alice)
    data = data_for(board, "n")
    taps = [api.press(alice, chat, board.message_id, data) for _ in range(2)]
    await api.wait_until(lambda: {t.update_id for t in taps} <= HANDLED, what="both taps handled")

    asked = new_messages(api, chat, board)
    assert len(asked) == 1  # one question
    assert_shows(asked[0], question(before, RandomDeal(Rules.EASY, False)))
    # nothing was started or abandoned, and the board still shows the game as it was
    after = await current(service, alice)
    assert (after.game_id, after.version) == (before.game_id, before.version)
    assert api.message(chat, board.message_id).text == board.text
    assert_all_answered(api)


async def test_a_double_tap_on_new_game_without_moves_starts_one_game_in_place(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    old_id, _ = game_of(board)
    data = data_for(board, "n")
    taps = [api.press(alice, chat, board.message_id, data) for _ in range(2)]
    await api.wait_until(lambda: {t.update_id for t in taps} <= HANDLED, what="both taps handled")

    now = api.message(chat, board.message_id)
    new_id, version = game_of(now)
    assert new_id != old_id and version == 0
    assert now.edit_count == 1  # drawn once into the new game, never back into the old one
    assert len(api.bot_messages(chat)) == 1
    snapshot = await current(service, alice)
    assert snapshot.game_id == new_id and snapshot.board == BoardRef(str(chat.id), str(board.message_id))
    # the second tap was on a board that had just stopped being the latest: a private word, nothing redrawn
    toasts = {t.record.answer.text for t in taps if t.record.answer is not None}
    assert toasts <= {None, error_text(OldBoard(snapshot), "en", NEW)}
    assert_all_answered(api)


async def test_a_tap_on_a_replaced_board_points_at_the_live_one_and_changes_nothing(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    old = await board_with_a_move(api, alice, chat)
    old_id, old_version = game_of(old)
    asked = await command(api, alice, chat, f"{NEW} {WIN_CODE}")
    _, _ = await tap(api, alice, chat, asked, asked.buttons[0][1] or "")  # Yes
    closed = api.message(chat, old.message_id)
    assert closed.keyboard == []  # an abandoned board keeps no buttons

    # a client that still shows the old keyboard taps it
    answer, shown = await tap(api, alice, chat, closed, encode_tap(old_id, old_version, "d"), check_button=False)
    live = await current(service, alice)
    assert answer.text == error_text(OldBoard(live), "en", NEW)
    assert "TP1-E-AAAAAAC" in answer.text  # it names the game that is live
    assert shown.edit_count == closed.edit_count and shown.text == closed.text
    assert (await current(service, alice)).game_id == live.game_id != old_id
    assert_all_answered(api)


def encode_tap(game_id: int, version: int, word: str) -> str:
    return encode(game_command(game_id, version, word))


# --- issue 15: asking before a game in progress is abandoned -----------------------------------------------------


async def test_new_game_on_a_board_with_moves_asks_and_yes_turns_the_question_into_the_new_board(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await board_with_a_move(api, alice, chat)
    old = await current(service, alice)
    _, _ = await tap(api, alice, chat, board, data_for(board, "n"))
    asked = api.last_message(chat)
    request = RandomDeal(Rules.EASY, False)
    assert_shows(asked, question(old, request))
    assert [data for _, data in asked.buttons] == [encode(ConfirmStart(old.game_id, request)),
                                                    encode(KeepPlaying(old.game_id))]

    answer, started = await tap(api, alice, chat, asked, encode(ConfirmStart(old.game_id, request)))
    new = await current(service, alice)
    assert answer.text is None and new.game_id != old.game_id
    assert_shows(started, render_game(new, "en", TEXT_BOARD))
    assert new.board == BoardRef(str(chat.id), str(asked.message_id))  # the question is the live board now
    # the abandoned game's board is closed: as it stood, without buttons
    abandoned = await service.games.game(old.game_id)
    assert_shows(api.message(chat, board.message_id), render_game(abandoned, "en", TEXT_BOARD, latest=False))
    assert api.message(chat, board.message_id).keyboard == []

    # Yes again (a double tap): one game was started, the message is not turned back, and the second tap says just
    # that (issue 27: it used to say "That board is not your current game" about the game it had just started)
    answer, again = await tap(api, alice, chat, started, encode(ConfirmStart(old.game_id, request)),
                              check_button=False)
    assert answer.text == STARTED_ALREADY
    assert again.text == started.text and (await current(service, alice)).game_id == new.game_id
    assert_all_answered(api)


async def test_no_keeps_the_game_and_says_so(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await board_with_a_move(api, alice, chat)
    old = await current(service, alice)
    asked = await command(api, alice, chat, f"{NEW} {WIN_CODE}")
    assert_shows(asked, question(old, DealByCode(WIN_CODE)))
    answer, kept = await tap(api, alice, chat, asked, encode(KeepPlaying(old.game_id)))
    assert answer.text is None
    assert_shows(kept, render_kept("en"))
    assert (await current(service, alice)).version == old.version
    assert api.message(chat, board.message_id).text == board.text
    assert_all_answered(api)


async def test_yes_and_no_in_a_group_are_for_the_player_asked(api: FakeBotAPI, service: App) -> None:
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group(members=[alice, bob])
    await board_with_a_move(api, alice, group)
    old = await current(service, alice)
    asked = await command(api, alice, group, NEW)
    for data in (encode(ConfirmStart(old.game_id, RandomDeal())), encode(KeepPlaying(old.game_id))):
        answer, shown = await tap(api, bob, group, asked, data)
        assert answer.text == error_text(NotYourGame(), "en", NEW)
        assert shown.edit_count == 0
    assert (await current(service, alice)).game_id == old.game_id


def live_questions(api: FakeBotAPI, chat: FakeChat) -> list[StoredMessage]:
    """The bot's messages in ``chat`` that still ask "start a new game?" or say "your game goes on"."""
    return [m for m in api.bot_messages(chat)
            if {"Yes, start", "Keep playing", "Back to the game"} & {label for label, _ in m.buttons}
            or m.text.startswith("Your game goes on")]


@pytest.mark.parametrize("style", [BoardStyle.TEXT, BoardStyle.PICTURE])
async def test_answered_questions_leave_the_group(api: FakeBotAPI, service: App, style: BoardStyle) -> None:
    """Issue 54: in a group, a question once answered is no message of its own among everyone's: No makes it the
    game's board (the older board closed, one live board), Yes the new game's board; a question a picture board
    cannot be drawn into is deleted."""
    alice = api.user("Alice")
    group = api.group(members=[alice])
    await set_settings(service, player_of(alice), board=style)
    await board_with_a_move(api, alice, group)
    old = await current(service, alice)
    asked = await command(api, alice, group, NEW)
    answer, _ = await tap(api, alice, group, asked, encode(KeepPlaying(old.game_id)))
    assert answer.text == "Your game goes on"
    kept = await current(service, alice)
    assert kept.game_id == old.game_id and kept.version == old.version
    assert live_questions(api, group) == []
    assert kept.board is not None and kept.board.message_id == str(api.last_message(group).message_id)
    if style == BoardStyle.TEXT:  # the question is the board now
        assert kept.board.message_id == str(asked.message_id)
    else:
        assert api.message(group, asked.message_id).deleted and api.last_message(group).is_photo

    asked = await command(api, alice, group, NEW)
    await tap(api, alice, group, asked, encode(ConfirmStart(old.game_id, RandomDeal())))
    new = await current(service, alice)
    assert new.game_id != old.game_id and live_questions(api, group) == []
    assert new.board is not None and new.board.message_id == str(api.last_message(group).message_id)
    assert api.message(group, asked.message_id).deleted == (style == BoardStyle.PICTURE)
    assert_all_answered(api)


async def test_no_in_a_group_for_a_game_played_elsewhere_leaves_its_board_there(api: FakeBotAPI, service: App) -> None:
    """The game's board is in the private chat, the question in a group: No leaves the board where it is and says
    "Your game goes on" with Back to the game; Back brings the board into the group, and the note goes."""
    alice = api.user("Alice")
    group, chat = api.group(members=[alice]), api.private_chat(alice)
    await board_with_a_move(api, alice, chat)
    old = await current(service, alice)
    asked = await command(api, alice, group, NEW)
    _, kept = await tap(api, alice, group, asked, encode(KeepPlaying(old.game_id)))
    assert_shows(kept, render_kept("en"))
    assert (await current(service, alice)).board == old.board  # still in the private chat
    await tap(api, alice, group, kept, kept.buttons[0][1] or "")
    assert api.message(group, kept.message_id).deleted and live_questions(api, group) == []
    back = await current(service, alice)
    assert back.board == BoardRef(str(group.id), str(api.last_message(group).message_id))
    assert_all_answered(api)


@pytest.mark.parametrize("way", ["/tripeaks", "/tripeaks CODE", "/daily", "daily Play", "/start CODE",
                                 "welcome Play"])
async def test_every_way_to_start_asks_first_while_a_game_is_in_progress(
        api: FakeBotAPI, daily_service: App, way: str) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await board_with_a_move(api, alice, chat)
    old = await current(daily_service, alice)
    requests: dict[str, StartRequest] = {
        "/tripeaks": RandomDeal(), "/tripeaks CODE": DealByCode(WIN_CODE), "/daily": DailyDeal(),
        "daily Play": DailyDeal(DAY), "/start CODE": DealByCode(WIN_CODE), "welcome Play": RandomDeal()}
    if way == "daily Play":
        _, _ = await tap(api, alice, chat, board, encode(PlayDaily(DAY)), check_button=False)
        asked = api.last_message(chat)
    elif way == "welcome Play":
        welcome = await command(api, alice, chat, "/start")
        _, _ = await tap(api, alice, chat, welcome, encode(Begin(RandomDeal())))
        asked = api.last_message(chat)
    else:
        asked = await command(api, alice, chat, way.replace("CODE", WIN_CODE))
    assert_shows(asked, question(old, requests[way]))
    after = await current(daily_service, alice)
    assert (after.game_id, after.version) == (old.game_id, old.version)
    assert_all_answered(api)


async def test_the_question_names_a_game_in_another_chat(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    await board_with_a_move(api, alice, api.private_chat(alice))
    old = await current(service, alice)
    group = api.group(members=[alice])
    asked = await command(api, alice, group, NEW)
    assert_shows(asked, question(old, RandomDeal(), elsewhere=True))
    assert asked.text != plain(question(old, RandomDeal()))  # it does say so

    # Yes in the group: the new board is the question in the group, and the private board is closed
    _, started = await tap(api, alice, group, asked, encode(ConfirmStart(old.game_id, RandomDeal())))
    new = await current(service, alice)
    assert new.board == BoardRef(str(group.id), str(asked.message_id))
    assert_shows(started, render_game(new, "en", TEXT_BOARD, owner_label=True))
    assert old.board is not None
    closed = api.message(api.private_chat(alice), int(old.board.message_id))
    assert closed.keyboard == []


# --- issues 15 and 16: finished games -------------------------------------------------------------------------


async def test_replay_and_new_game_on_a_finished_board_are_new_messages(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    won = await won_board(api, alice, chat)
    won_id, _ = game_of(won)
    answer, kept = await tap(api, alice, chat, won, encode(Replay(won_id)))
    replay = api.last_message(chat)
    assert answer.text is None and replay.message_id != won.message_id
    new = await current(service, alice)
    assert str(new.game.code) == WIN_CODE and new.game.moves == 0 and new.game_id != won_id
    assert_shows(replay, render_game(new, "en", TEXT_BOARD))
    assert new.board == BoardRef(str(chat.id), str(replay.message_id))
    # the won board stays as it ended, with Share and Review only
    assert "You won!" in kept.text and [label for label, _ in kept.buttons] == ["Share", "Review"]
    assert_shows(kept, render_game(await service.games.game(won_id), "en", TEXT_BOARD, latest=False))

    # Replay once more from the old board (a double tap): its deal is dealt already, so nothing more happens and
    # the tap says so (issue 27: not "That board is not your current game" on a board of that very code)
    answer, _ = await tap(api, alice, chat, kept, encode(Replay(won_id)), check_button=False)
    assert answer.text == STARTED_ALREADY
    assert (await current(service, alice)).game_id == new.game_id
    assert api.last_message(chat).message_id == replay.message_id
    assert_all_answered(api)


async def test_share_posts_a_result_to_forward_with_a_challenge_link_that_deals_the_same_cards(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    won = await won_board(api, alice, chat)
    won_id, _ = game_of(won)
    answer, _ = await tap(api, alice, chat, won, encode(Share(won_id)))
    shared = api.last_message(chat)
    # a challenge by reference: Alice's game and the key the bot signed it with, no code
    key = challenge_key(won_id, await service.daily_codes.secret())
    link = f"https://t.me/{api.bot_username}?start=x{won_id}_{key}"
    snapshot = dataclasses.replace(await service.games.game(won_id), challenge_key=key)
    assert answer.text is None and shared.message_id != won.message_id and WIN_CODE not in shared.text
    view = render_share(snapshot, "en", replay=link, url=link)
    assert shared.text == plain(view)
    assert shared.links == [(view.buttons[0][0].label, link)]

    # a friend follows the link: Telegram sends /start x<game>_<key> in a private chat, and the deal is dealt, as
    # a challenge of Alice's game: its code kept from him while he plays, the score to beat shown
    bob = api.user("Bob")
    bob_chat = api.private_chat(bob)
    board = await command(api, bob, bob_chat, f"/start x{won_id}_{key}")
    bobs = await current(service, bob)
    assert str(bobs.game.code) == WIN_CODE and game_of(board) == (bobs.game_id, 0)
    assert bobs.challenge is not None and bobs.challenge.game_id == won_id and bobs.challenge.name == "Alice"
    assert_shows(board, render_game(bobs, "en", bobs.settings))
    assert WIN_CODE not in board.text and f"To beat: {snapshot.game.score} (Alice)" in board.text
    assert_all_answered(api)


async def test_review_tapped_in_a_group_is_sent_to_the_players_private_chat(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    group = api.group(members=[alice])
    private = api.private_chat(alice)  # alice has started the bot (else the tap opens that chat by a link)
    won = await won_board(api, alice, group)
    won_id, _ = game_of(won)
    in_group = len(api.bot_messages(group))
    answer, unchanged = await tap(api, alice, group, won, encode(Review(won_id)))
    assert answer.text == "Your review is in your private chat with the bot"
    assert unchanged.edit_count == won.edit_count and len(api.bot_messages(group)) == in_group
    expected = render_review(await service.games.game(won_id), await service.advice.review(player_of(alice), won_id), "en")
    assert_shows(api.last_message(private), expected)
    assert_all_answered(api)


async def test_settings_asked_for_in_a_group_go_to_the_private_chat(api: FakeBotAPI, service: App) -> None:
    """Issue 44: /settings in a group answers in the player's private chat, so nothing is posted under the boards
    in the group, and a tap there changes the setting; a player who never started the bot gets them in the group,
    as before (the bot may not write first)."""
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group(members=[alice, bob])
    private = api.private_chat(alice)
    board = await command(api, alice, group, f"{NEW} {CODE}")
    handle = api.send_text(alice, group, "/settings")
    await api.wait_until(lambda: handle.update_id in HANDLED, what="/settings")
    assert api.last_message(group).message_id == board.message_id
    settings = api.last_message(private)
    assert settings.text == plain(render_settings(await service.players.get_settings(player_of(alice)), "en"))
    _, settings = await tap(api, alice, private, settings, "tp:set:explain:off")
    assert ("Explanations: off", "tp:set:explain:on") in settings.buttons
    assert (await service.players.get_settings(player_of(alice))).explain_refusals is False
    shown = await command(api, bob, group, "/settings")
    assert shown.text == plain(render_settings(await service.players.get_settings(player_of(bob)), "en"))
    assert_all_answered(api)


# --- issue 16: the welcome, the daily again, winnable-only, the leaderboard ---------------------------------------


async def test_start_is_a_short_welcome_with_play_daily_and_rules(api: FakeBotAPI, daily_service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    welcome = await command(api, alice, chat, "/start")
    assert_shows(welcome, render_welcome("en"))
    assert [data for _, data in welcome.buttons] == [encode(Begin(RandomDeal())), encode(Begin(DailyDeal())),
                                                      encode(ShowRules(play=True))]

    _, _ = await tap(api, alice, chat, welcome, encode(ShowRules(play=True)))
    assert api.last_message(chat).text == plain(render_rules("en"))
    _, _ = await tap(api, alice, chat, welcome, encode(Begin(DailyDeal())))
    daily = await current(daily_service, alice)
    assert daily.daily == DAY and str(daily.game.code) == "TP1-E-AAAAAAF"
    assert_shows(api.last_message(chat), render_game(daily, "en", TEXT_BOARD))
    _, _ = await tap(api, alice, chat, welcome, encode(Begin(RandomDeal())))
    game = await current(daily_service, alice)
    assert game.game_id != daily.game_id  # the untouched daily was replaced without a question
    assert_shows(api.last_message(chat), render_game(game, "en", TEXT_BOARD))
    assert api.message(chat, welcome.message_id).edit_count == 0
    assert_all_answered(api)


async def test_daily_in_a_group_is_played_in_private_and_again_shows_the_attempt_anew(
        api: FakeBotAPI, daily_service: App) -> None:
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group(members=[alice, bob])
    alice_chat, bob_chat = api.private_chat(alice), api.private_chat(bob)
    await command(api, alice, group, "/daily")  # the attempt goes to her private chat
    first = api.last_message(alice_chat)
    _, first = await tap(api, alice, alice_chat, first, data_for(first, DRAW))
    await command(api, alice, group, "/daily")
    again = api.last_message(alice_chat)
    attempt = await current(daily_service, alice)
    assert again.message_id != first.message_id
    assert game_of(again) == game_of(first) == (attempt.game_id, 1)  # resumed, the draw kept
    assert attempt.board == BoardRef(str(alice_chat.id), str(again.message_id))  # the new message is the live board
    assert_shows(again, render_game(attempt, "en", TEXT_BOARD))

    # two players tap Play under one post: each attempt in its player's private chat, nothing in the group
    post = api.bot_messages(group)[-1]
    in_group = len(api.bot_messages(group))
    for player in (alice, bob):
        answer, _ = await tap(api, player, group, post, encode(PlayDaily(DAY)), check_button=False)
        assert answer.text == "Your daily attempt is in your private chat with the bot"
    assert len(api.bot_messages(group)) == in_group
    assert game_of(api.last_message(alice_chat)) == (attempt.game_id, 1)
    assert game_of(api.last_message(bob_chat))[1] == 0

    board = await command(api, alice, group, "/leaderboard")
    results = await daily_service.leaderboards.of("telegram", str(group.id), DAY)
    assert board.text == plain(render_leaderboard(DAY, results, "en"))
    assert_all_answered(api)


async def test_winnable_turns_winnable_only_deals_on_and_off(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    shown = await command(api, alice, chat, "/winnable")  # Easy by default: off, so this turns it on
    settings = await service.players.get_settings(player_of(alice))
    assert settings.winnable_only is True
    assert shown.text == plain(render_settings(settings, "en"))
    _ = await command(api, alice, chat, "/winnable off")
    assert (await service.players.get_settings(player_of(alice))).winnable_only is False


# --- issue 15: play by name ------------------------------------------------------------------------------------


async def test_play_by_name_explains_words_and_cards_not_in_play(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    stock_card = Game.from_code(CODE).deal.stock[0]
    word = await command(api, alice, chat, "/play zz")
    assert word.text == error_text(NotACard("zz"), "en", NEW) and word.text.startswith("That is not a card")
    stock = await command(api, alice, chat, f"/play {stock_card}")
    assert stock.text == error_text(CardNotInPlay(str(stock_card)), "en", NEW) == "That card is not in play yet"
    assert api.message(chat, board.message_id).edit_count == 0


async def test_play_by_name_edits_the_live_board_where_it_is(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    group = api.group(members=[alice])
    board = await command(api, alice, group, f"{NEW} {CODE}")
    game_id, _ = game_of(board)
    private = api.private_chat(alice)
    ack = await command(api, alice, private, f"/play {Game.from_code(CODE).card_at(21)}")
    assert ack.text.startswith("You played")  # the board is in the group: here only this line says it
    game = Game.from_code(CODE)
    game.push(Tap(21))
    assert_shows(api.message(group, board.message_id), expected_view(game, game_id, 1, owner="Alice"))
    assert [m.message_id for m in api.bot_messages(private)] == [ack.message_id]


# --- issue 17: retries ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("code", "description"), [(502, "Bad Gateway"), (500, "Internal Server Error")])
async def test_a_tap_edit_that_fails_on_the_way_is_retried_until_the_board_catches_up(
        api: FakeBotAPI, service: App, code: int, description: str) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(board)
    api.inject_error("editMessageText", chat=chat, error_code=code, description=description, count=2)
    answer, edited = await tap(api, alice, chat, board, data_for(board, DRAW))
    assert answer.text == drew(Game.from_code(CODE).deal.stock[0])
    assert [r.status for r in api.calls("editMessageText")] == [code, code, 200]
    assert_shows(edited, expected_view(after(CODE, DRAW), game_id, 1))
    assert len(api.bot_messages(chat)) == 1


async def test_a_new_board_that_fails_on_the_way_is_sent_again(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    welcome = await command(api, alice, chat, "/start")
    api.inject_error("sendMessage", chat=chat, error_code=503, description="Service Unavailable")
    _, _ = await tap(api, alice, chat, welcome, encode(Begin(DealByCode(CODE))), check_button=False)
    sends = api.calls("sendMessage", chat=chat)
    assert [r.status for r in sends][-2:] == [503, 200]
    game = await current(service, alice)
    assert game.board == BoardRef(str(chat.id), str(api.last_message(chat).message_id))
    assert_shows(api.last_message(chat), expected_view(Game.from_code(CODE), game.game_id, 0))
    assert_all_answered(api)


# --- issue 18: languages and menus ----------------------------------------------------------------------------


@pytest.mark.parametrize("tag", ["pt-br", "pt-BR", "pt"])
async def test_a_brazilian_portuguese_player_is_answered_in_portuguese(
        api: FakeBotAPI, service: App, tag: str) -> None:
    ana = api.user("Ana", language_code=tag)
    chat = api.private_chat(ana)
    board = await command(api, ana, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(board)
    assert_shows(board, expected_view(Game.from_code(CODE), game_id, 0, locale="pt_BR"))
    assert board.text != plain(expected_view(Game.from_code(CODE), game_id, 0))  # not English


async def test_the_command_menu_is_set_in_all_ten_languages(api: FakeBotAPI, service: App) -> None:
    described = [(name, key) for name, key in COMMANDS if key in TELEGRAM_DESCRIPTIONS]
    assert len(SUPPORTED_LOCALES) == 10
    for locale in SUPPORTED_LOCALES:
        code = language_code(locale)
        assert len(code) == 2  # Telegram takes two-letter codes only
        menu = api.commands(language_code=code)
        assert menu == [(name, command_description(key, locale, "telegram")) for name, key in described], locale
    assert dict(api.commands(language_code="pt"))["tripeaks"] != dict(api.commands())["tripeaks"]
    assert api.commands() == api.commands(language_code="en")  # English for everyone else


