"""Playing at a player's pace under Telegram's flood control (issue 41): the real Application on the fake Bot API
with its flood limits on (about one message a second in a chat, 20 a minute in a group, edits counting as sends;
429 with ``retry_after`` past them), and the bot at its production pace.

A brisk player taps the next move as soon as the toast of the last one came back, never waiting for the board.
Each tap is answered at once with what it did; the board catches up at the chat's pace, with the taps made
meanwhile coalesced into one edit, and shows the final state a few seconds after the last tap; a refused tap
edits nothing. :class:`~bot.adapters.telegram.boards.BoardEdits` is also checked on its own: an edit draws the
game as the database has it when it is sent, and one that another process overtook is followed by another.
"""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Sequence

import pytest

from bot.adapters.telegram import pacing
from bot.adapters.telegram.boards import BoardEdits
from bot.adapters.telegram.pacing import OFFER_AGAIN, OFFER_SHOWN, TELEGRAM_PACE, BusyOffers, ChatPace, Pace
from bot.app.assembly import App
from bot.app.codec import RESUME_START, decode, encode, game_command
from bot.app.commands import Move
from bot.app.model import BoardRef, GameSnapshot, PlayerKey
from bot.render.table_button import open_table_label, with_own_pace_offer
from bot.render.tableau import card_label
from bot.render.view import View
from core.game import DRAW, Action, Game, Outcome, Tap
from tests.core_helpers import winning_line
from tests.fakes.telegram_bot_api import FakeBotAPI, FakeChat, FakeUser, FloodLimits, StoredMessage
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    HANDLED,
    NEW,
    WIN_CODE,
    assert_all_answered,
    assert_shows,
    command,
    db_url,
    drew,
    expected_view,
    game_of,
    no_errors_logged,
    not_fitting,
    plain,
    played,
    rows,
    running_bot,
    spaced,
    styles,
    text_boards,
)

pytestmark = pytest.mark.timeout(120)

#: The line a busy group's board offers its player a board of their own with (its start, in English).
OFFER = "This group is busy"

#: How long after the last tap the board may take to show it: the chat's next turn (a second in a private chat,
#: 3.5 s in a group, twice that with two boards), with room for a loaded machine.
CATCH_UP = 15.0


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI(flood_control=FloodLimits()) as server:
        yield server


@pytest.fixture
async def service(api: FakeBotAPI, db_url: str, no_errors_logged: None) -> AsyncIterator[App]:
    async with running_bot(api, db_url, pace=TELEGRAM_PACE) as running:
        yield running


