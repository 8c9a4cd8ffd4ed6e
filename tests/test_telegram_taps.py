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

import pytest

from bot.app.assembly import App
from bot.app.codec import decode
from bot.app.commands import AskHint, Move
from bot.app.moves import DOUBLE_TAP_WITHIN
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
