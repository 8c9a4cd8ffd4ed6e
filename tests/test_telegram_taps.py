"""Every tap counts in a busy group (issue 49), under Telegram's flood control as the fake Bot API applies it
(about one message a second a chat, 20 a minute in a group, edits counted) and the bot at its production pace.

Players tap the board as it is on their screen: in a busy group that board trails the game by seconds, so a Draw
tapped on it carries an older version than the game's. Each such tap is the player's own and applies, unless it is
a double tap (the same button on the same board version within :data:`~bot.app.moves.DOUBLE_TAP_WITHIN`); the toast
(answerCallbackQuery: never rate limited) says at once what happened. When the taps come is driven by the tap
clock (:class:`~tests.app_helpers.TapTimes`): the players' rhythm is the test's to set, never a sleep.
"""

# ruff: noqa: F811 - the fixtures imported from the other Telegram tests are named as parameters

from __future__ import annotations

import datetime as dt

import pytest

from bot.app.assembly import App
from bot.app.codec import decode
from bot.app.commands import AskHint, Move
from bot.app.moves import DOUBLE_TAP_WITHIN
from core.deal import GameCode
from core.game import DRAW, Draw, Game
from tests.app_helpers import TapTimes
from tests.fakes.telegram_bot_api import CallbackAnswer, FakeBotAPI, FakeChat, FakeUser, StoredMessage
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    CODE,
    HANDLED,
    NEW,
    assert_all_answered,
    command,
    db_url,
    drew,
    game_of,
    no_errors_logged,
    running_bot,
    text_boards,
)
from tests.test_telegram_pacing import CATCH_UP, api, service  # noqa: F401 - the fixtures are used by name

pytestmark = pytest.mark.timeout(180)

#: The toast of a double tap of Draw.
DRAWN_ALREADY = "Drawn already: the board is catching up"


class Tapper:
    """A player in a group tapping the board as their screen shows it now (behind the game while it waits for the
    group's allowance)."""

    def __init__(self, api: FakeBotAPI, user: FakeUser, chat: FakeChat, board: StoredMessage) -> None:
        self.api, self.user, self.chat, self.board = api, user, chat, board
        self.game_id, _ = game_of(board)
        self.game = Game.from_code(CODE)

    def on_screen(self) -> StoredMessage:
        return self.api.message(self.chat, self.board.message_id)

    def button(self, kind: type) -> str:
        """The callback data of the button of ``kind`` (Draw, Hint) on the board as the screen shows it now."""
        for _, data in self.on_screen().buttons:
            command = decode(data or "")
            if isinstance(command, Move) and isinstance(command.action, kind) or isinstance(command, kind):
                return data or ""
        raise AssertionError(f"no {kind.__name__} on {self.on_screen().buttons}")

    async def press(self, data: str) -> CallbackAnswer:
        press = self.api.press(self.user, self.chat, self.board.message_id, data, check_button=False)
        return await press.answer()

    def shows(self, version: int) -> bool:
        return game_of(self.on_screen()) == (self.game_id, version)


async def test_three_players_drawing_in_a_row_in_a_busy_group_lose_no_tap(api: FakeBotAPI, service: App) -> None:
    """Three players in one group, each tapping Draw every 1.5 s on the board as it shows (which trails the game):
    no Draw is refused, each toast names the card it drew, and each board ends on its player's last draw. A
    double tap in between (Draw again a tenth of a second later, on the same board) draws nothing more, and its
    toast says so instead of claiming the board shows the game."""
    times = TapTimes(service)
    users = [api.user(name) for name in ("Alice", "Bob", "Carol")]
    group = api.group("Club", members=users)
    players = [Tapper(api, user, group, await command(api, user, group, f"{NEW} {CODE}")) for user in users]
    rounds = 8
    behind = 0  # taps made on a board that did not show the game yet

    for round_ in range(rounds):
        for player in players:
            times.wait(0.5)  # three players in turn: each taps every 1.5 s
            data = player.button(Draw)
            behind += decode(data) != Move(player.game_id, player.game.moves, DRAW)
            answer = await player.press(data)
            outcome = player.game.push(DRAW)
            assert outcome.card is not None
            assert answer.text == drew(outcome.card), (player.user.first_name, round_)
            if round_ == 3 and player is players[0]:  # Alice's finger taps twice: the same button, at once
                times.wait(DOUBLE_TAP_WITHIN / 4)
                answer = await player.press(data)
                assert answer.text == DRAWN_ALREADY

    assert behind > rounds  # the boards really trailed: most taps were made on an older board
    for player in players:
        stored = await service.games.game(player.game_id)
        assert stored.game.moves == rounds and stored.game.stock_left == 23 - rounds  # every Draw applied once
        await api.wait_until(lambda p=player: p.shows(rounds), timeout=CATCH_UP * 3,  # type: ignore[misc]
                             what=f"{player.user.first_name}'s board to show the last draw")
    assert api.flood_refusals() == []
    assert_all_answered(api)