class Player:
    """A player tapping their board briskly: each move as soon as the last one's toast came back, with the
    buttons of the game as it stands (what the board shows once it has caught up)."""

    def __init__(self, api: FakeBotAPI, user: FakeUser, chat: FakeChat, board: StoredMessage, code: str) -> None:
        self.api, self.user, self.chat, self.board = api, user, chat, board
        self.game_id, self.version = game_of(board)
        self.game = Game.from_code(code)
        self.outcome: Outcome | None = None
        self.toasts: list[str] = []
        self.expected: list[str] = []
        #: where among the requests each tap was answered
        self.answered_at: list[int] = []
        #: when each tap was pressed (the fake's clock: ``time.time``), by the version it made
        self.pressed: dict[int, float] = {}

    async def tap(self, action: Action) -> None:
        data = encode(game_command(self.game_id, self.version, str(action)))
        self.pressed[self.version + 1] = time.time()
        press = self.api.press(self.user, self.chat, self.board.message_id, data, check_button=False)
        answer = await press.answer()
        self.answered_at.append(next(r.index for r in self.api.calls("answerCallbackQuery")
                                     if r.params.get("callback_query_id") == press.query_id))
        self.outcome = self.game.push(action)
        assert self.outcome.card is not None
        self.version += 1
        self.toasts.append((answer.text or "").split(" · ")[0])  # a cleared peak or the end may follow
        self.expected.append((played if isinstance(action, Tap) else drew)(self.outcome.card))

    def shows_the_game(self) -> bool:
        return game_of(self.api.message(self.chat, self.board.message_id)) == (self.game_id, self.version)

    async def caught_up(self) -> StoredMessage:
        """The board once it shows the game as it stands (within :data:`CATCH_UP` of the last tap)."""
        await self.api.wait_until(self.shows_the_game, timeout=CATCH_UP, what="the board to show the last move")
        return self.api.message(self.chat, self.board.message_id)

    def edits(self) -> list[tuple[int, int]]:
        """Each edit of the board made: where among the requests, and the version its buttons carry."""
        made = [r for r in self.api.calls("editMessageText")
                if r.ok and r.params.get("message_id") == self.board.message_id and r.chat_id == self.chat.id]
        return [(r.index, version_in(r.params.get("reply_markup"))) for r in made]

    def lags(self) -> dict[int, float]:
        """For each tap, by the version it made: seconds from its press until the fake took an edit of the board
        showing that version or a later one (both on the fake's clock)."""
        edits = [(r.time, version_in(r.params.get("reply_markup"))) for r in self.api.calls("editMessageText")
                 if r.ok and r.params.get("message_id") == self.board.message_id and r.chat_id == self.chat.id]
        found = {}
        for version, pressed in self.pressed.items():
            shown = next((at for at, seen in edits if seen >= version and at >= pressed), None)
            assert shown is not None, f"the board never showed version {version}"
            found[version] = shown - pressed
        return found

    def answered_before_shown(self) -> bool:
        """Every tap was answered before the board showed its move: no tap waited for its board."""
        edits = self.edits()
        return all(any(version >= tapped + 1 and at > answered for at, version in edits)
                   for tapped, answered in enumerate(self.answered_at, start=self.version - len(self.answered_at)))


def version_in(markup: object) -> int:
    """The game version a board's keyboard (as sent) carries."""
    assert isinstance(markup, dict)
    for row in markup["inline_keyboard"]:
        for button in row:
            command = decode(button.get("callback_data", ""))
            if isinstance(command, Move):
                return command.version
    raise AssertionError(f"no move on {markup}")


def private_link(api: FakeBotAPI) -> str:
    """Where a busy group's board offers its player their game when the bot has no Mini App: the private chat."""
    return f"https://t.me/{api.bot_username}?start={RESUME_START}"


def assert_offers(api: FakeBotAPI, message: StoredMessage, view: View) -> None:
    """The message shows ``view`` with the line and the button that offer its player their game in the private
    chat (a busy group's board)."""
    offer = with_own_pace_offer(view, "en", private_link(api))
    offered = dataclasses.replace(offer, buttons=view.buttons)  # the link's button read apart: it carries no data
    assert spaced(message.text) == spaced(plain(offered))
    assert message.keyboard[:-1] == rows(view) and message.styles[:-1] == styles(view)
    assert message.links == [(offer.buttons[-1][0].label, private_link(api))]


def assert_shows_board(api: FakeBotAPI, message: StoredMessage, view: View) -> None:
    """The message shows ``view``, or, in a busy group, ``view`` with the offer of the player's own board."""
    if OFFER in (message.text or ""):
        assert_offers(api, message, view)
    else:
        assert_shows(message, view)