async def test_a_hint_in_a_busy_group_comes_in_the_toast_at_once(api: FakeBotAPI, service: App) -> None:
    """💡 tapped while the group's boards wait for their turn: the toast carries the hint's words at once, for the
    game as it stands (the board, one Draw behind, is asked about the game now), and the board shows it when it
    catches up."""
    times = TapTimes(service)
    users = [api.user(name) for name in ("Alice", "Bob", "Carol", "Dave")]
    group = api.group("Club", members=users)
    players = [Tapper(api, user, group, await command(api, user, group, f"{NEW} {CODE}")) for user in users]
    for player in players[:3]:  # the group's allowance goes to the others' boards
        for _ in range(3):
            times.wait(0.5)
            await player.press(player.button(Draw))
    dave = players[3]
    times.wait(0.5)
    await dave.press(dave.button(Draw))
    assert not dave.shows(1)  # his board waits its turn
    times.wait(1.0)
    answer = await dave.press(dave.button(AskHint))
    game = Game.from_code(CODE)
    game.push(DRAW)
    hinted = next(iter(game.legal_actions()))  # the stand-in solver's hint: the first legal action
    assert answer.text is not None and answer.text.startswith("Hint: ")
    assert answer.text == hint_line(game, hinted)
    await api.wait_until(lambda: answer.text in (dave.on_screen().text or ""), timeout=CATCH_UP * 3,
                         what="Dave's board to show the hint")
    assert api.flood_refusals() == []
    assert_all_answered(api)


def hint_line(game: Game, action: object) -> str:
    """The stand-in solver's hint as the board's status says it (it knows no chance: the plain words)."""
    from bot.render.tableau import card_label
    from core.game import Tap

    if isinstance(action, Tap):
        return f"Hint: play {card_label(game.card_at(action.slot))}"
    return "Hint: draw a card from the stock"


# --- the day's end and the group's leaderboard ------------------------------------------------------------------

DAY = dt.date(2026, 12, 2)


class DayClock:
    """The service's clock (the daily deal's day), as the test moves it."""

    def __init__(self, service: App, now: dt.datetime) -> None:
        self.now = now
        service.daily_codes.clock = self
        service.day_end.clock = self
        service.daily_codes.function = lambda day, secret: GameCode.parse(CODE if day == DAY else "TP1-E-AAAAAAD")

    def __call__(self) -> dt.datetime:
        return self.now


async def test_the_daily_attempt_left_open_past_midnight_says_the_day_is_over(
        api: FakeBotAPI, service: App) -> None:
    """Alice leaves her attempt open at 23:59; past midnight the day's end ends it, and her Draw on it the next day
    says the day is over (as the README promises), not "out of date"; the board says so too, not "abandoned"."""
    clock = DayClock(service, dt.datetime.combine(DAY, dt.time(23, 59), tzinfo=dt.UTC))
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    board = await command(api, alice, chat, "/daily")
    player = Tapper(api, alice, chat, board)
    assert (await player.press(player.button(Draw))).text is not None
    await api.wait_until(lambda: player.shows(1), timeout=CATCH_UP, what="the board to show the draw")
    clock.now = dt.datetime.combine(DAY + dt.timedelta(days=1), dt.time(0, 0, 1), tzinfo=dt.UTC)
    assert await service.day_end.end_past_attempts() == 1
    answer = await player.press(player.button(Draw))
    assert answer.text == "The daily deal of Dec 2, 2026 is over: only today's can be played"
    await api.wait_until(lambda: "The day is over" in (player.on_screen().text or ""), timeout=CATCH_UP,
                         what="the board to say the day is over")
    assert "abandoned" not in (player.on_screen().text or "") and player.on_screen().buttons == []
    assert (await service.games.game(player.game_id)).game.moves == 1
    assert api.flood_refusals() == []
    assert_all_answered(api)


async def test_a_member_who_played_the_daily_privately_is_listed_once_seen_in_the_group(
        api: FakeBotAPI, service: App) -> None:
    """Alice and Carol play the daily in their private chats; Alice then types /leaderboard in the group (she has
    never started a game there): the group's leaderboard lists her attempt, and not Carol's, who was never seen
    there. Once Carol taps something in the group (her own game's board), she is listed too."""
    DayClock(service, dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC))
    alice, bob, carol = api.user("Alice"), api.user("Bob"), api.user("Carol")
    group = api.group("Club", members=[alice, bob, carol])
    for user in (alice, carol):
        chat = api.private_chat(user)
        player = Tapper(api, user, chat, await command(api, user, chat, "/daily"))
        await player.press(player.button(Draw))
    text = (await command(api, alice, group, "/leaderboard")).text or ""
    assert "Alice" in text and "Carol" not in text
    bobs = Tapper(api, bob, group, await command(api, bob, group, f"{NEW} TP1-E-AAAAAAC"))
    # Carol taps Bob's board in the group: not hers, but she is seen there
    await api.press(carol, group, bobs.board.message_id, bobs.button(Draw), check_button=False).answer()
    text = (await command(api, bob, group, "/leaderboard")).text or ""
    assert "Alice" in text and "Carol" in text and "Bob" not in text  # Bob has not played the daily
    assert_all_answered(api)