async def test_a_private_game_played_briskly_ends_on_the_last_move_without_flood_errors(
        api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    player = Player(api, alice, chat, await command(api, alice, chat, f"{NEW} {CODE}"), CODE)
    line: list[Action] = []
    game = Game.from_code(CODE)
    for _ in range(20):  # twenty moves: a card that fits where there is one, else Draw
        fits = [s for s in game.playable_slots() if game.fits(s)]
        action: Action = Tap(fits[0]) if fits else DRAW
        game.push(action)
        line.append(action)

    for action in line:
        await player.tap(action)

    assert player.toasts == player.expected  # every tap was told at once what it did
    board = await player.caught_up()
    assert_shows(board, expected_view(player.game, player.game_id, len(line), outcome=player.outcome))
    assert player.answered_before_shown()
    # the taps made while the board waited for its turn were coalesced: far fewer edits than taps
    assert len(player.edits()) < len(line) / 2
    # the bot kept within Telegram's limits: no 429 met
    assert api.flood_refusals() == []
    assert_all_answered(api)


async def test_two_players_in_a_group_both_boards_catch_up(api: FakeBotAPI, service: App) -> None:
    """A group allows 20 messages a minute for everyone: two players tapping briskly share it, and both boards
    end on their game's last move."""
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group("Club", members=[alice, bob])
    players = [Player(api, user, group, await command(api, user, group, f"{NEW} {WIN_CODE}"), WIN_CODE)
               for user in (alice, bob)]
    line = list(winning_line(WIN_CODE))[:12]

    for action in line:
        for player in players:
            await player.tap(action)

    for player in players:
        assert player.toasts == player.expected
        board = await player.caught_up()
        assert_shows_board(api, board, expected_view(player.game, player.game_id, len(line),
                                                     owner=player.user.first_name, outcome=player.outcome))
        assert player.answered_before_shown()
        assert len(player.edits()) <= len(line) // 2
    assert api.flood_refusals() == []
    assert_all_answered(api)


async def play_on_schedule(player: Player, line: Sequence[Action], begin: float, interval: float) -> None:
    """The player's taps, one every ``interval`` seconds from ``begin`` (the event loop's clock): the player's
    tempo, each tap made without waiting for the board."""
    loop = asyncio.get_running_loop()
    for index, action in enumerate(line):
        await asyncio.sleep(max(0.0, begin + index * interval - loop.time()))
        await player.tap(action)


async def test_three_players_tapping_every_one_and_a_half_seconds_in_a_group_all_see_their_moves(
        api: FakeBotAPI, service: App) -> None:
    """Issue 49: three players in one group, each tapping every 1.5 s (twice the 20 edits a minute a group
    allows). The group's edits go round its boards (the one waiting longest first), each drawing its game as it
    stands when sent: every board shows each move within :data:`CATCH_UP` of its tap, the last move included,
    with far fewer edits than taps and never an older state after a newer one, and the bot meets no 429. Each
    board, once the group is busy, offers its player their game in the private chat (a line and a link)."""
    users = [api.user(name) for name in ("Alice", "Bob", "Carol")]
    group = api.group("Club", members=users)
    players = [Player(api, user, group, await command(api, user, group, f"{NEW} {WIN_CODE}"), WIN_CODE)
               for user in users]
    line = list(winning_line(WIN_CODE))[:14]
    interval = 1.5
    begin = asyncio.get_running_loop().time() + 0.1
    since = len(api.requests)

    await asyncio.gather(*(play_on_schedule(player, line, begin + n * interval / len(players), interval)
                           for n, player in enumerate(players)))

    for player in players:
        assert player.toasts == player.expected  # every tap told at once what it did
        board = await player.caught_up()
        # the group is busy: the board offers its player their game where the group's limit does not apply
        assert_offers(api, board, expected_view(player.game, player.game_id, len(line),
                                                owner=player.user.first_name, outcome=player.outcome))
        lags = player.lags()
        assert lags[player.version] <= CATCH_UP  # the last move, within the bound of the last tap
        assert max(lags.values()) <= CATCH_UP  # and every move before it
        shown = [version for _, version in player.edits()]
        assert shown == sorted(set(shown))  # each edit a newer state: never a replay, never back
        assert len(shown) <= len(line) // 2  # the taps made while a board waited share its edit
    assert api.flood_refusals() == []
    assert all(r.ok for r in api.requests[since:] if r.method == "editMessageText")  # every edit landed
    assert_all_answered(api)


async def test_a_busy_group_with_the_mini_app_offers_its_button(api: FakeBotAPI, db_url: str,
                                                                 no_errors_logged: None) -> None:
    """Where the Mini App is set up, every group board already has the table's button (its direct link): in a busy
    group the offer's line names that button and adds no other."""
    async with running_bot(api, db_url, pace=TELEGRAM_PACE, public_url="https://tripeaks.example.org",
                           telegram_mini_app="table"):
        users = [api.user(name) for name in ("Alice", "Bob")]
        group = api.group("Club", members=users)
        players = [Player(api, user, group, await command(api, user, group, f"{NEW} {WIN_CODE}"), WIN_CODE)
                   for user in users]
        line = list(winning_line(WIN_CODE))[:10]
        begin = asyncio.get_running_loop().time() + 0.1
        await asyncio.gather(*(play_on_schedule(player, line, begin + n * 0.5, 1.0)
                               for n, player in enumerate(players)))
        table = f"https://t.me/{api.bot_username}/table?startapp=play"
        for player in players:
            board = await player.caught_up()
            assert f"{OFFER}, so boards here catch up slowly. “{open_table_label('en')}” lets you play at your " \
                   "own pace" in (board.text or "")
            assert board.links == [(open_table_label("en"), table)]


async def test_the_private_link_a_busy_group_offers_brings_the_game_there(api: FakeBotAPI, service: App) -> None:
    """``t.me/<bot>?start=resume``, the link a busy group's board offers, opens the private chat with the game in
    progress as its board, to play at the private chat's pace; the group's board is closed (one live board)."""
    alice = api.user("Alice")
    group = api.group("Club", members=[alice])
    board = await command(api, alice, group, f"{NEW} {CODE}")
    game_id, _ = game_of(board)
    chat = api.private_chat(alice)

    moved = await command(api, alice, chat, f"/start {RESUME_START}")

    assert game_of(moved) == (game_id, 0)
    assert_shows(moved, expected_view(Game.from_code(CODE), game_id, 0))
    closed = api.message(group, board.message_id)
    assert closed.edit_count == 1 and not [data for _, data in closed.buttons if (data or "").startswith(f"tp:g:{game_id}:")]


def test_the_offer_names_the_button_it_means_in_every_language() -> None:
    """With the Mini App set up the board already has the table's button: the line names it and adds none; else
    it adds the private chat's button. In every language the line names the button as its label reads."""
    board = expected_view(Game.from_code(CODE), 1, 0, owner="Alice")
    for locale in ("en", "uk", "ru", "ja", "de", "fr", "es", "pt_BR", "pl", "tr"):
        offered = with_own_pace_offer(board, locale, None)
        assert offered.buttons == board.buttons
        assert offered.status is not None and open_table_label(locale) in offered.status.splitlines()[-1]
        private = with_own_pace_offer(board, locale, "https://t.me/b?start=resume")
        (button,) = private.buttons[-1]
        assert button.url == "https://t.me/b?start=resume" and button.label in (private.status or "")


async def test_a_refused_tap_under_flood_control_edits_nothing_and_says_why(api: FakeBotAPI, service: App) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    game = Game.from_code(CODE)
    slot = not_fitting(game)
    press = api.press(alice, chat, board.message_id, encode(game_command(game_of(board)[0], 0, str(Tap(slot)))))
    await api.wait_until(lambda: press.update_id in HANDLED, what="the refused tap handled")
    assert press.record.answer is not None
    assert press.record.answer.text == f"{card_label(game.card_at(slot))} was not played. Must be one rank higher " \
                                       "or lower"
    assert api.message(chat, board.message_id).edit_count == 0
    assert api.calls("editMessageText") == []


async def test_quick_card_taps_from_one_keyboard_all_apply_under_flood_control(
        api: FakeBotAPI, service: App) -> None:
    """Stale taps that are still legal keep applying: K♣ and then A♦, both tapped on the first keyboard before the
    board changes, both play; each toast names its card and the board ends on both."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, f"{NEW} {CODE}")
    game_id, _ = game_of(board)
    presses = [api.press(alice, chat, board.message_id, encode(game_command(game_id, 0, str(Tap(slot)))))
               for slot in (21, 19)]
    game = Game.from_code(CODE)
    assert [(await press.answer()).text for press in presses] == [played(game.card_at(21)), played(game.card_at(19))]
    game.push(Tap(21))
    outcome = game.push(Tap(19))
    await api.wait_until(lambda: game_of(api.message(chat, board.message_id)) == (game_id, 2), timeout=CATCH_UP,
                         what="the board to show both cards played")
    assert_shows(api.message(chat, board.message_id), expected_view(game, game_id, 2, outcome=outcome))
    assert api.flood_refusals() == []


async def test_a_long_flood_pause_is_waited_out_and_the_board_catches_up(api: FakeBotAPI, service: App) -> None:
    """Telegram may ask for a pause longer than a few seconds (repeated 429s earn longer ones): the bot waits it
    out, however long, writes nothing to the chat meanwhile, and then draws the board as the game stands: one edit
    showing the last move, not the refused edit again."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    player = Player(api, alice, chat, await command(api, alice, chat, f"{NEW} {CODE}"), CODE)
    api.fail_next(chat, retry_after=6, method="editMessageText")
    await player.tap(DRAW)
    await player.tap(DRAW)

    board = await player.caught_up()
    assert game_of(board) == (player.game_id, 2)
    refused = api.flood_refusals(chat)
    assert [r.method for r in refused] == ["editMessageText"]
    written = [r for r in api.requests[refused[0].index + 1:]
               if r.method in ("editMessageText", "sendMessage") and r.chat_id == chat.id]
    assert written and all(r.time - refused[0].time >= 6 for r in written)
    # the edit refused is not sent again as it was drawn: after the pause the board is drawn as the game stands
    assert [version_in(r.params.get("reply_markup")) for r in written if r.ok] == [2]
    assert_all_answered(api)


# --- the board writer on its own -------------------------------------------------------------------------------


def snapshot_at(version: int) -> GameSnapshot:
    return GameSnapshot(1, version, PlayerKey("telegram", "1"), "Alice", Game.from_code(CODE))


class StoredGame:
    """The game as the database has it, for the board writer on its own: its version, and the reads made of it
    (``full``: the game, to draw it; ``versions``: its version alone)."""

    def __init__(self, version: int) -> None:
        self.version, self.full, self.versions = version, 0, 0

    async def latest(self, game_id: int) -> GameSnapshot:
        self.full += 1
        return snapshot_at(self.version)

    async def version_of(self, game_id: int) -> int:
        self.versions += 1
        return self.version


async def test_an_edit_draws_the_game_as_the_database_has_it_when_sent_and_follows_another_process() -> None:
    """The writer asks for the game as it stands when the chat's turn comes; after an edit it asks how far the game
    is (its version alone), and an edit another process made meanwhile (the game moved on there) is followed by one
    showing the newer state: one read of the game and one of its version an edit."""
    stored = StoredGame(3)
    drawn: list[int] = []

    async def edit(where: BoardRef, view: View, game: tuple[int, int]) -> bool:
        drawn.append(game[1])
        if game[1] == 3:
            stored.version = 5  # another process applied two moves while this edit was on its way
        return True

    edits = BoardEdits(ChatPace(None), stored.latest, stored.version_of)
    shown = await edits.show(BoardRef("1", "10"), snapshot_at(1), lambda s: View(header=str(s.version)), edit)
    assert shown
    assert drawn == [3, 5]  # never version 1: the database had 3 when the edit went; then 5 followed
    assert (stored.full, stored.versions) == (2, 2)


async def test_a_board_whose_game_did_not_move_is_edited_once() -> None:
    """With no move elsewhere, a tap's board is edited once, at the cost of one read of the game (to draw it) and
    one of its version (to learn that nothing moved since): never a second edit of the same state."""
    stored = StoredGame(1)
    drawn: list[int] = []

    async def edit(where: BoardRef, view: View, game: tuple[int, int]) -> bool:
        drawn.append(game[1])
        return True

    edits = BoardEdits(ChatPace(None), stored.latest, stored.version_of)
    assert await edits.show(BoardRef("1", "10"), snapshot_at(1), lambda s: View(header=""), edit)
    assert drawn == [1] and (stored.full, stored.versions) == (1, 1)


async def test_taps_while_an_edit_waits_are_shown_by_one_edit() -> None:
    drawn: list[int] = []
    gate = asyncio.Event()

    async def latest(game_id: int) -> GameSnapshot:
        await gate.wait()
        return snapshot_at(0)

    async def version(game_id: int) -> int:
        return 3  # the three taps' moves

    async def edit(where: BoardRef, view: View, game: tuple[int, int]) -> bool:
        drawn.append(game[1])
        return True

    async def open_gate() -> None:
        gate.set()

    edits = BoardEdits(ChatPace(None), latest, version)
    where = BoardRef("1", "10")
    # three taps register while the writer waits (the gate), then it goes: tasks start in the order given
    shown = await asyncio.gather(*(edits.show(where, snapshot_at(v), lambda s: View(header=''), edit) for v in (1, 2, 3)),
                                 open_gate())
    assert shown == [True, True, True, None]
    assert drawn == [3]


async def test_stopping_leaves_a_board_waiting_out_a_pause_as_it_is() -> None:
    """A board waiting out a long flood pause does not hold the bot's stop: its writer ends, the tap's handler is
    released, and nothing is edited."""
    drawn: list[int] = []

    async def latest(game_id: int) -> GameSnapshot:
        return snapshot_at(1)

    async def edit(where: BoardRef, view: View, game: tuple[int, int]) -> bool:
        drawn.append(game[1])
        return True

    pace = ChatPace(None)
    pace.paused(1, 3600.0)  # Telegram asked for an hour
    edits = BoardEdits(pace, latest, StoredGame(1).version_of)

    async def stop() -> None:
        await edits.close()

    shown, _ = await asyncio.gather(edits.show(BoardRef("1", "10"), snapshot_at(1), lambda s: View(header=""), edit),
                                    stop())
    assert shown and drawn == []


# --- a chat's turns on their own ----------------------------------------------------------------------------------


async def test_a_chats_next_turn_goes_to_the_message_waiting_longest() -> None:
    """The boards of a chat take turns by how long their change has waited, not by when their writer asked: a
    board whose change waits since earlier goes first."""
    pace = ChatPace(None)
    pace.paused(-1, 0.05)  # the chat cannot take a message just now: three wait
    order: list[str] = []

    async def write(name: str, since: float) -> None:
        await pace.turn(-1, since=since)
        order.append(name)

    now = time.monotonic()
    await asyncio.gather(write("recent", now - 1), write("oldest", now - 9), write("between", now - 5))
    assert order == ["oldest", "between", "recent"]


async def test_a_held_turn_is_the_one_its_request_uses_and_is_given_back_when_unused() -> None:
    """:meth:`ChatPace.holding` counts the message before it is drawn; the request made inside takes that turn
    rather than another, and a turn nothing used (the message already showed it) is given back."""
    pace = ChatPace(Pace(burst=1, per_second=0.001))
    async with pace.holding(5):
        assert pace.busy(5) > 0  # counted as the turn is taken, before anything is drawn
        await asyncio.wait_for(pace.turn(5), timeout=1.0)  # the held turn: no second message counted
    assert pace.busy(5) > 100  # the one message a thousand seconds allows is spent

    unused = ChatPace(Pace(burst=1, per_second=0.001))
    async with unused.holding(5):
        pass
    assert unused.busy(5) == 0.0  # given back
    await asyncio.wait_for(unused.turn(5), timeout=1.0)


def test_a_busy_chat_offers_each_player_their_own_board_once_in_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    """The offer is made to a player whose board is drawn while the chat is busy, stays on their boards for
    :data:`OFFER_SHOWN`, then is not made again in that chat before :data:`OFFER_AGAIN`; a quiet chat makes none."""
    now = [1000.0]
    monkeypatch.setattr(pacing.time, "monotonic", lambda: now[0])
    pace = ChatPace(TELEGRAM_PACE)
    offers = BusyOffers(pace)
    assert not offers.offer(-7, "alice")  # a group with its allowance whole: not busy
    pace.paused(-7, 4 * OFFER_AGAIN)  # busy from now on
    assert offers.offer(-7, "alice") and offers.offer(-7, "bob")
    assert not offers.offer(-8, "carol")  # another, quiet group
    now[0] += OFFER_SHOWN / 2
    assert offers.offer(-7, "alice")  # kept while it is shown
    now[0] += OFFER_SHOWN
    assert not offers.offer(-7, "alice")  # then left off, the group still busy
    now[0] += OFFER_AGAIN
    assert offers.offer(-7, "alice")  # made again after a while
